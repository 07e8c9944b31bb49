"""A shortcut for `verify` and ingest at a million events: prove a line's id quickly.

`proves_id(raw)` encodes an already parsed line's header and content with orjson and
hashes them. orjson's sorted output is byte for byte the canonical encoder's for what
an event holds (tests/store/test_canonical.py checks every code point), so a match
proves the line is what was written. This is only a shortcut, never a second definition
of an id: anything else returns False and the caller asks `line_id` (the one
definition, `cairn.store.model`). Verify's own hot path, which proves a line from its
bytes without a dict, is `cairn.store.fastproof`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

from cairn.store.fields import CONTENT_FIELDS, NOT_HEADER
from cairn.store.model import line_id

__all__ = ["line_damage", "loads", "proves_id"]

_CONTENT = CONTENT_FIELDS
_sha256 = hashlib.sha256
_dumps = orjson.dumps
_SORTED = orjson.OPT_SORT_KEYS


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


def proves_id(raw: dict[str, Any]) -> bool:
    """True when the parsed line's fields, encoded by orjson, hash to the id it claims.

    A match is proof: those are the bytes the writer hashed. Anything else (a field the
    writer would have pruned, a float, an integer orjson cannot hold, a wrong id) is
    False, and the caller asks `line_id`, the one definition.
    """
    claimed = raw.get("id")
    if type(claimed) is not str:
        return False
    try:
        if raw.get("redacted"):
            digest = raw.get("content_digest")
            if type(digest) is not str:
                return False
        else:
            content = {k: raw[k] for k in _CONTENT if k in raw}
            digest = _sha256(_dumps(content, option=_SORTED)).hexdigest()
        header = {k: v for k, v in raw.items() if k not in NOT_HEADER}
        header["content_digest"] = digest
        return _sha256(_dumps(header, option=_SORTED)).hexdigest() == claimed
    except TypeError:  # what orjson refuses (a big integer, a lone surrogate)
        return False


def line_damage(raw: dict[str, Any]) -> str | None:
    """Why a parsed line cannot be trusted (`verify`'s problem code), or None when its id
    is proven: the quick id first, then the one definition (`line_id`).

    Readers and `verify` ask this same question, so a line verify rejects never
    changes an answer.
    """
    if raw.get("redacted") and any(raw.get(k) for k in _CONTENT):
        return "redacted-with-content"
    if proves_id(raw):
        return None
    try:
        return None if line_id(raw) == raw.get("id") else "id-mismatch"
    except (TypeError, ValueError):
        return "malformed"
