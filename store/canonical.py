"""Canonical JSON and content-addressed ids: the bytes that get hashed.

The exact rules, with known-answer vectors, are in docs/canonical-json.md. In short:
keys sorted by code point, no insignificant whitespace, UTF-8 without \\u escapes for
printable characters, integers and finite floats only, and fields whose value is
null, "", [] or {} omitted at the top level of an event.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from cairn.store.fields import CONTENT_FIELDS, NOT_HEADER

__all__ = [
    "CONTENT_FIELDS",
    "canonical_bytes",
    "canonical_json",
    "content_digest",
    "event_id",
    "prune",
]

_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(value: Any) -> str:
    """Serialise `value` canonically (raises ValueError on NaN/Infinity or bad types)."""
    text = _encoder.encode(value)
    _check_utf8(text)
    return text


def canonical_bytes(value: Any) -> bytes:
    """The canonical JSON of `value` as UTF-8 bytes."""
    text = _encoder.encode(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        _check_utf8(text)
        raise


def _check_utf8(text: str) -> None:
    # Lone surrogates would make the UTF-8 encoding ambiguous (or impossible).
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text contains a lone surrogate; it cannot be encoded as UTF-8") from None


def prune(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Drop top-level fields that are null or empty ("" [] {}): absent and empty are one."""
    # A truthy value is kept without the comparisons (most are); 0 and False are kept.
    return {
        k: v for k, v in fields.items() if v or not (v is None or v == "" or v == [] or v == {})
    }


def content_digest(content: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of the pruned content object."""
    return hashlib.sha256(canonical_bytes(prune(content))).hexdigest()


def event_id(header_fields: Mapping[str, Any], digest: str) -> str:
    """An event's id: SHA-256 hex of the canonical JSON of its header plus `content_digest`.

    `header_fields` are every field except `id`, `redacted` and the content fields;
    they are pruned here, so callers may pass empty values.
    """
    header = prune({k: v for k, v in header_fields.items() if k not in NOT_HEADER})
    header["content_digest"] = digest
    return hashlib.sha256(canonical_bytes(header)).hexdigest()
