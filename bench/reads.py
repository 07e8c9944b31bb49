#!/usr/bin/env python3
"""The store's read paths on a log that already exists: no load, the same timings.

`bench/store.py` loads the workload and then calls `time_reads` (below); at 1M events
the load takes minutes, so this script measures a copy of a workspace built before
(`bench/lsp.py --keep DIR`, or any `.cairn/` holding the shared workload):

    PYTHONSAFEPATH=1 .venv/bin/python bench/reads.py --reuse /path/to/ws1m

What "cold" means for a file's 500 statuses: entities nobody asked about yet in this
process (the store's remembered statuses are cleared before each batch) on the store's
one connection, with the operating system's page cache as it is (the log and index were
just copied, so they are in it). The `fresh connection` row also starts each batch on a
new `Store` (SQLite's own page cache empty): an editor's first file.

Every latency row is wall time with the process's CPU time beside it (a shared
machine: wall time includes waiting for a core, CPU time does not), and what the
slowest 1% of calls waited on: `io` (the call blocked: a read the page cache missed),
`preempted` (the scheduler gave its core to another process), `gc` (a collection ran).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from workload import load_peer

BATCH_ENTITIES = 500
BATCHES = 50


_GC_RUNS = [0]
gc.callbacks.append(lambda phase, _: _GC_RUNS.__setitem__(0, _GC_RUNS[0] + (phase == "start")))


def _timed(fn: Callable[[Any], Any], args: list[Any]) -> tuple[list[float], list[float], list[str]]:
    """Wall and CPU milliseconds of each call, and what it waited on besides the CPU:
    "io" when it blocked (a voluntary context switch: a read the page cache missed),
    "preempted" when the scheduler gave its core away, "gc" when a collection ran."""
    wall, cpu, waits = [], [], []
    for a in args:
        r0, g0 = resource.getrusage(resource.RUSAGE_SELF), _GC_RUNS[0]
        t0, c0 = time.perf_counter(), time.process_time()
        fn(a)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - t0) * 1000)
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        why = []
        if r1.ru_nvcsw > r0.ru_nvcsw:
            why.append("io")
        if r1.ru_nivcsw > r0.ru_nivcsw:
            why.append("preempted")
        if _GC_RUNS[0] > g0:
            why.append("gc")
        waits.append("+".join(why))
    return wall, cpu, waits


def _stats(peer: Any, wall: list[float], cpu: list[float], waits: list[str]) -> dict[str, Any]:
    slow = sorted(range(len(wall)), key=wall.__getitem__)[-max(1, len(wall) // 100) :]
    causes = Counter(waits[i] or "none" for i in slow)
    return {
        "p50_ms": round(peer.pct(wall, 50), 3),
        "p99_ms": round(peer.pct(wall, 99), 3),
        "cpu_p50_ms": round(peer.pct(cpu, 50), 3),
        "cpu_p99_ms": round(peer.pct(cpu, 99), 3),
        "slowest_1pct_waited_on": dict(causes.most_common()),
    }


def time_reads(
    store: Any, used: list[str], *, seed: int, queries: int, peer: Any
) -> dict[str, dict[str, float]]:
    """Prior attempts and status of single entities, then a file's 500 statuses cold
    and again; `used` is every entity path the workload wrote (sorted)."""
    rng = random.Random(seed + 7)
    sample = [rng.choice(used) for _ in range(queries)]
    for p in sample[:10]:  # warm-up, as the peer harness does
        store.prior_attempts(p)
        store.status(p)
    pa = _stats(peer, *_timed(store.prior_attempts, sample))
    st = _stats(peer, *_timed(store.status, sample))
    # The editor's question: every entity of a file at once.
    batches = [
        rng.sample(used, min(BATCH_ENTITIES, len(used))) for _ in range(BATCHES)
    ]  # fmt: skip
    store.status_many(batches[0])

    wall, cpu, waits = [], [], []
    for b in batches[1:]:
        store.clear_caches()  # cold: a file whose entities nobody asked about yet
        w, c, why = _timed(store.status_many, [b])
        wall += w
        cpu += c
        waits += why
    batch = _stats(peer, wall, cpu, waits)
    # The editor re-analyses the same file on every keystroke.
    again = _stats(peer, *_timed(store.status_many, [batches[-1]] * 20))
    return {
        "prior_attempts": pa,
        "status": st,
        "batch_status": batch,
        "batch_status_again": again,
    }


def time_fresh_batches(cairn_dir: Path, used: list[str], *, seed: int, peer: Any) -> dict[str, Any]:
    """A file's 500 statuses, each batch on a new `Store` (SQLite's page cache empty);
    opening the store is not timed."""
    from cairn.store import Store

    rng = random.Random(seed + 11)
    wall, cpu, waits = [], [], []
    for _ in range(20):
        batch = rng.sample(used, min(BATCH_ENTITIES, len(used)))
        with Store.open(cairn_dir) as store:
            w, c, why = _timed(store.status_many, [batch])
        wall += w
        cpu += c
        waits += why
    return _stats(peer, wall, cpu, waits)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reuse", type=Path, required=True, help="a workspace (or its .cairn/)")
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20260601)
    args = ap.parse_args(argv)
    source = args.reuse if args.reuse.name == ".cairn" else args.reuse / ".cairn"
    if not (source / "decisions.jsonl").is_file():
        ap.error(f"--reuse {args.reuse}: no decisions.jsonl there")
    from cairn.store import Store

    peer = load_peer()
    workdir = Path(tempfile.mkdtemp(prefix="cairn-bench-reads-"))
    try:
        # A copy: opening the store may catch its index up; the source stays as it was.
        cairn_dir = workdir / ".cairn"
        shutil.copytree(source, cairn_dir)
        c0 = time.process_time()
        with Store.open(cairn_dir) as store:
            used = store.entities()
            events = store.index.event_count()
            r = time_reads(store, used, seed=args.seed, queries=args.queries, peer=peer)
        r["batch_status_fresh"] = time_fresh_batches(cairn_dir, used, seed=args.seed, peer=peer)
        cpu_s = time.process_time() - c0
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    rows = [
        ("prior-attempts", r["prior_attempts"]),
        ("status", r["status"]),
        (f"status of {BATCH_ENTITIES} entities, cold", r["batch_status"]),
        (f"status of {BATCH_ENTITIES} entities, cold, fresh connection", r["batch_status_fresh"]),
        (f"same {BATCH_ENTITIES} again", r["batch_status_again"]),
    ]
    print(f"\ncairn store reads: {events:,} events, {len(used):,} entities ({source})\n")
    width = max(len(name) for name, _ in rows)
    print(
        f"{'measure':<{width}}  {'p50':>9}  {'p99':>9}  {'CPU p50':>9}  {'CPU p99':>9}  "
        "the slowest 1% waited on"
    )
    for name, s in rows:
        causes = ", ".join(f"{k} {v}" for k, v in s["slowest_1pct_waited_on"].items())
        print(
            f"{name:<{width}}  {s['p50_ms']:>6.3f} ms  {s['p99_ms']:>6.3f} ms  "
            f"{s['cpu_p50_ms']:>6.3f} ms  {s['cpu_p99_ms']:>6.3f} ms  {causes}"
        )
    load = os.getloadavg()
    print(
        f"\nmachine: {os.cpu_count()} cpu, load average {load[0]:.2f} {load[1]:.2f} "
        f"{load[2]:.2f} at the end; this process used {cpu_s:.1f} s CPU"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
