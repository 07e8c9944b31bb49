"""The decision log: an append-only JSONL of content-addressed events and its index.

Public API (see docs/architecture.md): `Store`, `init_store`, `EventDraft`, `Event`,
`EventType`, `Status`, `EntityStatus`, `Reapplied`, `Attempt`, `SearchHit`, `Review`, the errors,
and `event_id`/`content_digest`/`canonical_json` for integrity checks.
"""

from __future__ import annotations

from cairn.store.canonical import CONTENT_FIELDS, canonical_json, content_digest, event_id
from cairn.store.errors import (
    AmbiguousTarget,
    KeyReused,
    LockTimeout,
    StoreError,
    UnknownEvent,
    ValidationError,
)
from cairn.store.init import init_store
from cairn.store.model import (
    EVENT_FIELDS,
    AppendResult,
    Attempt,
    EntityStatus,
    Event,
    EventDraft,
    EventType,
    Reapplied,
    Review,
    SearchHit,
    Status,
    line_id,
)
from cairn.store.store import Store

__all__ = [
    "CONTENT_FIELDS",
    "EVENT_FIELDS",
    "AmbiguousTarget",
    "AppendResult",
    "Attempt",
    "EntityStatus",
    "Event",
    "EventDraft",
    "EventType",
    "KeyReused",
    "LockTimeout",
    "Reapplied",
    "Review",
    "SearchHit",
    "Status",
    "Store",
    "StoreError",
    "UnknownEvent",
    "ValidationError",
    "canonical_json",
    "content_digest",
    "event_id",
    "init_store",
    "line_id",
]
