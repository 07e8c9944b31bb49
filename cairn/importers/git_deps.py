"""Dependencies added or removed by commits that say why: `add`/`remove` on `deps/NAME`.

"Drop celery: we don't want to run a broker" is a decision with its reason, made in an
ordinary commit, not a revert. A commit counts when a manifest the indexer reads
(`requirements*.txt`, `pyproject.toml`, `package.json`, `Cargo.toml`, `go.mod`, …)
gains or loses a dependency *and* the commit message names that dependency: version
bumps change no entity, and a bulk "update deps" commit explains nothing, so neither is
recorded. The message becomes the reasoning; the author and date are the commit's.
Keys are `git:deps:<sha>:<entity>`, so a re-run adds nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import PurePosixPath

from cairn.importers.base import Proposed
from cairn.importers.git_history import Blobs, Commit

__all__ = ["dependency_changes", "explains", "is_manifest"]

ZERO = "0" * 40
MAX_MANIFEST_BYTES = 1_000_000
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


@lru_cache(maxsize=65536)
def is_manifest(path: str) -> bool:
    """A file whose dependencies the indexer reads (by name; cheap, no parsing)."""
    from cairn.indexer import language_for

    name = PurePosixPath(path).name
    return name in _MANIFESTS or language_for(path) in ("requirements", "gomod")


def _deps(data: bytes | None, path: str) -> dict[str, str]:
    """deps/NAME -> the declared version (empty when none) in one manifest."""
    if not data or len(data) > MAX_MANIFEST_BYTES or b"\0" in data[:8192]:
        return {}
    from cairn.indexer import index_text

    text = data.decode("utf-8", "replace")
    out: dict[str, str] = {}
    for s in index_text(text, path):
        if s.entity.startswith("deps/"):
            out.setdefault(s.entity, s.version)
    return out


def _deps_of(
    blobs: Blobs, cache: dict[tuple[str, str], dict[str, str]], blob: str, rev: str, path: str
) -> dict[str, str]:
    if blob == ZERO:
        return {}
    key = (blob, path)
    if key not in cache:
        cache[key] = _deps(blobs.read(rev, path), path)
    return cache[key]


def _folded(text: str) -> str:
    return re.sub(r"[-_.]+", "-", text.lower())


def explains(message: str, entity: str) -> bool:
    """True when the commit message names the dependency (`-`, `_`, `.` fold together)."""
    name = _folded(entity.removeprefix("deps/").rsplit("/", 1)[-1])
    words = re.findall(r"[a-z0-9][a-z0-9-]*", _folded(message))
    return name in words


def dependency_changes(
    commits: list[Commit], blobs: Blobs, skip: frozenset[str] | set[str] = frozenset()
) -> Iterator[Proposed]:
    """`add`/`remove` proposals for the dependencies the commits' messages explain."""
    cache: dict[tuple[str, str], dict[str, str]] = {}
    for c in commits:
        if c.sha in skip or not c.parents:
            continue  # reverts are the revert importer's; a root commit explains no change
        manifests = [ch for ch in c.changes if is_manifest(ch.path)]
        if not manifests:
            continue
        message = c.message or c.subject
        for ch in manifests:
            old_path = ch.old_path or ch.path
            # A manifest's blob is read and indexed once: one commit's after is the
            # next one's before (this halved a 20,000-commit import's manifest work).
            before = _deps_of(blobs, cache, ch.old, f"{c.sha}^", old_path)
            after = _deps_of(blobs, cache, ch.new, c.sha, ch.path)
            for entity in sorted(before.keys() & after.keys()):
                old_v, new_v = before[entity], after[entity]
                if old_v == new_v or not old_v or not new_v:
                    continue
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
