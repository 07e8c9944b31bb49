#!/usr/bin/env python3
"""Recall of the revert gate on real, long histories.

For each repository (names and commits below, so a run is reproducible):

  1. `cairn import git` over the whole history, timed, with the peak RSS of the process.
  2. At every revert commit R: put the reverted change back at R and ask `cairn check`
     whether it re-introduces something reverted (exit 1 = caught).
  3. The same for a sample of ordinary commits C, re-applied on C^: a flag there is a
     false alarm.

How a change is put back. `git revert --no-commit R` at R leaves exactly R^'s tree (R
is never a merge here), and `git cherry-pick --no-commit C` at C^ leaves exactly C's
tree, so `cairn check --diff R..R^` and `--diff C^..C` see the same lines and the
same new content (`check` reads the new side from git objects) with no checkout: the
work tree stays at the benchmark commit. `--checkout` does it the old way (check out,
revert or cherry-pick, `cairn check --diff HEAD`); on a fixed sample of 30 cases from
caddy and wagtail both gave the same outcome for every case (docs/importers.md). A
commit whose change is empty (same tree as its parent) has nothing to put back: it is
`not-reappliable`, in both modes, never scored.

Reverts are classified by their message, independently of what the importer does:
  marker    git's own marker: subject `Revert "…"` (or a standalone "This reverts commit")
  squashed  "This reverts commit <sha>" inside a commit that is not itself a revert
  re-revert a revert of a revert (re-applying it removes the change again): listed only
  in-squash "This reverts commit <sha>" inside a squashed pull request whose <sha> is not
            in the history: the revert happened inside the branch; listed only
  re-landed the reverted change came back and is in the benchmarked tree (a revert that
            was itself reverted, or whose own patch still applies at the benchmark
            commit: `git apply --check`): putting it back is no re-introduction; listed only
  unmarked  no marker, but the subject's verb says it reverts/undoes/backs out/rolls back
            (after an optional `scope:` prefix)

  cosmetic  a revert the import recorded as `significance: trivial` (every event of it:
            formatting, comments, annotations, lint): recorded, never blocking by
            design; re-applied and listed (its outcome shows it did not block), not scored
  moved     a revert whose diff only moves lines: in every file it takes out exactly the
            lines it writes elsewhere (whitespace aside), so re-applying it re-introduces
            nothing (rubygems.org's "Revert Gemfile change.", a line moved back); re-applied
            and listed, not scored

  undone    an ordinary commit (drawn as one) whose every file a later commit puts back
            blob for blob: its change was taken back without a marker, so putting it
            back is a re-introduction, not a false alarm; re-applied and listed, not
            scored (rubygems.org's "Use production environment for Bundler when in
            staging", undone five days later inside "Locking to specific versions")

Across those, a *re-removal* is a revert that mostly puts lines back (its own diff adds
lines and at least twice as many as it removes): the change it undid was a removal, so
re-applying it takes the restored lines out again. They are counted in their category
and again in the re-removal column.

The repositories come from local mirrors (no network): `--mirror-root` holds
`<owner>+<name>/repo` bare repositories; the working copies are `git clone --shared`
(no object is copied) under `--work`.

Usage:
  python bench/recall.py [--repo wagtail/wagtail] [--limit 20] [--ordinary 40] [--json out]
                         [--cairn OTHER/.venv/bin/cairn] [--checkout]
  python bench/recall.py --precision [--work DIR] [--draw-from DIR]
                                                    # labelled verdict precision
                                                    # (bench/precision.py)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CAIRN = ROOT / ".venv" / "bin" / "cairn"

# (name, commit, ecosystem): the benchmark's fixed inputs.
REPOS = [
    ("wagtail/wagtail", "c2ae43b9265d085c95142cd1a1f8563ad2eb4de9", "Python/Django"),
    ("prettier/prettier", "4f84a934201322ca87750e2b9b25baf296da6560", "JavaScript/TypeScript"),
    ("caddyserver/caddy", "0cf03d32f7d99cf160d5375e8a40fbe3d910d515", "Go"),
    ("psf/requests", "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e", "Python"),
    ("rubygems/rubygems.org", "3c8ea0d4cbe85bd2a2bb5d22486247656a3dfb6c", "Ruby/Rails"),
]

MARKER_SUBJECT = re.compile(r'^Revert "')
MARKER_BODY = re.compile(r"This reverts commits? [0-9a-f]{7,40}", re.I)
TARGETS = re.compile(r"This reverts commits? ([0-9a-f]{7,40})", re.I)
# Git's own subject for a revert of a revert, and the words people use for one.
REAPPLY_SUBJECT = re.compile(r'^(Reapply "|Revert "Revert|Un-?revert\b|Re-?land\b)', re.I)
# The subject's verb (after an optional `scope:` prefix) says it takes something back.
UNMARKED_SUBJECT = re.compile(
    r"^(?:\[?[\w./,{}* -]{1,40}\]?:\s*)?"
    r"(revert(s|ed|ing)?|undo(es|ne|ing)?|back(s|ed|ing)?[ -]?out|roll(s|ed|ing)?[ -]?back)\b",
    re.I,
)
ENV = {**os.environ, "PYTHONSAFEPATH": "1", "GIT_TERMINAL_PROMPT": "0"}
ENV.pop("CAIRN_DIR", None)


@dataclass
class Case:
    sha: str
    category: str  # marker | squashed | unmarked | ordinary
    subject: str
    outcome: str = ""  # caught | missed | flagged | clean | not-reappliable
    why: list[str] = field(default_factory=list)
    restores: bool = False  # the revert mostly put lines back (a re-removal case)


def restores(work: Path, sha: str) -> bool:
    """Whether a revert mostly puts lines back: re-applying it is a re-removal."""
    added = deleted = 0
    for row in git(work, "show", "--numstat", "--format=", sha).splitlines():
        parts = row.split("\t")
        if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
            added, deleted = added + int(parts[0]), deleted + int(parts[1])
    return added >= 1 and added >= 2 * deleted


def git(cwd: Path, *args: str, check: bool = True) -> str:
    out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=ENV)
    if check and out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {out.stderr.decode(errors='replace')}")
    return out.stdout.decode("utf-8", "replace")


def prepare(mirror: Path, work: Path, commit: str) -> None:
    if not (work / ".git").exists():
        work.parent.mkdir(parents=True, exist_ok=True)
        git(work.parent, "clone", "-q", "--shared", "--no-checkout", str(mirror), work.name)
    reset(work, commit)
    exclude = work / ".git" / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    if ".cairn/" not in exclude.read_text() if exclude.exists() else True:
        with exclude.open("a") as fh:
            fh.write("\n.cairn/\n")


def reset(work: Path, commit: str) -> None:
    git(work, "revert", "--abort", check=False)
    git(work, "cherry-pick", "--abort", check=False)
    git(work, "reset", "-q", "--hard")
    git(work, "clean", "-qfd", "-e", ".cairn")
    git(work, "checkout", "-q", "-f", "--detach", commit)


def classify(work: Path, commit: str) -> tuple[list[Case], list[str]]:
    """Reverts by category and the ordinary (non-revert, never reverted) commit shas."""
    fmt = "%H\x1f%P\x1f%s\x1f%b\x1e"
    out = git(work, "log", f"--format={fmt}", commit)
    cases: list[Case] = []
    ordinary: list[str] = []
    reverted: set[str] = set()
    reverted_subjects: set[str] = set()  # a squash-merged PR's revert names no sha we have
    rows = []
    for rec in out.split("\x1e"):
        rec = rec.strip("\n")
        if not rec:
            continue
        sha, parents, subject, body = rec.split("\x1f", 3)
        rows.append((sha, parents.split(), subject, body))
        for m in TARGETS.finditer(body):
            reverted.add(m.group(1)[:7])
        quoted = re.match(r'^Revert "(.*)"', subject)
        if quoted:
            reverted_subjects.add(quoted.group(1))
    revert_shas = {
        sha[:7]
        for sha, _p, subject, body in rows
        if MARKER_SUBJECT.match(subject)
        or MARKER_BODY.search(body)
        or UNMARKED_SUBJECT.search(subject)
    }
    known = {sha[:7] for sha, _p, _s, _b in rows}
    # "(#123)" at the end of a subject: the pull request a squash-merged commit came from.
    by_pr = {
        m.group(1): sha[:7]
        for sha, _p, subject, _b in reversed(rows)
        for m in [re.search(r"\(#(\d+)\)\s*$", subject)]
        if m
    }

    def pr_targets(subject: str) -> set[str]:
        """ "Revert #9500": the squash-merged pull requests an unmarked revert names."""
        own = re.sub(r"\(#\d+\)\s*$", "", subject)
        return {by_pr[n] for n in re.findall(r"#(\d+)", own) if n in by_pr}

    for _sha, _p, subject, body in rows:
        if not TARGETS.search(body) and UNMARKED_SUBJECT.search(subject):
            reverted |= pr_targets(subject)
    for sha, parents, subject, body in rows:
        if len(parents) != 1:
            continue  # merges and the root are neither reverts nor ordinary changes
        marker_body = MARKER_BODY.search(body)
        targets = {m.group(1)[:7] for m in TARGETS.finditer(body)}
        if not targets and UNMARKED_SUBJECT.search(subject):
            targets = pr_targets(subject)
        seen = targets & known  # a target missing from the history was inside a squash
        if REAPPLY_SUBJECT.match(subject) or (seen and seen <= revert_shas):
            # Undoing a revert of a revert takes the change out again: nothing reverted
            # comes back, so it is no case for the gate (counted, not scored).
            cases.append(Case(sha, "re-revert", subject))
        elif (sha[:7] in reverted or subject in reverted_subjects) and (
            marker_body or MARKER_SUBJECT.match(subject) or UNMARKED_SUBJECT.search(subject)
        ):
            # A revert that was itself reverted later: the change was re-landed on
            # purpose, its verdict is superseded in the log, and putting it back is fine.
            cases.append(Case(sha, "re-landed", subject))
        elif MARKER_SUBJECT.match(subject) or (
            marker_body and subject.lower().startswith("revert")
        ):
            cases.append(Case(sha, "marker", subject))
        elif marker_body and not targets & known:
            # The reverted commit was on a branch that was squashed away: the revert
            # happened inside the pull request, and re-applying "it" (reverting the
            # whole squash) takes the feature out rather than putting a reverted change
            # back. Nothing to score.
            cases.append(Case(sha, "in-squash", subject))
        elif marker_body:
            cases.append(Case(sha, "squashed", subject))
        elif UNMARKED_SUBJECT.search(subject):
            cases.append(Case(sha, "unmarked", subject))
        elif sha[:7] not in reverted and subject not in reverted_subjects:
            ordinary.append(sha)
    newer_subjects: dict[str, int] = {}  # subject -> newest position (0 = the tip)
    for i, (_sha, _p, subject, _b) in enumerate(rows):
        newer_subjects.setdefault(subject, i)
    position = {sha: i for i, (sha, _p, _s, _b) in enumerate(rows)}
    subject_of = {sha[:7]: subject for sha, _p, subject, _b in rows}
    blobs = file_blobs(work, commit)
    changes = by_change(blobs)
    for case in cases:
        if case.category in ("marker", "squashed", "unmarked") and (
            put_back(case.sha, blobs, changes, position)
            or came_back(
                work, case, rows[position[case.sha]][3], newer_subjects, position, subject_of
            )
        ):
            case.category = "re-landed"
    return cases, ordinary


def mark_cosmetic(work: Path, cases: list[Case]) -> None:
    """Scored reverts whose every imported event is `significance: trivial` become
    `cosmetic`: the import judged them formatting, so no check is expected to block."""
    kinds: dict[str, set[bool]] = {}
    log = work / ".cairn" / "decisions.jsonl"
    if not log.exists():
        return
    with log.open() as fh:
        for line in fh:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("type") == "revert" and event.get("commit"):
                trivial = (event.get("metadata") or {}).get("significance") == "trivial"
                kinds.setdefault(event["commit"], set()).add(trivial)
    for case in cases:
        if case.category in ("marker", "squashed", "unmarked") and kinds.get(case.sha) == {True}:
            case.category = "cosmetic"


def mark_moved(work: Path, cases: list[Case]) -> None:
    """Scored reverts that only move lines become `moved`: re-applying one moves them
    again and brings nothing back, so no check is expected to block (classified by the
    diff alone, whatever the import recorded)."""
    for case in cases:
        if case.category in ("marker", "squashed", "unmarked") and moves_only(work, case.sha):
            case.category = "moved"


def moves_only(work: Path, sha: str) -> bool:
    """Whether, in each file a commit changes, the lines it takes out are the lines it
    writes (the same multiset, whitespace aside, blank lines ignored), and it creates or
    deletes no file."""
    out = git(work, "show", "--format=", "--unified=0", "--no-renames", sha, check=False)
    files: dict[str, tuple[list[str], list[str]]] = {}
    current = None
    for line in out.splitlines():
        if line.startswith("diff --git "):
            current = files.setdefault(line, ([], []))
        elif line.startswith(("new file mode", "deleted file mode", "Binary files")):
            return False
        elif current is None or line.startswith(("--- ", "+++ ", "@@")):
            continue
        elif line.startswith(("-", "+")) and line[1:].strip():
            current[line.startswith("+")].append("".join(line[1:].split()))
    return bool(files) and all(
        removed and sorted(removed) == sorted(added) for removed, added in files.values()
    )


def file_blobs(work: Path, commit: str) -> dict[str, dict[str, tuple[str, str]]]:
    """sha -> {path: (blob before, blob after)} for every commit (first parent)."""
    out = git(work, "log", "--raw", "--no-renames", "--no-abbrev", "--format=\x01%H", commit)
    blobs: dict[str, dict[str, tuple[str, str]]] = {}
    files: dict[str, tuple[str, str]] = {}
    for line in out.split("\n"):
        if line.startswith("\x01"):
            files = blobs.setdefault(line[1:].strip(), {})
        elif line.startswith(":"):
            meta, _, path = line.partition("\t")
            parts = meta.split()
            files.setdefault(path, (parts[2], parts[3]))
    return blobs


def put_back(
    sha: str,
    blobs: dict[str, dict[str, tuple[str, str]]],
    changes: dict[tuple[str, str, str], list[str]],
    position: dict[str, int],
) -> bool:
    """Whether a later commit puts every file of this revert back, blob for blob, to
    what it was before the revert (a revert of the revert, whatever its message)."""
    mine = blobs.get(sha) or {}
    if not mine:
        return False
    here = position[sha]
    path, (old, new) = next(iter(mine.items()))
    for other in changes.get((path, new, old), ()):
        files = blobs[other]
        if position.get(other, here) < here and all(
            files.get(p) == (n, o) for p, (o, n) in mine.items()
        ):
            return True
    return False


def undone_later(
    sha: str,
    blobs: dict[str, dict[str, tuple[str, str]]],
    changes: dict[tuple[str, str, str], list[str]],
    position: dict[str, int],
) -> bool:
    """Whether later commits put every file of this commit back, blob for blob, to what
    it was before it: git's own evidence that the change was taken back."""
    mine = blobs.get(sha) or {}
    here = position.get(sha, -1)
    return bool(mine) and all(
        any(position.get(o, here) < here for o in changes.get((path, new, old), ()))
        for path, (old, new) in mine.items()
    )


def by_change(
    blobs: dict[str, dict[str, tuple[str, str]]],
) -> dict[tuple[str, str, str], list[str]]:
    """(path, blob before, blob after) -> the commits making that change."""
    index: dict[tuple[str, str, str], list[str]] = {}
    for sha, files in blobs.items():
        for path, (old, new) in files.items():
            index.setdefault((path, old, new), []).append(sha)
    return index


def came_back(
    work: Path,
    case: Case,
    body: str,
    newer_subjects: dict[str, int],
    position: dict[str, int],
    subject_of: dict[str, str],
) -> bool:
    """Whether the change a revert took out is in the benchmarked tree again, by git's
    own evidence: a later commit lands the reverted subject again, or the revert's own
    patch still applies to the tree (so what it removed is there once more)."""
    undone = [m.group(1) for m in [re.match(r'^Revert "(.*)"', case.subject)] if m]
    undone += [
        subject_of[t.group(1)[:7]] for t in TARGETS.finditer(body) if t.group(1)[:7] in subject_of
    ]
    if any(newer_subjects.get(s, position[case.sha]) < position[case.sha] for s in undone):
        return True
    patch = subprocess.run(
        ["git", "diff", "--binary", f"{case.sha}^", case.sha],
        cwd=work,
        capture_output=True,
        env=ENV,
    ).stdout
    if not patch.strip():
        return False
    applies = subprocess.run(
        ["git", "apply", "--check"], cwd=work, input=patch, capture_output=True, env=ENV
    )
    return applies.returncode == 0


def run_import(work: Path) -> dict[str, float | int | str]:
    cairn_dir = work / ".cairn"
    if cairn_dir.exists():
        shutil.rmtree(cairn_dir)
    subprocess.run([str(CAIRN), "init"], cwd=work, env=ENV, capture_output=True, check=True)
    # `cairn init` may touch .gitignore/.gitattributes: keep the tree clean for checkouts.
    git(work, "checkout", "-q", "--", ".")
    t0 = time.perf_counter()
    with (
        open(work / ".git" / "cairn-import.json", "w+b") as out,
        open(work / ".git" / "cairn-import.err", "w+b") as err,
    ):
        proc = subprocess.Popen(
            [str(CAIRN), "import", "git", "--json"], cwd=work, env=ENV, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own peak RSS
        seconds = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if status != 0:
        raise RuntimeError(f"import failed: {stderr.decode(errors='replace')}")
    summary = json.loads(stdout or b"{}")
    rss = usage.ru_maxrss
    events = summary.get("written", summary.get("imported", "?"))
    # CPU of the import and the git processes it ran: what a busy machine does not change.
    cpu = usage.ru_utime + usage.ru_stime
    load = os.getloadavg()[0]
    return {
        "seconds": round(seconds, 1),
        "cpu_seconds": round(cpu, 1),
        "load": round(load, 1),
        "peak_rss_mb": round(rss / 1024),
        "events": events,
    }


def check(work: Path, rev: str = "HEAD") -> tuple[int, list[str]]:
    out = subprocess.run(
        [str(CAIRN), "check", "--diff", rev, "--json"], cwd=work, env=ENV, capture_output=True
    )
    why: list[str] = []
    try:
        doc = json.loads(out.stdout or b"{}")
        for f in doc.get("findings", []):
            if f.get("blocking"):
                why.append(f"{f['entity']}: {f['message']}"[:200])
    except json.JSONDecodeError:
        pass
    if out.returncode not in (0, 1) or (out.returncode == 1 and not why):
        # Exit 1 without a blocking finding is a crash (an internal error), not a catch.
        why.append(f"error: {out.stderr.decode(errors='replace').strip()[:300]}")
        return 2, why
    return out.returncode, why


def reapply(work: Path, case: Case, checkout: bool = False) -> None:
    """Put the case's change back and check it: from git objects (the work tree stays
    at the benchmark commit) or, with `checkout`, in a checked-out work tree."""
    # The range whose new side is what re-applying leaves: C's tree on C^, R^'s at R.
    old, new = (
        (f"{case.sha}^", case.sha) if case.category in FORWARD else (case.sha, f"{case.sha}^")
    )
    if subprocess.run(["git", "diff", "--quiet", old, new], cwd=work, env=ENV).returncode == 0:
        case.outcome = "not-reappliable"  # an empty commit: nothing to put back
        case.why = ["no change between the commit and its parent"]
        return
    if not checkout:
        record(case, *check(work, f"{old}..{new}"))
        return
    if case.category in FORWARD:
        reset(work, f"{case.sha}^")
        ok = subprocess.run(
            ["git", "cherry-pick", "--no-commit", case.sha], cwd=work, capture_output=True, env=ENV
        )
    else:
        reset(work, case.sha)
        ok = subprocess.run(
            ["git", "revert", "--no-commit", case.sha], cwd=work, capture_output=True, env=ENV
        )
    if ok.returncode != 0:
        case.outcome = "not-reappliable"
        return
    record(case, *check(work))


def record(case: Case, code: int, why: list[str]) -> None:
    case.why = why
    if case.category in FORWARD:
        case.outcome = "flagged" if code == 1 else "clean"
    else:
        case.outcome = "caught" if code == 1 else "missed"
    if code not in (0, 1):
        case.outcome = "error"


def bench_repo(
    name: str,
    commit: str,
    mirror_root: Path,
    work_root: Path,
    limit: int | None,
    n_ordinary: int,
    reuse: bool = False,
    checkout: bool = False,
) -> dict[str, object]:
    mirror = mirror_root / name.replace("/", "+") / "repo"
    work = work_root / name.replace("/", "+")
    prepare(mirror, work, commit)
    n_commits = int(git(work, "rev-list", "--count", commit).strip())
    stats = work / ".git" / "cairn-import-stats.json"
    if reuse and stats.exists() and (work / ".cairn" / "decisions.jsonl").exists():
        imported = json.loads(stats.read_text())  # the import of an earlier run, as measured
    else:
        imported = run_import(work)
        stats.write_text(json.dumps(imported))
    cases, ordinary = classify(work, commit)
    mark_cosmetic(work, cases)
    mark_moved(work, cases)
    rng = random.Random(10)  # a fixed sample: reruns pick the same commits
    picked: list[Case] = []
    for category in ("marker", "squashed", "unmarked", "cosmetic", "moved"):
        of_kind = [c for c in cases if c.category == category]
        picked += of_kind if limit is None else rng.sample(of_kind, min(limit, len(of_kind)))
    sample = rng.sample(ordinary, min(n_ordinary, len(ordinary)))
    picked += [
        Case(s, "ordinary", git(work, "log", "-1", "--format=%s", s).strip()) for s in sample
    ]
    # Drawn first, then set apart: the draw stays the same whatever this rule says.
    blobs = file_blobs(work, commit)
    changes = by_change(blobs)
    position = {sha: i for i, sha in enumerate(git(work, "rev-list", commit).split())}
    for case in picked:
        if case.category == "ordinary" and undone_later(case.sha, blobs, changes, position):
            case.category = "undone"
    # In history order: each checkout then rewrites few files (a big win on big trees).
    order = {sha: i for i, sha in enumerate(git(work, "rev-list", "--reverse", commit).split())}
    picked.sort(key=lambda c: order.get(c.sha, 0))
    for case in picked:
        case.restores = case.category not in FORWARD and restores(work, case.sha)
    for i, case in enumerate(picked, 1):
        reapply(work, case, checkout)
        print(
            f"  [{i}/{len(picked)}] {case.category:9} {case.outcome:16} {case.sha[:10]} "
            f"{case.subject[:70]}",
            file=sys.stderr,
        )
    if checkout:
        reset(work, commit)
    return {
        "repo": name,
        "cairn": str(CAIRN),
        "mode": "checkout" if checkout else "objects",
        "commit": commit,
        "commits": n_commits,
        "import": imported,
        "table": tabulate([asdict(c) for c in picked]),
        "listed": listed(cases + [c for c in picked if c.category == "undone"]),
        "cases": [asdict(c) for c in picked],
    }


FORWARD = ("ordinary", "undone")  # re-applied on their parent, not undone at a revert
NOT_SCORED = ("re-revert", "re-landed", "in-squash", "cosmetic", "moved", "undone")


def tabulate(cases: list[dict]) -> dict[str, dict[str, int]]:
    """category -> outcome -> count; re-removals again under `re-removal`."""
    table: dict[str, dict[str, int]] = {}
    for case in cases:
        kinds = [case["category"]]
        if case.get("restores") and case["category"] in ("marker", "squashed", "unmarked"):
            kinds.append("re-removal")
        for kind in kinds:
            row = table.setdefault(kind, {})
            row[case["outcome"]] = row.get(case["outcome"], 0) + 1
    return table


def listed(cases: list[Case]) -> dict[str, int]:
    """How many reverts of each not-scored kind the history holds."""
    out: dict[str, int] = {}
    for c in cases:
        if c.category in NOT_SCORED:
            out[c.category] = out.get(c.category, 0) + 1
    return out


def summarise(result: dict) -> str:
    t = result["table"]

    def rate(cat: str, hit: str) -> str:
        row = t.get(cat, {})
        n = sum(v for k, v in row.items() if k not in ("not-reappliable", "error"))
        return f"{row.get(hit, 0)}/{n}" + (f" ({100 * row.get(hit, 0) / n:.0f}%)" if n else "")

    imp = result["import"]
    events = imp["events"]
    per_commit = f" ({events / result['commits']:.3f}/commit)" if isinstance(events, int) else ""
    return (
        f"| {result['repo']} @ {result['commit'][:10]} | {result['commits']} | "
        f"{rate('marker', 'caught')} | {rate('unmarked', 'caught')} | "
        f"{rate('squashed', 'caught')} | {rate('re-removal', 'caught')} | "
        f"{rate('ordinary', 'flagged')} | {imp['events']}{per_commit} | {imp['seconds']} s wall"
        + (f", {imp['cpu_seconds']} s CPU (load {imp['load']})" if "cpu_seconds" in imp else "")
        + f" | {imp['peak_rss_mb']} MB |"
    )


def print_table(results: list[dict]) -> None:
    print(
        "| repository | commits | marker reverts caught | unmarked caught | squashed caught "
        "| re-removals caught | ordinary flagged | events | import | peak RSS | not scored |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        t = r["table"]
        parts = [f"{n} {k}" for k, n in sorted(r.get("listed", {}).items())]
        errors = sum(
            row.get("error", 0) + row.get("not-reappliable", 0)
            for k, row in t.items()
            if k not in NOT_SCORED and k != "re-removal"  # counted in its category already
        )
        if errors:
            parts.append(f"{errors} not re-appliable or error")
        print(summarise(r) + f" {', '.join(parts) or '-'} |")


def rescore(path: Path, work_root: Path) -> list[dict]:
    """Re-read a run's JSON with today's classification (no check is re-run)."""
    results = json.loads(path.read_text())
    for result in results:
        work = work_root / result["repo"].replace("/", "+")
        cases, _ordinary = classify(work, result["commit"])
        mark_cosmetic(work, cases)
        mark_moved(work, cases)
        category = {c.sha: c.category for c in cases}
        for case in result["cases"]:
            if case["category"] not in FORWARD:
                case["category"] = category.get(case["sha"], case["category"])
                case["restores"] = restores(work, case["sha"])
        result["table"] = tabulate(result["cases"])
        result["listed"] = listed(cases)
    return results


def main() -> None:
    global CAIRN
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repo", action="append", help="only these repositories (owner/name)")
    ap.add_argument("--limit", type=int, help="at most N reverts per category (a fixed sample)")
    ap.add_argument("--ordinary", type=int, default=40, help="ordinary commits to re-apply")
    ap.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--work", type=Path, default=Path("/tmp/cairn-recall"))
    ap.add_argument("--json", type=Path, help="write every case and its outcome here")
    ap.add_argument(
        "--reuse-import",
        dest="reuse",
        action="store_true",
        help="keep the log and the import figures of an earlier run of this commit",
    )
    ap.add_argument("--rescore", type=Path, help="re-classify the cases of an earlier --json")
    ap.add_argument(
        "--precision",
        action="store_true",
        help="label shares of a fixed draw of the imported verdicts (bench/precision.py); "
        "imports first where --work holds no log",
    )
    ap.add_argument(
        "--draw-from",
        type=Path,
        help="with --precision: draw from the logs under this earlier --work (the draw "
        "the labels were made on) and judge each drawn verdict by the log under --work: "
        "the same labelled items, before and after a change of the import",
    )
    ap.add_argument(
        "--cairn",
        type=Path,
        default=CAIRN,
        help="the cairn executable to import and check with (another build's, for "
        "before/after in one run)",
    )
    ap.add_argument(
        "--checkout",
        action="store_true",
        help="re-apply each change in a checked-out work tree (slow; the proof that "
        "checking from git objects measures the same)",
    )
    args = ap.parse_args()
    CAIRN = args.cairn.absolute()
    results = []
    if args.rescore:
        print_table(rescore(args.rescore, args.work))
        return
    if args.precision:
        import precision

        rows = []
        for name, commit, _eco in REPOS:
            if args.repo and name not in args.repo:
                continue
            work = args.work / name.replace("/", "+")
            log = work / ".cairn" / "decisions.jsonl"
            if not log.exists():
                prepare(args.mirror_root / name.replace("/", "+") / "repo", work, commit)
                run_import(work)
            earlier = None
            if args.draw_from:
                earlier = args.draw_from / name.replace("/", "+") / ".cairn" / "decisions.jsonl"
            rows.append(precision.report(name, log, drawn_from=earlier))
        precision.print_report(rows)
        return
    for name, commit, _eco in REPOS:
        if args.repo and name not in args.repo:
            continue
        print(f"{name} @ {commit[:10]}", file=sys.stderr)
        results.append(
            bench_repo(
                name,
                commit,
                args.mirror_root,
                args.work,
                args.limit,
                args.ordinary,
                args.reuse,
                args.checkout,
            )
        )
    print_table(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
