#!/usr/bin/env python3
"""The language server's budgets, measured over stdio against the real `cairn serve`.

A workspace whose log holds N events (the shared workload from
../shared/bench/peer_selvedge.py, loaded with the store's `append_many`) and a
5,000-line SQL migration with 500 entity symbols (250 `ALTER TABLE t ADD COLUMN c`,
each a table reference plus a column, on entities that have history in the log).

    PYTHONSAFEPATH=1 .venv/bin/python bench/lsp.py                  # 10k events
    PYTHONSAFEPATH=1 .venv/bin/python bench/lsp.py --events 1000000
    PYTHONSAFEPATH=1 .venv/bin/python bench/lsp.py --reuse /path/to/ws1m   # a copy of a
        workspace built before with --keep (its events are not loaded again; the source
        folder is never written)

Measured (medians of noisy runs on a shared 2-core machine; read them as orders; the
package's bytecode is compiled first, as installing a wheel does):
hover p50/p99; didOpen -> diagnostics for the whole file (with, per round, the server's
CPU and its time waiting for a core from /proc/PID/task/*/schedstat, and the Editor's
own CPU: the parts the wall time is made of on a shared machine; and the CPU of a fixed
loop in this process before each round: the machine's speed, which moved 2x within
minutes on the development VM, and the server's CPU with it); didChange -> diagnostics
with the debounce set to 0 (so the figure excludes it); process start and
initialize -> first diagnostics (with the scripted Editor, whose own pygls client work
counts too, and with a raw client that writes and reads the frames itself), as a
ratio to a bare pygls server publishing one diagnostic (bench/lsp_floor_server.py),
the two started alternately in the same run (the budget: at most 1.2x); the server's
peak RSS (VmHWM).

    PYTHONSAFEPATH=1 .venv/bin/python bench/lsp.py --only-start   # the start figures only
    ... --compare OTHER/.venv/bin/cairn   # another build's `cairn serve` in the same
        alternation (a before/after of a change to start-up)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cairn.indexer import index_text
from cairn.store import Store, init_store
from cairn.testing.editor import Editor

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from workload import load_peer, to_draft

FILE_LINES = 5000
STATEMENTS = 250  # two entity symbols each: the table and the column
TARGETS = {
    "hover p99": "< 5 ms",
    "full-file diagnostics": "< 30 ms",
    "start -> first diagnostics": "< 500 ms",
    "start vs the floor": "<= 1.20x",
    "peak RSS": "< 200 MB",
}


def reuse_copy(source: Path, root: Path) -> None:
    """Copy a kept workspace's `.cairn/` (log, index, side files) into `root`."""
    shutil.copytree(source / ".cairn", root / ".cairn", dirs_exist_ok=True)


def build_workspace(root: Path, events: int, seed: int) -> list[str]:
    """Load the workload into root/.cairn; the column entities that have history."""
    peer = load_peer()
    cairn_dir = init_store(root)
    paths = peer.build_paths(max(1, events // 10))
    gen = peer.generate_events(
        events, paths, seed=seed, supersede_rate=0.1, reasoning_bytes=200, diff_bytes=0
    )
    ids: dict[str, tuple[str, str]] = {}
    columns: set[str] = set()
    started = time.perf_counter()
    with Store.open(cairn_dir) as store:
        for batch in peer.batched(gen, 20_000):
            drafts = [to_draft(e, ids) for e in batch]
            columns.update(e["entity_path"] for e in batch if e["entity_type"] == "column")
            for e, ev in zip(batch, store.append_many(drafts), strict=True):
                ids[e["id"]] = (ev.id, ev.type.value)
            print(
                f"  loaded {len(ids):>9} events {time.perf_counter() - started:6.1f}s",
                file=sys.stderr,
            )
    return sorted(columns)


def migration_text(columns: list[str], seed: int) -> str:
    """5,000 lines: 250 ALTER TABLE ... ADD COLUMN statements among comment lines."""
    rng = random.Random(seed)
    chosen = rng.sample(columns, min(STATEMENTS, len(columns)))
    per = FILE_LINES // STATEMENTS
    lines: list[str] = []
    for entity in chosen:
        table, column = entity.split(".")
        lines.append(f"ALTER TABLE {table} ADD COLUMN {column} integer NOT NULL DEFAULT 0;")
        lines.extend(
            f"-- note {len(lines)}: backfill in batches of 10k rows" for _ in range(per - 1)
        )
    return "\n".join(lines) + "\n"


def compile_bytecode() -> None:
    """Compile the installed package's bytecode, as installing a wheel does.

    An editable install never writes it when PYTHONDONTWRITEBYTECODE is set, and every
    server start would then compile Cairn's modules from source: a cost users never pay.
    """
    import compileall

    import cairn

    compileall.compile_dir(Path(cairn.__file__).parent, quiet=1)


def ms(seconds: float) -> float:
    return seconds * 1000


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def cpu_ms(pid: int | None) -> float:
    """CPU time (user + system) the process has used: what contention cannot inflate."""
    if pid is None:
        return float("nan")
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def sched_ms(pid: int | None) -> tuple[float, float]:
    """(CPU time, time spent runnable but waiting for a core), summed over the process's
    threads, in ms at nanosecond resolution (/proc/PID/task/*/schedstat): what one
    request costs, and how much of its wall time the machine's other work took."""
    if pid is None:
        return float("nan"), float("nan")
    run = wait = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "schedstat").read_text().split()
        except OSError:  # the thread ended meanwhile
            continue
        run += int(fields[0])
        wait += int(fields[1])
    return run / 1e6, wait / 1e6


def reference_ms() -> float:
    """CPU time of a fixed piece of Python work (dict inserts and a sum) in this process:
    the machine's speed at this moment. On the development VM it moved 2x within
    minutes (4 to 9 ms for the same loop, no steal time counted), and the server's CPU
    per didOpen moved with it (19 to 30 ms for the same code), so a round's figure is
    read next to it."""
    started = time.thread_time()
    table: dict[int, int] = {}
    for i in range(20_000):
        table[i] = i * 3
    sum(table.values())
    return ms(time.thread_time() - started)


def memory_mb(pid: int | None) -> dict[str, float]:
    """Peak RSS (VmHWM), and the current split: private (anon) vs file-backed pages.

    File-backed pages (shared libraries; the store memory-mapped the log until it
    switched to pread) are shared with the page cache and reclaimable, but count in RSS.
    """
    out = {"VmHWM": float("nan"), "RssAnon": float("nan"), "RssFile": float("nan")}
    if pid is None:
        return out
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in out:
            out[key] = int(line.split()[1]) / 1024
    return out


async def start_once(
    root: Path, path: Path, text: str, env: dict[str, str], command: list[str] | None = None
) -> dict[str, float]:
    """One server start: process start -> the first diagnostics for `path` (wall, and
    the server's CPU time when they arrived)."""
    editor = Editor(env=env, command=command)
    t0 = time.perf_counter()
    await editor.start(root, options={"debounceMs": 0})
    t1 = editor.spawned_at  # the process is up: initialize is sent from here
    uri = editor.open(path, text)
    diagnostics = await editor.wait_diagnostics(uri)
    t2 = time.perf_counter()
    out = {"start": ms(t2 - t0), "open": ms(t2 - t1), "cpu": cpu_ms(editor.pid)}
    out["diagnostics"] = len(diagnostics)
    await editor.stop()
    return out


def initialize_params(root: Path) -> dict[str, Any]:
    """What the raw clients (here and bench/lsp_instructions.py) initialize with."""
    return {
        "processId": os.getpid(),
        "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        "initializationOptions": {"debounceMs": 0},
    }


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def _read_frame(stdout: asyncio.StreamReader) -> dict[str, Any]:
    header = await stdout.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in header.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    message: dict[str, Any] = json.loads(await stdout.readexactly(length))
    return message


async def raw_start(
    root: Path, path: Path, text: str, env: dict[str, str], command: list[str]
) -> dict[str, float]:
    """One server start with a client that costs nothing: the bench writes the frames
    (initialize, initialized, didOpen) and reads the answers itself. The Editor's rows
    also count its own work (pygls on the client side structures every message)."""
    t0 = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    params = initialize_params(root)
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
    while (await _read_frame(proc.stdout)).get("id") != 1:
        pass
    item = {"uri": path.as_uri(), "languageId": "sql", "version": 1, "text": text}
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    proc.stdin.write(
        frame(
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}}
        )
    )
    while True:
        message = await _read_frame(proc.stdout)
        if message.get("method") == "textDocument/publishDiagnostics":
            break
    out = {"start": ms(time.perf_counter() - t0), "cpu": cpu_ms(proc.pid)}
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.close()
    await proc.wait()
    return out


async def raw_opens(
    root: Path, path: Path, text: str, env: dict[str, str], rounds: int
) -> dict[str, float]:
    """didOpen -> publish with a client that costs nothing: the bench writes the frames
    and reads the publish with `json.loads` (the Editor's pygls client also structures
    every diagnostic into lsprotocol objects, a few ms a file that a real editor's
    client does not spend on our behalf). Medians: wall, and the server's CPU and its
    wait for a core (schedstat)."""
    command = [str(Path(sys.executable).with_name("cairn")), "serve"]
    proc = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        limit=1 << 24,
    )
    assert proc.stdin is not None and proc.stdout is not None
    params = {
        "processId": os.getpid(),
        "rootUri": root.as_uri(),
        "capabilities": {"textDocument": {"publishDiagnostics": {"versionSupport": True}}},
        "initializationOptions": {"debounceMs": 0, "pollIntervalMs": 0},
    }
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}))
    while (await _read_frame(proc.stdout)).get("id") != 1:
        pass
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))

    async def open_and_wait(target: Path) -> None:
        item = {"uri": target.as_uri(), "languageId": "sql", "version": 1, "text": text}
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(
            frame(
                {
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": {"textDocument": item},
                }
            )
        )
        while True:
            message = await _read_frame(proc.stdout)
            if (
                message.get("method") == "textDocument/publishDiagnostics"
                and message["params"]["uri"] == target.as_uri()
            ):
                return

    await open_and_wait(path)
    await idle(proc.pid)
    walls: list[float] = []
    split: list[tuple[float, float]] = []
    for i in range(rounds):
        run0, wait0 = sched_ms(proc.pid)
        t0 = time.perf_counter()
        await open_and_wait(path.with_name(f"0999_raw_{i}.sql"))
        walls.append(ms(time.perf_counter() - t0))
        run1, wait1 = sched_ms(proc.pid)
        split.append((run1 - run0, wait1 - wait0))
    proc.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    proc.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    proc.stdin.close()
    await proc.wait()
    return {
        "wall": statistics.median(walls),
        "cpu": statistics.median(r[0] for r in split),
        "wait": statistics.median(r[1] for r in split),
    }


async def idle(pid: int | None, timeout: float = 30.0) -> None:
    """Wait until the server's CPU time stops growing (its background work is done),
    so it is not counted against the rounds that follow."""
    deadline = time.monotonic() + timeout
    last = cpu_ms(pid)
    while time.monotonic() < deadline:
        await asyncio.sleep(0.3)
        now = cpu_ms(pid)
        if now == last:
            return
        last = now


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


def python_cpu(code: str, env: dict[str, str]) -> float:
    """CPU time (ms) of a fresh interpreter running `code` (its own count, at the end)."""
    probe = (
        f"{code}\nimport resource as _r\n_u = _r.getrusage(_r.RUSAGE_SELF)\n"
        "print((_u.ru_utime + _u.ru_stime) * 1000)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    return float(done.stdout.split()[-1])


async def measure_start(
    root: Path, path: Path, text: str, runs: int, env: dict[str, str], compare: str | None
) -> dict[str, Any]:
    """Process start -> first diagnostics of `cairn serve` (what editors run) and of the
    floor, a bare pygls server publishing one diagnostic, started alternately so both
    see the same machine; the same with a raw client; and the CPU floors below them."""
    commands = {
        "cli": [str(Path(sys.executable).with_name("cairn")), "serve"],
        "floor": [sys.executable, str(Path(__file__).resolve().with_name("lsp_floor_server.py"))],
    }
    if compare:
        commands["compare"] = [compare, "serve"]
    editor: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    raw: dict[str, list[dict[str, float]]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            editor[name].append(await start_once(root, path, text, env, command=command))
            raw[name].append(await raw_start(root, path, text, env, command))
    out: dict[str, Any] = {name: medians(found) for name, found in editor.items()}
    out.update({f"raw_{name}": medians(found) for name, found in raw.items()})
    # the ratio of the medians, and the spread of the per-round ratios
    rounds = [c["start"] / f["start"] for c, f in zip(editor["cli"], editor["floor"], strict=True)]
    out["ratio"] = (out["cli"]["start"] / out["floor"]["start"], min(rounds), max(rounds))
    out["raw_ratio"] = out["raw_cli"]["start"] / out["raw_floor"]["start"]
    out["python"] = statistics.median(python_cpu("pass", env) for _ in range(runs))
    out["lsprotocol"] = statistics.median(
        python_cpu("import lsprotocol.types", env) for _ in range(runs)
    )
    return out


async def measure(root: Path, text: str, args: argparse.Namespace) -> dict[str, Any]:
    path = root / "db" / "migrations" / "0999_bench.sql"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    symbols = index_text(text, "db/migrations/0999_bench.sql")
    results: dict[str, Any] = {"symbols": len(symbols)}

    env = {**os.environ, "PYTHONSAFEPATH": "1"}
    return await _measure(root, path, text, symbols, results, args, env)


async def _measure(
    root: Path,
    path: Path,
    text: str,
    symbols: list[Any],
    results: dict[str, Any],
    args: argparse.Namespace,
    env: dict[str, str],
) -> dict[str, Any]:
    started = await measure_start(root, path, text, args.starts, env, args.compare)
    results["starts"] = started
    results["start"] = started["cli"]["start"]
    results["open"] = started["cli"]["open"]
    results["cpu"] = started["cli"]["cpu"]
    results["diagnostics"] = int(started["cli"]["diagnostics"])
    if args.only_start:
        return results

    results["raw_full"] = await raw_opens(root, path, text, env, args.rounds)

    editor = Editor(env=env)
    await editor.start(root, options={"debounceMs": 0, "pollIntervalMs": 0})
    try:
        uri = editor.open(path, text)
        await editor.wait_diagnostics(uri)
        await idle(editor.pid)  # the hover prefetch of the first file is done

        # didOpen of the whole file -> its diagnostics (parse, symbols, statuses, publish),
        # with the server's CPU time for it (what waiting for a core cannot inflate; the
        # kernel counts it in 10 ms ticks, so it is the mean over the rounds).
        # Per round, from schedstat: the server's CPU, the time it waited for a core,
        # and this process's CPU (the Editor: pygls encoding the didOpen, decoding the
        # publish), which together make up the wall time on a busy machine.
        full: list[float] = []
        split: list[tuple[float, float, float]] = []
        reference: list[float] = []
        c0 = cpu_ms(editor.pid)
        for i in range(args.rounds):
            other = path.with_name(f"0999_bench_{i}.sql")
            reference.append(reference_ms())
            run0, wait0 = sched_ms(editor.pid)
            own0 = time.process_time()
            t0 = time.perf_counter()
            other_uri = editor.open(other, text)
            await editor.wait_diagnostics(other_uri)
            full.append(ms(time.perf_counter() - t0))
            run1, wait1 = sched_ms(editor.pid)
            split.append((run1 - run0, wait1 - wait0, ms(time.process_time() - own0)))
        results["full_cpu"] = (cpu_ms(editor.pid) - c0) / args.rounds
        results["full"] = statistics.median(full)
        results["full_min"] = min(full)
        results["full_split"] = tuple(statistics.median(r[k] for r in split) for k in range(3))
        # The machine's speed over the rounds, and the server's CPU per round in units of
        # the reference loop's (what compares across hours of a VM whose speed moves).
        results["reference"] = (
            statistics.median(reference),
            min(reference),
            max(reference),
            statistics.median(r[0] / ref for r, ref in zip(split, reference, strict=True)),
        )

        # didChange (one character in a comment) -> diagnostics for that version.
        change = []
        line = 1
        c0 = cpu_ms(editor.pid)
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            version = editor.change(uri, (line, 3), (line, 4), "N")
            await editor.wait_diagnostics(uri, version=version)
            change.append(ms(time.perf_counter() - t0))
        results["change_cpu"] = (cpu_ms(editor.pid) - c0) / args.rounds
        results["change"] = statistics.median(change)

        # hover on every entity symbol, round-robin.
        rng = random.Random(args.seed)
        positions = [(s.name_range.start_line, s.name_range.start_character + 1) for s in symbols]
        for line_no, char in positions[:20]:
            await editor.hover(uri, line_no, char)
        hovers = []
        c0 = cpu_ms(editor.pid)
        for _ in range(args.hovers):
            line_no, char = rng.choice(positions)
            t0 = time.perf_counter()
            await editor.hover(uri, line_no, char)
            hovers.append(ms(time.perf_counter() - t0))
        # What the server spends per hover: the wall time's p99 on a shared machine is
        # mostly waiting for a core (two processes take turns per request).
        results["hover_cpu"] = (cpu_ms(editor.pid) - c0) / args.hovers
        results["hover_p50"] = pct(hovers, 50)
        results["hover_p99"] = pct(hovers, 99)
        results["memory"] = memory_mb(editor.pid)
    finally:
        await editor.stop()
    return results


class Split:
    """Wall and CPU time (this thread's: what waiting for a core cannot inflate) of the
    steps of one piece of work, step by step; medians over the rounds."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}
        self._t = (0.0, 0.0)

    def start(self) -> None:
        self._t = (time.perf_counter(), time.thread_time())

    def mark(self, step: str) -> None:
        now = (time.perf_counter(), time.thread_time())
        self.wall.setdefault(step, []).append(ms(now[0] - self._t[0]))
        self.cpu.setdefault(step, []).append(ms(now[1] - self._t[1]))
        self._t = now

    def medians(self) -> dict[str, tuple[float, float]]:
        return {
            k: (statistics.median(self.wall[k]), statistics.median(self.cpu[k])) for k in self.wall
        }


class _Sink:
    """Where the in-process server writes its messages (the bytes are dropped)."""

    def write(self, data: bytes) -> None:
        self.size = len(data)

    def close(self) -> None:
        return None


def in_process(root: Path, text: str, rounds: int) -> dict[str, Any]:
    """Where a full-file analysis and an edit's spend their time, without the transport:
    the indexer's share, the store's, and the server's own (findings, their wire-form
    diagnostics, the publish's encoding by the server's protocol), each step as the
    server does it."""
    from cairn.core.findings import Severities, findings_for
    from cairn.indexer import Document
    from cairn.lsp.analysis import Analysis, same_inputs
    from cairn.lsp.conversions import diagnostic
    from cairn.lsp.server import build_server

    server = build_server()
    server.protocol.set_writer(_Sink())  # type: ignore[arg-type]
    severities = Severities()

    def publish(uri: str, version: int, diagnostics: list[dict[str, Any]]) -> None:
        server.publish_diagnostics(uri, version, diagnostics)

    opened, edited = Split(), Split()
    with Store.open(root / ".cairn") as store:
        for i in range(rounds):
            name = f"db/migrations/in_process_{i}.sql"
            uri = (root / name).as_uri()
            opened.start()
            doc = Document(name, text)
            opened.mark("indexer: tree-sitter parse (new document)")
            found = tuple(doc.symbols)
            opened.mark("indexer: symbols")
            status = store.status_many(sorted({s.entity for s in found}))
            opened.mark("store: status_many, 500 entities, " + ("cold" if i == 0 else "warm"))
            findings = tuple(findings_for(found, status, severities))
            opened.mark("lsp/core: findings")
            diagnostics = tuple(diagnostic(f) for f in findings)
            opened.mark("lsp: diagnostics (wire form)")
            publish(uri, 1, list(diagnostics))
            opened.mark("lsp: encode and write the publish")
            # what the server does next, while the client reads the diagnostics
            doc.remember_chunks()
            opened.mark("indexer: fill the edit cache (after the publish)")
            before = Analysis(1, found, status, findings, diagnostics, severities, len(findings))
            # didChange: one character in a comment, as the stdio rounds do; the server
            # reuses the findings when no symbol moved (lsp/analysis.py).
            edited.start()
            doc.edit(1, 3, 1, 4, "N")
            again = tuple(doc.symbols)
            edited.mark("indexer: edit, reparse, symbols")
            if same_inputs(before, again, status, severities):
                reused = before.diagnostics
            else:
                reused = tuple(diagnostic(f) for f in findings_for(again, status, severities))
            edited.mark("lsp/core: findings and diagnostics (reused: no symbol moved)")
            publish(uri, 2, list(reused))
            edited.mark("lsp: encode and write the publish")
    return {"opened": opened.medians(), "edited": edited.medians()}


def start_rows(st: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The start-up figures: Cairn against the floor, as a ratio."""
    compared = (
        [
            ("compared: the other build's `cairn serve`", f"{st['compare']['start']:.0f} ms", ""),
            ("  its server CPU time", f"{st['compare']['cpu']:.0f} ms", ""),
            ("  a raw client", f"{st['raw_compare']['start']:.0f} ms", ""),
            ("  its server CPU time", f"{st['raw_compare']['cpu']:.0f} ms", ""),
        ]
        if "compare" in st
        else []
    )
    return [
        ("process start -> first diagnostics, `cairn serve`", f"{st['cli']['start']:.0f} ms",
         TARGETS["start -> first diagnostics"]),
        ("  its server CPU time", f"{st['cli']['cpu']:.0f} ms", ""),
        ("  initialize -> first diagnostics", f"{st['cli']['open']:.0f} ms", ""),
        ("floor: a bare pygls server, start -> one diagnostic", f"{st['floor']['start']:.0f} ms",
         ""),
        ("  its server CPU time", f"{st['floor']['cpu']:.0f} ms", ""),
        ("start vs the floor (ratio of medians; per round min-max)", f"{st['ratio'][0]:.2f}x",
         f"{TARGETS['start vs the floor']} ({st['ratio'][1]:.2f}-{st['ratio'][2]:.2f})"),
        ("  a raw client (the bench writes and reads the frames): `cairn serve`",
         f"{st['raw_cli']['start']:.0f} ms", ""),
        ("    its server CPU time", f"{st['raw_cli']['cpu']:.0f} ms", ""),
        ("  a raw client: the floor", f"{st['raw_floor']['start']:.0f} ms", ""),
        ("    its server CPU time", f"{st['raw_floor']['cpu']:.0f} ms", ""),
        ("  a raw client: the ratio", f"{st['raw_ratio']:.2f}x", ""),
        *compared,
        ("floor: CPU of `python -c pass`", f"{st['python']:.0f} ms", ""),
        ("floor: CPU of `import lsprotocol.types` alone", f"{st['lsprotocol']:.0f} ms", ""),
    ]  # fmt: skip


def other_rows(r: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Hover, diagnostics, memory and the in-process split."""
    return [
        ("hover p50", f"{r['hover_p50']:.2f} ms", ""),
        ("hover p99", f"{r['hover_p99']:.2f} ms", TARGETS["hover p99"]),
        ("  server CPU time per hover (mean)", f"{r['hover_cpu']:.2f} ms", ""),
        ("full-file diagnostics (didOpen -> publish)", f"{r['full']:.1f} ms",
         TARGETS["full-file diagnostics"]),
        ("  server CPU time per didOpen (mean)", f"{r['full_cpu']:.1f} ms", ""),
        ("  fastest didOpen -> publish", f"{r['full_min']:.1f} ms", ""),
        ("  server CPU per didOpen (schedstat)", f"{r['full_split'][0]:.1f} ms", ""),
        ("  server waiting for a core per didOpen (schedstat)", f"{r['full_split'][1]:.1f} ms",
         ""),
        ("  client (Editor, pygls) CPU per didOpen", f"{r['full_split'][2]:.1f} ms", ""),
        ("  machine speed: a fixed loop's CPU before each round, median (min-max)",
         f"{r['reference'][0]:.2f} ms", f"({r['reference'][1]:.2f}-{r['reference'][2]:.2f})"),
        ("  server CPU per didOpen in fixed loops (speed-independent)",
         f"{r['reference'][3]:.2f}", ""),
        ("  raw client (the bench writes and reads the frames)", f"{r['raw_full']['wall']:.1f} ms",
         ""),
        ("    its server CPU per didOpen (schedstat)", f"{r['raw_full']['cpu']:.1f} ms", ""),
        ("    its server waiting for a core per didOpen", f"{r['raw_full']['wait']:.1f} ms", ""),
        ("didChange -> diagnostics (debounce 0)", f"{r['change']:.1f} ms", ""),
        ("  server CPU time per didChange (mean)", f"{r['change_cpu']:.1f} ms", ""),
        ("peak RSS (VmHWM)", f"{r['memory']['VmHWM']:.0f} MB", TARGETS["peak RSS"]),
        ("  of which private (RssAnon, at the end)", f"{r['memory']['RssAnon']:.0f} MB", ""),
        ("  of which file-backed (RssFile)", f"{r['memory']['RssFile']:.0f} MB", ""),
        *[(f"  in process, didOpen: {name}", f"{w:.1f}/{c:.1f}", "ms wall/CPU")
          for name, (w, c) in r["opened"].items()],
        *[(f"  in process, didChange: {name}", f"{w:.1f}/{c:.1f}", "ms wall/CPU")
          for name, (w, c) in r["edited"].items()],
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rounds", type=int, default=15, help="opens and changes to time")
    parser.add_argument("--hovers", type=int, default=1000)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--only-start", action="store_true", help="measure the start only")
    parser.add_argument("--compare", metavar="CAIRN", help="another build's cairn executable")
    parser.add_argument("--keep", type=Path, help="build the workspace here and keep it")
    parser.add_argument(
        "--reuse",
        type=Path,
        help="measure a copy of this workspace (built before with --keep); it is not written",
    )
    args = parser.parse_args(argv)
    if args.reuse is not None and not (args.reuse / ".cairn" / "decisions.jsonl").is_file():
        parser.error(f"--reuse {args.reuse}: no .cairn/decisions.jsonl; build one with --keep")

    root = args.keep or Path(tempfile.mkdtemp(prefix="cairn-bench-lsp-"))
    try:
        if args.reuse is not None:
            # A copy: the server catches the index up and writes beside it; the shared
            # workspace must stay as it was for the next run.
            reuse_copy(args.reuse, root)
        if not (root / ".cairn" / "decisions.jsonl").exists():
            root.mkdir(parents=True, exist_ok=True)
            build_workspace(root, args.events, args.seed)
        with Store.open(root / ".cairn") as store:
            columns = sorted(e for e in store.entities() if "." in e and "/" not in e)
            events = store.index.event_count()
        text = migration_text(columns, args.seed)
        compile_bytecode()
        r = asyncio.run(measure(root, text, args))
        if not args.only_start:
            r.update(in_process(root, text, args.rounds))
        r["events"] = events
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)

    rows = start_rows(r["starts"])
    if not args.only_start:
        rows += other_rows(r)
    print(
        f"\ncairn-lsp over stdio: {r['events']:,} events in the log; a {FILE_LINES:,}-line "
        f"file with {r['symbols']} entity symbols and {r['diagnostics']} diagnostics "
        "(medians)\n"
    )
    width = max(len(name) for name, _, _ in rows)
    print(f"{'measure':<{width}}  {'median':>10}  target")
    for name, value, target in rows:
        print(f"{name:<{width}}  {value:>10}  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
