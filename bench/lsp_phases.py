#!/usr/bin/env python3
"""Where the server's start-up goes, phase by phase, in one fresh interpreter.

Run by `bench/lsp.py` (not by hand): `lsp_phases.py ROOT FILE` does, in order, what
`cairn serve` does before its first diagnostics (the same calls, without the transport)
and prints each phase's CPU time as JSON. The code cache (`cairn.lsp.codegen_cache`)
is whatever XDG_CACHE_HOME holds: the caller decides cold or warm.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path


def cpu_ms() -> float:
    use = resource.getrusage(resource.RUSAGE_SELF)
    return (use.ru_utime + use.ru_stime) * 1000


def main() -> None:
    root, file = Path(sys.argv[1]), sys.argv[2]
    out: dict[str, float] = {}
    last = [cpu_ms(), time.perf_counter()]
    out["interpreter start (before this script)"] = last[0]

    def mark(name: str) -> None:
        now = cpu_ms()
        out[name] = now - last[0]
        last[0] = now

    from cairn.lsp.startup import prepare

    prepare()
    mark("prepare: GC paused, code cache loaded")
    import lsprotocol.types  # noqa: F401

    mark("import lsprotocol.types (attrs classes)")
    import pygls.lsp.server  # noqa: F401

    mark("import pygls (and asyncio)")
    from cairn.lsp import server as server_module

    mark("import cairn.lsp.server (Cairn's modules)")
    server = server_module.build_server()
    server_module.settle()
    mark("build the server (protocol converter, features)")

    from cairn.indexer.languages import language_for
    from cairn.indexer.queries import builtin_for_file

    language = language_for(file)
    assert language is not None
    builtin_for_file(language, file.rsplit("/", 1)[-1])  # what Document compiles
    mark("compile the tree-sitter query (the file's language)")
    from cairn.indexer import Document

    text = (root / file).read_text(encoding="utf-8")
    doc = Document(file, text)
    symbols = tuple(doc.symbols)
    mark("parse and symbols (the opened file)")

    from cairn.core.project import Project
    from cairn.core.session import Session

    session = Session.open(Project(root=root, cairn_dir=root / ".cairn"))
    mark("open the store (catch-up check)")
    statuses = session.statuses(sorted({s.entity for s in symbols}))
    mark("statuses of the file's entities (store, cold)")

    from lsprotocol import types

    from cairn.core.findings import findings_for
    from cairn.lsp.conversions import to_diagnostic

    diagnostics = [to_diagnostic(f) for f in findings_for(symbols, statuses)]
    mark("findings and diagnostics")
    params = types.PublishDiagnosticsParams(
        uri=(root / file).as_uri(), version=1, diagnostics=diagnostics
    )
    body = json.dumps(server.protocol._converter.unstructure(params))
    assert body
    mark("encode the publish (cattrs + json)")
    session.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
