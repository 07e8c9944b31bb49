"""What the site knows of each entity, gathered in one pass over the log: its status,
counts, search candidates and place in the tree, and which entity holds each event
(the cross-page links). Events are dropped once summarised; each entity page loads
its own again while it is written, so a million events are never in memory at once.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import TYPE_CHECKING

from cairn.site.search_data import SearchLimits
from cairn.site.timeline import Decisions
from cairn.store import EntityStatus, Event, EventType, Review, Store
from cairn.store.paths import EntityKind, parse

if TYPE_CHECKING:
    from cairn.core.session import Session

__all__ = [
    "Entity",
    "Hit",
    "Links",
    "candidates",
    "children_of",
    "clip",
    "collect",
    "entity_page_name",
    "history_of",
    "instant_of",
    "kind_of",
    "parent_of",
    "session_of",
    "when_of",
    "who_of",
]


@dataclass(slots=True)
class Entity:
    """What the index and the other pages need of an entity. Its events are loaded
    only while its own page is written (a million events do not fit in memory twice)."""

    path: str
    kind: str
    status: EntityStatus
    events: list[Event]
    due: list[Review] = field(default_factory=list)
    page: str = ""
    count: int = 0  # its decisions: notes (`EventType.is_note`) are counted apart
    notes: int = 0
    newest: str = ""  # when its newest event happened
    hits: list[Hit] = field(default_factory=list)  # its search candidates, clipped
    searchable: int = 0  # events with text or an author (not redacted)
    formerly: tuple[str, ...] = ()  # former paths whose history this entity holds
    file_removed: bool = False  # its file is gone from the working tree


# (type, date, who, text clipped to SearchLimits.event_chars, whether it was clipped)
Hit = tuple[str, str, str, str, bool]


@dataclass(slots=True)
class Links:
    """Cross-entity links, from one pass over every event: which entity holds an event,
    which supersede re-opened a verdict, which redact event erased an event."""

    owner: dict[str, Entity] = field(default_factory=dict)
    decisions: Decisions = field(default_factory=Decisions)
    reopened_by: dict[str, str] = field(default_factory=dict)
    redactions: dict[str, Event] = field(default_factory=dict)


def entity_page_name(entity: str) -> str:
    """`e/users.email-1a2b3c4d5e.html`: readable, unique, safe on case-insensitive disks."""
    readable = re.sub(r"[^a-z0-9._-]+", "-", entity.lower()).strip("-.")[:60] or "entity"
    digest = hashlib.sha256(entity.encode("utf-8")).hexdigest()[:10]
    return f"e/{readable}-{digest}.html"


def when_of(event: Event) -> str:
    return event.occurred_at or event.recorded_at


def instant_of(text: str) -> datetime | None:
    """A timestamp or date from the log as an aware datetime; None when unreadable."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        try:
            moment = datetime.combine(date.fromisoformat(text.strip()[:10]), datetime.min.time())
        except ValueError:
            return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def who_of(event: Event) -> str:
    author = event.author.split(" <", 1)[0] if event.author else ""
    return author or event.agent


def clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def history_of(session: Session, path: str) -> list[Event]:
    # under its former paths too: a moved entity's page holds what was decided before
    return sorted(session.history(path), key=lambda e: (when_of(e), e.id))


def session_of(store: Store) -> Session:
    from cairn.core.session import Session

    return Session.of_store(store)


def collect(
    session: Session, today: date | None, limits: SearchLimits
) -> tuple[dict[str, Entity], Links]:
    """Every entity with what the index, the search and the links need; the events
    themselves are dropped once summarised (pages load them again one at a time).
    Entities are listed as every surface lists them (`cairn.core.listing`)."""
    from cairn.core.listing import current_name, listing

    store = session.store
    due: dict[str, list[Review]] = defaultdict(list)
    for review in store.due_reviews(today=today):
        due[current_name(session, review.event.entity)].append(review)
    out: dict[str, Entity] = {}
    links = Links()
    for row in listing(session):
        path, status = row.entity, row.status
        events = history_of(session, path)
        if not events:
            continue
        kind = events[-1].entity_kind or kind_of(path)
        entity = Entity(path, kind, status, events, due.get(path, []), entity_page_name(path))
        entity.formerly, entity.file_removed = row.formerly, row.file_removed
        entity.notes = sum(1 for e in events if e.type.is_note)
        entity.count, entity.newest = len(events) - entity.notes, when_of(events[-1])
        entity.hits, entity.searchable = candidates(entity, limits)
        for event in events:
            links.owner[event.id] = entity
            links.decisions.add(event, path, entity.page, when_of(event), who_of(event))
            if event.type == EventType.SUPERSEDE and event.supersedes:
                links.reopened_by.setdefault(event.supersedes, event.id)
            if event.type == EventType.REDACT and isinstance(event.metadata, dict):
                target = event.metadata.get("redacts")
                if isinstance(target, str):
                    links.redactions[target] = event
        entity.events = []
        out[path] = entity
    # supersede may name a prefix of the verdict's id: resolve to the full id
    for verdict in [v for v in links.reopened_by if v not in links.owner]:
        matches = [i for i in links.owner if i.startswith(verdict)]
        if len(matches) == 1:
            links.reopened_by[matches[0]] = links.reopened_by.pop(verdict)
    return out, links


def kind_of(path: str) -> str:
    try:
        return parse(path).kind.value
    except ValueError:
        return ""


def parent_of(path: str, kind: str) -> str | None:
    """The entity one level up in the tree: a column's table, a method's class, a
    function's file; None at the top."""
    if "::" in path:
        file, _, name = path.partition("::")
        return f"{file}::{name.rsplit('.', 1)[0]}" if "." in name else file
    if kind == EntityKind.COLUMN.value and "." in path:
        return path.rsplit(".", 1)[0]
    return None


def candidates(entity: Entity, limits: SearchLimits) -> tuple[list[Hit], int]:
    """An entity's most telling searchable events (its open verdicts and conflicts,
    what a reader searches for, then the others, newest first), at most
    `limits.events_per_entity`, clipped; and how many searchable events it has.
    Redacted events contribute nothing."""
    flagged = {v.id for v in entity.status.open_verdicts} | {c.id for c in entity.status.conflicts}
    newest_first = entity.events[::-1]
    ordered = [e for e in newest_first if e.id in flagged]
    ordered += [e for e in newest_first if e.id not in flagged]
    out: list[Hit] = []
    total = 0
    for event in ordered:
        if event.redacted:
            continue
        text = "\n".join(t for t in (event.reasoning, event.alternative) if t)
        who = who_of(event)
        if not (text or who):
            continue
        total += 1
        if len(out) < limits.events_per_entity:
            clipped = len(text) > limits.event_chars
            kept = text[: limits.event_chars - 1] + "…" if clipped else text
            out.append((event.type.value, when_of(event)[:10], who, kept, clipped))
    return out, total


def children_of(entities: dict[str, Entity]) -> dict[str, list[str]]:
    """The entity tree: parent path -> child paths ("" holds the tops), including
    parents that have no events of their own (a file whose functions have history)."""
    tree: dict[str, set[str]] = defaultdict(set)
    for path, entity in entities.items():
        node, kind = path, entity.kind
        while True:
            parent = parent_of(node, kind)
            if parent is None:
                tree[""].add(node)
                break
            tree[parent].add(node)
            node, kind = parent, entities[parent].kind if parent in entities else kind_of(parent)
    return {k: sorted(v) for k, v in tree.items()}
