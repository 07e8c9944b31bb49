#!/usr/bin/env python3
"""`cairn verify` at scale, side by side with what it cannot go below and what it replaced.

Builds a log of N events with the store's own writer (`Store.append_many`; cached under
bench/.cache/ so reruns only measure), then times, on the same bytes:

  parse only   json.loads of every line (a floor: verify must at least read the log)
  line_id      parse + recompute every id the straightforward way (the one definition)
  verify full  cairn.store.verify.verify(full=True): every line (fast id path, parents, heads)
  verify       what `cairn verify` does on the next run: re-hash the proven prefix, parse
               only what was appended since (here: nothing)

    PYTHONSAFEPATH=1 .venv/bin/python bench/verify.py                  # 100k events
    PYTHONSAFEPATH=1 .venv/bin/python bench/verify.py --events 1000000

Medians of --repeat runs on a shared machine: read the ratios.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

from cairn.store import EventDraft, Store, init_store, line_id
from cairn.store.verify import reconcile_index, verify

CACHE = Path(__file__).resolve().parent / ".cache"
BATCH = 20_000


def build(events: int) -> Path:
    """A `.cairn/` folder holding `events` events, built once and cached."""
    root = CACHE / f"verify-{events}"
    cairn_dir = root / ".cairn"
    done = root / "complete"
    if done.exists():
        return cairn_dir
    shutil.rmtree(root, ignore_errors=True)
    init_store(root)
    with Store.open(cairn_dir) as store:
        for start in range(0, events, BATCH):
            drafts = []
            for i in range(start, min(events, start + BATCH)):
                kind = "reject" if i % 10 == 0 else ("modify" if i % 3 else "add")
                drafts.append(
                    EventDraft(
                        type=kind,
                        entity=f"t{i % 2000}.c{i % 7}",
                        reasoning=f"decision {i}: keep the column because reports read it",
                        alternative="drop it and derive it" if kind == "reject" else "",
                        metadata={"ticket": f"CAIRN-{i}"} if i % 5 == 0 else {},
                    )
                )
            store.append_many(drafts)
            print(f"  built {min(events, start + BATCH):,} events", file=sys.stderr)
    done.touch()
    return cairn_dir


def median_time(fn: object, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cairn_dir = build(args.events)
    log = cairn_dir / "decisions.jsonl"

    def parse_only() -> None:
        for line in log.read_bytes().split(b"\n")[:-1]:
            json.loads(line)

    def with_line_id() -> None:
        for line in log.read_bytes().split(b"\n")[:-1]:
            raw = json.loads(line)
            if line_id(raw) != raw["id"]:
                raise SystemExit("bench log does not verify")

    def run_verify(full: bool) -> None:
        report = verify(cairn_dir, full=full)
        if not report.ok or report.events != args.events:
            raise SystemExit(f"verify found problems: {report.problems[:3]}")

    reconcile_index(cairn_dir, verify(cairn_dir, full=True))  # records the proven prefix
    rows = [
        ("parse only", median_time(parse_only, args.repeat)),
        ("line_id", median_time(with_line_id, args.repeat)),
        ("verify full", median_time(lambda: run_verify(True), args.repeat)),
        ("verify", median_time(lambda: run_verify(False), args.repeat)),
    ]
    size = log.stat().st_size
    base = rows[2][1]
    print(f"{args.events:,} events, {size / 1e6:.1f} MB log, median of {args.repeat}")
    print(f"{'':12} {'seconds':>8} {'us/event':>9} {'vs full':>10}")
    for name, secs in rows:
        print(f"{name:12} {secs:8.2f} {secs / args.events * 1e6:9.1f} {secs / base:9.2f}x")
    for name, secs in rows[2:]:
        scaled = secs / args.events * 1_000_000
        print(f"{name} scaled to 1,000,000 events: {scaled:.1f} s (budget 5 s)")


if __name__ == "__main__":
    main()
