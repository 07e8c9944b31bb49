"""Idempotency keys: a second write with the same key and the same request writes
nothing and returns the first event, so a retry after a crash cannot duplicate it."""

from __future__ import annotations

import contextlib
import re
from functools import lru_cache
from hashlib import sha256
from typing import Any

from cairn.store.canonical import canonical_bytes
from cairn.store.errors import KeyReused, ValidationError
from cairn.store.mask import mask_strings
from cairn.store.model import Event, EventDraft
from cairn.store.validate import parse_entity

__all__ = ["IDEMPOTENCY", "check_key", "replay", "request_digest"]

# Where an event keeps its writer's idempotency key: in metadata (content), so the log's
# canonical format and every existing id are unchanged. `request` is a digest of the
# request the key was first used for (masked first: no digest of a secret is stored),
# so a second use can tell a retry from a different decision. A redaction erases it
# with the rest of the content: after `cairn redact`, the key is free again.
IDEMPOTENCY = "idempotency"
_KEY = re.compile(r"^[!-~]{1,200}$")  # printable ASCII, no spaces


def check_key(raw: str) -> str:
    """An idempotency key as given, or ValidationError saying what a key may be."""
    key = raw.strip() if isinstance(raw, str) else ""
    if not _KEY.match(key):
        raise ValidationError(
            f"--key {str(raw)[:60]!r} is not a usable key; use 1 to 200 printable ASCII "
            "characters without spaces, e.g. a UUID"
        )
    return key


def request_digest(draft: EventDraft) -> str:
    """SHA-256 of what a draft asks for, without its key: equal for a retry of the same
    command, different when anything the writer gave differs.

    Not the writer's `session` either: it names one connection or process (an MCP
    session, a server run), and a retry after a crash comes on a new one."""
    fields: dict[str, Any] = {}
    for name in EventDraft.__struct_fields__:
        value = getattr(draft, name)
        fields[name] = value.strip() if isinstance(value, str) else value
    del fields["key"], fields["session"]
    fields["type"] = str(getattr(draft.type, "value", draft.type)).strip().lower()
    with contextlib.suppress(ValidationError, TypeError):  # preparing says what is wrong
        fields["entity"] = _parsed(draft.entity)[0]
    try:
        return sha256(canonical_bytes(mask_strings(fields, []))).hexdigest()
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"cannot encode the event: {exc}") from None


def replay(draft: EventDraft, earlier: Event | None) -> Event | None:
    """The one rule for idempotency keys: the event a write of `draft` returns instead
    of writing (`earlier`, the event its key names, when the request is the same), None
    when it must be written, or `KeyReused` when the key names a different decision."""
    if earlier is None:
        return None
    found = earlier.metadata.get(IDEMPOTENCY)
    if isinstance(found, dict) and found.get("request") == request_digest(draft):
        return earlier
    raise KeyReused(
        f"key {draft.key.strip()!r} was already used for {earlier.type.value} "
        f"{earlier.id[:12]} on {earlier.entity}, with different content; nothing was "
        "written (a new decision needs a new key)"
    )


# For request digests; `Preparer` keeps its own (parsing was a tenth of a bulk load).
_parsed = lru_cache(maxsize=1 << 12)(parse_entity)
