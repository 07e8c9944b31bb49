#!/usr/bin/env python3
"""`cairn export html` at scale: export time and what the site weighs.

For each size: a log of N events from the shared workload (../shared/bench/
peer_selvedge.py; N/10 entities; reasoning of --reasoning-bytes, longer than the store
bench's 120 because imported commit messages are long), loaded with `append_many`;
then the real CLI `cairn export html OUT/` in a fresh process (wall and CPU time), and
the bytes of search.js, search.json, index.html and the whole site. The search data
is what a browser loads at once, so it is the figure that must stay bounded.

    PYTHONSAFEPATH=1 .venv/bin/python bench/site.py --sizes 10000,100000
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from cairn.store import Store, init_store

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from workload import load_peer, to_draft

CAIRN = str(Path(sys.executable).parent / "cairn")


def build_log(root: Path, events: int, reasoning_bytes: int, seed: int) -> float:
    """Load the workload into root/.cairn; seconds it took."""
    peer = load_peer()
    cairn_dir = init_store(root)
    paths = peer.build_paths(max(1, events // 10))
    gen = peer.generate_events(
        events, paths, seed=seed, supersede_rate=0.1, reasoning_bytes=reasoning_bytes, diff_bytes=0
    )
    ids: dict[str, tuple[str, str]] = {}
    started = time.perf_counter()
    with Store.open(cairn_dir) as store:
        for batch in peer.batched(gen, 20_000):
            drafts = [to_draft(e, ids) for e in batch]
            for e, ev in zip(batch, store.append_many(drafts), strict=True):
                ids[e["id"]] = (ev.id, ev.type.value)
            print(f"  loaded {len(ids):>9} events", file=sys.stderr)
    return time.perf_counter() - started


def export(root: Path, out: Path) -> dict[str, float]:
    """The real CLI in a fresh process: wall seconds and the child's CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [CAIRN, "export", "html", str(out)],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONSAFEPATH": "1"},
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"cairn export html failed: {proc.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "peak_rss_mb": after.ru_maxrss / 1024}


def sizes(site: Path) -> dict[str, Any]:
    files = [p for p in site.rglob("*") if p.is_file()]
    pages = [p for p in files if p.parent.name == "e"]
    coverage = json.loads((site / "search.json").read_text())["coverage"]
    return {
        "coverage": f"{coverage['indexed']:,} of {coverage['events']:,}",
        "search.js": (site / "search.js").stat().st_size,
        "search.json": (site / "search.json").stat().st_size,
        "index.html": (site / "index.html").stat().st_size,
        "site": sum(p.stat().st_size for p in files),
        "files": len(files),
        "largest page": max((p.stat().st_size for p in pages), default=0),
    }


def mb(n: float) -> str:
    return f"{n / 1e6:,.2f} MB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated event counts")
    ap.add_argument("--reasoning-bytes", type=int, default=600)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--keep", type=Path, help="keep the projects under this folder")
    args = ap.parse_args(argv)
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        base = Path(tempfile.mkdtemp(prefix=f"cairn-site-{n}-", dir=args.keep))
        try:
            root = base / "project"
            root.mkdir()
            load = build_log(root, n, args.reasoning_bytes, args.seed)
            log_bytes = (root / ".cairn" / "decisions.jsonl").stat().st_size
            timing = export(root, base / "site")
            rows.append((n, load, log_bytes, timing, sizes(base / "site")))
        finally:
            if args.keep is None:
                shutil.rmtree(base, ignore_errors=True)
    load_avg = os.getloadavg()[0]
    print(f"reasoning ~{args.reasoning_bytes} bytes/event; load average {load_avg:.1f}")
    print(
        "| events | log | export wall / CPU | peak RSS | search.js | search.json | "
        "index.html | site (files) | largest entity page | events in search |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, _load, log_bytes, t, s in rows:
        print(
            f"| {n:,} | {mb(log_bytes)} | {t['wall']:.1f} s / {t['cpu']:.1f} s | "
            f"{t['peak_rss_mb']:.0f} MB | {mb(s['search.js'])} | {mb(s['search.json'])} | "
            f"{mb(s['index.html'])} | {mb(s['site'])} ({s['files']:,}) | "
            f"{s['largest page'] / 1e3:,.1f} kB | {s['coverage']} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
