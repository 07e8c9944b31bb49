"""Finding reverts in a history by what they do, whatever their message says.

Three ways, cheapest first:

- `marker`: git's own `This reverts commit <sha>` (or a `Revert "<subject>"` subject
  naming an earlier commit's subject). A commit that carries the marker in its body
  but changes more than the reverted commit's files is a squash: only the files (and
  lines) of the reverted change count.
- `inverse-patch`: every file an earlier commit C changed is put back, blob for blob,
  to what it was before C (C took a file from blob a to b; this commit takes it from b
  to a). Found from `git log --raw` alone, without reading a single diff.
- `partial`: some of C's files are put back exactly, or, for a commit whose subject
  says it reverts/undoes/backs out/rolls back something, the lines it removes are most
  of the lines C added (C among recent commits touching the same files, a commit the
  message names by sha, or the pull request it names by `#number`). `share` records
  how much of C came back out.

The search is bounded: only commits at most `window` commits earlier are candidates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass

from cairn.fingerprints import normalise, significant
from cairn.importers.git_history import ZERO, Commit, FileDiff

DEFAULT_WINDOW = 3000  # commits; configurable with `cairn import git --window`
MAX_CANDIDATES = 12  # per hinted commit, line-diffed against it (its files only)

# Git writes these itself; they are the documented revert markers.
REVERTS_BODY = re.compile(r"This reverts commit ([0-9a-f]{7,64})", re.I)
REVERT_SUBJECT = re.compile(r'^Revert "(.*)"\s*$')
# A subject whose verb says it takes something back ("core: Revert 7f364c7; …",
# "Reverting to psycopg2==2.6.1", "Undo the cache change", "Back out #123").
HINT_SUBJECT = re.compile(
    r"^(?:\[?[\w./,{}* -]{1,40}\]?:\s*)?"
    r"(revert(s|ed|ing)?|undo(es|ne|ing)?|back(s|ed|ing)?[ -]?out|roll(s|ed|ing)?[ -]?back)\b",
    re.I,
)
_SHA_WORD = re.compile(r"\b([0-9a-f]{7,40})\b")
_PR_REF = re.compile(r"#(\d{2,7})\b")


@dataclass(slots=True)
class Found:
    """A commit that undoes (part of) an earlier one."""

    revert: Commit
    original: str | None  # full sha of the commit undone, when known
    found_by: str  # marker | inverse-patch | partial | message
    share: float | None = None  # partial: the share of the original's lines/files undone
    files: frozenset[str] | None = None  # the revert's files that belong to it (None: all)
    squash: bool = False
    # Only the removed lines the original added belong to the revert (the rest of the
    # commit did something else): set for squashes, partial line matches and marker
    # reverts that change more than the reverted commit did.
    narrow: bool = False
    # path -> old-side line numbers that belong to it, when known line by line (blame).
    lines: dict[str, frozenset[int]] | None = None
    branch_only: bool = False  # a squash reverting a commit only its branch had
    named: tuple[str, ...] = ()  # other commits the message says it reverts (a squash)
    traced_by: str = ""  # how `original` was found when the message named none (blame)
    untraced: str = ""  # why no reverted commit could be named (a message-found revert)


def hinted(commit: Commit) -> bool:
    """The subject says the commit takes something back (without git's marker)."""
    return bool(HINT_SUBJECT.match(commit.subject))


def by_marker(
    commit: Commit,
    by_sha: dict[str, Commit],
    by_subject: dict[str, Commit],
    resolve: Callable[[str], str | None],
) -> str | None:
    """The full sha `commit`'s marker names, or None."""
    m = REVERTS_BODY.search(commit.message)
    named = REVERT_SUBJECT.match(commit.subject)
    by_name = by_subject.get(named.group(1)) if named else None
    if m:
        short = m.group(1)
        if short in by_sha:
            return short
        full = resolve(short)
        if full is not None:
            return full
        # The named commit is not in this repository (a branch rebased or squash-merged
        # after the revert was written): the same change under the same subject is.
        return by_name.sha if by_name is not None else short
    return by_name.sha if by_name is not None else None


def by_blobs(commits: list[Commit], window: int) -> dict[str, Found]:
    """Commits that put files back, blob for blob, to before an earlier commit."""
    changed: dict[tuple[str, str, str], list[int]] = {}
    found: dict[str, Found] = {}
    for c in commits:
        if len(c.parents) == 1 and c.changes:
            matched: dict[int, set[str]] = {}
            for ch in c.changes:
                if ch.old_path is not None:
                    continue  # a rename is not undoing anything
                for idx in reversed(changed.get((ch.path, ch.new, ch.old), ())):
                    if c.index - idx > window:
                        break
                    matched.setdefault(idx, set()).add(ch.path)
                    break  # the most recent such commit is the one undone
            best = _best_blob_match(c, commits, matched)
            if best is not None:
                found[c.sha] = best
        for ch in c.changes:
            if ch.old_path is None and ch.old != ch.new:
                changed.setdefault((ch.path, ch.old, ch.new), []).append(c.index)
    return found


def _best_blob_match(
    c: Commit, commits: list[Commit], matched: dict[int, set[str]]
) -> Found | None:
    best: Found | None = None
    best_key: tuple[int, int] = (0, 0)
    for idx, paths in matched.items():
        orig = commits[idx]
        n_orig = len([ch for ch in orig.changes if ch.old != ch.new]) or 1
        n_self = len(c.changes)
        hits = len(paths)
        if hits < math.ceil(0.5 * n_orig):
            continue  # a file that happens to return to an old blob is not a revert
        if hits < math.ceil(0.5 * n_self) and not hinted(c):
            continue  # most of this commit does something else: not a revert of C
        if _only_trivial(orig, paths):
            continue
        key = (hits, idx)
        if key <= best_key:
            continue
        best_key = key
        exact = hits == n_orig
        best = Found(
            revert=c,
            original=orig.sha,
            found_by="inverse-patch" if exact else "partial",
            share=None if exact else round(hits / n_orig, 2),
            files=frozenset(paths) if hits < n_self else None,
            squash=exact and hits < n_self,
        )
    return best


def _only_trivial(orig: Commit, paths: set[str]) -> bool:
    """True when the only files undone are ones that toggle by nature (an empty file
    created and deleted)."""
    empty = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    return all(
        any(ch.path == p and {ch.old, ch.new} <= {ZERO, empty} for ch in orig.changes)
        for p in paths
    )


def candidates_for(
    c: Commit,
    commits: list[Commit],
    touched: dict[str, list[int]],
    by_pr: dict[str, int],
    resolve_index: Callable[[str], int | None],
    window: int,
) -> list[int]:
    """Earlier commits a hinted commit may undo: named ones first, then the most recent
    commits touching its files."""
    out: list[int] = []
    for m in _SHA_WORD.finditer(c.message):
        idx = resolve_index(m.group(1))
        if idx is not None and idx < c.index and idx not in out:
            out.append(idx)
    for m in _PR_REF.finditer(c.subject):
        idx = by_pr.get(m.group(1))
        if idx is not None and idx < c.index and idx not in out:
            out.append(idx)
    recent: set[int] = set()
    for ch in c.changes:
        for idx in reversed(touched.get(ch.path, ())):
            if idx >= c.index:
                continue
            if c.index - idx > window:
                break
            recent.add(idx)
            if len(recent) >= MAX_CANDIDATES * 4:
                break
    out += [i for i in sorted(recent, reverse=True)[:MAX_CANDIDATES] if i not in out]
    return out


def meaningful(lines: dict[int, str], path: str) -> list[str]:
    """The lines of one side of a file's diff that carry meaning in its language, as
    fingerprints take them (`code_rows`: no docstrings, comments or imports), read from
    the diff's own lines in order (a file deleted or created whole: exactly). A revert
    is matched on what it can be recognised by: a match made of docstrings names a
    commit whose undo no check could ever see (psf/requests' "Reverted hooks from
    sub-package to module." matched "hook plans" by its module docstring alone)."""
    from cairn.fingerprints import code_rows

    texts = [lines[n] for n in sorted(lines)]
    return [texts[r] for r in sorted(code_rows("\n".join(texts), path, range(len(texts))))]


def _lines(diff: dict[str, FileDiff], side: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path, fd in diff.items():
        texts = meaningful(fd.removed if side == "removed" else fd.added, path)
        norms = {n for n in map(normalise, texts) if significant(n)}
        if norms:
            out[path] = norms
    return out


def by_lines(
    c: Commit, diffs: dict[str, dict[str, FileDiff]], candidates: list[Commit]
) -> Found | None:
    """The candidate whose added lines this commit removes the most of (≥ half)."""
    mine = diffs.get(c.sha)
    if not mine:
        return None
    removed = _lines(mine, "removed")
    restored = _lines(mine, "added")
    if not removed and not restored:
        return None
    best: Found | None = None
    best_score = 0.0
    for orig in candidates:
        theirs = diffs.get(orig.sha)
        if not theirs:
            continue
        added = _lines(theirs, "added")
        took_out = _lines(theirs, "removed")
        n_added = sum(len(v) for v in added.values())
        n_took = sum(len(v) for v in took_out.values())
        if not n_added and not n_took:
            continue
        # Lines match by content across files too (a revert may land after a move).
        mine_removed = set().union(*removed.values()) if removed else set()
        mine_restored = set().union(*restored.values()) if restored else set()
        their_added = set().union(*added.values()) if added else set()
        their_removed = set().union(*took_out.values()) if took_out else set()
        hits = len(mine_removed & their_added) + len(mine_restored & their_removed)
        total = len(their_added) + len(their_removed)
        score = hits / total if total else 0.0
        if score < 0.5 or score <= best_score:
            continue
        best_score = score
        files = {p for p, v in removed.items() if v & their_added}
        files |= {p for p, v in restored.items() if v & their_removed}
        exact = hits == total and mine_removed <= their_added and mine_restored <= their_removed
        best = Found(
            revert=c,
            original=orig.sha,
            found_by="inverse-patch" if exact else "partial",
            share=None if exact else round(score, 2),
            files=frozenset(files) if files != set(mine) else None,
            narrow=not exact,
        )
    return best
