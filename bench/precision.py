"""Precision of machine-found revert verdicts, by hand-made labels (issue 28).

`bench/recall.py --precision` draws, with a fixed seed, up to 50 revert events and 20
revert commits from each repository's imported log (the one `bench/recall.py` wrote
under `--work`), looks each up in `bench/precision_labels.json`, and reports the share
of each label among the labelled draws; draws nobody has labelled yet are listed with
what a labeller needs (`git show <sha>` then says the rest). The rubric is in
docs/importers.md ("Is this verdict right?"):

  right         the commit undid that entity's earlier change, for a reason a
                teammate should see
  trivial       a real undo nobody needs warning of (vendored/generated files,
                formatting, a version string)
  wrong-entity  the commit is a revert, but not of this entity's change
  not-a-revert  the commit undid nothing

Beside the shares, how Cairn *treats* each labelled draw: a verdict is handled right
when a `right` one is loud (it blocks, it is in the digest) or a `trivial` one is quiet
(`metadata.significance: trivial`, `cairn.significance.quiet`); a revert commit is
quiet when all its events are. The issue's targets read from these: at least 90% of
revert commits handled right, no `trivial` event loud, at most 5% of events on the
wrong entity or not a revert.

Labels are keyed stably: an event by `<commit sha>:<entity>`, a commit by its sha, so
a re-import that draws the same verdicts finds their labels, and one that records
different verdicts shows them as unlabelled (the figure says how many were judged).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

LABELS = Path(__file__).resolve().parent / "precision_labels.json"
KINDS = ("right", "trivial", "wrong-entity", "not-a-revert")
EVENTS, COMMITS = 50, 20  # draws per repository
SEED = 28  # the number: the same draws on every run of the same log


def verdicts(log: Path) -> list[dict]:
    """The imported revert events of a log, in a stable order."""
    out = []
    with log.open(encoding="utf-8") as fh:
        for line in fh:
            try:
                e = json.loads(line)
            except json.JSONDecodeError:
                continue
            if e.get("type") == "revert" and str(e.get("agent", "")).startswith("cairn-import/git"):
                out.append(e)
    return sorted(out, key=lambda e: (e.get("commit") or "", e.get("entity") or ""))


def draw(events: list[dict]) -> tuple[list[dict], list[str]]:
    """The fixed-seed sample: events, and revert commits."""
    rng = random.Random(SEED)
    picked = rng.sample(events, min(EVENTS, len(events)))
    shas = sorted({e["commit"] for e in events})
    return picked, rng.sample(shas, min(COMMITS, len(shas)))


def key(event: dict) -> str:
    return f"{event['commit']}:{event['entity']}"


def quiet(event: dict) -> bool:
    return event.get("metadata", {}).get("significance") == "trivial"


def handled(pairs: list[tuple[str, bool]]) -> str:
    """The share of labelled draws Cairn treats as their label says (right: loud,
    trivial: quiet), and the two ways to get it wrong."""
    n = len(pairs)
    if not n:
        return "none labelled"
    ok = sum(1 for lab, q in pairs if (lab == "right" and not q) or (lab == "trivial" and q))
    loud = sum(1 for lab, q in pairs if lab == "trivial" and not q)
    hushed = sum(1 for lab, q in pairs if lab == "right" and q)
    return f"{100 * ok / n:.0f}% ({ok}/{n}); trivial but loud {loud}, right but quiet {hushed}"


def shares(labels: list[str]) -> str:
    n = len(labels)
    if not n:
        return "none labelled"
    return ", ".join(f"{k} {100 * labels.count(k) / n:.0f}%" for k in KINDS) + f" (of {n})"


def report(
    repo: str, log: Path, labels: dict | None = None, drawn_from: Path | None = None
) -> dict:
    """The labelled shares of one repository's draws, and the unlabelled draws.

    `drawn_from`: draw from that earlier log instead (the one the labels were made on)
    and judge each drawn verdict by `log`. The draw is a sample of a list, so a build
    that records a few events fewer draws other items altogether; this keeps the
    labelled items and asks only how the new build treats them. A drawn verdict the new
    log no longer records is quiet (nothing is there to block)."""
    book = (labels if labels is not None else load()).get(repo, {})
    now = verdicts(log)
    events = verdicts(drawn_from) if drawn_from is not None else now
    picked, shas = draw(events)
    by_sha = {e["commit"]: e for e in events}
    if drawn_from is not None:
        current = {key(e): e for e in now}
        # An event the new log no longer records stands for itself, quiet.
        picked = [
            current.get(key(e), e | {"metadata": {"significance": "trivial"}}) for e in picked
        ]
        events = now
    ev_labels = [book.get("events", {}).get(key(e), {}).get("label") for e in picked]
    co_labels = [book.get("commits", {}).get(s, {}).get("label") for s in shas]
    hushed_commit = {s: all(quiet(e) for e in events if e["commit"] == s) for s in shas}
    missing = [
        f"event {key(e)}  ({e.get('metadata', {}).get('found_by')}"
        f"{', quiet' if quiet(e) else ''}: "
        f"{e.get('metadata', {}).get('revert_subject', '')[:60]})"
        for e, lab in zip(picked, ev_labels, strict=True)
        if lab is None
    ] + [
        f"commit {s}  ({by_sha[s].get('metadata', {}).get('revert_subject', '')[:60]})"
        for s, lab in zip(shas, co_labels, strict=True)
        if lab is None
    ]
    return {
        "repo": repo,
        "revert_events": len(events),
        "revert_commits": len({e["commit"] for e in events}),
        "events": shares([x for x in ev_labels if x]),
        "commits": shares([x for x in co_labels if x]),
        "events_handled": handled(
            [(lab, quiet(e)) for e, lab in zip(picked, ev_labels, strict=True) if lab]
        ),
        "commits_handled": handled(
            [(lab, hushed_commit[s]) for s, lab in zip(shas, co_labels, strict=True) if lab]
        ),
        "quiet_events": sum(1 for e in events if quiet(e)),
        "unlabelled": missing,
    }


def load() -> dict:
    return json.loads(LABELS.read_text()) if LABELS.exists() else {}


def print_report(rows: list[dict]) -> None:
    print(
        "| repository | revert events (commits), quiet events | events drawn, by label "
        "| commits drawn | events handled right | commits handled right |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['repo']} | {r['revert_events']} ({r['revert_commits']}), "
            f"{r['quiet_events']} quiet | {r['events']} | {r['commits']} "
            f"| {r['events_handled']} | {r['commits_handled']} |"
        )
    for r in rows:
        if r["unlabelled"]:
            print(f"\n{r['repo']}: {len(r['unlabelled'])} unlabelled draws")
            for line in r["unlabelled"]:
                print(f"  {line}")
