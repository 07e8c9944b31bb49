"""The event model: what a writer supplies (`EventDraft`), what the log holds (`Event`),
and what reads return (`EntityStatus`, `Attempt`, `SearchHit`, `Review`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from functools import lru_cache
from typing import Any

import msgspec

from cairn.store.canonical import CONTENT_FIELDS, content_digest, event_id
from cairn.store.fields import FIELD_NAMES
from cairn.store.paths import kind_of

__all__ = [
    "EVENT_FIELDS",
    "AppendResult",
    "Attempt",
    "Damage",
    "EntityStatus",
    "Event",
    "EventDraft",
    "EventType",
    "Reapplied",
    "Review",
    "SearchHit",
    "Status",
    "events_from_bytes",
]


class EventType(str, Enum):
    """The log's vocabulary (Selvedge-compatible)."""

    ADD = "add"
    CREATE = "create"
    MODIFY = "modify"
    RETYPE = "retype"
    RENAME = "rename"
    MIGRATE = "migrate"
    INDEX_ADD = "index_add"
    REMOVE = "remove"
    DELETE = "delete"
    INDEX_REMOVE = "index_remove"
    REVERT = "revert"
    REJECT = "reject"
    SUPERSEDE = "supersede"
    REDACT = "redact"
    # A note on an earlier event (`metadata.annotates` names it): a reason added later,
    # as its own event so history stays append-only. No effect on status.
    ANNOTATE = "annotate"

    @property
    def is_applied(self) -> bool:
        """A change that was written into the code."""
        return self in _APPLIED

    @property
    def is_removal(self) -> bool:
        """A neutral removal (not a verdict that the thing was wrong)."""
        return self in _REMOVAL

    @property
    def is_verdict(self) -> bool:
        """A revert or a reject: stands until a supersede names it."""
        return self in _VERDICT

    @property
    def is_note(self) -> bool:
        """An event about another event, not a decision about the entity: an `annotate`
        (a reason added later, a commit link) or a `redact`. The one rule behind every
        count: notes are counted apart from decisions (`EntityStatus.decision_count`),
        so the post-commit hook's links never make an entity look busier."""
        return self in _NOTE

    @classmethod
    def parse(cls, raw: str | EventType) -> EventType:
        """The type named `raw`, or ValueError listing the vocabulary."""
        if isinstance(raw, EventType):
            return raw
        try:
            return cls(str(raw).strip().lower())
        except ValueError:
            names = ", ".join(t.value for t in cls)
            raise ValueError(f"unknown event type {raw!r}; expected one of: {names}") from None

    def __str__(self) -> str:
        return self.value


_APPLIED = frozenset(
    {
        EventType.ADD,
        EventType.CREATE,
        EventType.MODIFY,
        EventType.RETYPE,
        EventType.RENAME,
        EventType.MIGRATE,
        EventType.INDEX_ADD,
    }
)
_TYPE_BY_VALUE = {t.value: t for t in EventType}
_REMOVAL = frozenset({EventType.REMOVE, EventType.DELETE, EventType.INDEX_REMOVE})
_VERDICT = frozenset({EventType.REVERT, EventType.REJECT})
_NOTE = frozenset({EventType.ANNOTATE, EventType.REDACT})


class Status(str, Enum):
    """An entity's derived status (see docs/status.md for the rule)."""

    ACTIVE = "active"
    REVERTED = "reverted"
    REJECTED = "rejected"
    REOPENED = "reopened"
    REMOVED = "removed"
    CONFLICT = "conflict"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


class EventDraft(msgspec.Struct):
    """What a writer supplies; the store validates it, fills defaults and assigns the id.

    `supersedes`/`reverts`/ids may be unique prefixes. `recorded_at` is normally left
    empty (the store stamps it); importers and tests may set it.
    """

    type: EventType | str
    entity: str
    # The rest in the log's canonical order (`cairn.store.fields.EventFields`).
    agent: str = ""
    alternative: str = ""
    author: str = ""
    commit: str = ""
    diff: str = ""
    entity_kind: str = ""
    expires_when: str = ""
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    occurred_at: str = ""
    reasoning: str = ""
    recorded_at: str = ""
    reverts: str = ""
    revisit_after: str = ""
    session: str = ""
    stale_when: str = ""
    supersedes: str = ""
    # An idempotency key: a second write with the same key and the same request writes
    # nothing and returns the first event (a retry after a crash cannot duplicate).
    # Kept in `metadata.idempotency` (see cairn.store.idempotency), not a header.
    key: str = ""


class Event(msgspec.Struct, frozen=True, gc=False):
    """One line of the log. Field names are the log's own; absent values are "" or {}.

    A frozen msgspec struct rather than a dataclass: a line decodes straight into it
    (`event_from_bytes`), several times faster than parsing a dict and building a frozen
    dataclass from it, and an editor's batch at 1M events reads ~600 of them. It holds
    only strings, a tuple and the line's metadata, never itself: the garbage collector
    need not track it (`gc=False`).
    """

    id: str
    type: EventType
    entity: str
    parents: tuple[str, ...] = ()
    entity_kind: str = ""
    reasoning: str = ""
    alternative: str = ""
    diff: str = ""
    supersedes: str = ""
    reverts: str = ""
    author: str = ""
    agent: str = ""
    session: str = ""
    commit: str = ""
    recorded_at: str = ""
    occurred_at: str = ""
    revisit_after: str = ""
    expires_when: str = ""
    stale_when: str = ""
    metadata: dict[str, Any] = {}  # msgspec gives each instance its own empty dict
    redacted: bool = False
    content_digest: str = ""

    @property
    def when(self) -> str:
        """When it happened in the world: `occurred_at`, else when it was logged."""
        return self.occurred_at or self.recorded_at

    def to_dict(self) -> dict[str, Any]:
        """Every field under the log's names (absent ones as null), for JSON output."""
        out: dict[str, Any] = {}
        for name in EVENT_FIELDS:
            value = getattr(self, name)
            if name == "parents":
                value = list(value)
            elif name == "type":
                value = value.value
            out[name] = value if value not in ("", {}) else None
        if self.redacted:
            out["redacted"] = True
            out["content_digest"] = self.content_digest
        return out

    @classmethod
    def from_line(cls, raw: dict[str, Any]) -> Event:
        """Build from a parsed JSONL line; raises ValueError/KeyError when malformed."""
        etype = _TYPE_BY_VALUE.get(raw["type"]) or EventType.parse(raw["type"])
        entity = raw["entity"]
        texts = {name: raw.get(name) or "" for name in _TEXTS}
        return cls(
            id=raw["id"],
            type=etype,
            entity=entity,
            parents=tuple(raw.get("parents") or ()),
            entity_kind=raw.get("entity_kind") or _inferred_kind(entity),
            # the write path only writes objects; a hand-made line gets none, not a crash
            metadata=meta if isinstance(meta := raw.get("metadata"), dict) else {},
            redacted=bool(raw.get("redacted")),
            **texts,
        )


# The event's fields under the log's names in the order humans read them (`Event`'s),
# without the seal a redaction leaves. `Event` is the typed reading of the fields
# `EventFields` declares (cairn.store.fields): the two must name the same ones.
EVENT_FIELDS = tuple(n for n in Event.__struct_fields__ if n not in ("redacted", "content_digest"))
if set(Event.__struct_fields__) != set(FIELD_NAMES):
    raise TypeError("Event and EventFields (cairn.store.fields) must hold the same fields")
# The text fields `from_line` reads as they are ("" when absent or null).
_TEXTS = tuple(
    f.name
    for f in msgspec.structs.fields(Event)
    if f.type is str and f.name not in ("id", "entity", "entity_kind")
)


def _unusual(value: Any) -> bool:
    """True when metadata holds a float or an integer beyond 64 bits, at any depth."""
    if isinstance(value, float):
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        return not -(1 << 63) <= value < 1 << 64
    if isinstance(value, dict):
        return any(_unusual(v) for v in value.values())
    if isinstance(value, list):
        return any(_unusual(v) for v in value)
    return False


_decode_event = msgspec.json.Decoder(Event).decode
_force_setattr = msgspec.structs.force_setattr


def event_from_bytes(
    line: bytes | memoryview, parse: Callable[[bytes], Any], kinds: dict[str, str] | None = None
) -> Event:
    """The event a log line holds, decoded straight into an `Event`.

    What the writer writes (strings, a list of parent ids, an object of metadata, the
    type's own spelling) decodes in one step. Anything else (a null, a type spelled
    differently, metadata that is not an object, a number msgspec refuses) goes through
    `parse` (the store's line parser) and `Event.from_line`, the one reading of a line:
    a test checks both give the same event or the same error on odd lines.
    """
    try:
        event = _decode_event(line)
    except msgspec.DecodeError:  # its ValidationError included
        return Event.from_line(parse(bytes(line)))
    if event.metadata and _unusual(event.metadata):
        # Numbers the writer never writes (floats, NaN, integers beyond 64 bits), which
        # the two parsers may read differently: the line parser's reading is the one.
        return Event.from_line(parse(bytes(line)))
    if not event.entity_kind:  # pruned when the path says it
        entity = event.entity
        # `kinds`: the kinds a caller reading many lines found so far (a batch's verdict
        # and conflict lines of one entity share its path).
        kind = kinds.get(entity) if kinds is not None else None
        if kind is None:
            kind = _inferred_kind(entity)
            if kinds is not None:
                kinds[entity] = kind
        _force_setattr(event, "entity_kind", kind)
    return event


def events_from_bytes(
    lines: Sequence[bytes | memoryview], parse: Callable[[bytes], Any], kinds: dict[str, str]
) -> list[Event]:
    """`event_from_bytes` of many lines (`kinds` as there), in their order.

    The writer's lines are decoded in one pass of C with no Python call a line (at 1M
    events an editor's cold batch decodes ~600), then only what a line left out or the
    line parser must read is settled here; a line msgspec refuses sends every line
    through `event_from_bytes`, so both give the same events or the same error.
    """
    try:
        events = list(map(_decode_event, lines))
    except msgspec.DecodeError:
        return [event_from_bytes(line, parse, kinds) for line in lines]
    for i, event in enumerate(events):
        if event.metadata and _unusual(event.metadata):
            events[i] = Event.from_line(parse(bytes(lines[i])))
        elif not event.entity_kind:  # pruned when the path says it
            entity = event.entity
            kind = kinds.get(entity)
            if kind is None:
                kind = kinds[entity] = _inferred_kind(entity)
            _force_setattr(event, "entity_kind", kind)
    return events


@lru_cache(maxsize=1 << 18)  # an editor's batches at 1M events name 100k entities
def _inferred_kind(entity: str) -> str:
    """The grammar's kind for a path (cached: reads rebuild many events per entity)."""
    try:
        return kind_of(entity).value
    except ValueError:
        return ""


def line_id(raw: dict[str, Any]) -> str:
    """Recompute the id of a parsed JSONL line (redacted or not) from its own fields."""
    digest = raw.get("content_digest") if raw.get("redacted") else None
    if not digest:
        digest = content_digest({k: raw.get(k) for k in CONTENT_FIELDS})
    return event_id(raw, digest)


class AppendResult(msgspec.Struct, frozen=True):
    """What `Store.append` wrote, which kinds of secret were masked on the way, and
    warnings for the writer (an entity path that mixes scripts)."""

    event: Event
    masked: list[str] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)
    # True when the draft's idempotency key named an event already in the log: that
    # event is returned and nothing was written.
    replayed: bool = False


class Reapplied(msgspec.Struct, frozen=True, gc=False):
    """A change that re-applied an entity after an open verdict without a supersede, as
    its stored status row keeps it: the event's id, type, times, author and agent (what
    a finding and the editor show of it), so a batch of statuses reads no line for it.
    `Store.events_of` gives the whole event (its reasoning, say)."""

    id: str
    type: EventType
    recorded_at: str = ""
    occurred_at: str = ""
    author: str = ""
    agent: str = ""

    @property
    def when(self) -> str:
        """When it happened in the world (as `Event.when`)."""
        return self.occurred_at or self.recorded_at

    def to_dict(self) -> dict[str, Any]:
        """Its fields under the log's names (absent ones as null), as `Event.to_dict`."""
        return {
            "id": self.id,
            "type": self.type.value,
            "author": self.author or None,
            "agent": self.agent or None,
            "recorded_at": self.recorded_at or None,
            "occurred_at": self.occurred_at or None,
        }


class EntityStatus(msgspec.Struct, frozen=True, gc=False):
    """An entity's derived status and the events that explain it.

    A frozen msgspec struct rather than a dataclass (`msgspec.structs.replace` makes a
    changed copy): an editor's batch builds 500 at once, and a frozen dataclass took
    ~2-5 us each, most of a plain status's cost. It holds events, strings and
    containers of them, never a status: the garbage collector need not track it
    (`gc=False`; the collection a cold batch ends with walked these 500 too).
    """

    entity: str
    status: Status
    open_verdicts: list[Event] = []  # msgspec gives each instance its own empty container
    # The changes that re-applied it without a supersede: every one as a whole `Event`
    # from `status`; from a batch (`status_many`) the newest only, as its row keeps it.
    conflicts: list[Event] | list[Reapplied] = []
    reopened: dict[str, str] = {}
    event_count: int = 0
    latest: Event | None = None
    due_reviews: list[Review] = []
    rollup: dict[str, Status] = {}
    # The entity's former paths (renames and moves, nearest first) whose events the
    # status was derived over as well (`cairn.core.aliases`); empty when it kept its name.
    formerly: tuple[str, ...] = ()
    # How many of the `event_count` events are notes (`EventType.is_note`).
    note_count: int = 0

    @property
    def decision_count(self) -> int:
        """Its decisions: every event but the notes (what "N decisions" and the quiet
        rule's `busy_after` count)."""
        return self.event_count - self.note_count

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "entity": self.entity,
            "status": self.status.value,
            "open_verdicts": [e.to_dict() for e in self.open_verdicts],
            "conflicts": [e.to_dict() for e in self.conflicts],
            "reopened": dict(self.reopened),
            "event_count": self.event_count,
            "decision_count": self.decision_count,
            "note_count": self.note_count,
            "latest": self.latest.to_dict() if self.latest else None,
            "due_reviews": [r.to_dict() for r in self.due_reviews],
            "rollup": {k: v.value for k, v in self.rollup.items()},
            "formerly": list(self.formerly),
        }


class Attempt(msgspec.Struct, frozen=True):
    """A prior attempt: an applied change and what closed it, or a standalone reject."""

    entity: str
    outcome: str  # reverted | reopened | active | removed | rejected
    confidence: str  # exact | proximity | "" (nothing closed it)
    change: Event | None
    closed_by: Event | None
    reopened_by: str = ""
    alternative: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "entity": self.entity,
            "outcome": self.outcome,
            "confidence": self.confidence or None,
            "alternative": self.alternative or None,
            "change": self.change.to_dict() if self.change else None,
            "closed_by": self.closed_by.to_dict() if self.closed_by else None,
            "reopened_by": self.reopened_by or None,
        }


class SearchHit(msgspec.Struct, frozen=True):
    """One decision a search found: its best-ranked event, the score (BM25 over the
    weighted fields, higher is better; `cairn.store.fulltext`) and the other events of
    the same decision (one revert commit's events on many entities: `same`)."""

    event: Event
    score: float
    others: tuple[Event, ...] = ()

    @property
    def events(self) -> tuple[Event, ...]:
        return (self.event, *self.others)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: the event's, with every entity and id of the decision."""
        return {
            "score": round(self.score, 4),
            **self.event.to_dict(),
            "entities": [e.entity for e in self.events],
            "ids": [e.id for e in self.events],
        }


def same_decision(event: Event) -> tuple[str, str, str, str]:
    """What the events of one decision share: one revert commit or one recorded verdict
    on several entities is one answer to a search, not one per entity."""
    return (event.type.value, event.reasoning, event.alternative, event.commit or event.recorded_at)


class Review(msgspec.Struct, frozen=True):
    """A decision that asks to be looked at again, and why now."""

    event: Event
    reason: str  # revisit_after | expires_when
    due: str  # the date it fell due, or "" for manual/entity triggers
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "reason": self.reason,
            "due": self.due or None,
            "detail": self.detail or None,
            "event": self.event.to_dict(),
        }


class Damage(msgspec.Struct, frozen=True):
    """Lines of the log that verification rejects, kept out of every answer.

    `counts` maps `cairn verify`'s problem codes (`id-mismatch`, `missing-parent`,
    `malformed`, `redacted-with-content`) to how many lines have them.
    """

    counts: dict[str, int] = msgspec.field(default_factory=dict)

    @property
    def lines(self) -> int:
        """How many lines are damaged."""
        return sum(self.counts.values())

    def __bool__(self) -> bool:
        return self.lines > 0

    def message(self) -> str:
        """One line for a human: what is wrong and what to run."""
        n = self.lines
        kinds = ", ".join(f"{code} {count}" for code, count in sorted(self.counts.items()))
        return (
            f"the log is damaged: {n} line{'s' if n != 1 else ''} fail verification "
            f"({kinds}) and are ignored; run `cairn verify` for details"
        )
