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
renames is followed forward from them. Bounded: at most MAX_FOLLOWED symbols; each file
holding them is walked once over at most MAX_COMMITS commits that touch it, reading the
file once per commit for all its symbols and parsing only where a symbol's name leaves
the text; at most MAX_CANDIDATE_FILES of such a commit's files are searched for the body,
and MAX_READS file reads in all (the import says when it stopped there).
"""

from __future__ import annotations

import re
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
MAX_COMMITS = 500  # commits walked per file
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
            if since is None or since > r.commit.index:
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
        out: list[tuple[Commit, str, str]] = []
        queue = deque(sorted(pending))
        while queue:
            path = queue.popleft()
            names = pending.pop(path, {})
            walked = 0
            for pos in touched.get(path, ()):
                if not names or walked >= MAX_COMMITS or self._reads >= MAX_READS:
                    break
                if pos <= min(names.values()):
                    continue
                walked += 1
                c = self._commits[pos]
                change = next(ch for ch in c.changes if path in (ch.path, ch.old_path))
                if (pos, path) in renamed:
                    # The file moved (the file rename carries its symbols): go on there.
                    target = renamed[(pos, path)]
                    pending.setdefault(target, {}).update(dict.fromkeys(names, pos))
                    queue.append(target)
                    break
                active = [n for n, since in names.items() if since < pos]
                after = self._read(blobs, c.sha, path) if change.new != ZERO else None
                gone = [n for n in active if not _names(after, n)]
                if not gone:
                    continue
                before = self._read(blobs, f"{c.sha}^", path)
                gone = [n for n in gone if _names(before, n)]  # there before, gone now
                for name, moved in self._moved(c, path, gone, before, blobs).items():
                    del names[name]
                    if moved is None:
                        continue  # gone, or changed beyond recognition: nothing to carry
                    out.append((c, f"{path}::{name}", moved))
                    file, _, new_name = moved.partition("::")
                    if file == path:
                        names[new_name] = pos
                    else:
                        pending.setdefault(file, {})[new_name] = pos
                        queue.append(file)
        return out

    def _read(self, blobs: Blobs, rev: str, path: str) -> bytes | None:
        self._reads += 1
        return blobs.read(rev, path)

    def _moved(
        self, c: Commit, path: str, gone: list[str], before: bytes | None, blobs: Blobs
    ) -> dict[str, str | None]:
        """For each symbol name that left `path` in commit `c`: the one symbol of that
        commit with the body it had before, or None."""
        from cairn.indexer import index_text

        if not gone:
            return {}
        text = _text(before)
        if text is None:
            return dict.fromkeys(gone)
        wanted = {f"{path}::{n}": n for n in gone}
        bodies = {
            wanted[s.entity]: _body(text, s)
            for s in index_text(text, path)
            if s.entity in wanted and str(s.role) == "introduce"
        }
        found: dict[frozenset[str], set[str]] = {}
        targets = {b for b in bodies.values() if len(b) >= MIN_BODY_LINES}
        if targets:
            files = [ch.path for ch in c.changes if ch.new != ZERO][:MAX_CANDIDATE_FILES]
            for file in files:
                after = _text(self._read(blobs, c.sha, file))
                if after is None:
                    continue
                for sym in index_text(after, file):
                    if "::" not in sym.entity or str(sym.role) != "introduce":
                        continue
                    body = _body(after, sym)
                    if body in targets and sym.entity not in wanted:
                        found.setdefault(body, set()).add(sym.entity)
        out: dict[str, str | None] = {}
        for name in gone:
            hits = found.get(bodies.get(name, frozenset()), set())
            out[name] = next(iter(hits)) if len(hits) == 1 else None  # look-alikes: say nothing
        return out


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


def _names(blob: bytes | None, name: str) -> bool:
    """Whether the file still says the symbol's own (last) name, as a word."""
    if blob is None:
        return False
    word = name.rsplit(".", 1)[-1].encode()
    return re.search(rb"(?<![\w$])" + re.escape(word) + rb"(?![\w$])", blob) is not None


def _text(blob: bytes | None) -> str | None:
    if blob is None or len(blob) > MAX_FILE_BYTES or b"\0" in blob[:8000]:
        return None
    return blob.decode("utf-8", "replace")


def _body(text: str, sym: Symbol) -> frozenset[str]:
    """The fingerprint of a symbol's lines without its name line (a rename changes it)."""
    from cairn.fingerprints import fingerprint

    rng = sym.range
    name_line = sym.name_range.start_line
    lines = text.split("\n")[rng.start_line : rng.end_line + 1]
    body = [t for i, t in enumerate(lines, rng.start_line) if i != name_line]
    return frozenset(fingerprint(body))


def _canonical(path: str) -> str | None:
    from cairn.store.paths import EntityPathError, canonicalise

    try:
        return canonicalise(path)
    except EntityPathError:
        return None
