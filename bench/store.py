#!/usr/bin/env python3
"""Cairn's store side by side with the Selvedge store, on the same workload, in one run.

The workload (events, paths, seed) comes from ../shared/bench/peer_selvedge.py, imported
by path, not copied. Selvedge runs in its own virtual environment (created on first use
under bench/.cache/, git-ignored) through that script's own adapter; Cairn runs here.

    PYTHONSAFEPATH=1 .venv/bin/python bench/store.py                 # 10k and 100k
    PYTHONSAFEPATH=1 .venv/bin/python bench/store.py --sizes 1000000 # peer: stored figure

Figures are medians of noisy runs on a shared machine: read the ratios.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from reads import time_reads
from workload import PEER_SCRIPT, REPO, load_peer, to_draft

PEER_RESULTS = PEER_SCRIPT.parent / "selvedge_results_2026-11-29.jsonl"
CACHE = REPO / "bench" / ".cache"
PEER_VENV = CACHE / "selvedge-venv"
PEER_VERSION = "0.3.17"


# --- Cairn ------------------------------------------------------------------------------


class _WriteClock:
    """CPU time inside `write_prepared` (append the lines, index them): the rest of a
    load's CPU is preparing the drafts (validation, masking, encoding, hashing)."""

    def __init__(self) -> None:
        import cairn.store.store as store_module

        self.cpu = 0.0
        self._module = store_module
        self._inner = store_module.write_prepared

        def timed(*args: Any, **kwargs: Any) -> Any:
            c0 = time.process_time()
            try:
                return self._inner(*args, **kwargs)
            finally:
                self.cpu += time.process_time() - c0

        store_module.write_prepared = timed  # type: ignore[assignment]

    def close(self) -> None:
        self._module.write_prepared = self._inner  # type: ignore[assignment]


def run_cairn(n: int, args: argparse.Namespace, peer: Any) -> dict[str, Any]:
    from cairn.store import Store, init_store
    from cairn.store.index import index_files

    workdir = Path(tempfile.mkdtemp(prefix=f"cairn-bench-{n}-"))
    try:
        cairn_dir = init_store(workdir)
        store = Store.open(cairn_dir)
        paths = peer.build_paths(max(1, n // 10))
        gen = peer.generate_events(
            n, paths, seed=args.seed, supersede_rate=0.1,
            reasoning_bytes=args.reasoning_bytes, diff_bytes=args.diff_bytes,
        )  # fmt: skip
        ids: dict[str, tuple[str, str]] = {}  # workload uuid -> (cairn id, type)
        used: set[str] = set()
        load_s = load_cpu = 0.0
        clock = _WriteClock()
        for batch in peer.batched(gen, args.batch):
            drafts = [to_draft(e, ids) for e in batch]
            used.update(e["entity_path"] for e in batch)
            t0, c0 = time.perf_counter(), time.process_time()
            events = store.append_many(drafts)
            load_s += time.perf_counter() - t0
            load_cpu += time.process_time() - c0
            for e, ev in zip(batch, events, strict=True):
                ids[e["id"]] = (ev.id, ev.type.value)
            if args.progress:
                print(f"  cairn loaded {len(ids):>9} events {load_s:7.1f}s", file=sys.stderr)
        clock.close()
        if args.keep_log:
            shutil.copyfile(cairn_dir / "decisions.jsonl", args.keep_log / f"cairn-{n}.jsonl")
        del ids
        gc.collect()

        # The reads are timed in a new process (`time_reads_apart`), as the editor's
        # server or a CLI command reads after an import: at 1M events this process's
        # heap after the load made each cold batch ~40% slower than a new process on the
        # same files (alternating blocks, one run). The batch is also timed here, as
        # before, for comparison (`batch_status_in_loading_process`).
        used_paths = sorted(used)
        store.close()  # as an import command ends: its connection closed, the WAL folded
        reads = time_reads_apart(cairn_dir, used_paths, args)
        store = Store.open(cairn_dir)
        here = time_reads(store, used_paths, seed=args.seed, queries=args.queries, peer=peer)
        reads["batch_status_in_loading_process"] = here["batch_status"]
        verify_s, verify_how = time_verify(cairn_dir, store)
        store.search("rollback plan")  # make sure the full-text index is part of the size
        store.index.checkpoint()
        log_bytes = (cairn_dir / "decisions.jsonl").stat().st_size
        index_bytes = sum(p.stat().st_size for p in index_files(cairn_dir))
        breakdown = store.index.size_breakdown()
        store.close()
        rebuild_s, rebuild_rss = time_rebuild(cairn_dir)
        return {
            "backend": "cairn",
            "n_events": n,
            "load_seconds": round(load_s, 2),
            "load_events_per_s": round(n / load_s),
            "load_cpu_us_per_event": round(load_cpu / n * 1e6, 1),
            "load_cpu_prepare_us_per_event": round((load_cpu - clock.cpu) / n * 1e6, 1),
            "load_cpu_write_index_us_per_event": round(clock.cpu / n * 1e6, 1),
            **reads,
            "verify_seconds": round(verify_s, 2),
            "rebuild_seconds": round(rebuild_s, 2),
            "rebuild_peak_rss_mb": round(rebuild_rss, 1),
            "verify_how": verify_how,
            "log_bytes_per_event": round(log_bytes / n, 1),
            "index_bytes_per_event": round(index_bytes / n, 1),
            "bytes_per_event": round((log_bytes + index_bytes) / n, 1),
            "index_breakdown_bytes_per_event": {k: round(v / n, 1) for k, v in breakdown.items()},
        }
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


_READS = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from reads import time_reads
from workload import load_peer
from cairn.store import Store
used = json.loads(Path(sys.argv[3]).read_text())
seed, queries = int(sys.argv[4]), int(sys.argv[5])
with Store.open(Path(sys.argv[2])) as store:
    found = time_reads(store, used, seed=seed, queries=queries, peer=load_peer())
print(json.dumps(found))
"""


def time_reads_apart(cairn_dir: Path, used: list[str], args: argparse.Namespace) -> Any:
    """`time_reads` in a new process that opens the loaded store (the same sample of
    entities and seed as in this one)."""
    used_file = cairn_dir.parent / "bench-used-paths.json"
    used_file.write_text(json.dumps(used))
    try:
        done = subprocess.run(
            [sys.executable, "-P", "-c", _READS, str(Path(__file__).resolve().parent),
             str(cairn_dir), str(used_file), str(args.seed), str(args.queries)],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
    finally:
        used_file.unlink()
    return json.loads(done.stdout)


# Peak RSS is the child's own VmHWM: `ru_maxrss` survives exec, so a child started from
# the bench's process reported the bench's own peak (2.9 GB "for a rebuild" at 1M).
_REBUILD = """
import sys, time
from pathlib import Path
from cairn.store import Store
from cairn.store.index import remove_index
cairn_dir = Path(sys.argv[1])
remove_index(cairn_dir)
t0 = time.perf_counter()
Store.open(cairn_dir).close()
seconds = time.perf_counter() - t0
with open("/proc/self/status") as fh:
    hwm = next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:"))
print(seconds, hwm / 1024)
"""


def time_rebuild(cairn_dir: Path) -> tuple[float, float]:
    """Seconds and peak RSS (MB, the child's own high-water mark) of a fresh process
    rebuilding the index from the log: what a language server opening the workspace
    pays first."""
    done = subprocess.run(
        [sys.executable, "-P", "-c", _REBUILD, str(cairn_dir)],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    seconds, rss = done.stdout.split()
    return float(seconds), float(rss)


def time_verify(cairn_dir: Path, store: Any) -> tuple[float, str]:
    try:
        from cairn.store.verify import verify
    except ImportError:
        verify = None
    t0 = time.perf_counter()
    if verify is not None:
        report = verify(cairn_dir)
        if not report.ok:
            sys.exit(f"verify found problems in the bench log: {report.problems[:3]}")
        return time.perf_counter() - t0, "cairn.store.verify"
    from cairn.store import line_id

    with open(cairn_dir / "decisions.jsonl", "rb") as fh:
        for line in fh:
            raw = json.loads(line)
            if line_id(raw) != raw["id"]:
                sys.exit("id mismatch in the bench log")
    return time.perf_counter() - t0, "id recomputation"


# --- Selvedge ---------------------------------------------------------------------------


def peer_python() -> Path:
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {PEER_VENV} with selvedge=={PEER_VERSION} ...", file=sys.stderr)
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", f"selvedge=={PEER_VERSION}"],
            check=True,
        )
    return python


_PEER_BATCH = """
import json, sys, random, time
sys.path.insert(0, sys.argv[1])
import peer_selvedge as peer
backend = peer.SelvedgeBackend(__import__("pathlib").Path(sys.argv[2]))
paths = sorted(json.loads(open(sys.argv[3]).read()))
rng = random.Random(int(sys.argv[4]))
lat = []
for _ in range(50):
    batch = rng.sample(paths, min(500, len(paths)))
    t0 = time.perf_counter()
    for p in batch:
        backend.status(p)
    lat.append((time.perf_counter() - t0) * 1000)
stats = {"p50_ms": peer.pct(lat[1:], 50), "p99_ms": peer.pct(lat[1:], 99)}
print(json.dumps({k: round(v, 3) for k, v in stats.items()}))
"""


def run_peer(n: int, args: argparse.Namespace, peer: Any) -> dict[str, Any]:
    python = peer_python()
    work = Path(tempfile.mkdtemp(prefix=f"selvedge-bench-{n}-"))
    try:
        out = work / "result.jsonl"
        db = work / "peer.db"
        env = {**os.environ, "HOME": str(work)}
        env.pop("PYTHONSAFEPATH", None)
        subprocess.run(
            [str(python), str(PEER_SCRIPT), str(n), "--verify", "--keep", "--db", str(db),
             "--json-out", str(out), "--batch", str(args.batch), "--queries", str(args.queries),
             "--seed", str(args.seed), "--prefix-queries", "0"],
            check=True, env=env, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        result = json.loads(out.read_text().splitlines()[-1])
        # Selvedge has no batch call: a file's statuses are 500 single lookups.
        paths_file = work / "paths.json"
        paths_file.write_text(json.dumps([p for p, _ in peer.build_paths(max(1, n // 10))]))
        script = work / "batch.py"
        script.write_text(_PEER_BATCH)
        done = subprocess.run(
            [str(python), str(script), str(PEER_SCRIPT.parent), str(db), str(paths_file),
             str(args.seed + 7)],
            check=True, env=env, capture_output=True, text=True,
        )  # fmt: skip
        result["batch_status"] = json.loads(done.stdout)
        result["source"] = "measured now"
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def stored_peer(n: int) -> dict[str, Any] | None:
    for line in PEER_RESULTS.read_text().splitlines():
        row = json.loads(line)
        if row["n_events"] == n:
            row["source"] = f"stored ({PEER_RESULTS.name})"
            st = row["status"]
            # No batch call: estimate 500 sequential lookups from its own p50/p99.
            row["batch_status"] = {"p50_ms": round(st["p50_ms"] * 500, 1), "p99_ms": None}
            return row
    return None


# --- table ------------------------------------------------------------------------------


def _ratio(peer_value: float | None, ours: float | None, higher_is_better: bool) -> str:
    if not peer_value or not ours:
        return "–"
    r = ours / peer_value if higher_is_better else peer_value / ours
    return f"{r:.1f}× better" if r >= 1 else f"{1 / r:.1f}× worse"


def table(rows: list[tuple[dict[str, Any], dict[str, Any] | None]]) -> str:
    out = [
        "| events | metric | Cairn | Selvedge | Cairn vs Selvedge |",
        "|---|---|---|---|---|",
    ]
    for ours, theirs in rows:
        n = f"{ours['n_events']:,}"
        t = theirs or {}
        src = f" ({t['source']})" if t else ""

        def fmt(v: Any, unit: str = "") -> str:
            return "–" if v is None else f"{v:,}{unit}" if isinstance(v, int) else f"{v}{unit}"

        t_verify = (t.get("verify") or {}).get("seconds")

        def pick(key: str, stat: str, ours: dict[str, Any] = ours, t: dict[str, Any] = t) -> Any:
            return ours[key][stat], (t.get(key) or {}).get(stat)

        lines = [
            ("bulk load events/s", ours["load_events_per_s"], t.get("load_events_per_s"), True, ""),
            ("bulk load seconds", ours["load_seconds"], t.get("load_seconds"), False, " s"),
            ("bulk load CPU µs/event", ours["load_cpu_us_per_event"], None, False, ""),
            (
                "of which preparing drafts / writing and indexing",
                f"{ours.get('load_cpu_prepare_us_per_event', '–')} / "
                f"{ours.get('load_cpu_write_index_us_per_event', '–')}",
                None,
                False,
                "",
            ),
            ("prior-attempts p50", *pick("prior_attempts", "p50_ms"), False, " ms"),
            ("prior-attempts p99", *pick("prior_attempts", "p99_ms"), False, " ms"),
            ("status p50", *pick("status", "p50_ms"), False, " ms"),
            ("status p99", *pick("status", "p99_ms"), False, " ms"),
            ("status of 500 entities p50", *pick("batch_status", "p50_ms"), False, " ms"),
            ("status of 500 entities p99", *pick("batch_status", "p99_ms"), False, " ms"),
            (
                "status of 500 entities p50, in the process that loaded",
                (ours.get("batch_status_in_loading_process") or {}).get("p50_ms"),
                None,
                False,
                " ms",
            ),
            ("same 500 again p50", ours["batch_status_again"]["p50_ms"], None, False, " ms"),
            ("verify", ours["verify_seconds"], t_verify, False, " s"),
            ("index rebuild", ours["rebuild_seconds"], None, False, " s"),
            ("index rebuild peak RSS", ours["rebuild_peak_rss_mb"], None, False, " MB"),
            (
                "bytes/event (log + index)",
                ours["bytes_per_event"],
                t.get("bytes_per_event"),
                False,
                "",
            ),
        ]
        for i, (name, a, b, hib, unit) in enumerate(lines):
            label = n + src if i == 0 else ""
            out.append(
                f"| {label} | {name} | {fmt(a, unit)} | {fmt(b, unit)} | {_ratio(b, a, hib)} |"
            )
        out.append(
            f"| | of which log / index | {ours['log_bytes_per_event']} / "
            f"{ours['index_bytes_per_event']} | – (no separate log) | |"
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated event counts")
    ap.add_argument(
        "--peer",
        choices=("auto", "run", "stored", "skip"),
        default="auto",
        help="auto: run Selvedge below 1M events, use its stored figures at 1M (~8 min run)",
    )
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--batch", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=20260601)
    ap.add_argument("--reasoning-bytes", type=int, default=120)
    ap.add_argument("--diff-bytes", type=int, default=80)
    ap.add_argument("--json-out", type=Path, default=None, help="append result lines here")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument(
        "--keep-log",
        type=Path,
        default=None,
        help="copy each size's log here as cairn-N.jsonl (to cmp the bytes across versions)",
    )
    args = ap.parse_args(argv)
    peer = load_peer()
    rows = []
    for n in [int(s) for s in args.sizes.split(",") if s.strip()]:
        print(f"== {n:,} events: cairn", file=sys.stderr)
        ours = run_cairn(n, args, peer)
        theirs = None
        mode = args.peer if args.peer != "auto" else ("stored" if n >= 1_000_000 else "run")
        if mode == "run":
            print(f"== {n:,} events: selvedge", file=sys.stderr)
            theirs = run_peer(n, args, peer)
        elif mode == "stored":
            theirs = stored_peer(n)
        rows.append((ours, theirs))
        if args.json_out:
            with args.json_out.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps({"cairn": ours, "selvedge": theirs}) + "\n")
        print(json.dumps(ours, indent=1), file=sys.stderr)
    print(table(rows))
    print(f"\nmachine: {os.cpu_count()} cpu, load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
