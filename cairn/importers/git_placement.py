"""Where a revert's lines land (`cairn import git`).

Each line a revert took out belongs to the innermost entity of the file before the
revert that held it (a method, a class, a constant, a model field, a dependency), or to
the file when the indexer cannot read it or the line is outside every symbol; a revert
that mostly put lines back also places those, on the file after it (a re-removal
print). A vendored, generated or asset tree is one entity (`cairn.importers.trees`),
and one revert writes at most `MAX_EVENTS_PER_COMMIT` events.

Kept apart from `cairn.importers.git` (which finds the reverts and writes the events):
this is the part that reads files and runs the indexer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cairn import git as gitcmd
from cairn.importers.base import Note, Skipped
from cairn.importers.git_history import Blobs, FileDiff
from cairn.importers.git_reverts import Found
from cairn.importers.trees import Notices, Tree, attributes, trees_of
from cairn.limits import MAX_FILE_BYTES  # the one limit: bigger files are not indexed

if TYPE_CHECKING:
    from tree_sitter import Tree as SyntaxTree

    from cairn.indexer import Symbol

# Events one revert may write. Beyond it the entities with the most lines taken out are
# kept and the import's summary says how many were left out: a commit that touches
# thousands of entities is one sweeping change, not thousands of decisions.
MAX_EVENTS_PER_COMMIT = 100


@dataclass
class Entity:
    """Where a revert took lines out: the entity and the removed lines inside it."""

    path: str
    kind: str
    lines: list[str] = field(default_factory=list)
    whole: bool = False  # the revert took out the entity itself (its name), not only lines
    before: str = ""  # a dependency's version before the revert (what was undone)
    after: str = ""  # and after it (what it went back to)
    file: str = ""  # the file it was declared in
    tree: str = ""  # a vendored/generated/asset tree: its kind (`cairn.importers.trees`)
    files: int = 0  # and how many of its files the revert changed
    restored: list[str] = field(default_factory=list)  # lines the revert put back in it
    imports: list[str] = field(default_factory=list)  # its print when it has no other line


_REPLACES = re.compile(rb"^[ \t]+replaces\s*=\s*[\[(]", re.M)


def redeclares(blob: bytes, path: str) -> bool:
    """A squashed Django migration (`replaces = [...]`): it declares again every table
    and column of the migrations it replaces, so a revert of it is about the file (the
    squash), never about each of those (wagtail's reverted `0001_squashed_0016`)."""
    return "/migrations/" in f"/{path}" and path.endswith(".py") and bool(_REPLACES.search(blob))


def _git_in(root: Path, args: list[str], stdin: bytes) -> str:
    """git with input on stdin; "" when it fails (an attribute or listing is optional)."""
    try:
        out = gitcmd.run(root, *args, stdin=stdin)  # neutralised: `check-attr` may refresh
    except OSError:
        return ""
    return out.stdout.decode("utf-8", "replace") if out.returncode == 0 else ""


def trees_by_revert(
    root: Path, todo: list[Found], blobs: Blobs
) -> dict[str, tuple[list[Tree], list[str]]]:
    """revert sha -> (its vendored/generated/asset trees, its other files), for the
    reverts that touch a tree (one `git check-attr` for every file of every revert;
    copyright notices read through `blobs`)."""

    def run(args: list[str], stdin: bytes) -> str:
        return _git_in(root, args, stdin)

    said = attributes(run, {ch.path for f in todo for ch in f.revert.changes})
    out: dict[str, tuple[list[Tree], list[str]]] = {}
    notices = Notices(blobs.read, len(todo[0].revert.sha) // 2 if todo else 20)
    for f in todo:
        paths = [ch.path for ch in f.revert.changes if f.files is None or ch.path in f.files]
        words = f.revert.message  # "Remove vendored rubygems codebase"
        found, rest = trees_of(run, notices, f"{f.revert.sha}^", paths, said, words)
        if found:
            out[f.revert.sha] = (found, rest)
    return out


def capped(f: Found, ents: list[Entity]) -> tuple[list[Entity], list[Skipped]]:
    """At most MAX_EVENTS_PER_COMMIT entities: trees first, then those with the most
    lines taken out; the summary says how many were left out."""
    if len(ents) <= MAX_EVENTS_PER_COMMIT:
        return ents, []
    ranked = sorted(ents, key=lambda e: (not e.tree, -len(e.lines), e.path))
    kept = ranked[:MAX_EVENTS_PER_COMMIT]
    note = Note(
        f"{f.revert.sha[:10]} {f.revert.subject}",
        f"touches {len(ents)} entities: recorded the {MAX_EVENTS_PER_COMMIT} with the most "
        f"lines taken out (at most {MAX_EVENTS_PER_COMMIT} events per commit)",
    )
    return kept, [note]


def removed_entities(
    f: Found,
    diffs: dict[str, dict[str, FileDiff]],
    blobs: Blobs,
    trees: list[Tree] | None = None,
) -> tuple[list[Entity], list[Skipped]]:
    """The entities whose lines the revert took out, each with those lines; a tree it
    touched is one entity, its directory."""
    from cairn.fingerprints import normalise, restores_mostly
    from cairn.store.paths import EntityPathError, canonicalise

    diff = diffs.get(f.revert.sha, {})
    keep_lines: set[str] | None = None
    keep_restored: set[str] | None = None
    undone = [diffs[s] for s in (f.original, *f.named) if s and s in diffs]
    if (f.squash or f.narrow) and undone:
        # Only the hunks that take out what the reverted commit(s) added.
        keep_lines = {normalise(t) for d in undone for fd in d.values() for t in fd.added.values()}
        keep_restored = {
            normalise(t) for d in undone for fd in d.values() for t in fd.removed.values()
        }
    mine = [fd for p, fd in diff.items() if f.files is None or p in f.files]
    # The lines it put back are a print too when the undone change was mostly a
    # removal (taking them out again is that removal returning: a re-removal).
    restoring = restores_mostly(
        (t for fd in mine for t in fd.removed.values()),
        (t for fd in mine for t in fd.added.values()),
    )
    out: dict[str, Entity] = {}
    seen_files: set[str] = set()  # entities placed from earlier files (already settled)
    skipped: list[Skipped] = []
    label = f"{f.revert.sha[:10]}"
    in_tree = _tree_entities(label, trees or [], out, skipped)
    for path, fd in sorted(diff.items()):
        if (f.files is not None and path not in f.files) or path in in_tree:
            continue
        try:
            file_entity = canonicalise(path)
        except EntityPathError as exc:
            skipped.append(Skipped(f"{label} {path}", str(exc)))
            continue
        if fd.binary or fd.huge:
            reason = "a binary file" if fd.binary else "a generated file (a huge diff)"
            skipped.append(Skipped(f"{label} {path}", f"{reason}: recorded on the file, no lines"))
            out.setdefault(file_entity, Entity(file_entity, "file", whole=True, file=path))
            continue
        removed = fd.removed
        if f.lines is not None:
            blamed = f.lines.get(path, frozenset())
            removed = {n: t for n, t in removed.items() if n in blamed}
        if keep_lines is not None:
            removed = {n: t for n, t in removed.items() if normalise(t) in keep_lines}
        before = Version(blobs, f"{f.revert.sha}^", path)
        after = Version(blobs, f.revert.sha, path)
        # Nothing can have only moved where the revert wrote no line.
        moved = removed and fd.added and not fd.deleted
        same = unchanged(removed, before, after) if moved else frozenset()
        if restoring:
            _place_restored(path, fd, after, keep_restored, out, same)
        if not removed:
            continue
        _place_removed(path, fd, removed, file_entity, before, after, out, seen_files, same)
    return list(out.values()), skipped


class Version:
    """One file at one revision, read and parsed at most once: the placement of a
    revert's removed lines, of the lines it put back, and the check for symbols it only
    moved all ask the same two versions of a file."""

    def __init__(self, blobs: Blobs, rev: str, path: str) -> None:
        self._blobs, self._rev, self.path = blobs, rev, path
        self._text: bytes | None = None
        self._read = False
        self._parsed: tuple[list[Symbol], SyntaxTree | None] | None = None

    @property
    def text(self) -> bytes | None:
        """Its contents; None when it is missing, too big to index or binary."""
        if not self._read:
            self._read = True
            blob = self._blobs.read(self._rev, self.path)
            if blob is not None and len(blob) <= MAX_FILE_BYTES and b"\0" not in blob[:8000]:
                self._text = blob
        return self._text

    def parsed(self) -> tuple[list[Symbol], SyntaxTree | None]:
        """Its symbols and the syntax tree they were read from (no symbols when it
        cannot be read)."""
        if self._parsed is None:
            from cairn.indexer.document import index_text_and_tree

            text = self.text
            self._parsed = ([], None) if text is None else index_text_and_tree(text, self.path)
        return self._parsed

    @property
    def symbols(self) -> list[Symbol]:
        return self.parsed()[0]


def unchanged(removed: dict[int, str], before: Version, after: Version) -> frozenset[str]:
    """The entities holding removed lines whose own text is the same after the revert,
    byte for byte: a method the diff only moved (rubygems.org's `WebHook.as_json`, moved
    below `to_yaml` when `to_xml` was taken out), or whose lines it showed taken out and
    put back. Matched as RefactoringMiner matches: by the declaration (its path, so a
    move to another class is a change) and its text, never by line numbers. Each gets
    no verdict from this revert; one that moved and changed keeps it.

    The text is looked for in the file after first: the file after is parsed only when
    some entity's text is there (most reverts move nothing, and the lines-put-back
    placement may have parsed it already)."""
    from cairn.indexer.enclosing import innermost_by_line

    text, later = before.text, after.text
    if text is None or later is None or redeclares(text, before.path):
        return frozenset()
    symbols = before.symbols
    held = {s.entity for s in innermost_by_line(symbols, (n - 1 for n in removed)).values()}
    if not held:
        return frozenset()
    was = _texts(symbols, text.split(b"\n"), held)
    held = {e for e, blocks in was.items() if all(b in later for b in blocks)}
    if not held:
        return frozenset()
    now = _texts(after.symbols, later.split(b"\n"), held)
    return frozenset(e for e in held if sorted(was[e]) == sorted(now.get(e, [])))


def _texts(symbols: list[Symbol], lines: list[bytes], entities: set[str]) -> dict[str, list[bytes]]:
    """entity -> the text of each of its declarations among `symbols` (a name declared
    twice in a file, as a reopened Ruby class may be, has two)."""
    out: dict[str, list[bytes]] = {}
    for sym in symbols:
        if str(sym.role) == "introduce" and sym.entity in entities:
            r = sym.range
            out.setdefault(sym.entity, []).append(b"\n".join(lines[r.start_line : r.end_line + 1]))
    return out


def _tree_entities(
    label: str, trees: list[Tree], out: dict[str, Entity], notes: list[Skipped]
) -> set[str]:
    """One entity per tree (its directory; a lone generated file: the file), and a note
    per directory; returns the files they cover."""
    in_tree: set[str] = set()
    for tree in trees:
        in_tree.update(tree.files)
        lone = not tree.path.endswith("/")  # a generated file that makes no tree
        out[tree.path] = Entity(
            tree.path,
            "file" if lone else "directory",
            file=tree.path,
            tree=tree.kind,
            files=len(tree.files),
        )
        if not lone:
            notes.append(
                Note(
                    f"{label} {tree.path}",
                    f"a {tree.kind} tree: one event for its {len(tree.files)} changed files",
                )
            )
    return in_tree


def _place_removed(
    path: str,
    fd: FileDiff,
    removed: dict[int, str],
    file_entity: str,
    before: Version,
    after: Version,
    out: dict[str, Entity],
    seen_files: set[str],
    same: frozenset[str],
) -> None:
    """The lines a revert took out of one file, each on the innermost entity of the file
    before the revert that held it (the file's own entity for the rest); lines of an
    entity in `same` (`unchanged`) are on no entity."""
    from cairn.fingerprints import fingerprint, row_kinds
    from cairn.indexer.enclosing import innermost_by_line

    symbols: list[Symbol] = []
    blob = before.text
    meaningful: set[int] = {n - 1 for n in removed}
    imports: set[int] = set()
    if blob is not None:
        tree = None
        if not redeclares(blob, path):
            symbols, tree = before.parsed()
        # Only lines that carry meaning are fingerprinted: no comment, import,
        # docstring or licence header (they still say where the revert was). An
        # entity whose only lines are imports is fingerprinted by them: a module
        # swapped for another is the whole change.
        meaningful, imports = row_kinds(blob, path, meaningful, tree=tree)
    by_name_line: dict[int, Symbol] = {}
    for one in symbols:
        if str(one.role) == "introduce":
            by_name_line.setdefault(one.name_range.start_line, one)
    file_lines: list[str] = []
    file_quiet = False  # lines outside every symbol that say nothing (a header)
    file_imports: list[str] = []
    placed = False
    # One sweep for all the lines: line by line was symbols x lines (most of a big
    # file's revert: commons-lang's StringUtils).
    inner = innermost_by_line(symbols, (n - 1 for n in removed))
    for number, text in sorted(removed.items()):
        named = by_name_line.get(number - 1)
        sym = named or inner.get(number - 1)
        if sym is None:
            if number - 1 in meaningful:
                file_lines.append(text)
            else:
                file_quiet = True
                if number - 1 in imports:
                    file_imports.append(text)
            continue
        if sym.entity in same:
            continue  # only moved: its text is the same after the revert
        placed = True
        ent = out.setdefault(sym.entity, Entity(sym.entity, str(sym.kind), file=path))
        if number - 1 in meaningful:
            ent.lines.append(text)
        elif number - 1 in imports:
            ent.imports.append(text)
        ent.whole = ent.whole or named is not None
        if sym.version:
            ent.before = sym.version
    # An entity whose name line was taken out but which the revert wrote back (a
    # dependency pinned to another version, a signature changed back) stayed: only
    # its lines were reverted. The file after is indexed only for such files (or once
    # for all when `unchanged` or the lines put back needed it).
    named_here = [e for e in out.values() if e.whole and e.path not in seen_files]
    if named_here and not fd.deleted and after.text is not None:
        still = {s.entity: s.version for s in after.symbols if str(s.role) == "introduce"}
        for ent in named_here:
            if ent.path in still:
                ent.whole = False
                ent.after = still[ent.path]
    seen_files.update(out)

    if (file_lines or file_quiet) and (fingerprint(file_lines) or not placed):
        ent = out.setdefault(file_entity, Entity(file_entity, "file", file=path))
        ent.lines.extend(file_lines)
        ent.imports.extend(file_imports)
        ent.whole = ent.whole or fd.deleted


def _place_restored(
    path: str,
    fd: FileDiff,
    version: Version,
    keep: set[str] | None,
    out: dict[str, Entity],
    same: frozenset[str],
) -> None:
    """The meaningful lines a revert put back in one file, each on the innermost entity
    of the file after the revert that holds it (`Entity.restored`); lines of an entity
    in `same` (`unchanged`: only moved) are on no entity."""
    from cairn.fingerprints import code_rows, normalise
    from cairn.indexer.enclosing import innermost_by_line
    from cairn.store.paths import EntityPathError, canonicalise

    added = fd.added
    if keep is not None:
        added = {n: t for n, t in added.items() if normalise(t) in keep}
    if not added or fd.binary or fd.huge:
        return
    after = version.text
    if after is None:
        return
    rows = code_rows(after, path, (n - 1 for n in added))
    if not rows:
        return
    symbols = [] if redeclares(after, path) else version.symbols
    inner = innermost_by_line(symbols, (n - 1 for n in added if n - 1 in rows))
    for number, text in sorted(added.items()):
        if number - 1 not in rows:
            continue
        sym = inner.get(number - 1)
        if sym is not None and sym.entity in same:
            continue  # only moved: its text was the same before the revert
        if sym is not None:
            ent = out.setdefault(sym.entity, Entity(sym.entity, str(sym.kind), file=path))
        else:
            try:
                entity = canonicalise(path)
            except EntityPathError:
                return
            ent = out.setdefault(entity, Entity(entity, "file", file=path))
        ent.restored.append(text)
