#!/usr/bin/env python3
"""`cairn verify` at scale, side by side with Selvedge's verify on the same workload.

The log is the Selvedge workload (../shared/bench/peer_selvedge.py, the same events,
seed and sizes as bench/store.py), written by the store's own writer and cached under
bench/.cache/ so reruns only measure; `--cairn-dir` times a copy of an existing
`.cairn/` instead (the shared 1M workspace). Rows, each a median of --repeat runs:

  verify full        cairn.store.verify.verify(full=True): every line's id, parents,
                     heads; worker processes when the log is large enough (the default)
  verify full, 1 process   the same with workers=1: what one core does
  verify             what `cairn verify` does on the next run: re-hash the proven
                     prefix, read only what was appended since (here: nothing)
  parse only, line_id      (--floors) json.loads of every line, and the straightforward
                     id recomputation (the one definition): what verify replaced

Wall and CPU seconds (this process and its workers) are printed with the load average:
the machine is shared, so compare rows and ratios from one run. Selvedge is run in the
same process tree when --peer run (its own venv, bench/.cache/selvedge-venv, as
bench/store.py makes it); at 1M its load takes about eight minutes, so --peer stored
(the default there) prints its stored figure, marked as such.

    PYTHONSAFEPATH=1 .venv/bin/python bench/verify.py --peer run            # 100k
    PYTHONSAFEPATH=1 .venv/bin/python bench/verify.py --cairn-dir ../notes/s19/ws1m/.cairn
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from workload import PEER_SCRIPT, REPO, load_peer, to_draft

from cairn.store import Store, init_store, line_id
from cairn.store.verify import reconcile_index, verify

CACHE = REPO / "bench" / ".cache"
PEER_VENV = CACHE / "selvedge-venv"
PEER_RESULTS = PEER_SCRIPT.parent / "selvedge_results_2026-11-29.jsonl"
SEED = 20260601  # bench/store.py's and the peer script's defaults
BATCH = 10_000


def build(events: int) -> Path:
    """A `.cairn/` folder holding the Selvedge workload's first `events` events, cached."""
    root = CACHE / f"verify-workload-{events}"
    cairn_dir = root / ".cairn"
    if (root / "complete").exists():
        return cairn_dir
    shutil.rmtree(root, ignore_errors=True)
    init_store(root)
    peer = load_peer()
    paths = peer.build_paths(max(1, events // 10))
    gen = peer.generate_events(
        events, paths, seed=SEED, supersede_rate=0.1, reasoning_bytes=120, diff_bytes=80
    )
    ids: dict[str, tuple[str, str]] = {}
    with Store.open(cairn_dir) as store:
        for batch in peer.batched(gen, BATCH):
            drafts = [to_draft(e, ids) for e in batch]
            for e, ev in zip(batch, store.append_many(drafts), strict=True):
                ids[e["id"]] = (ev.id, ev.type.value)
            print(f"  built {len(ids):,} events", file=sys.stderr)
    (root / "complete").touch()
    return cairn_dir


def copy_of(source: Path) -> Path:
    """A private copy of a `.cairn/` folder (verify's record is written into it)."""
    root = Path(tempfile.mkdtemp(prefix="cairn-bench-verify-", dir=CACHE))
    target = root / ".cairn"
    target.mkdir()
    for name in ("decisions.jsonl", "index.db", "index.db-wal"):
        if (source / name).exists():
            shutil.copyfile(source / name, target / name)
    return target


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall and CPU seconds (this process and the workers it waited for)."""
    walls, cpus = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), os.times()
        fn()
        c1 = os.times()
        walls.append(time.perf_counter() - t0)
        cpus.append(
            c1.user + c1.system + c1.children_user + c1.children_system
            - (c0.user + c0.system + c0.children_user + c0.children_system)
        )  # fmt: skip
    return statistics.median(walls), statistics.median(cpus)


def peer_verify(events: int, mode: str) -> tuple[float | None, str]:
    """Selvedge's full verify at `events`: (seconds, where the figure comes from)."""
    if mode == "stored":
        for line in PEER_RESULTS.read_text().splitlines():
            row = json.loads(line)
            if row["n_events"] == events and row.get("verify"):
                return row["verify"]["seconds"], f"stored, {PEER_RESULTS.name}"
        return None, "no stored figure"
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        sys.exit(f"no Selvedge venv at {PEER_VENV}: run bench/store.py once (it makes it)")
    work = Path(tempfile.mkdtemp(prefix="selvedge-verify-"))
    try:
        out = work / "result.jsonl"
        env = {**os.environ, "HOME": str(work)}
        env.pop("PYTHONSAFEPATH", None)
        subprocess.run(
            [str(python), str(PEER_SCRIPT), str(events), "--verify", "--db", str(work / "p.db"),
             "--json-out", str(out), "--queries", "10", "--prefix-queries", "0",
             "--seed", str(SEED)],
            check=True, env=env, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        result = json.loads(out.read_text().splitlines()[-1])
        return result["verify"]["seconds"], "measured now"
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--cairn-dir", type=Path, help="time a copy of this .cairn/ instead")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--floors", action="store_true", help="also time json.loads, line_id")
    parser.add_argument(
        "--peer",
        choices=("auto", "run", "stored", "skip"),
        default="auto",
        help="Selvedge's verify: run it now, take its stored figure (auto: stored at 1M)",
    )
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    cairn_dir = copy_of(args.cairn_dir) if args.cairn_dir else build(args.events)
    try:
        run(cairn_dir, args)
    finally:
        if args.cairn_dir:
            shutil.rmtree(cairn_dir.parent, ignore_errors=True)


def run(cairn_dir: Path, args: argparse.Namespace) -> None:
    log = cairn_dir / "decisions.jsonl"
    first = verify(cairn_dir, full=True)  # also warms the page cache
    events = first.events
    if not first.ok:
        sys.exit(f"verify found problems in the bench log: {first.problems[:3]}")
    one_process = {"workers": 1} if "workers" in inspect.signature(verify).parameters else None

    def run_verify(full: bool, options: dict[str, Any] | None = None) -> None:
        report = verify(cairn_dir, full=full, **(options or {}))
        if not report.ok or report.events != events:
            sys.exit(f"verify found problems: {report.problems[:3]}")

    rows: list[tuple[str, float, float]] = []
    rows.append(("verify full", *timed(lambda: run_verify(True), args.repeat)))
    if one_process is not None:
        rows.append(
            ("verify full, 1 process", *timed(lambda: run_verify(True, one_process), args.repeat))
        )
    reconcile_index(cairn_dir, verify(cairn_dir, full=True))  # records the proven prefix
    rows.append(("verify", *timed(lambda: run_verify(False), args.repeat)))
    if args.floors:

        def parse_only() -> None:
            for line in log.read_bytes().split(b"\n")[:-1]:
                json.loads(line)

        def with_line_id() -> None:
            for line in log.read_bytes().split(b"\n")[:-1]:
                raw = json.loads(line)
                if line_id(raw) != raw["id"]:
                    sys.exit("bench log does not verify")

        rows.append(("parse only", *timed(parse_only, 1)))
        rows.append(("line_id", *timed(with_line_id, 1)))
    mode = args.peer if args.peer != "auto" else ("stored" if events >= 1_000_000 else "run")
    peer_s, source = peer_verify(events, mode) if mode != "skip" else (None, "skipped")

    size = log.stat().st_size
    print(
        f"{events:,} events, {size / 1e6:.1f} MB log, median of {args.repeat}, "
        f"{os.cpu_count()} cpu, load average {os.getloadavg()[0]:.2f} at the end"
    )
    print(f"{'':24} {'wall s':>7} {'cpu s':>7} {'us/event':>9} {'vs Selvedge':>12}")
    for name, wall, cpu in rows:
        ratio = f"{peer_s / wall:.1f}x" if peer_s else "–"
        print(f"{name:24} {wall:7.3f} {cpu:7.3f} {wall / events * 1e6:9.2f} {ratio:>12}")
    if peer_s:
        print(
            f"{'Selvedge verify':24} {peer_s:7.3f} {'':>7} {peer_s / events * 1e6:9.2f}  ({source})"
        )
    else:
        print(f"Selvedge verify: {source}")
    full = rows[0][1]
    print(f"verify full scaled to 1,000,000 events: {full / events * 1e6:.1f} s (budget 5 s)")


if __name__ == "__main__":
    main()
