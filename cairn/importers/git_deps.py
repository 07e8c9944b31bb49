"""Dependency changes in ordinary commits: `modify` (a version changed, with `from`
and `to`) and `add`/`remove` on `deps/NAME` when the commit says why.

"Drop celery: we don't want to run a broker" is a decision with its reason, made in an
ordinary commit, not a revert. An add or remove counts when a manifest the indexer
reads (`requirements*.txt`, `pyproject.toml`, `package.json`, `Cargo.toml`, `go.mod`,
…) gains or loses a dependency *and* the commit message names that dependency (a bulk
"update deps" commit explains nothing). Every version change is a `modify`: its from/to
is what a later downgrade is read against. The message becomes the reasoning; the
author and date are the commit's. Keys are `git:deps:<sha>:<entity>`, so a re-run adds
nothing.

Each manifest version is read by the indexer once (per blob id); a commit whose diff
only rewrites versions on lines that declare a dependency (a bump, most manifest
commits in a JavaScript project) is not indexed at all: the version before, with the
new version strings from its diff, is the version after.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from cairn.importers.base import Proposed
from cairn.importers.git_history import Blobs, Commit, FileDiff, read_diffs

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["about", "declares_dependencies", "dependency_changes", "explains", "is_manifest"]

ZERO = "0" * 40
MAX_MANIFEST_BYTES = 1_000_000
_DIFF_BATCH = 300  # commits per `git show` of their manifests
_MANIFESTS = frozenset(
    {
        "pyproject.toml",
        "Pipfile",
        "package.json",
        "Cargo.toml",
        "go.mod",
        "Gemfile",
        "composer.json",
    }
)


def declares_dependencies(path: str) -> bool:
    """A manifest or a lock file: a file whose lines may be dependencies' versions."""
    name = path.rsplit("/", 1)[-1]
    return is_manifest(path) or name.endswith((".lock", "-lock.json", "-lock.yaml", ".sum"))


@lru_cache(maxsize=65536)
def is_manifest(path: str) -> bool:
    """A file whose dependencies the indexer reads (by name; cheap, no parsing)."""
    name = path.rsplit("/", 1)[-1]
    if name in _MANIFESTS:
        return True
    if "requirements" not in path and name != "go.mod":
        return False  # the indexer's requirements/go.mod rules all need one of these
    from cairn.indexer import language_for

    return language_for(path) in ("requirements", "gomod")


@dataclass(frozen=True, slots=True)
class _Declared:
    """One manifest version's dependencies: deps/NAME -> version, and the 1-based lines
    that declare exactly one dependency with its version on that same line."""

    versions: dict[str, str]
    lines: dict[int, str]


_NONE = _Declared({}, {})


def _declared(data: bytes | None, path: str) -> _Declared:
    """What one manifest declares, read by the indexer (the one rule for manifests)."""
    if not data or len(data) > MAX_MANIFEST_BYTES or b"\0" in data[:8192]:
        return _NONE
    from cairn.indexer import index_text

    text = data.decode("utf-8", "replace")
    versions: dict[str, str] = {}
    on_line: dict[int, list[str]] = {}
    for s in index_text(text, path):
        if s.entity.startswith("deps/"):
            versions.setdefault(s.entity, s.version)
            if s.version:
                on_line.setdefault(s.name_range.start_line + 1, []).append(s.entity)
    lines = {n: ents[0] for n, ents in on_line.items() if len(set(ents)) == 1}
    return _Declared(versions, lines)


def _carried(before: _Declared, diff: FileDiff | None) -> _Declared | None:
    """The next version's dependencies without indexing it, when its diff only rewrites
    versions on lines that declare a dependency (a version bump: most manifest commits).
    None when the diff does anything else: then the new version is indexed."""
    if diff is None or diff.binary or diff.huge or diff.created or diff.deleted:
        return None
    if not diff.removed or diff.removed.keys() != diff.added.keys():
        return None
    versions = dict(before.versions)
    for number, old in diff.removed.items():
        entity = before.lines.get(number)
        if entity is None:
            return None
        swapped = _swap(old, diff.added[number], versions[entity])
        if swapped is None:
            return None
        versions[entity] = swapped
    return _Declared(versions, before.lines)


def _swap(old: str, new: str, version: str) -> str | None:
    """The version on `new` when it differs from `old` only inside `version`."""
    if not version or old.count(version) != 1:
        return None
    start = old.index(version)
    end = start + len(version)
    prefix = _common(old, new)
    suffix = min(_common(old[::-1], new[::-1]), min(len(old), len(new)) - prefix)
    if prefix < start or len(old) - suffix > end:
        return None  # something outside the version changed: let the indexer read it
    swapped = new[start : len(new) - (len(old) - end)]
    if not swapped or any(swapped.count(q) != version.count(q) for q in "\"'\n"):
        return None
    return swapped


def _common(a: str, b: str) -> int:
    """Length of the common prefix of two strings."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class _Manifests:
    """Each manifest version's dependencies, once per blob: indexed, or carried over
    from the version before when the commit's diff only bumps versions."""

    def __init__(self, blobs: Blobs) -> None:
        self._blobs = blobs
        self._cache: dict[tuple[str, str], _Declared] = {}

    def get(self, blob: str, rev: str, path: str) -> _Declared:
        if blob == ZERO:
            return _NONE
        key = (blob, path)
        if key not in self._cache:
            self._cache[key] = _declared(self._blobs.read(rev, path), path)
        return self._cache[key]

    def after(
        self, before: _Declared, blob: str, rev: str, path: str, diff: FileDiff | None
    ) -> _Declared:
        key = (blob, path)
        if blob != ZERO and key not in self._cache:
            carried = _carried(before, diff)
            if carried is not None:
                self._cache[key] = carried
        return self.get(blob, rev, path)


def _manifest_diffs(root: Path, commits: list[Commit]) -> dict[str, dict[str, FileDiff]]:
    """The manifests' line changes in these commits (only the manifests are diffed)."""
    out: dict[str, dict[str, FileDiff]] = {}
    for start in range(0, len(commits), _DIFF_BATCH):
        batch = commits[start : start + _DIFF_BATCH]
        paths = sorted({ch.path for c in batch for ch in c.changes if is_manifest(ch.path)})
        out.update(read_diffs(root, [c.sha for c in batch], paths))
    return out


def _folded(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text.lower())


def explains(message: str, entity: str) -> bool:
    """True when the commit message names the dependency (`-`, `_`, `.` fold together)."""
    name = _folded(entity.removeprefix("deps/").rsplit("/", 1)[-1])
    words = re.findall(r"[a-z0-9][a-z0-9-]*", _folded(message))
    return name in words


def dependency_changes(
    root: Path,
    commits: list[Commit],
    blobs: Blobs,
    skip: frozenset[str] | set[str] = frozenset(),
    known: frozenset[str] | set[str] = frozenset(),
) -> Iterator[Proposed]:
    """`modify` proposals for version changes and `add`/`remove` proposals for the
    dependencies the commits' messages explain; then a `remove` for each dependency with
    history (`known` to the log, or given an event here) that no manifest at HEAD
    declares, on the commit that last took it out of one, whatever its message said."""
    todo = [
        c
        for c in commits
        # reverts are the revert importer's; a root commit explains no change
        if c.sha not in skip and c.parents and any(is_manifest(ch.path) for ch in c.changes)
    ]
    diffs = _manifest_diffs(root, todo)
    manifests = _Manifests(blobs)
    left: dict[str, tuple[Commit, str]] = {}  # deps/NAME -> the newest commit taking it out
    explained: set[tuple[str, str]] = set()  # (sha, deps/NAME) removals proposed above
    with_history = set(known)
    for c in todo:
        message = c.message or c.subject
        for ch in c.changes:
            if not is_manifest(ch.path):
                continue
            old_path = ch.old_path or ch.path
            # A manifest version is read once: one commit's after is the next one's
            # before, and a version bump's after is carried over from its diff.
            declared_before = manifests.get(ch.old, f"{c.sha}^", old_path)
            declared_after = manifests.after(
                declared_before, ch.new, c.sha, ch.path, diffs.get(c.sha, {}).get(ch.path)
            )
            before, after = declared_before.versions, declared_after.versions
            for entity in before.keys() - after.keys():
                left[entity] = (c, ch.path)
            for entity in sorted(before.keys() & after.keys()):
                old_v, new_v = before[entity], after[entity]
                if old_v == new_v or not old_v or not new_v:
                    continue
                with_history.add(entity)
                # A version change is a `modify` whatever the message says: its from/to
                # is the record a later downgrade (a revert) is read against.
                yield Proposed(
                    source_key=f"git:deps:{c.sha}:{entity}",
                    type="modify",
                    entity=entity,
                    reasoning=message,
                    occurred_at=c.date,
                    author=c.author,
                    commit=c.sha,
                    metadata={"file": ch.path, "from": old_v, "to": new_v},
                )
            for kind, entities in (
                ("add", after.keys() - before.keys()),
                ("remove", before.keys() - after.keys()),
            ):
                for entity in sorted(entities):
                    if not explains(message, entity):
                        continue
                    with_history.add(entity)
                    if kind == "remove":
                        explained.add((c.sha, entity))
                    yield Proposed(
                        source_key=f"git:deps:{c.sha}:{entity}",
                        type=kind,
                        entity=entity,
                        reasoning=message,
                        occurred_at=c.date,
                        author=c.author,
                        commit=c.sha,
                        metadata={"file": ch.path, "found_by": "dependency-change"},
                    )

    gone = {e: at for e, at in left.items() if e in with_history}
    if gone:
        gone = {e: at for e, at in gone.items() if e not in _declared_at_head(root, manifests)}
    for entity, (c, path) in sorted(gone.items()):
        if (c.sha, entity) in explained:
            continue
        yield Proposed(
            source_key=f"git:deps:{c.sha}:{entity}",
            type="remove",
            entity=entity,
            reasoning=c.message or c.subject,
            occurred_at=c.date,
            author=c.author,
            commit=c.sha,
            metadata={"file": path, "found_by": "in-no-manifest"},
        )


def _declared_at_head(root: Path, manifests: _Manifests) -> set[str]:
    """Every dependency some manifest at HEAD declares."""
    from cairn.importers.git_history import git

    out: set[str] = set()
    for line in git(root, "ls-tree", "-r", "-z", "HEAD").split("\0"):
        meta, _, path = line.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob" and is_manifest(path):
            out.update(manifests.get(parts[2], "HEAD", path).versions)
    return out


class _Placed(Protocol):
    """What `about` reads of a revert's entity (`cairn.importers.git_placement.Entity`)."""

    path: str
    file: str
    lines: list[str]
    restored: list[str]


_E = TypeVar("_E", bound=_Placed)


def about(
    ents: list[_E],
    revert: Commit,
    original: Commit | None,
    original_diff: Mapping[str, FileDiff],
) -> list[_E]:
    """The entities of a revert without the dependencies it was not about.

    A revert that restores a whole manifest or lock file (`git checkout <old> --
    requirements.txt`) changes every line that drifted since; only the dependencies its
    message names, or whose lines the reverted commit itself changed, get a verdict.
    With neither a named dependency nor a reverted commit to read, a revert that
    touched one dependency is about it; one that touched several is about none (a
    verdict on each would be a guess). A revert that deletes a manifest whole dropped
    the file (a CI experiment's `requirements.txt`), not each dependency in it: only
    those its message names. Everything that is not a dependency stays."""
    deps = [e for e in ents if e.path.startswith("deps/")]
    if not deps:
        return ents
    message = revert.message + "\n" + (original.message if original is not None else "")
    deleted = {ch.path for ch in revert.changes if ch.new == ZERO}
    changed: dict[str, set[str]] = {}
    for path, fd in original_diff.items():  # manifests and lock files alike
        lines = {*fd.added.values(), *fd.removed.values()}
        changed[path] = {_squeezed(t) for t in lines}
    keep: set[int] = set()
    for e in deps:
        theirs = set() if e.file in deleted else changed.get(e.file, set())
        if explains(message, e.path) or any(
            _squeezed(t) in theirs for t in (*e.lines, *e.restored)
        ):
            keep.add(id(e))
    one = len({e.path for e in deps}) == 1
    if not keep and original is None and one and not deleted & {e.file for e in deps}:
        keep = {id(e) for e in deps}
    return [e for e in ents if not e.path.startswith("deps/") or id(e) in keep]


def _squeezed(line: str) -> str:
    return "".join(line.split())
