#!/usr/bin/env python3
"""Where the server's start-up goes, phase by phase, in one fresh interpreter.

Run by `bench/lsp.py` (not by hand): `lsp_phases.py ROOT FILE` does, in order, what
`cairn serve` does on stdio before and after its first diagnostics (the same calls,
without the transport) and prints each phase's CPU time as JSON:

* before the first answer, the bootstrap (`cairn.lsp.bootstrap`): its imports, the
  initialize answer, the project session (`Session.open` + `warm`), the indexer, the
  tree-sitter query, the document's symbols, the statuses, the findings as JSON;
* after it, the handover: the code cache, the LSP types, pygls, Cairn's server modules
  and building the server (what the first answer no longer waits for).

`lsp_phases.py --whole ROOT FILE` instead runs the real `Bootstrap` over a file holding
the client's first three frames and prints its CPU time (what the phases add up to).
The code cache (`cairn.lsp.codegen_cache`) is whatever XDG_CACHE_HOME holds.
"""

from __future__ import annotations

import io
import json
import resource
import sys
import tempfile
from pathlib import Path


def cpu_ms() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return (use.ru_utime + use.ru_stime) * 1000


def frames(root: Path, file: str) -> bytes:
    """What an editor sends first: initialize, initialized, didOpen."""
    path = root / file
    sent = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {},
                "initializationOptions": {"debounceMs": 0},
            },
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": path.as_uri(),
                    "languageId": "sql",
                    "version": 1,
                    "text": path.read_text(encoding="utf-8"),
                }
            },
        },
    ]
    out = b""
    for message in sent:
        body = json.dumps(message).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(body) + body
    return out


def whole(root: Path, file: str) -> dict[str, float]:
    """The real bootstrap, start to first publish (and the handover's imports)."""
    out = {"interpreter start (before this script)": cpu_ms()}
    start = cpu_ms()
    from cairn.lsp.startup import pause_gc

    pause_gc()
    from cairn.lsp.bootstrap import Bootstrap

    with tempfile.TemporaryFile() as stdin:
        stdin.write(frames(root, file))
        stdin.seek(0)
        sink = io.BytesIO()
        handover = Bootstrap(stdin.fileno(), sink).run()
    assert handover.published, handover.reason
    out["bootstrap: imports to first publish"] = cpu_ms() - start
    start = cpu_ms()
    from cairn.lsp.startup import prepare

    prepare()
    from cairn.lsp.server import build_server

    server = build_server()
    server.carry_on(handover)
    out["handover: code cache, LSP types, pygls, the server built"] = cpu_ms() - start
    server.hub.shutdown()
    return out


def phases(root: Path, file: str) -> dict[str, float]:
    out: dict[str, float] = {}
    last = [cpu_ms()]
    out["interpreter start (before this script)"] = last[0]

    def mark(name: str) -> None:
        now = cpu_ms()
        out[name] = now - last[0]
        last[0] = now

    from cairn.lsp.startup import pause_gc

    pause_gc()
    from cairn.lsp import bootstrap

    mark("bootstrap: import (orjson, settings, wire)")
    from cairn.core.project import ProjectFinder

    finder = ProjectFinder()
    result = bootstrap.initialize_result({}, pulls=False, version=bootstrap.installed_version())
    answer = bootstrap.orjson.dumps({"id": 1, "result": result, "jsonrpc": "2.0"})
    assert answer
    mark("bootstrap: the initialize answer")
    from cairn.core.session import Session

    project = finder.for_path(root)
    assert project is not None
    session = Session.open(project)
    session.warm()
    mark("bootstrap: open the store (import, catch-up check, warm)")
    import cairn.indexer

    mark("bootstrap: import the indexer")
    from cairn.indexer.languages import language_for
    from cairn.indexer.queries import builtin_for_file

    language = language_for(file)
    assert language is not None
    builtin_for_file(language, file.rsplit("/", 1)[-1])  # what Document compiles
    mark("bootstrap: compile the tree-sitter query (the file's language)")
    text = (root / file).read_text(encoding="utf-8")
    doc = cairn.indexer.Document(file, text)
    symbols = tuple(doc.symbols)
    mark("bootstrap: parse and symbols (the opened file)")
    statuses = session.statuses(sorted({s.entity for s in symbols}))
    mark("bootstrap: statuses of the file's entities (store, cold)")
    from cairn.core.findings import findings_for
    from cairn.lsp.wire import diagnostic

    diagnostics = [diagnostic(f) for f in findings_for(symbols, statuses)]
    mark("bootstrap: findings as JSON diagnostics")
    params = {"uri": (root / file).as_uri(), "diagnostics": diagnostics, "version": 1}
    body = bootstrap.orjson.dumps({"params": params, "method": bootstrap.PUBLISH})
    assert body
    mark("bootstrap: encode the publish (orjson)")
    from cairn.lsp.startup import prepare

    prepare()
    mark("handover: code cache loaded")
    import lsprotocol.types  # noqa: F401

    mark("handover: import lsprotocol.types (attrs classes)")
    import pygls.lsp.server  # noqa: F401

    mark("handover: import pygls (and asyncio)")
    from cairn.lsp import server as server_module

    mark("handover: import cairn.lsp.server (Cairn's modules)")
    server = server_module.build_server()
    mark("handover: build the server (protocol converter, features)")
    server.hub.shutdown()
    session.close()
    return out


def main() -> None:
    if sys.argv[1] == "--whole":
        print(json.dumps(whole(Path(sys.argv[2]), sys.argv[3])))
    else:
        print(json.dumps(phases(Path(sys.argv[1]), sys.argv[2])))


if __name__ == "__main__":
    main()
