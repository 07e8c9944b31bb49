"""Reading a line of the log quickly: `loads` parses it, `proven` proves its id.

The id has one definition, `line_id` (`cairn.store.model`, over the canonical encoder).
`proven(line)` is its one shortcut: it decodes the line's bytes into `EventFields` (the
event's one declaration, `cairn.store.fields`) and hashes the struct's own encoding,
emptied of `id` and the content fields, as the header. msgspec's output is byte for byte
the canonical encoder's (tests/trust/test_fastid.py checks every code point, sorted
keys, big integers), so a match proves the line is what was written; anything the struct
cannot hold as it is returns None, and `line_damage` asks the definition, which decides.
The writer encodes plain events through the same `plain_id`.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import orjson

from cairn.store.fields import CONTENT_FIELDS, EventFields, plain_id
from cairn.store.model import line_id

__all__ = ["Proven", "line_damage", "loads", "proven"]


def loads(data: bytes | str) -> Any:
    """Parse one JSON line: orjson for speed, the standard library where they differ.

    orjson refuses a few things the standard parser takes (NaN, integers beyond 64 bits,
    escaped lone surrogates): those lines are parsed the standard way, so both paths see
    the same values. Bytes must be UTF-8 either way (orjson checks; the fallback decodes
    strictly), so callers need not decode a line first.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)


def _no_float(text: str) -> Any:
    # Canonical JSON has no floats (their text differs between languages): such a line
    # is left to `line_id`, the one definition, which decides what it means.
    raise ValueError(f"float {text}")


_decode = msgspec.json.Decoder(EventFields, float_hook=_no_float).decode
_DecodeError = (msgspec.DecodeError, ValueError)  # ValidationError is a DecodeError

Proven = tuple[str, list[str], str, str]


def proven(line: bytes | memoryview) -> Proven | None:
    """(id, parents, supersedes, reverts) of an unredacted event line whose fields hash
    to the id it claims; None for anything else (not JSON, not an event, redacted, a
    value of an unexpected type, a float, an id that does not match), which the caller
    then reads the full way (`loads`, `line_id`). A match is proof: those are the bytes
    the writer hashed.
    """
    try:
        f = _decode(line)
    except _DecodeError:
        return None
    ident = f.id
    if not ident or not f.type or not f.entity or f.redacted or f.content_digest:
        return None
    if plain_id(f) != ident:
        return None
    return ident, f.parents, f.supersedes, f.reverts


def line_damage(raw: dict[str, Any], line: bytes | memoryview) -> str | None:
    """Why a line (its bytes, and `raw`, those bytes parsed) cannot be trusted
    (`verify`'s problem code), or None when its id is proven: by `proven` first, then
    by the one definition (`line_id`).

    Readers and `verify` ask this same question, so a line verify rejects never
    changes an answer.
    """
    if raw.get("redacted") and any(raw.get(k) for k in CONTENT_FIELDS):
        return "redacted-with-content"
    if proven(line) is not None:
        return None
    try:
        return None if line_id(raw) == raw.get("id") else "id-mismatch"
    except (TypeError, ValueError):
        return "malformed"
