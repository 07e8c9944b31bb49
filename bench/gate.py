#!/usr/bin/env python3
"""The gate at the speed of an edit: Cairn's hook, `cairn check` and `cairn status` side
by side with Selvedge's `selvedge-hook pretooluse`, in one run, on logs of three sizes.

    PYTHONSAFEPATH=1 .venv/bin/python bench/gate.py --work /tmp/gate-bench
    ... --sizes 1,16k           # leave out the 1M log (its load takes about a minute)
    ... --runs 30 --json out.jsonl

The logs (built once under --work and reused by later runs, so a before/after reads
the same bytes; delete a folder to rebuild it):
  1     one revert on `users.email` in a fresh repository (Selvedge's README's case)
  16k   a real history: `cairn import git` of prettier/prettier at the commit
        bench/recall.py benchmarks (7.6k events today, 595 of them
        reverts), cloned from the local mirror (--mirror-root; no network)
  1M    the shared workload (../shared/bench/peer_selvedge.py, as bench/store.py loads
        it) plus the same `users.email` revert, in a fresh repository

Each command runs --runs times as its own process (as a hook or a pre-commit runs it):
p50/p99 of the wall time, the median CPU time of the process and its children
(`getrusage`), and the share of the median spent importing (`-X importtime` of one more
run, through PYTHONPROFILEIMPORTTIME, which the hook's `cairn` child inherits; summed
over every process that reports). Selvedge's hook runs on the 1-event log: it asks
whether prior attempts were looked up, reading no more of a bigger log. The hook runs
as installed for a user: `cairn` on PATH, no CAIRN_BIN (which makes it spawn).
The import share is of the profiled run's own wall time.

The hook runs cold (CAIRN_GATE_DAEMON=0: the check in its own process) and warm (a
`cairn gate-daemon` of the log's project, started before and answering over its socket;
the hook's CPU is its own process's, and the daemon's own CPU per call, read from
/proc, is the row's `daemon cpu`), plain and as `python3 -S` (no site-packages on the
way to the socket). `cairn check` and `cairn status` run cold (CAIRN_GATE_DAEMON=0) and
warm (the rows named "... warm": the same daemon runs the command and the console
script, cairn.cli.entry, prints its answer).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from workload import REPO, load_peer, to_draft

from cairn.testing.gitenv import isolated_env

BIN = Path(sys.executable).parent
# `python3` as a user's PATH gives it, without a version manager's shim (pyenv's costs
# 0.5 s a call here): the interpreter this virtual environment was made from.
PYTHON3 = os.path.realpath(sys.executable)
CAIRN = BIN / "cairn"
HOOK = REPO / "editors" / "claude-code" / "hooks" / "cairn_pretooluse.py"
PEER_VENV = Path("/tmp/selvedge-venv")
PEER_COMMIT = "4f84a934201322ca87750e2b9b25baf296da6560"  # bench/recall.py's prettier
MIGRATION = "ALTER TABLE users ADD COLUMN email text;\n"
CLEAN = "CREATE TABLE orders (id integer primary key, total numeric);\n"
# A one-file change to the real history: a small function added to a source file.
EDITED = "src/main/core.js"
ADDED = "\nfunction cairnBenchHelper(text) {\n  return text.trim().length > 0;\n}\n"
# Bytecode is written and read, as after installing a wheel (`compile_package`): a
# PYTHONDONTWRITEBYTECODE in the caller's environment would make every call compile.
ENV = isolated_env("bench", "bench@example.com", PYTHONSAFEPATH="1", CAIRN_BIN=str(CAIRN))
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
_IMPORT_LINE = re.compile(rb"^import time:\s+(\d+)\s+\|\s+\d+\s+\|", re.M)


def compile_package() -> None:
    """Compile Cairn's modules where they are imported from (the editable install's link
    tree, or a PYTHONPATH copy), as pip does for a wheel."""
    import cairn

    folder = Path(cairn.__file__).parent
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder)], env=ENV, check=True)


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=ENV, check=True, capture_output=True)


def cairn(cwd: Path, *args: str) -> None:
    proc = subprocess.run([str(CAIRN), *args], cwd=cwd, env=ENV, capture_output=True)
    if proc.returncode != 0:
        sys.exit(f"cairn {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")


# --- the logs -------------------------------------------------------------------------


def small_repo(root: Path) -> None:
    """A git repository with db/001.sql committed and a migration to edit."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    (root / "db").mkdir()
    (root / "db" / "001.sql").write_text(CLEAN)
    (root / "db" / "002.sql").write_text("-- next migration\n")


def revert_email(root: Path) -> None:
    cairn(root, "log", "users.email", "add", "--reason", "added for sso")
    cairn(root, "revert", "users.email", "--reason", "broke sso")


def build_one(root: Path) -> None:
    small_repo(root)
    cairn(root, "init")
    revert_email(root)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")


def build_real(root: Path, mirror_root: Path) -> None:
    mirror = mirror_root / "prettier+prettier" / "repo"
    subprocess.run(
        ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(root)],
        check=True,
        env=ENV,
    )
    git(root, "checkout", "-q", PEER_COMMIT)
    cairn(root, "init")
    git(root, "checkout", "-q", "--", ".")  # `cairn init` may touch .gitignore
    t0 = time.perf_counter()
    cairn(root, "import", "git")
    print(f"  16k: imported in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def build_million(root: Path, events: int) -> None:
    from cairn.store import Store, init_store

    small_repo(root)
    peer = load_peer()
    init_store(root)
    paths = peer.build_paths(max(1, events // 10))
    gen = peer.generate_events(
        events, paths, seed=7, supersede_rate=0.1, reasoning_bytes=200, diff_bytes=0
    )
    ids: dict[str, tuple[str, str]] = {}
    t0 = time.perf_counter()
    with Store.open(root / ".cairn") as store:
        for batch in peer.batched(gen, 10_000):
            results = store.append_many([to_draft(e, ids) for e in batch])
            for e, r in zip(batch, results, strict=True):
                ids[e["id"]] = (r.id, e["change_type"])
    print(f"  1M: loaded in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    revert_email(root)
    (root / "entity.txt").write_text(paths[len(paths) // 2][0])  # (path, kind) pairs
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")


def build_peer(root: Path, events: int) -> None:
    """Selvedge's project: `selvedge init`, then the `users.email` revert (`events` 1)."""
    small_repo(root)
    env = {**ENV, "HOME": str(root)}
    peer_bin = PEER_VENV / "bin"
    subprocess.run([peer_bin / "selvedge", "init"], cwd=root, env=env, check=True, **_quiet())
    subprocess.run(
        [peer_bin / "selvedge", "log", "users.email", "revert", "-r", "broke sso"],
        cwd=root,
        env=env,
        check=True,
        **_quiet(),
    )


def _quiet() -> dict[str, Any]:
    return {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}


def ensure(path: Path, build: Callable[[Path], None]) -> Path:
    if not (path / ".done").exists():
        if path.exists():
            shutil.rmtree(path)
        build(path)
        (path / ".done").write_text("")
    return path


# --- timing ---------------------------------------------------------------------------


def run_once(
    cmd: list[str], cwd: Path, stdin: bytes, env: dict[str, str]
) -> tuple[float, float, int, bytes]:
    """(wall ms, CPU ms of the process and its children, exit code, stderr)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _out, err = proc.communicate(stdin)
    wall = (time.perf_counter() - t0) * 1000
    # communicate() reaped it already: the CPU of finished children is the delta
    return wall, 0.0, proc.returncode, err


def measure(
    name: str, cmd: list[str], cwd: Path, stdin: bytes, expect: int, runs: int, env: dict[str, str]
) -> dict[str, Any]:
    walls: list[float] = []
    cpus: list[float] = []
    run_once(cmd, cwd, stdin, env)  # warm: the page cache, an index a new schema rebuilds
    for _ in range(runs):
        # getrusage, not os.times: microseconds rather than 10 ms clock ticks
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall, _cpu, code, err = run_once(cmd, cwd, stdin, env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime))
        walls.append(wall)
        if code != expect:
            sys.exit(
                f"{name}: exit {code}, expected {expect}: {err.decode(errors='replace')[-400:]}"
            )
    profiled, _c, _code, err = run_once(cmd, cwd, stdin, {**env, "PYTHONPROFILEIMPORTTIME": "1"})
    imports_ms = sum(int(m) for m in _IMPORT_LINE.findall(err)) / 1000
    walls.sort()
    p50 = statistics.median(walls)
    row = {
        "name": name,
        "p50_ms": round(p50, 1),
        "p99_ms": round(walls[min(len(walls) - 1, round(0.99 * len(walls) + 0.5) - 1)], 1),
        "cpu_ms": round(statistics.median(cpus) * 1000, 1),
        "import_ms": round(imports_ms, 1),
        "import_share": round(imports_ms / profiled, 2) if profiled else None,
        "runs": runs,
    }
    print(json.dumps(row), file=sys.stderr, flush=True)  # as it comes: a long run may stop
    return row


@contextmanager
def gate_daemon(root: Path, env: dict[str, str]) -> Iterator[Callable[[], float]]:
    """A `cairn gate-daemon` serving `root` in a runtime folder of its own (in `env`), up
    and answering; yields a function giving its CPU seconds so far."""
    sys.path.insert(0, str(HOOK.parent))
    import cairn_pretooluse as wire

    proc = subprocess.Popen(
        [str(CAIRN), "gate-daemon", "--root", str(root), "--idle-timeout", "600"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        was = os.environ.get("XDG_RUNTIME_DIR")
        os.environ["XDG_RUNTIME_DIR"] = env["XDG_RUNTIME_DIR"]
        sock = wire.socket_path(str(root.resolve()))
        if was is None:
            os.environ.pop("XDG_RUNTIME_DIR")
        else:
            os.environ["XDG_RUNTIME_DIR"] = was
        assert sock is not None
        hello = {"protocol": wire.GATE_PROTOCOL, "version": wire.CAIRN_VERSION, "hello": True}
        while True:
            if proc.poll() is not None:
                sys.exit("the gate daemon exited")
            try:
                import socket

                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
                    conn.connect(str(sock))
                    conn.sendall(wire.request_line(hello))
                    if wire.read_line(conn, 4096):
                        break
            except OSError:
                time.sleep(0.05)
        ticks = os.sysconf("SC_CLK_TCK")

        def cpu() -> float:
            fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime

        yield cpu
    finally:
        proc.terminate()
        proc.wait()


def warm_rows(
    name: str, root: Path, stdin: bytes, expect: int, runs: int, env: dict[str, str]
) -> list[dict[str, Any]]:
    """The hook answered by a warm daemon: plain, and as `python3 -S`."""
    import tempfile

    runtime = tempfile.mkdtemp(prefix="cg-bench-", dir="/tmp")
    warm_env = {**env, "XDG_RUNTIME_DIR": runtime, "CAIRN_GATE_DAEMON": "1"}
    rows = []
    try:
        with gate_daemon(root, warm_env) as daemon_cpu:
            for label, cmd in (
                ("warm", [PYTHON3, str(HOOK)]),
                ("warm, -S (as installed)", [PYTHON3, "-S", str(HOOK)]),
            ):
                spent = daemon_cpu()
                row = measure(f"{name} {label}", cmd, root, stdin, expect, runs, warm_env)
                # (runs + the warm-up and the profiled run)
                row["daemon_cpu_ms"] = round((daemon_cpu() - spent) * 1000 / (runs + 2), 1)
                rows.append(row)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    return rows


def hook_payload(root: Path, tool: str, file: str, **args: Any) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "hook_event_name": "PreToolUse",
            "cwd": str(root),
            "tool_name": tool,
            "tool_input": {"file_path": str(root / file), **args},
        }
    ).encode()


Change = tuple[Path, str] | None  # a file's content for the row's run, put back after


@contextmanager
def changed(change: Change) -> Iterator[None]:
    if change is None:
        yield
        return
    path, content = change
    original = path.read_text()
    path.write_text(content)
    try:
        yield
    finally:
        path.write_text(original)


def cli_rows(
    root: Path, specs: list[tuple[str, list[str], bytes, int, Change]], runs: int
) -> list[dict[str, Any]]:
    """Each `cairn` command cold (CAIRN_GATE_DAEMON=0: the interpreter imports Cairn),
    then warm: a `cairn gate-daemon` of the project runs it and the console script
    (cairn.cli.entry) replays its answer."""
    import tempfile

    cold_env = {**ENV, "CAIRN_GATE_DAEMON": "0"}
    rows = []
    for name, cmd, stdin, expect, change in specs:
        with changed(change):
            rows.append(measure(name, cmd, root, stdin, expect, runs, cold_env))
    runtime = tempfile.mkdtemp(prefix="cg-bench-", dir="/tmp")
    warm_env = {**ENV, "XDG_RUNTIME_DIR": runtime, "CAIRN_GATE_DAEMON": "1"}
    try:
        with gate_daemon(root, warm_env) as daemon_cpu:
            for name, cmd, stdin, expect, change in specs:
                if cmd[1:] == ["--version"]:
                    continue  # never warm: the floor of the cold CLI
                with changed(change):
                    spent = daemon_cpu()
                    row = measure(f"{name} warm", cmd, root, stdin, expect, runs, warm_env)
                    row["daemon_cpu_ms"] = round((daemon_cpu() - spent) * 1000 / (runs + 2), 1)
                    rows.append(row)
    finally:
        shutil.rmtree(runtime, ignore_errors=True)
    return rows


def cairn_rows(label: str, root: Path, runs: int) -> list[dict[str, Any]]:
    """The hook, `cairn check` (a one-file diff; a proposed edit on stdin), `cairn
    status`, and `cairn --version` (the CLI's floor) on one log, cold and warm."""
    hook = [PYTHON3, str(HOOK)]
    # as installed for a user: `cairn` on PATH, no CAIRN_BIN (which makes the hook spawn)
    hook_env = {k: v for k, v in ENV.items() if k != "CAIRN_BIN"}
    hook_env["PATH"] = f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"
    hook_env["CAIRN_GATE_DAEMON"] = "0"  # cold; warm_rows runs it with a daemon
    rows = []
    if label == "16k":
        edited = root / EDITED
        original = edited.read_text()
        edit = hook_payload(
            root, "Edit", EDITED, old_string=original[-40:], new_string=original[-40:] + ADDED
        )
        rows.append(measure("hook (Edit, one function)", hook, root, edit, 0, runs, hook_env))
        rows += warm_rows("hook (Edit)", root, edit, 0, runs, hook_env)
        file, content, data, found, entity = EDITED, original + ADDED, (original + ADDED), 0, EDITED
    else:
        write = hook_payload(root, "Write", "db/002.sql", content=MIGRATION)
        rows.append(
            measure("hook (Write, re-adds users.email)", hook, root, write, 2, runs, hook_env)
        )
        rows += warm_rows("hook (Write)", root, write, 2, runs, hook_env)
        file, content, data, found = "db/002.sql", MIGRATION, MIGRATION, 1
        marker = root / "entity.txt"
        entity = marker.read_text().strip() if marker.exists() else "users.email"
    specs: list[tuple[str, list[str], bytes, int, Change]] = [
        (
            "cairn check --diff HEAD (1 file)",
            [str(CAIRN), "check", "--diff", "HEAD", "--", file],
            b"",
            found,
            (root / file, content),
        ),
        (
            "cairn check --stdin-filename",
            [str(CAIRN), "check", f"--stdin-filename={file}"],
            data.encode(),
            found,
            None,
        ),
        (f"cairn status {entity}", [str(CAIRN), "status", entity], b"", 0, None),
        ("cairn --version", [str(CAIRN), "--version"], b"", 0, None),
    ]
    return rows + cli_rows(root, specs, runs)


def peer_rows(root: Path, runs: int) -> list[dict[str, Any]]:
    env = {**ENV, "HOME": str(root)}
    cmd = [str(PEER_VENV / "bin" / "selvedge-hook"), "pretooluse"]
    write = hook_payload(root, "Write", "db/002.sql", content=MIGRATION)
    return [measure("selvedge-hook pretooluse (Write)", cmd, root, write, 2, runs, env)]


def check_cpu(root: Path, calls: int = 5) -> float:
    """CPU ms (median of `calls`) of `gate.check` on the 16k log's one-function edit, in
    this process after a warm call: the work, without the interpreter and the imports."""
    from cairn.core import gate
    from cairn.core.project import find_project

    project = find_project(root)
    target = gate.edit_target(project, EDITED, ((root / EDITED).read_text() + ADDED).encode())
    gate.check(project, [target])  # warm: an index on a new schema is rebuilt here
    spent = []
    for _ in range(calls):
        start = time.process_time()
        gate.check(project, [target])
        spent.append((time.process_time() - start) * 1000)
    return statistics.median(spent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/gate-bench"))
    parser.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--sizes", default="1,16k,1m")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--events", type=int, default=1_000_000, help="the 1M log's size")
    parser.add_argument("--json", type=Path, help="append the rows as JSON lines")
    parser.add_argument(
        "--check-cpu", action="store_true", help="only the 16k check's own CPU, in-process"
    )
    args = parser.parse_args()
    if args.check_cpu:
        print(f"gate.check CPU, median of 5: {check_cpu(args.work / 'ws16k'):.1f} ms")
        return 0
    sizes = [s.strip().lower() for s in args.sizes.split(",") if s.strip()]
    args.work.mkdir(parents=True, exist_ok=True)
    compile_package()
    floor = measure(
        "python3 -c pass (floor)", [PYTHON3, "-c", "pass"], args.work, b"", 0, args.runs, ENV
    )
    results: dict[str, list[dict[str, Any]]] = {}
    have_peer = (PEER_VENV / "bin" / "selvedge-hook").exists()
    for size in sizes:
        if size == "1":
            root = ensure(args.work / "ws1", build_one)
        elif size == "16k":
            root = ensure(args.work / "ws16k", lambda p: build_real(p, args.mirror_root))
        elif size == "1m":
            root = ensure(args.work / "ws1m", lambda p: build_million(p, args.events))
        else:
            sys.exit(f"unknown size {size!r}: 1, 16k or 1m")
        print(f"== log {size}", file=sys.stderr, flush=True)
        rows = cairn_rows(size, root, args.runs)
        if have_peer and size == "1":
            peer_root = ensure(args.work / "peer1", lambda p: build_peer(p, 1))
            rows += peer_rows(peer_root, args.runs)
        results[size] = rows
    load = os.getloadavg()
    print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.runs} runs each")
    # the CPU ratio is the one a loaded machine distorts least: wall times wait for turns
    heads = ("p50 ms", "p99 ms", "cpu ms", "import", "vs peer", "cpu/peer", "daemon")
    print(f"{'log':>4}  {'command':44} " + " ".join(f"{h:>8}" for h in heads))
    figures = (floor["p50_ms"], floor["p99_ms"], floor["cpu_ms"])
    print(f"{'':>4}  {floor['name']:44} " + " ".join(f"{v:8.1f}" for v in figures))
    for size, rows in results.items():
        peer = next((r for r in rows if r["name"].startswith("selvedge")), None)
        for r in rows:
            ratio = f"{r['p50_ms'] / peer['p50_ms']:.2f}x" if peer and r is not peer else ""
            cpu = f"{r['cpu_ms'] / peer['cpu_ms']:.2f}x" if peer and r is not peer else ""
            share = f"{r['import_share']:.0%}" if r["import_share"] is not None else ""
            daemon = f"{r['daemon_cpu_ms']:.1f}" if "daemon_cpu_ms" in r else ""
            print(
                f"{size:>4}  {r['name'][:44]:44} {r['p50_ms']:8.1f} {r['p99_ms']:8.1f} "
                f"{r['cpu_ms']:8.1f} {share:>7} {ratio:>8} {cpu:>8} {daemon:>8}"
            )
    if args.json:
        with args.json.open("a") as out:
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            for size, rows in [("floor", [floor]), *results.items()]:
                for r in rows:
                    out.write(json.dumps({"at": stamp, "log": size, "load": load[0], **r}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
