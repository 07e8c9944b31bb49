#!/usr/bin/env python3
"""`cairn export html` at scale: export time and what the site weighs.

For each size: a log of N events from the shared workload (../shared/bench/
peer_selvedge.py; N/10 entities, or --entities of them; reasoning of --reasoning-bytes,
longer than the store bench's 120 because imported commit messages are long), loaded
with `append_many`; then the real CLI `cairn export html OUT/` in a fresh process (wall
and CPU time), and the bytes of every file of the site: each top-level file by name,
and the numbered and per-entity files by group (count, total, largest). What a browser
loads when the site opens (index.html and the scripts it names) is the figure that
must stay bounded however many entities there are.

    PYTHONSAFEPATH=1 .venv/bin/python bench/site.py --sizes 10000,100000
    PYTHONSAFEPATH=1 .venv/bin/python bench/site.py --sizes 10000 --entities 10000
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


def build_log(root: Path, events: int, entities: int, reasoning_bytes: int, seed: int) -> float:
    """Load the workload into root/.cairn; seconds it took."""
    peer = load_peer()
    cairn_dir = init_store(root)
    paths = peer.build_paths(max(1, entities))
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


def group_of(rel: str) -> str:
    """A file's group: a top-level file by its own name; files in a folder or numbered
    pages by their family (`e/*.html`, `decisions-*.html`, `search/t-*.js`)."""
    folder, _, name = rel.rpartition("/")
    stem, dot, ext = name.rpartition(".")
    if folder == "e":  # one page per entity
        return f"e/*{dot}{ext}"
    family = re.sub(r"-\w+$", "-*", stem) if folder else re.sub(r"-\d+$", "-*", stem)
    return f"{folder}/{family}{dot}{ext}" if folder else f"{family}{dot}{ext}"


def sizes(site: Path) -> dict[str, Any]:
    files = [p for p in site.rglob("*") if p.is_file()]
    groups: dict[str, list[int]] = {}
    for p in files:
        groups.setdefault(group_of(p.relative_to(site).as_posix()), []).append(p.stat().st_size)
    coverage = json.loads((site / "search.json").read_text())["coverage"]
    return {
        "coverage": f"{coverage['indexed']:,} of {coverage['events']:,}",
        "index.html": (site / "index.html").stat().st_size,
        "site": sum(p.stat().st_size for p in files),
        "files": len(files),
        "groups": {k: groups[k] for k in sorted(groups)},
    }


def mb(n: float) -> str:
    return f"{n / 1e6:,.2f} MB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated event counts")
    ap.add_argument("--entities", type=int, help="entities in the log (default: events / 10)")
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
            entities = args.entities or max(1, n // 10)
            build_log(root, n, entities, args.reasoning_bytes, args.seed)
            log_bytes = (root / ".cairn" / "decisions.jsonl").stat().st_size
            timing = export(root, base / "site")
            rows.append((n, entities, log_bytes, timing, sizes(base / "site")))
        finally:
            if args.keep is None:
                shutil.rmtree(base, ignore_errors=True)
    load_avg = os.getloadavg()[0]
    print(f"reasoning ~{args.reasoning_bytes} bytes/event; load average {load_avg:.1f}")
    print(
        "| events | entities | log | export wall / CPU | peak RSS | index.html | "
        "site (files) | events in search |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n, entities, log_bytes, t, s in rows:
        print(
            f"| {n:,} | {entities:,} | {mb(log_bytes)} | {t['wall']:.1f} s / {t['cpu']:.1f} s | "
            f"{t['peak_rss_mb']:.0f} MB | {mb(s['index.html'])} | {mb(s['site'])} "
            f"({s['files']:,}) | {s['coverage']} |"
        )
    for n, entities, _log, _t, s in rows:
        print(f"\nFiles at {n:,} events, {entities:,} entities:\n")
        print("| file | count | total | largest |")
        print("|---|---:|---:|---:|")
        for name, found in s["groups"].items():
            print(f"| {name} | {len(found):,} | {mb(sum(found))} | {mb(max(found))} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
