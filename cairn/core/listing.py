"""The entities that have decisions, as every listing surface shows them: `cairn ls`, the
site, the digest and the Markdown export list through `listing` (and name one entity
through `current_name`), so they agree with each other and with `cairn status`.

    rows = listing(session)                 # or listing(session, ["src/"]) for a prefix's
    [(r.entity, r.status.status, r.formerly, r.file_removed) for r in rows]

Renames and moves (`cairn.core.aliases`) are followed: a path that was moved away is
folded into its newest name, whose row counts the old path's history and names it in
`formerly`; a move is never a row of its own, nor a conflict. A row whose file is no
longer in the working tree says so (`file_removed`), so no surface lists a gone file as
if it were there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cairn.store.paths import EntityKind, EntityPathError, parse

if TYPE_CHECKING:
    from cairn.core.session import Session
    from cairn.store import EntityStatus

__all__ = [
    "Listed",
    "current_name",
    "file_of",
    "file_removed",
    "listing",
    "moved_to",
    "named",
    "named_line",
]


@dataclass(frozen=True, slots=True)
class Listed:
    """One entity as a listing shows it: its newest name, its status over its former
    paths too, the former paths, and whether its file is gone from the working tree."""

    entity: str
    status: EntityStatus
    formerly: tuple[str, ...] = ()
    file_removed: bool = False

    @property
    def state(self) -> str:
        """The status word, with what a reader must know about the file:
        `reverted · file removed`."""
        word = self.status.status.value
        return f"{word} · file removed" if self.file_removed and word != "removed" else word


def current_name(session: Session, entity: str) -> str:
    """The newest name of `entity` (itself when it was never renamed or moved, or when
    its old file is back in the working tree: then the old path is that file's)."""
    later = session.later_names(entity)
    if not later or (file_of(entity) is not None and not _gone(session.project.root, entity)):
        return entity
    return later[-1]


def moved_to(session: Session, entity: str) -> str | None:
    """The newest name of an entity that was moved away (its file gone), else None: what
    `cairn status` and MCP `cairn_why` tell whoever asks by the old path."""
    try:
        name = current_name(session, entity)
    except EntityPathError:
        return None
    return name if name != entity else None


def file_removed(session: Session, entity: str) -> bool:
    """Whether the file `entity` lives in is gone from the working tree."""
    return _gone(session.project.root, entity)


def named(session: Session, entity: str) -> tuple[str, str]:
    """How a surface that quotes one event names its entity: the newest name, and what a
    reader must know about it ("formerly OLD", "file removed", both, or "")."""
    name = current_name(session, entity)
    notes = [f"formerly {entity}"] if name != entity else []
    if _gone(session.project.root, name):
        notes.append("file removed")
    return name, ", ".join(notes)


def named_line(session: Session, entity: str) -> tuple[str, str, str]:
    """`named` for a surface that quotes an event in one line (`cairn search`, MCP
    `cairn_search`): the newest name, the note, and both as the line names them,
    `NEW (formerly OLD)`, as the digest does."""
    name, note = named(session, entity)
    return name, note, f"{name} ({note})" if note else name


def listing(session: Session, paths: Iterable[str] | None = None) -> list[Listed]:
    """The rows for `paths` (default: every entity of the log), sorted by path: each
    moved path folded into its newest name (which is listed even when the log has no
    event under it), statuses followed over former paths (`Session.statuses`)."""
    wanted = session.store.entities() if paths is None else list(paths)
    names: dict[str, None] = {}
    for path in wanted:
        names.setdefault(current_name(session, path), None)
    statuses = session.statuses(names)
    root = session.project.root
    rows = []
    for name in sorted(names):
        status = statuses[name]
        if not status.event_count:
            continue
        rows.append(Listed(name, status, tuple(status.formerly), _gone(root, name)))
    return rows


def file_of(entity: str) -> str | None:
    """The working-tree path an entity lives in (its file, or its folder with a trailing
    slash), None for what lives in no one file (tables, routes, dependencies)."""
    try:
        kind = parse(entity).kind
    except (EntityPathError, ValueError):
        return None
    if "::" in entity:
        return entity.split("::", 1)[0]
    if kind in (EntityKind.FILE, EntityKind.DIRECTORY):
        return entity
    return None


def _gone(root: Path, entity: str) -> bool:
    rel = file_of(entity)
    if rel is None or not root.is_dir():
        return False
    return not (root / rel).exists()
