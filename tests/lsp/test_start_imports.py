"""What `cairn serve` imports to give its first diagnostics, read from `python -X importtime`
of a real server that a client starts, initializes, opens a migration in and stops.

Module sets, never times: each module named in NEVER is one the server once loaded
before its first diagnostics without needing it yet (the start budget is a ratio to a
bare pygls server: bench/lsp.py)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
from dataclasses import is_dataclass
from pathlib import Path
from typing import IO, Any

from cairn.store import EventDraft, Store, init_store

NEVER = {
    # the command line: `cairn serve` parses its options itself (cairn.lsp.command)
    "click",
    "cairn.cli.app",
    "cairn.cli.serve_cmd",
    "cairn.cli._common",
    "rich",
    "cairn.cli.store_cmds",
    "cairn.cli.check_cmd",
    "cairn.cli.import_cmds",
    # the version comes from `cairn.__version__`, not the installed metadata
    "importlib.metadata",
    "email",
    # other surfaces and tools
    "cairn.agents",
    "mcp",
    "pydantic",
    "cairn.importers",
    "cairn.export",
    "cairn.store.verify",
    # judging a revert is the git importer's and the gate's (the server asks `quiet`)
    "cairn.significance.judge",
    # the stderr log writer is a thread and a queue of lines (cairn.lsp.server)
    "logging.handlers",
}
# Dataclasses still built by the modules a start imports (a dataclass execs the source of
# its generated methods when its module is imported; a msgspec struct is built in C).
DATACLASSES = {
    "cairn.core.aliases.Link",  # its `members` take no part in equality
    "cairn.indexer.queries.CompiledQuery",  # fields outside equality, one set after init
    # `cairn --version` imports these and must not load msgspec (test_cold_imports)
    "cairn.core.commits.LinkResult",
    "cairn.core.project.Project",
}
NEEDED = {"cairn.lsp.server", "cairn.indexer.document", "cairn.store.store", "tree_sitter_sql"}


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stdout: IO[bytes]) -> dict[str, Any]:
    length = 0
    while (line := stdout.readline().strip()) != b"":
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    message: dict[str, Any] = json.loads(stdout.read(length))
    return message


def _modules(lines: list[str]) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in lines
        if line.startswith("import time:") and "self [us]" not in line
    }


def among(names: set[str], packages: set[str]) -> set[str]:
    """Those of `packages` that `names` holds, or a module of."""
    return {p for p in packages if any(n == p or n.startswith(p + ".") for n in names)}


def test_serve_imports_no_command_line_metadata_or_other_surface(tmp_path: Path) -> None:
    init_store(tmp_path)
    with Store.open(tmp_path / ".cairn") as store:
        store.append(EventDraft(type="add", entity="users.email", reasoning="Contact"))
        store.append(EventDraft(type="revert", entity="users.email", reasoning="PII"))
    path = tmp_path / "db" / "002_email.sql"
    path.parent.mkdir()
    text = "ALTER TABLE users ADD COLUMN email TEXT;\n"
    path.write_text(text)
    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    env.pop("CAIRN_DIR", None)
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "cairn", "serve"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stderr: list[str] = []
    reader = threading.Thread(
        target=lambda: stderr.extend(line.decode("utf-8", "replace") for line in proc.stderr),  # type: ignore[union-attr]
        daemon=True,
    )
    reader.start()
    try:
        root = tmp_path.as_uri()
        params = {"processId": os.getpid(), "rootUri": root, "capabilities": {}}
        proc.stdin.write(
            _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        )
        proc.stdin.flush()
        while _read(proc.stdout).get("id") != 1:
            pass
        item = {"uri": path.as_uri(), "languageId": "sql", "version": 1, "text": text}
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(
            _frame(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": {"textDocument": item},
                }
            )
        )
        proc.stdin.flush()
        while True:
            message = _read(proc.stdout)
            if message.get("method") == "textDocument/publishDiagnostics":
                break
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.close()
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
        reader.join(timeout=10)
    assert message["params"]["diagnostics"], "the revert of users.email is reported"
    # The whole run, so the set is read whole (a shutdown imports none of these either).
    imported = _modules(stderr)
    assert among(imported, NEEDED) == NEEDED
    assert among(imported, NEVER) == set()
    assert dataclasses_in(imported) == DATACLASSES


def dataclasses_in(modules: set[str]) -> set[str]:
    """The dataclasses that Cairn's modules among `modules` define."""
    found = set()
    for name in sorted(n for n in modules if n == "cairn" or n.startswith("cairn.")):
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, type) and value.__module__ == name and is_dataclass(value):
                found.add(f"{name}.{value.__qualname__}")
    return found
