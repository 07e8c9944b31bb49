"""The commit a hand-written revert undid, when its message names none: git's blame.

A commit whose subject says it reverts/undoes something, but whose lines match no
recent commit (`git_reverts.by_lines`), still took lines out; `git blame` of its parent
says which commit wrote each of them. When one commit wrote most of the significant
lines it took out, that commit is the change it undid, and only those lines belong to
the revert (the rest of the commit did something else). Otherwise the revert is
recorded from its message alone and says why no commit could be named.

Bounded: at most `MAX_FILES` files and `MAX_RANGES` line ranges per file are blamed,
one `git blame` each, only for the few message-found commits.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from cairn.fingerprints import normalise, significant
from cairn.importers.git_history import Commit, FileDiff
from cairn.importers.git_reverts import Found

MAX_FILES = 20  # files blamed per commit (the ones taking out the most lines first)
MAX_RANGES = 200  # `-L` ranges per file
MIN_SHARE = 0.5  # the share of the removed lines one commit must have written
_HEADER = re.compile(r"^([0-9a-f]{40}) \d+ (\d+)")

Runner = Callable[[list[str]], str]  # git args -> stdout ("" when git fails)


def blame_lines(run: Runner, rev: str, path: str, numbers: list[int]) -> dict[int, str]:
    """line number at `rev` -> the commit that wrote it (`git blame --porcelain`)."""
    ranges: list[tuple[int, int]] = []
    for n in sorted(numbers):
        if ranges and n == ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], n)
        else:
            ranges.append((n, n))
    args = ["blame", "--porcelain"]
    for a, b in ranges[:MAX_RANGES]:
        args += ["-L", f"{a},{b}"]
    out = run([*args, rev, "--", path])
    who: dict[int, str] = {}
    for line in out.split("\n"):
        m = _HEADER.match(line)
        if m:
            who[int(m.group(2))] = m.group(1)
    return who


def by_blame(run: Runner, c: Commit, diff: dict[str, FileDiff]) -> Found:
    """The commit that wrote most of what `c` took out, or a `message` Found saying why
    none could be named. `run(args)` runs git in the repository and returns stdout
    ("" on failure)."""
    wanted: dict[str, list[int]] = {}
    for path, fd in diff.items():
        nums = [n for n, t in fd.removed.items() if significant(normalise(t))]
        if nums and not fd.binary and not fd.huge:
            wanted[path] = nums
    if not wanted:
        return Found(c, None, "message", untraced="it takes out no significant lines")
    put_back = sum(
        1 for fd in diff.values() for t in fd.added.values() if significant(normalise(t))
    )
    if put_back > sum(len(v) for v in wanted.values()):
        # Mostly a restoration: what it undid was a removal, which blame of the lines
        # it takes out cannot see (they were written by someone else).
        return Found(
            c, None, "message", untraced="it mostly puts lines back; blame cannot name a removal"
        )
    files = sorted(wanted, key=lambda p: -len(wanted[p]))[:MAX_FILES]
    authors: dict[str, dict[int, str]] = {
        path: blame_lines(run, f"{c.sha}^", path, wanted[path]) for path in files
    }
    votes: Counter[str] = Counter(
        sha for path in files for n in wanted[path] if (sha := authors[path].get(n))
    )
    total = sum(len(wanted[p]) for p in files)
    if not votes:
        return Found(c, None, "message", untraced="git blame named no commit for its lines")
    sha, hits = votes.most_common(1)[0]
    share = hits / total
    if share < MIN_SHARE:
        return Found(
            c,
            None,
            "message",
            untraced=(
                f"no earlier commit wrote most of the lines it takes out "
                f"(the most, {sha[:10]}, wrote {round(share * 100)}%)"
            ),
        )
    lines = {
        path: frozenset(n for n in wanted[path] if authors[path].get(n) == sha) for path in files
    }
    lines = {p: ns for p, ns in lines.items() if ns}
    return Found(
        c,
        sha,
        "message",
        share=round(share, 2),
        files=frozenset(lines),
        lines=lines,
        traced_by="blame",
    )
