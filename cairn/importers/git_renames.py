"""Renames and moves in a git history become `rename` events, so decisions follow them.

**File renames** come from git's own rename detection (`git log -M`, status `R`): each
is a `rename` on the old path (`metadata.renamed_to`) and one on the new path
(`metadata.renamed_from`). A rename carries what its old path covers, so the symbols of
a renamed file follow it too (`cairn.core.aliases`).

**Element moves**: a symbol with history that later stops being declared in its file
is matched across that commit with the declarations the commit added, here or in
another file, by kind, name, container and token-level body similarity
(`cairn.importers.declarations`): a rename with a body or signature change, a move, a
class renamed with its file are each one `rename` to the new path, with
`metadata.found_by = "declaration"` and `metadata.change` (`rename`, `move`,
`container`, `signature`). A followed symbol still declared when its file is renamed
gets its own link beside the file's, and a class renamed with its file gets one too
(`Old.java::Old -> New.java::New`): the most specific link says what a path was
(`cairn.core.aliases`), so no former path is one that never existed.

Only what has history is followed, since a rename exists to carry it: files and symbols
this import records verdicts on, and those the log already holds (`known`), all of
them. A chain of renames is followed forward from them. One read of each file at the
end of the history drops the symbols it still declares (most never moved); for the
others the file's versions are read newest first down to the last one that declares
the name (one that cannot declare it is not parsed, `declarations.may_declare`; a call
site or a comment that keeps the old name does not count), and the commit after it is where it left.
Only there are the commit's files parsed, those that hold the element's rarest words
(at most MAX_CANDIDATE_FILES). MAX_READS file reads in all: the import says when it
stopped there, how many symbols it did not follow, and how to raise the bound.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from cairn.importers.base import Known, Proposed, Skipped, SourceError
from cairn.importers.declarations import (
    Decl,
    best,
    declarations,
    declared_as,
    declared_names,
    may_declare,
    similarity,
)
from cairn.importers.git_history import ZERO, Blobs, Commit
from cairn.store.paths import split_overload

__all__ = ["RenameTracker", "file_renames"]

MAX_COMMITS = 500  # renames of one file followed to its last name
# File reads per import, for all symbols; the import says when it stopped there and
# how many it did not follow. CAIRN_RENAME_READS raises it for a history that needs more.
MAX_READS = 20_000
# Characters of file text whose parses are kept: the walk, the match and later walks
# (a symbol renamed in its file walks it again) ask for the same versions.
PARSED_CHARS = 24_000_000
MAX_CANDIDATE_FILES = 50  # files parsed per commit, for one element that left
MAX_FILE_BYTES = 1_000_000
MEMO_BYTES = 32_000_000  # one commit's blobs kept while its elements are matched
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
        self._reads = 0  # file reads spent following symbols (bounded by _max_reads)
        self._max_reads = max_reads()
        self._parsed: dict[tuple[str, str], dict[str, list[Decl]]] = {}
        self._names: dict[tuple[str, str], frozenset[str]] = {}
        self._parsed_chars = 0
        self._unfollowed = 0  # symbols left when MAX_READS stopped the walk
        self._memo: _CommitMemo | None = None
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
        if self._reads >= self._max_reads:
            yield Skipped(
                "symbol moves",
                f"stopped following moved symbols after {self._max_reads:,} file reads, "
                f"{self._unfollowed:,} of {len(self._symbols):,} not followed to the end; "
                "the file renames that carry verdicts are all recorded; "
                "CAIRN_RENAME_READS=<more> raises the bound",
            )
        for c, old, new, change, members in moves:
            yield from _pair(c, old, new, "symbol", "declaration", change, members=members)
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
            old_decls = self._old_declarations(r, blobs)
            members = _members(old_decls, self._followed_in(r.old, before))
            yield from _pair(r.commit, before, after, "file", "git", members=members)
            yield from self._class_with_file(r, before, after, blobs, old_decls, members)
            self._files.setdefault(r.new, r.commit.index)

    def _followed_in(self, *files: str) -> set[str]:
        """The paths inside `files` that have history here (a verdict, or the log's):
        they existed in the file at some commit, if not at its rename (a function a
        revert took out, which may come back under the new name)."""
        out: set[str] = set()
        for entity in self._symbols:
            file, _, inner = entity.partition("::")
            if file in files:
                out.add(inner)
        return out

    def _old_declarations(self, r: FileRename, blobs: Blobs) -> dict[str, list[Decl]]:
        """What the file declared before its rename (none once MAX_READS is spent)."""
        if self._reads >= self._max_reads:
            return {}
        return self._declared(self._object(blobs, _blob_of(r)[0]), r.old)

    def _class_with_file(
        self,
        r: FileRename,
        before: str,
        after: str,
        blobs: Blobs,
        old: dict[str, list[Decl]],
        members: dict[str, str] | None,
    ) -> Iterator[Proposed]:
        """A class renamed together with its file (Java's rule: the file is named after
        it) is one more link, `Old.java::Old -> New.java::New`. Without it the file's
        link alone would carry `New.java::New.get` back to `Old.java::New.get`, a path
        that never existed; the class's link is the more specific one, so it wins."""
        old_stem, new_stem = PurePosixPath(r.old).stem, PurePosixPath(r.new).stem
        if old_stem == new_stem or self._reads >= self._max_reads:
            return
        new = self._declared(self._object(blobs, _blob_of(r)[1]), r.new)
        if old_stem in old and new_stem in new and old_stem not in new and new_stem not in old:
            yield from _pair(
                r.commit, f"{before}::{old_stem}", f"{after}::{new_stem}", "symbol",
                "declaration", "rename", members=members,
            )  # fmt: skip

    # --- symbols ------------------------------------------------------------------------

    def _note(self, entity: str, index: int) -> None:
        if entity.startswith(("deps/", "env/", "route/")):
            return
        file, sep, _name = entity.partition("::")
        if "/" not in file and "." not in file:
            return  # a table: not a file git renames
        if sep:
            self._symbols[entity] = min(index, self._symbols.get(entity, index))
        self._files[file] = min(index, self._files.get(file, index))

    def _symbol_moves(self, blobs: Blobs) -> list[_Move]:
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
        out: list[_Move] = []
        queue = deque(sorted(pending))
        while queue and self._reads < self._max_reads:
            path = queue.popleft()
            names = pending.pop(path, {})
            if names:
                out.extend(self._walk_file(path, names, touched, renamed, pending, queue, blobs))
        self._unfollowed = sum(len(n) for n in pending.values())
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
    ) -> Iterator[_Move]:
        """Where each name left `path`, found by its declaration (a call site or a word
        in a comment is not the element): the file's versions are read newest first
        down to the last one that still declares it, so the commit that took it away is
        the one right after, however late the name arrived in the file. A version that
        cannot declare it (`may_declare`: in Python, a call or an import of the name, or a
        method of that name in another class) is not parsed."""
        seq = [p for p in touched.get(path, ()) if p > min(names.values())]
        hop = next((i for i, p in enumerate(seq) if (p, path) in renamed), None)
        if hop is not None:
            seq = seq[: hop + 1]  # the file's life under this name ends at its rename
        if not seq:
            return
        oids = [self._version(self._commits[p], path) for p in seq]
        last: dict[str, int] = {}  # name -> index in seq of the last version declaring it
        todo = dict(names)
        for i in range(len(seq) - 1, -1, -1):
            if not todo or self._reads >= self._max_reads:
                break
            here = [n for n, since in todo.items() if seq[i] > since]
            if not here:
                break
            blob = self._object(blobs, oids[i]) if oids[i] != ZERO else None
            for name in here:
                if self._declares(blob, path, name):
                    last[name] = i
                    del todo[name]
        for name, since in names.items():
            at = last.get(name)
            if at == len(seq) - 1:
                if hop is not None:  # still there when the file was renamed: go on there
                    target = renamed[(seq[hop], path)]
                    pending.setdefault(target, {})[name] = seq[hop]
                    queue.append(target)
                    # Its own link too: the file's would also carry its later names
                    # back to this file, where they never were (the most specific wins);
                    # with what the file declared, since it carries what it nests too.
                    c = self._commits[seq[hop]]
                    old_blob = next((ch.old for ch in c.changes if ch.old_path == path), ZERO)
                    old_text = self._object(blobs, old_blob) if old_blob != ZERO else None
                    decls = self._declared(old_text, path)
                    members = _members(decls, self._followed_in(path))
                    yield c, f"{path}::{name}", f"{target}::{name}", "move", members
                continue
            if at is None:
                # Not declared after `since`: it left in the first commit after, if it
                # was there at `since` at all.
                if since < 0 or self._reads >= self._max_reads:
                    continue
                first = bisect_right(seq, since)
                if first == len(seq):
                    continue
                before = self._read(blobs, self._commits[since].sha, path)
                gone_decls = self._declared(before, path)
                left = seq[first]
            else:
                blob = self._object(blobs, oids[at])
                gone_decls = self._declared(blob, path)
                left = seq[at + 1]
            gone_here = declared_as(gone_decls, name)
            if not gone_here:
                continue
            c = self._commits[left]
            gone = max(gone_here, key=lambda d: d.size)
            moved = self._moved(c, path, gone, blobs)
            if moved is None:
                continue  # gone, or changed beyond recognition: nothing to carry
            new, change = moved
            if not split_overload(f"::{name}")[1]:
                # A bare name is every overload: it goes to the bare name the overload
                # it was matched by went to, not to that one overload.
                new = split_overload(new)[0]
            # What the file declared with it: the link carries what it nests (a
            # method's anonymous classes) back only where they were.
            yield c, f"{path}::{name}", new, change, _members(gone_decls, self._followed_in(path))
            file, _, new_name = new.partition("::")
            if file == path:
                pending.setdefault(path, {})[new_name] = left
                if path not in queue:
                    queue.append(path)
            else:
                pending.setdefault(file, {})[new_name] = left
                queue.append(file)

    def _drop_still_there(
        self, pending: dict[str, dict[str, int]], renamed: dict[tuple[int, str], str], blobs: Blobs
    ) -> None:
        """Forget the symbols the file (under its last name) still declares at the end of
        the history: most never moved, and one read per file says so."""
        last = self._commits[-1] if self._commits else None
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
            if last is None:
                continue
            blob = self._read(blobs, last.sha, path)
            for name in [n for n in names if self._declares(blob, path, n)]:
                del names[name]
            if not names:
                del pending[file]

    def _read(self, blobs: Blobs, rev: str, path: str) -> bytes | None:
        self._reads += 1
        return blobs.read(rev, path)

    def _object(self, blobs: Blobs, oid: str) -> bytes | None:
        self._reads += 1
        return blobs.object(oid)

    @staticmethod
    def _version(c: Commit, path: str) -> str:
        """The blob `path` has after commit `c` (at a rename, the text under its new
        name; ZERO when the commit deleted it)."""
        return next(ch.new for ch in c.changes if path in (ch.path, ch.old_path))

    def _declared(self, blob: bytes | None, path: str) -> dict[str, list[Decl]]:
        """What one version of `path` declares, by path inside the file (whatever name
        the file has in that version: a renamed file keeps its elements' inner paths).
        The last few are kept: the walk and the match ask for the same version."""
        text = _text(blob)
        if text is None:
            return {}
        key = (path, text)
        found = self._parsed.get(key)
        if found is None:
            found = self._parsed[self._kept(key)] = declarations(text, path)
        return found

    def _declares(self, blob: bytes | None, path: str, name: str) -> bool:
        """Whether this version of `path` declares `name`: parsed only when it may
        (`may_declare`), and a bare name without naming overloads (`_declared_names`)."""
        if blob is None or not may_declare(blob, path, name):
            return False
        if split_overload(f"::{name}")[1]:  # one overload: by its own path
            return bool(declared_as(self._declared(blob, path), name))
        return name in self._declared_names(blob, path)

    def _declared_names(self, blob: bytes | None, path: str) -> frozenset[str]:
        """The keys of `_declared`, for a version only scanned for a name: overloads
        are not named (`declared_names`), a sixth of a Java file's parse saved."""
        text = _text(blob)
        if text is None:
            return frozenset()
        key = (path, text)
        if key in self._parsed:
            return frozenset(self._parsed[key])
        found = self._names.get(key)
        if found is None:
            found = self._names[self._kept(key)] = declared_names(text, path)
        return found

    def _kept(self, key: tuple[str, str]) -> tuple[str, str]:
        """Make room for one more parse of `key`'s text (the oldest go first)."""
        self._parsed_chars += len(key[1])
        while self._parsed_chars > PARSED_CHARS and (self._names or self._parsed):
            kept = self._names if self._names else self._parsed
            self._parsed_chars -= len(next(iter(kept))[1])
            del kept[next(iter(kept))]
        return key

    def _memo_for(self, c: Commit) -> _CommitMemo:
        """The reads and parses of commit `c`, kept while its elements are matched:
        symbols that leave a file together (a split, a reorganisation) are matched
        against the same changed files, and a big commit read again for each of them
        was most of a large import's matching time."""
        if self._memo is None or self._memo.sha != c.sha:
            self._memo = _CommitMemo(c.sha)
        return self._memo

    def _moved(self, c: Commit, path: str, gone: Decl, blobs: Blobs) -> tuple[str, str] | None:
        """The declaration commit `c` added that `gone` (of `path`, before `c`) became,
        and the change type; declarations are matched, not lines (`declarations.best`)."""
        target = next(
            (ch.path for ch in c.changes if ch.old_path == path and ch.path != path), path
        )
        keys = _keys(gone)
        arrived: list[Decl] = []
        parsed = 0
        changes = sorted(
            (ch for ch in c.changes if ch.new != ZERO),
            key=lambda ch: ch.path not in (path, target),  # its own file first
        )
        memo = self._memo_for(c)
        for ch in changes:
            if parsed >= MAX_CANDIDATE_FILES or self._reads >= self._max_reads:
                break
            after_blob = memo.object(self, blobs, ch.new)
            if after_blob is None:
                continue
            own = ch.path in (path, target)
            # A file the commit added is where extracted code goes: always a candidate.
            if not own and ch.old != ZERO and not _may_hold(after_blob, gone, keys):
                continue  # the body's rarest words are not in this file: no parse needed
            parsed += 1
            after = memo.declared(self, ch.new, after_blob, ch.path)
            kin = {q: ds for q, ds in after.items() if any(d.kind == gone.kind for d in ds)}
            before_blob = memo.object(self, blobs, ch.old) if ch.old != ZERO else None
            # What the file had before is parsed only when a candidate's name is in it.
            words = memo.words(ch.old, before_blob)
            if own or any(_last(q) in words for q in kin):
                before = memo.declared(self, ch.old, before_blob, ch.old_path or ch.path)
            else:
                before = {}
            # New here: a name the file did not declare, or an overload it did not have.
            arrived.extend(d for q, ds in kin.items() for d in ds if not _was(before, q, d, ds))
            if own:
                same = _same_overload(gone, after)
                if same is not None:  # a sibling came or went: one overload, a new path
                    return same.entity, "signature"
                arrived.extend(_absorbed(gone, kin, before))
        found = best(gone, arrived)
        return (found[0].entity, found[1]) if found is not None else None


# One element's link: the commit, old path, new path, change type, and what the old
# file declared then (`_members`).
_Move = tuple[Commit, str, str, str, "dict[str, str] | None"]


class _CommitMemo:
    """One commit's blobs, their declarations and their words, each read once."""

    def __init__(self, sha: str) -> None:
        self.sha = sha
        self._objects: dict[str, bytes | None] = {}
        self._bytes = 0
        self._decls: dict[tuple[str, str], dict[str, list[Decl]]] = {}
        self._words: dict[str, set[bytes]] = {}

    def object(self, tracker: RenameTracker, blobs: Blobs, oid: str) -> bytes | None:
        if oid in self._objects:
            return self._objects[oid]
        blob = tracker._object(blobs, oid)
        if self._bytes < MEMO_BYTES:  # a commit rewriting thousands of files: read again
            self._bytes += len(blob or b"")
            self._objects[oid] = blob
        return blob

    def declared(
        self, tracker: RenameTracker, oid: str, blob: bytes | None, path: str
    ) -> dict[str, list[Decl]]:
        key = (oid, path)
        if key not in self._decls:
            self._decls[key] = tracker._declared(blob, path)
        return self._decls[key]

    def words(self, oid: str, blob: bytes | None) -> set[bytes]:
        if oid not in self._words:
            self._words[oid] = _words(blob)
        return self._words[oid]


def _may_hold(blob: bytes, gone: Decl, keys: list[bytes]) -> bool:
    """Whether a file may hold `gone` moved (maybe renamed and edited a little): all of
    its rarest words, or its name and most of them. Most files of a big commit hold
    neither and are not parsed."""
    held = sum(k in blob for k in keys)
    return held == len(keys) or (held >= len(keys) - 1 and gone.name.encode() in blob)


def _absorbed(
    gone: Decl, after: dict[str, list[Decl]], before: dict[str, list[Decl]]
) -> Iterator[Decl]:
    """The declarations of its own file that `gone` went into: they were there before
    (`_was`: a new overload of a name is an arrival), and are now more like `gone` than
    like what they were (`run` inlined into the `execute` it called, CodeTracker's
    rename)."""
    for q, ds in after.items():
        for d in ds if q != gone.qualified else ():
            was = _was(before, q, d, ds)
            if was and similarity(gone.tokens, d.tokens) > max(
                similarity(o.tokens, d.tokens) for o in was
            ):
                yield d


def _same_overload(gone: Decl, after: dict[str, list[Decl]]) -> Decl | None:
    """The one declaration of `gone`'s name with its parameter types under another path:
    `f(int)` left bare when its sibling `f(double)` was removed, or a lone `f` suffixed
    when a sibling arrived. Followed by its parameter list, not by its body."""
    if not gone.signature:
        return None
    same = [
        d
        for d in after.get(gone.qualified, [])
        if d.entity != gone.entity and d.kind == gone.kind and d.signature == gone.signature
    ]
    return same[0] if len(same) == 1 else None


def _was(before: dict[str, list[Decl]], qualified: str, decl: Decl, now: list[Decl]) -> list[Decl]:
    """What `decl` (one of `now`, the declarations of its name) was before the commit:
    the declaration of its name, or with several overloads then or now, those with its
    parameters; none when it is new (a new name, or an overload the file did not have)."""
    olds = before.get(qualified, [])
    if len(olds) == 1 and len(now) == 1:
        return olds  # one method whose parameters changed is still that method
    return [o for o in olds if o.params == decl.params]


def max_reads() -> int:
    """MAX_READS, or CAIRN_RENAME_READS when set (SourceError when it is no count)."""
    raw = os.environ.get("CAIRN_RENAME_READS", "").strip()
    if not raw:
        return MAX_READS
    if not raw.isdigit() or int(raw) < 1:
        raise SourceError(f"CAIRN_RENAME_READS={raw!r} must be a count of file reads, e.g. 50000")
    return int(raw)


def _blob_of(r: FileRename) -> tuple[str, str]:
    """The file's blob before and after its rename."""
    return next((ch.old, ch.new) for ch in r.commit.changes if ch.old_path == r.old)


def _members(decls: dict[str, list[Decl]], followed: set[str]) -> dict[str, str] | None:
    """A container link's `members` (`cairn.core.aliases.Link`): every path inside the
    old file it declared (each overload by its own path, and the bare name they share),
    and those with history in it (`followed`: they were there once), so the link carries
    back only paths that existed (`cairn.core.aliases.former_of`). A method whose name
    was not overloaded has the parameter types it would be suffixed with: an overload
    whose sibling came later goes back to it, a new overload does not. None when
    nothing was parsed (not a language Cairn indexes, too big, or MAX_READS spent): the
    link says nothing and carries everything, as before."""
    if not decls:
        return None
    out = dict.fromkeys(sorted(followed | set(decls)), "")
    for ds in decls.values():
        for d in ds:
            inner = d.entity.partition("::")[2]
            out[inner] = d.signature if len(ds) == 1 and inner == d.qualified else ""
    return dict(sorted(out.items()))


def _pair(
    c: Commit,
    old: str,
    new: str,
    kind: str,
    how: str,
    change: str = "",
    *,
    members: dict[str, str] | None = None,
) -> Iterator[Proposed]:
    """The two halves of one rename: on the old path and on the new one; `change` is
    what changed of an element (`cairn.importers.declarations.change_type`); `members`,
    on a container's link, what its old path declared (`_members`)."""
    what = "moved" if kind == "symbol" else "renamed"
    base = f"git:rename/{c.sha}:{old}>{new}"
    common = {"occurred_at": c.date, "author": c.author, "commit": c.sha, "entity_kind": kind}
    extra: dict[str, object] = {"change": change} if change else {}
    if members is not None:
        extra["members"] = members
    yield Proposed(
        source_key=base + ":from",
        type="rename",
        entity=old,
        reasoning=f"{what} to {new} in {c.sha[:10]}: {c.subject}",
        metadata={"renamed_to": new, "found_by": how} | extra,
        **common,
    )
    yield Proposed(
        source_key=base + ":to",
        type="rename",
        entity=new,
        reasoning=f"{what} from {old} in {c.sha[:10]}: {c.subject}",
        metadata={"renamed_from": old, "found_by": how} | extra,
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


def _keys(gone: Decl) -> list[bytes]:
    """A declaration's three longest identifiers: a file holding its body (renamed or
    edited a little) holds most of them too, so the others are not parsed."""
    words = sorted((t for t in gone.tokens if len(t) > 3 and t[0].isalpha()), key=len)
    return [w.encode() for w in words[-3:]]


def _canonical(path: str) -> str | None:
    from cairn.store.paths import EntityPathError, canonicalise

    try:
        return canonicalise(path)
    except EntityPathError:
        return None
