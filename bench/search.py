#!/usr/bin/env python3
"""Search quality and latency: does a question in a person's words find the decision?

Quality, on real histories imported with `cairn import git` (each a folder holding
`.cairn/`): questions are generated from the subjects of the reverted commits in four
styles (`STYLES`), and the hand-written ones are read from bench/search_gold.json. A
question is answered when a hit of the top 5 (hit@5) is an event of the revert commit
it was made from (for a hand-written one: `expect`, and no `not` in the top 5); MRR@10
is the mean of 1/rank of the first such hit in the top 10. A hand-written question
answered slower than its `budget_ms` is listed.

    PYTHONSAFEPATH=1 .venv/bin/python bench/search.py quality --history caddy=/tmp/caddy ...
    PYTHONSAFEPATH=1 .venv/bin/python bench/search.py latency --sizes 100000 1000000

Latency runs the same kinds of questions over the shared Selvedge workload (its
generator, as bench/store.py uses it), the store built once under bench/.cache/.
Any Cairn checkout's interpreter can run this file (the baseline: main's), so it reads
hits only through `Store.search` and `SearchHit`'s event (and `others` when there).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/ runs as scripts
from workload import REPO, load_peer, to_draft

GOLD = REPO / "bench" / "search_gold.json"
CACHE = REPO / "bench" / ".cache"
STYLES = {
    "why": "why did we revert {}",
    "what": "what happened to {}",
    "tried": "was {} tried before",
    "keywords": "{}",
}
# A subject's area prefix ("reverseproxy: ", "[docs] "), issue and PR references, and
# the quotes of git's `Revert "..."`: not words a person asks with.
_AREA = re.compile(r"^(\[[^\]]{1,40}\]\s*|[\w./,{}* -]{1,40}:\s+)")
_REFS = re.compile(r"\(?(#\d+|gh-\d+)\)?")
_REVERT = re.compile(r'^Revert "(.*)"\s*$')


def topic(subject: str) -> str:
    """What a person would call the change a subject describes."""
    text = subject.strip()
    while (m := _REVERT.match(text)) is not None:
        text = m.group(1)
    text = _AREA.sub("", text, count=1)
    text = _REFS.sub("", text)
    return " ".join(text.replace('"', " ").split()).rstrip(".")


def reverts_of(cairn_dir: Path) -> dict[str, str]:
    """revert commit -> the topic of what it reverted, from the log itself."""
    found: dict[str, str] = {}
    with (cairn_dir / "decisions.jsonl").open("rb") as log:
        for raw in log:
            try:
                e = json.loads(raw)
            except ValueError:
                continue
            meta = e.get("metadata") or {}
            if e.get("type") != "revert" or not e.get("commit") or not isinstance(meta, dict):
                continue
            subject = meta.get("original_subject") or meta.get("revert_subject") or ""
            words = topic(subject)
            if len(words.split()) >= 2:
                found.setdefault(e["commit"], words)
    return found


def ranked_commits(store: Any, query: str, k: int = 10) -> list[set[str]]:
    """The commits each of the top `k` hits stands for (a hit may stand for several
    events: `SearchHit.others`)."""
    out: list[set[str]] = []
    for hit in store.search(query, limit=k):
        events = [hit.event, *getattr(hit, "others", ())]
        out.append({e.commit for e in events if e.commit})
    return out


def score(ranks: list[int | None]) -> dict[str, float]:
    """hit@5 and MRR@10 of the first right hit's rank (1-based) of each question."""
    n = len(ranks) or 1
    return {
        "n": len(ranks),
        "hit@5": round(sum(1 for r in ranks if r is not None and r <= 5) / n, 3),
        "mrr@10": round(sum(1 / r for r in ranks if r is not None and r <= 10) / n, 3),
    }


def first_rank(found: list[set[str]], want: str) -> int | None:
    for i, commits in enumerate(found, 1):
        if any(c.startswith(want) for c in commits):
            return i
    return None


def quality(args: argparse.Namespace) -> dict[str, Any]:
    from cairn.store import Store

    histories = dict(h.split("=", 1) for h in args.history)
    gold = json.loads(GOLD.read_text())
    report: dict[str, Any] = {}
    for name, folder in histories.items():
        cairn_dir = Path(folder) / ".cairn"
        reverts = reverts_of(cairn_dir)
        rng = random.Random(args.seed)
        chosen = sorted(reverts)
        rng.shuffle(chosen)
        chosen = chosen[: args.questions]
        per: dict[str, Any] = {"reverts": len(reverts)}
        with Store.open(cairn_dir) as store:
            store.search("warm up the index")
            for style, form in STYLES.items():
                ranks = [
                    first_rank(ranked_commits(store, form.format(reverts[c])), c) for c in chosen
                ]
                per[style] = score(ranks)
            questions = [q for q in gold if q["history"] == name]
            ranks, misses, slow = [], [], []
            for q in questions:
                t0 = time.perf_counter()
                found = ranked_commits(store, q["query"])
                if (time.perf_counter() - t0) * 1000 > q.get("budget_ms", 50):
                    slow.append(q["query"])
                rank = first_rank(found, q["expect"])
                if any(first_rank(found[:5], bad) for bad in q.get("not", [])):
                    rank = None
                ranks.append(rank)
                if rank is None or rank > 5:
                    misses.append(q["query"])
            per["hand"] = score(ranks) | {"missed": misses, "over_budget": slow}
        generated = [per[s] for s in STYLES if s != "keywords"]  # the question styles
        total = sum(g["n"] for g in generated) or 1
        per["questions"] = {
            "n": total,
            "hit@5": round(sum(g["hit@5"] * g["n"] for g in generated) / total, 3),
            "mrr@10": round(sum(g["mrr@10"] * g["n"] for g in generated) / total, 3),
        }
        report[name] = per
    return report


# --- latency ----------------------------------------------------------------------------


def workload_store(n: int, seed: int) -> Path:
    """A store of `n` workload events, built once (bench/.cache/search-N/)."""
    from cairn.store import Store, init_store

    folder = CACHE / f"search-{n}-{seed}"
    done = folder / "built"
    if done.exists():
        return folder / ".cairn"
    peer = load_peer()
    folder.mkdir(parents=True, exist_ok=True)
    cairn_dir = init_store(folder)
    ids: dict[str, tuple[str, str]] = {}
    paths = peer.build_paths(max(1, n // 10))
    gen = peer.generate_events(
        n, paths, seed=seed, supersede_rate=0.1, reasoning_bytes=120, diff_bytes=0
    )
    with Store.open(cairn_dir) as store:
        for batch in peer.batched(gen, 20000):
            events = store.append_many([to_draft(e, ids) for e in batch])
            for e, ev in zip(batch, events, strict=True):
                ids[e["id"]] = (ev.id, ev.type.value)
            print(f"  built {len(ids)} events", file=sys.stderr)
    done.touch()
    return cairn_dir


def workload_questions(n: int, seed: int, count: int) -> list[str]:
    """Questions over the workload's words and paths, in the same styles."""
    peer = load_peer()
    rng = random.Random(seed)
    words = [w.strip(",;") for w in peer._WORDS if len(w) > 3]
    paths = [p for p, _ in peer.build_paths(max(1, n // 10))]
    out: list[str] = []
    for i in range(count):
        style = list(STYLES.values())[i % len(STYLES)]
        if i % 3 == 0:
            about = rng.choice(paths).replace("::", " ").replace("/", " ")
        else:
            about = " ".join(rng.sample(words, rng.randint(2, 4)))
        out.append(style.format(about))
    return out


def latency(args: argparse.Namespace) -> dict[str, Any]:
    from cairn.store import Store

    report: dict[str, Any] = {"load_average": os.getloadavg()}
    for n in args.sizes:
        cairn_dir = workload_store(n, args.seed)
        questions = workload_questions(n, args.seed, args.count)
        with Store.open(cairn_dir) as store:
            for q in questions[:20]:
                store.search(q, limit=20)  # warm: the pages a search reads are cached
            wall: list[float] = []
            cpu: list[float] = []
            for q in questions:
                t0, c0 = time.perf_counter(), time.process_time()
                store.search(q, limit=20)
                wall.append((time.perf_counter() - t0) * 1000)
                cpu.append((time.process_time() - c0) * 1000)
        # On a shared machine the wall clock counts other processes' turns on the CPU;
        # the CPU time is this search's own work (both reported, with the load).
        report[str(n)] = {
            "queries": len(wall),
            "p50_ms": _pct(wall, 0.5),
            "p99_ms": _pct(wall, 0.99),
            "max_ms": _pct(wall, 1.0),
            "cpu_p50_ms": _pct(cpu, 0.5),
            "cpu_p99_ms": _pct(cpu, 0.99),
        }
    report["load_average_after"] = os.getloadavg()
    return report


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))], 2)


def main(argv: Iterable[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    q = sub.add_parser("quality")
    q.add_argument("--history", action="append", required=True, help="NAME=FOLDER")
    q.add_argument("--questions", type=int, default=60, help="reverts sampled per history")
    q.add_argument("--seed", type=int, default=7)
    lat = sub.add_parser("latency")
    lat.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    lat.add_argument("--count", type=int, default=400)
    lat.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(list(argv) if argv is not None else None)
    result = quality(args) if args.what == "quality" else latency(args)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
