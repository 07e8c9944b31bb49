#!/usr/bin/env python3
"""The start ratio of `bench/lsp.py --only-start`, counted in instructions.

On a loaded shared machine the wall and CPU times of a server's start move by 2x
between rounds; the instructions a start executes do not. This runs `cairn serve` and
the floor (`bench/lsp_floor_server.py`) once each under valgrind (cachegrind without
its cache simulation, PYTHONHASHSEED=0), each driven by a raw client the way
`bench/lsp.py`'s raw rows are: initialize, initialized, didOpen of the bench's
5,000-line migration. By default the server is stopped (SIGTERM) as soon as its first
publishDiagnostics arrives, so the count is start -> first diagnostics (what the
budget is about); with `--to-exit` it is sent shutdown and exit and the count runs to
the end of the process (the figures docs/performance.md gave before 2026-12-04).

    PYTHONSAFEPATH=1 .venv/bin/python bench/lsp.py --events 10000 --keep WS10K --only-start
    PYTHONSAFEPATH=1 .venv/bin/python bench/lsp_instructions.py WS10K

Needs valgrind (`apt-get install valgrind`); a run takes a minute or two per server.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import IO, Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from lsp import frame, initialize_params

BENCH_FILE = "db/migrations/0999_bench.sql"  # what bench/lsp.py --keep leaves
FLOOR = Path(__file__).resolve().with_name("lsp_floor_server.py")


def read_frame(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length"):
            length = int(line.split(b":")[1])
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def count(root: Path, command: list[str], to_exit: bool) -> tuple[int, int]:
    """(instructions, diagnostics in the first publish) of one start of `command`."""
    path = root / BENCH_FILE
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cachegrind.out"
        log = Path(tmp) / "valgrind.log"
        valgrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no"]
        valgrind += [f"--cachegrind-out-file={out}", f"--log-file={log}"]
        env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONHASHSEED": "0"}
        proc = subprocess.Popen(
            [*valgrind, *command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=root,
        )
        assert proc.stdin is not None and proc.stdout is not None
        params = initialize_params(root)
        send = proc.stdin.write
        send(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
        proc.stdin.flush()
        while read_frame(proc.stdout).get("id") != 1:
            pass
        item = {"uri": path.as_uri(), "languageId": "sql", "version": 1, "text": path.read_text()}
        send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        opened = {"textDocument": item}
        send(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": opened}))
        proc.stdin.flush()
        while True:
            message = read_frame(proc.stdout)
            if message.get("method") == "textDocument/publishDiagnostics":
                diagnostics = len(message["params"]["diagnostics"])
                break
        if to_exit:
            send(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            send(frame({"jsonrpc": "2.0", "method": "exit"}))
            proc.stdin.close()
        else:
            proc.send_signal(signal.SIGTERM)  # valgrind writes its counts as the process dies
        proc.wait()
        found = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text())
        if found is None:
            raise RuntimeError(f"valgrind reported no count:\n{log.read_text()}")
        return int(found.group(1).replace(",", "")), diagnostics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workspace", type=Path, help="a workspace kept by bench/lsp.py --keep")
    parser.add_argument("--to-exit", action="store_true", help="count to the process's end")
    parser.add_argument(
        "--cairn", default=str(Path(sys.executable).with_name("cairn")), help="the cairn to run"
    )
    args = parser.parse_args()
    root = args.workspace.resolve()
    if not (root / BENCH_FILE).is_file():
        parser.error(f"{root} has no {BENCH_FILE}: build it with bench/lsp.py --keep")
    servers = {"floor": [sys.executable, str(FLOOR)], "cairn serve": [args.cairn, "serve"]}
    counts = {name: count(root, command, args.to_exit) for name, command in servers.items()}
    end = "exit" if args.to_exit else "first diagnostics"
    floor = counts["floor"][0]
    for name, (instructions, diagnostics) in counts.items():
        print(
            f"{name:12} start -> {end}: {instructions / 1e6:9,.0f} M instructions "
            f"({diagnostics} diagnostics), {instructions / floor:.2f}x the floor"
        )


if __name__ == "__main__":
    main()
