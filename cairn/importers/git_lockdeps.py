"""A revert of a dependency bump that touched only a lock file: its `deps/NAME` verdict.

Dependabot's and Renovate's bumps of a dependency whose manifest range already allows
the new version change only the lock file (rubygems.org's `Revert "Bump ddtrace from
1.15.0 to 1.16.0"`: `Gemfile.lock` alone). The lock file is a generated tree (one quiet
event, `cairn.importers.trees`) and no manifest the indexer reads
(`cairn.importers.git_deps`), so such a revert gave no dependency verdict at all, while
the bot proposes that version again and whoever merges it should read why it was taken
back.

The verdict goes to the one dependency the commit is about, never to every dependency
whose lock lines differ (a bump drags its own dependencies along: ddtrace's took
datadog-ci with it): NAME comes from the bot's subject (`Bump NAME from A to B`,
`Update dependency NAME to vX`, `Update NAME dependency to version X`, a
`dependabot/<ecosystem>/NAME-VERSION` branch in a
merge's subject) and the revert's lock diff must take out a line pinning NAME at the
version the subject says was taken back (`cairn.lockfiles.pin`); otherwise nothing is
added. The verdict has the shape of a manifest revert's: `from` (the version taken
back), `to` (the one it went back to), `part: body`, and the fingerprint of the lock
lines taken out, which the gate places on `deps/NAME` too: only that version coming
back blocks, any other is a new bump.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cairn.importers.git_deps import declares_dependencies, is_manifest
from cairn.importers.git_history import Commit, FileDiff
from cairn.importers.git_placement import Entity
from cairn.lockfiles import dependency, pin

__all__ = ["Bump", "lock_dependency", "lock_only_paths", "named_bump"]

_VERSION = r"v?(?P<{}>\d[\w.+-]*?)\.?(?=$|[\s,;)])"
_FROM_TO = rf"from {_VERSION.format('before')} to {_VERSION.format('to')}"
# The bots' subjects (and the same words by hand): one dependency, the version it got.
_BUMPS = (
    # Dependabot: `Bump rack from 2.2.3 to 2.2.4`, `chore(deps): bump rack from … to …`
    re.compile(rf"\bbump (?P<name>\S+) {_FROM_TO}", re.I),
    # Renovate: `Update dependency rack to v2.2.4`, `chore(deps): update rack to 2.2.4`;
    # Gemnasium: `Update rack dependency to version 2.2.4`, `Update rack to version 2.2.4`
    re.compile(
        r"\bupdate (?:dependency )?(?P<name>\S+) (?:dependency )?to (?:version )?"
        + _VERSION.format("to"),
        re.I,
    ),
    # A Dependabot branch merged by a merge commit: `… from org/dependabot/bundler/rack-2.2.4`
    # (its last part only: a directory or an npm scope before it is not in the name)
    re.compile(r"\bdependabot/[\w-]+/(?:[\w.-]+/)*(?P<name>[\w.-]+?)-v?(?P<to>\d[\w.]*)$"),
)
# The subject git quotes, with a squash's ` (#123)` after it.
_QUOTED = re.compile(r'^Revert "(.*)"')


@dataclass(frozen=True, slots=True)
class Bump:
    """The dependency a commit's subject names, the version it moved to and, when the
    subject says so, the version it moved from."""

    name: str
    to: str
    before: str = ""


def named_bump(texts: Iterable[str]) -> Bump | None:
    """The one dependency bump these subjects name: a bot's subject first, then the
    branch a merge's subject names."""
    texts = [t.strip() for t in texts]
    for pattern in _BUMPS:
        for text in texts:
            m = pattern.search(text)
            if m:
                found = m.groupdict()
                return Bump(found["name"], found["to"], found.get("before") or "")
    return None


def lock_only_paths(paths: Iterable[str]) -> list[str]:
    """The lock files among a revert's files when it changed no manifest the indexer
    reads ([] otherwise: the manifest's own lines carry the dependency verdict)."""
    locks = []
    for path in paths:
        if is_manifest(path):
            return []
        if declares_dependencies(path):
            locks.append(path)
    return locks


def lock_dependency(
    revert: Commit,
    original: Commit | None,
    files: frozenset[str] | None,
    read: Callable[[list[str]], dict[str, FileDiff]],
) -> Entity | None:
    """The `deps/NAME` entity of a revert that took a named bump back out of lock files
    only, with the lock lines it took out; None when it is not one (`read` gives the
    revert's diff of the paths it is handed; called only for such reverts)."""
    locks = lock_only_paths(ch.path for ch in revert.changes if files is None or ch.path in files)
    if not locks:
        return None
    bump = named_bump(_subjects(revert, original))
    entity = dependency(bump.name) if bump is not None else None
    if bump is None or entity is None:
        return None
    for path, fd in sorted(read(locks).items()):
        taken = _pinned(path, fd.removed.values(), entity)
        if not any(_same(v, bump.to) for _name, v, _line in taken):
            continue  # this lock did not pin the version the subject says was taken back
        back = [v for _name, v, _line in _pinned(path, fd.added.values(), entity)]
        return Entity(
            entity,  # canonical, as the gate names a lock line's pin (`lockfiles.dependency`)
            "dependency",
            lines=[line for _name, _v, line in taken],
            before=bump.to,
            after=back[0] if len(set(back)) == 1 else bump.before,
            file=path,
        )
    return None


def _subjects(revert: Commit, original: Commit | None) -> list[str]:
    """Where the bot's words are: the subject the revert quotes, the reverted commit's
    subject, and a merge's pull-request title (its message's first body line)."""
    out = []
    quoted = _QUOTED.match(revert.subject)
    if quoted:
        out.append(quoted.group(1))
    if original is not None:
        out.append(original.subject)
        body = [ln.strip() for ln in original.message.split("\n")[1:] if ln.strip()]
        if body and len(original.parents) > 1:
            out.append(body[0])
    return out


def _pinned(path: str, lines: Iterable[str], entity: str) -> list[tuple[str, str, str]]:
    """(name, version, line) of the lines pinning the dependency `entity` (`deps/NAME`,
    matched by the canonical name: `delayed_job` pins `deps/delayed-job`)."""
    out = []
    for line in lines:
        got = pin(path, line)
        if got is not None and dependency(got[0]) == entity:
            out.append((*got, line))
    return out


def _same(version: str, wanted: str) -> bool:
    return version.removeprefix("v") == wanted.removeprefix("v")
