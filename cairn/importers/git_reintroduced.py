"""A reverted entity that came back and stayed: the revert no longer holds in practice.

A revert that took an entity out (a constant, a method, a dependency) leaves an open
verdict: naming the entity again is flagged until someone supersedes the revert.
Histories rarely record that supersede. Wagtail reverted `VERSION` in 2015, brought it
back in 2016 and has bumped it in every release since; without this rule each bump is
flagged, forever.

The rule, in this one place: when an entity a revert took out is declared again in the
tree at HEAD, and the commit that put it back is at least `SURVIVES_COMMITS` commits
and `SURVIVES_DAYS` days older than HEAD, the import records a `supersede` of that
revert at that commit (`metadata.found_by = "reintroduced"`, with how long it
survived). A younger re-introduction is still flagged: it may be the very mistake the
revert warned about. Only entities the revert took out whole count (a body edit inside
an entity that stayed is matched by its fingerprint, never by the entity's name).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from cairn.importers.git_history import ZERO, Blobs, Commit

__all__ = ["SURVIVES_COMMITS", "SURVIVES_DAYS", "Reintroduced", "TakenOut", "reintroductions"]

SURVIVES_COMMITS = 20
SURVIVES_DAYS = 90
MAX_FILE_BYTES = 1_000_000


@dataclass(frozen=True, slots=True)
class TakenOut:
    """An entity a revert took out whole, and the file it was declared in."""

    revert: Commit
    entity: str
    kind: str
    file: str


@dataclass(frozen=True, slots=True)
class Reintroduced:
    """The commit that put a reverted entity back, and how long it has stayed."""

    taken: TakenOut
    commit: Commit
    commits: int  # commits from it to HEAD
    days: int


def reintroductions(
    commits: list[Commit], taken: list[TakenOut], blobs: Blobs
) -> Iterator[Reintroduced]:
    """The reverted entities declared again at HEAD that have survived long enough."""
    if not commits or not taken:
        return
    head = commits[-1]
    files = {t.file for t in taken}
    versions: dict[str, list[tuple[int, str]]] = {}  # file -> (commit index, blob after)
    for c in commits:
        for ch in c.changes:
            if ch.path in files:
                versions.setdefault(ch.path, []).append((c.index, ch.new))
    declared: dict[str, frozenset[str]] = {}  # blob id -> entities it introduces

    def names(data: bytes | None, path: str) -> frozenset[str]:
        if data is None or len(data) > MAX_FILE_BYTES or b"\0" in data[:8000]:
            return frozenset()
        from cairn.indexer import index_text

        return frozenset(s.entity for s in index_text(data, path) if str(s.role) == "introduce")

    def at(blob: str, path: str) -> frozenset[str]:
        if blob == ZERO:
            return frozenset()
        if blob not in declared:
            declared[blob] = names(blobs.object(blob), path)
        return declared[blob]

    by_file: dict[str, list[TakenOut]] = {}
    for t in taken:
        by_file.setdefault(t.file, []).append(t)
    for path, group in sorted(by_file.items()):
        now = blobs.read("HEAD", path)
        if now is None:
            continue
        text = now.decode("utf-8", "replace")
        wanted = [t for t in group if t.kind == "dependency" or _last_name(t.entity) in text]
        if not wanted:
            continue  # the cheap look first: no such name in the file at HEAD
        at_head = names(now, path)
        for t in wanted:
            if t.entity not in at_head:
                continue
            later = [(i, b) for i, b in versions.get(path, ()) if i > t.revert.index]
            if not later or t.entity not in at(later[-1][1], path):
                continue
            # The first version after the revert from which the entity stays declared
            # (a binary search: it comes back once, in practice).
            lo, hi = 0, len(later) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if t.entity in at(later[mid][1], path):
                    hi = mid
                else:
                    lo = mid + 1
            back = commits[later[lo][0]]
            stayed = head.index - back.index
            days = (_when(head) - _when(back)).days
            if stayed >= SURVIVES_COMMITS and days >= SURVIVES_DAYS:
                yield Reintroduced(t, back, stayed, days)


def _last_name(entity: str) -> str:
    from cairn.store.paths import split_overload

    return split_overload(entity)[0].rsplit("::", 1)[-1].rsplit(".", 1)[-1]


def _when(c: Commit) -> datetime:
    return datetime.fromisoformat(c.date.replace("Z", "+00:00"))
