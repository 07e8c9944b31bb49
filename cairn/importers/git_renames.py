"""Renames and moves in a git history become `rename` events, so decisions follow them.

**File renames** come from git's own rename detection (`git log -M`, status `R`): each
is a `rename` on the old path (`metadata.renamed_to`) and one on the new path
(`metadata.renamed_from`). A rename carries what its old path covers, so the symbols of
a renamed file follow it too (`cairn.core.aliases`).

**Symbol moves**: a symbol with a verdict that later disappears from its file while a
symbol with the same body (the same fingerprint of its lines, its name line left out,
`cairn.fingerprints`) appears in that commit — renamed in place, or moved to another
file — gets a `rename` to its new path (`metadata.found_by = "body"`).

Only what has history is followed, since a rename exists to carry it: files and symbols
this import records verdicts on, and those the log already holds (`known`). A chain of
renames is followed forward from them. Bounded: at most MAX_FOLLOWED symbols; one read
of each file at the end of the history drops the symbols still there (most never
moved); for the others a binary search over the commits that touch the file finds
where the name left (about ten reads however often it was touched). Only there is
anything parsed: the file before, and those of the commit's files (at most
MAX_CANDIDATE_FILES) that hold the body's longest lines. MAX_READS file reads in all
(the import says when it stopped there).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cairn.importers.base import Known, Proposed, Skipped
from cairn.importers.git_history import ZERO, Blobs, Commit

if TYPE_CHECKING:
    from cairn.indexer import Symbol

__all__ = ["RenameTracker", "file_renames"]

MAX_FOLLOWED = 500
MAX_COMMITS = 500  # renames of one file followed to its last name
MAX_READS = 10_000  # file reads per import, for all symbols
MAX_CANDIDATE_FILES = 20
MAX_FILE_BYTES = 1_000_000
MIN_BODY_LINES = 2  # a body of one significant line says too little to be recognised


@dataclass(frozen=True, slots=True)
class FileRename:
    """One file git saw renamed in one commit."""

    commit: Commit
    old: str
    new: str


def file_renames(commits: list[Commit]) -> list[FileRename]:
    """The renames `git log -M` reported (`FileChange.old_path`), oldest first. The revert
    finder reads the same changes: a rename undoes nothing there."""
    return [
        FileRename(c, ch.old_path, ch.path)
        for c in commits
        for ch in c.changes
        if ch.old_path is not None and ch.old_path != ch.path
    ]


class RenameTracker:
    """Notes what the import records verdicts on, then proposes the renames that carry
    them (and those of what the log already knows) to their later names."""

    def __init__(
        self, commits: list[Commit], renames: list[FileRename], known: Iterable[str] = ()
    ) -> None:
        self._commits = commits
        self._index = {c.sha: c.index for c in commits}
        self._renames = renames
        self._files: dict[str, int] = {}  # file -> index of the first commit it has history
        self._symbols: dict[str, int] = {}  # file::name -> index of its first verdict
        self._reads = 0  # file reads spent following symbols (bounded by MAX_READS)
        for entity in known:
            self._note(entity, -1)

    def watch(
        self, items: Iterable[Proposed | Skipped | Known]
    ) -> Iterator[Proposed | Skipped | Known]:
        """Pass the import's items through, noting where verdicts are recorded."""
        for item in items:
            if isinstance(item, Proposed) and item.type in ("revert", "reject"):
                self._note(item.entity, self._index.get(item.commit or "", -1))
            yield item

    def proposals(self, blobs: Blobs) -> Iterator[Proposed | Skipped]:
        """The `rename` events: symbol moves, then file renames, each once."""
        moves = self._symbol_moves(blobs) if self._symbols else []
        if self._reads >= MAX_READS:
            yield Skipped(
                "symbol moves",
                f"stopped following moved symbols after {MAX_READS:,} file reads; "
                "the file renames that carry verdicts are all recorded",
            )
        for c, old, new in moves:
            yield from _pair(c, old, new, "symbol", "body")
            self._files.setdefault(new.split("::", 1)[0], c.index)
        for r in sorted(self._renames, key=lambda r: r.commit.index):
            since = self._files.get(r.old)
            if since is None or since >= r.commit.index:
                # No history before it; or the verdict was taken in this very commit (a
                # revert that renamed the file back): it is about the name it took away.
                continue
            before, after = _canonical(r.old), _canonical(r.new)
            if before is None or after is None or before == after:
                continue
            yield from _pair(r.commit, before, after, "file", "git")
            self._files.setdefault(r.new, r.commit.index)

    # --- symbols ------------------------------------------------------------------------

    def _note(self, entity: str, index: int) -> None:
        if entity.startswith(("deps/", "env/", "route/")):
            return
        file, sep, _name = entity.partition("::")
        if "/" not in file and "." not in file:
            return  # a table: not a file git renames
        if sep and (len(self._symbols) < MAX_FOLLOWED or entity in self._symbols):
            self._symbols[entity] = min(index, self._symbols.get(entity, index))
        self._files[file] = min(index, self._files.get(file, index))

    def _symbol_moves(self, blobs: Blobs) -> list[tuple[Commit, str, str]]:
        """Each file with followed symbols is walked once over the commits that touch it
        (one read of the file per commit, for all its symbols)."""
        touched: dict[str, list[int]] = {}
        for c in self._commits:
            for ch in c.changes:
                touched.setdefault(ch.path, []).append(c.index)
                if ch.old_path is not None:
                    touched.setdefault(ch.old_path, []).append(c.index)
        renamed = {(r.commit.index, r.old): r.new for r in self._renames}
        pending: dict[str, dict[str, int]] = {}  # file -> {symbol name: followed after}
        for entity, since in self._symbols.items():
            file, _, name = entity.partition("::")
            pending.setdefault(file, {})[name] = since
        self._drop_still_there(pending, renamed, blobs)
        out: list[tuple[Commit, str, str]] = []
        queue = deque(sorted(pending))
        while queue and self._reads < MAX_READS:
            path = queue.popleft()
            names = pending.pop(path, {})
            if names:
                out.extend(self._walk_file(path, names, touched, renamed, pending, queue, blobs))
        return out

    def _walk_file(
        self,
        path: str,
        names: dict[str, int],
        touched: dict[str, list[int]],
        renamed: dict[tuple[int, str], str],
        pending: dict[str, dict[str, int]],
        queue: deque[str],
        blobs: Blobs,
    ) -> Iterator[tuple[Commit, str, str]]:
        """Where each name left `path`: a binary search over the commits that touch the
        file (a name is taken to stay until it goes), so a file touched a thousand times
        costs about ten reads per symbol."""
        seq = [p for p in touched.get(path, ()) if p > min(names.values())]
        hop = next((i for i, p in enumerate(seq) if (p, path) in renamed), None)
        if hop is not None:
            seq = seq[: hop + 1]  # the file's life under this name ends at its rename
        cache: dict[int, set[bytes]] = {}

        def words_at(i: int) -> set[bytes]:
            pos = seq[i]
            if pos not in cache:
                c = self._commits[pos]
                change = next(ch for ch in c.changes if path in (ch.path, ch.old_path))
                # At a rename, the text goes on under the new name.
                gone = change.new == ZERO and change.old_path != path
                cache[pos] = set() if gone else _words(self._read(blobs, c.sha, change.path))
            return cache[pos]

        todo = deque(names.items())
        while todo and seq and self._reads < MAX_READS:
            name, since = todo.popleft()
            word = _last(name)
            lo, hi = bisect_right(seq, since), len(seq) - 1
            if lo > hi:
                continue
            if word in words_at(hi):
                if hop is not None:  # still there when the file was renamed: go on there
                    target = renamed[(seq[hop], path)]
                    pending.setdefault(target, {})[name] = seq[hop]
                    queue.append(target)
                continue
            first = lo
            while lo < hi:  # the first commit whose file no longer names it
                mid = (lo + hi) // 2
                if word in words_at(mid):
                    lo = mid + 1
                else:
                    hi = mid
            if lo > first and word not in words_at(lo - 1):
                continue  # not there since `since` at all: nothing moved
            c = self._commits[seq[lo]]
            moved = self._moved(c, path, name, blobs)
            if moved is None:
                continue  # gone, or changed beyond recognition: nothing to carry
            yield c, f"{path}::{name}", moved
            file, _, new_name = moved.partition("::")
            if file == path:
                todo.append((new_name, seq[lo]))
            else:
                pending.setdefault(file, {})[new_name] = seq[lo]
                queue.append(file)

    def _drop_still_there(
        self, pending: dict[str, dict[str, int]], renamed: dict[tuple[int, str], str], blobs: Blobs
    ) -> None:
        """Forget the symbols whose name the file (under its last name) still has at the
        end of the history: most never moved, and one read per file says so."""
        last = self._commits[-1].sha if self._commits else ""
        later: dict[str, list[tuple[int, str]]] = {}
        for (pos, old), new in renamed.items():
            later.setdefault(old, []).append((pos, new))
        for file in list(pending):
            names = pending[file]
            path, after = file, min(names.values())
            for _ in range(MAX_COMMITS):  # along the file's own renames (cycle-safe)
                step = min((r for r in later.get(path, ()) if r[0] > after), default=None)
                if step is None:
                    break
                after, path = step
            words = _words(self._read(blobs, last, path))
            for name in [n for n in names if _last(n) in words]:
                del names[name]
            if not names:
                del pending[file]

    def _read(self, blobs: Blobs, rev: str, path: str) -> bytes | None:
        self._reads += 1
        return blobs.read(rev, path)

    def _moved(self, c: Commit, path: str, name: str, blobs: Blobs) -> str | None:
        """The one symbol of commit `c` with the body `path::name` had before it left."""
        from cairn.indexer import index_text

        text = _text(self._read(blobs, f"{c.sha}^", path))
        if text is None:
            return None
        entity = f"{path}::{name}"
        lines = text.split("\n")
        symbol = next(
            (
                s
                for s in index_text(text, path)
                if s.entity == entity and str(s.role) == "introduce"
            ),
            None,
        )
        wanted = _body(lines, symbol) if symbol is not None else frozenset()
        if symbol is None or len(wanted) < MIN_BODY_LINES:
            return None
        keys = _keys(lines, symbol)
        found: set[str] = set()
        files = [ch.path for ch in c.changes if ch.new != ZERO][:MAX_CANDIDATE_FILES]
        for file in files:
            after = _text(self._read(blobs, c.sha, file))
            if after is None:
                continue
            if not all(k in after for k in keys):
                continue  # the body's longest lines are not in this file: no parse needed
            lines = after.split("\n")
            for sym in index_text(after, file):
                if (
                    sym.entity != entity
                    and "::" in sym.entity
                    and str(sym.role) == "introduce"
                    and _body(lines, sym) == wanted
                ):
                    found.add(sym.entity)
        return next(iter(found)) if len(found) == 1 else None  # look-alikes: say nothing


def _pair(c: Commit, old: str, new: str, kind: str, how: str) -> Iterator[Proposed]:
    """The two halves of one rename: on the old path and on the new one."""
    what = "moved" if kind == "symbol" else "renamed"
    base = f"git:rename/{c.sha}:{old}>{new}"
    common = {"occurred_at": c.date, "author": c.author, "commit": c.sha, "entity_kind": kind}
    yield Proposed(
        source_key=base + ":from",
        type="rename",
        entity=old,
        reasoning=f"{what} to {new} in {c.sha[:10]}: {c.subject}",
        metadata={"renamed_to": new, "found_by": how},
        **common,
    )
    yield Proposed(
        source_key=base + ":to",
        type="rename",
        entity=new,
        reasoning=f"{what} from {old} in {c.sha[:10]}: {c.subject}",
        metadata={"renamed_from": old, "found_by": how},
        **common,
    )


_WORD = re.compile(rb"[\w$]+")


def _words(blob: bytes | None) -> set[bytes]:
    """The identifiers a file's text holds (one pass, then set lookups per symbol)."""
    return set(_WORD.findall(blob)) if blob is not None else set()


def _last(name: str) -> bytes:
    """A symbol's own name: the last part of `Class.method`."""
    return name.rsplit(".", 1)[-1].encode()


def _text(blob: bytes | None) -> str | None:
    if blob is None or len(blob) > MAX_FILE_BYTES or b"\0" in blob[:8000]:
        return None
    return blob.decode("utf-8", "replace")


def _body(lines: list[str], sym: Symbol) -> frozenset[str]:
    """The fingerprint of a symbol's lines without its name line (a rename changes it)."""
    from cairn.fingerprints import fingerprint

    rng = sym.range
    name_line = sym.name_range.start_line
    own = lines[rng.start_line : rng.end_line + 1]
    return frozenset(fingerprint(t for i, t in enumerate(own, rng.start_line) if i != name_line))


def _keys(lines: list[str], sym: Symbol) -> list[str]:
    """A body's three longest lines, stripped: text any file holding the body holds too
    (re-indented or not), to skip parsing the files that do not."""
    rng, name_line = sym.range, sym.name_range.start_line
    own = lines[rng.start_line : rng.end_line + 1]
    body = [t for i, t in enumerate(own, rng.start_line) if i != name_line]
    stripped = sorted({t.strip().rstrip(",;") for t in body}, key=len, reverse=True)
    return stripped[:3]


def _canonical(path: str) -> str | None:
    from cairn.store.paths import EntityPathError, canonicalise

    try:
        return canonicalise(path)
    except EntityPathError:
        return None
