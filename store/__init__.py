"""The decision log: an append-only JSONL of content-addressed events and its index.

Public API (see docs/architecture.md): `Store`, `init_store`, `EventDraft`, `Event`,
`EventType`, `Status`, `EntityStatus`, `Reapplied`, `Attempt`, `SearchHit`, `Review`, the errors,
and `event_id`/`content_digest`/`canonical_json` for integrity checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lazy import exports

if TYPE_CHECKING:
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

# Which module defines each name, imported on first use (PEP 562): `cairn.store.paths`
# and the gate's read path must not load the write path, msgspec's encoders or orjson
# just because the package is imported on the way.
_HOME = {
    "CONTENT_FIELDS": "canonical",
    "canonical_json": "canonical",
    "content_digest": "canonical",
    "event_id": "canonical",
    "AmbiguousTarget": "errors",
    "KeyReused": "errors",
    "LockTimeout": "errors",
    "StoreError": "errors",
    "UnknownEvent": "errors",
    "ValidationError": "errors",
    "init_store": "init",
    "EVENT_FIELDS": "model",
    "AppendResult": "model",
    "Attempt": "model",
    "EntityStatus": "model",
    "Event": "model",
    "EventDraft": "model",
    "EventType": "model",
    "Reapplied": "model",
    "Review": "model",
    "SearchHit": "model",
    "Status": "model",
    "line_id": "model",
    "Store": "store",
}

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

__getattr__ = exports(__name__, _HOME)
