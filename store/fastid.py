"""A shortcut for `verify` at a million events: prove a canonical line's id from its bytes.

The store writes every line as canonical JSON, so the canonical header is the line
itself minus the content fields and the id, plus `content_digest` in its sorted place;
the canonical content is those fields' own bytes. Cutting them out with C string
operations is several times cheaper than rebuilding both objects and re-encoding them.

This is only a shortcut, never a second definition of an id. A match is proof: the bytes
hash to the id the writer computed with `cairn.store.canonical.event_id`, so they are
the bytes it hashed. Anything else (a reformatted line, a bad id, an unusual field)
returns False and the caller asks `line_id`, the one definition.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

from cairn.store.model import line_id

__all__ = ["line_damage", "loads", "proves_id"]

# Present content fields, in the canonical (sorted) order.
_CONTENT = ("alternative", "diff", "metadata", "reasoning")
_encode = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode
_sha256 = hashlib.sha256
_encode_str = json.encoder.encode_basestring  # what the canonical encoder uses for text


def _cut(line: str, piece: str) -> str | None:
    """`line` without the top-level member `piece` and its separating comma."""
    at = line.find("," + piece)
    if at >= 0:
        return line[:at] + line[at + 1 + len(piece) :]
    at = line.find(piece + ",")
    if at == 1:
        return line[:1] + line[1 + len(piece) + 1 :]
    return None


def loads(data: bytes | str) -> Any:
    """Parse one JSON line: orjson for speed, the standard library where they differ.

    Only reading goes through orjson; the bytes that get hashed and written are always
    the standard encoder's (docs/canonical-json.md). orjson refuses a few things the
    standard parser takes (NaN, integers beyond 64 bits, escaped lone surrogates):
    those lines are parsed the standard way, so both paths see the same values.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def proves_id(line: str, raw: dict[str, Any]) -> bool:
    """True when `line` (canonical JSON of `raw`) hashes to the id it claims."""
    claimed = raw.get("id")
    if type(claimed) is not str or not line.startswith('{"'):
        return False
    if "redacted" in raw or "content_digest" in raw:
        return _proves_redacted(line, raw, claimed)
    # Spans to leave out of the header: each content member and the id, with the comma
    # before it (or after it, for the line's first member). Found by `find`: a wrong
    # span (a nested lookalike) only makes the hash differ, and the slow path decides.
    spans = []
    pieces = []
    for key in _CONTENT:
        if key in raw:
            value = raw[key]
            piece = f'"{key}":' + (_encode_str(value) if type(value) is str else _encode(value))
            pieces.append(piece)
            span = _span(line, piece)
            if span is None:
                return False
            spans.append(span)
    span = _span(line, f'"id":"{claimed}"')
    if span is None:
        return False
    spans.append(span)
    # Header values are strings and a list of hex ids: a raw `"entity":"` can only be
    # the key (a quote inside a string is escaped), and `content_digest` sorts just
    # before `entity`, after `agent`, `author` and `commit`.
    at = line.find('"entity":"')
    if at < 1:
        return False
    digest = _sha256(("{" + ",".join(pieces) + "}").encode("utf-8")).hexdigest()
    spans.append((at, at, f'"content_digest":"{digest}",'))
    spans.sort()
    parts = []
    pos = 0
    for start, end, insert in spans:
        if start < pos:
            return False  # overlapping spans: not a line this shortcut understands
        parts.append(line[pos:start])
        parts.append(insert)
        pos = end
    parts.append(line[pos:])
    return _sha256("".join(parts).encode("utf-8")).hexdigest() == claimed


def _span(line: str, piece: str) -> tuple[int, int, str] | None:
    """(start, end, "") of a top-level member `piece` and its separating comma."""
    at = line.find("," + piece)
    if at >= 0:
        return at, at + 1 + len(piece), ""
    if line.startswith(piece + ",", 1):
        return 1, 2 + len(piece), ""
    return None


def _proves_redacted(line: str, raw: dict[str, Any], claimed: str) -> bool:
    """The same proof for a redacted line: its header keeps `content_digest`."""
    header: str | None = line
    digest = raw.get("content_digest")
    if any(key in raw for key in _CONTENT) or not isinstance(digest, str):
        return False
    if raw.get("redacted") is not True:
        return False
    for piece in ('"redacted":true', f'"id":"{claimed}"'):
        header = _cut(header, piece) if header is not None else None
    if header is None:
        return False
    return _sha256(header.encode("utf-8")).hexdigest() == claimed


def line_damage(text: str, raw: dict[str, Any]) -> str | None:
    """Why a parsed line cannot be trusted (`verify`'s problem code), or None when its id
    is proven: the fast path first, then the one definition (`line_id`).

    Readers and `verify` ask this same question, so a line verify rejects never
    changes an answer.
    """
    if raw.get("redacted") and any(raw.get(k) for k in _CONTENT):
        return "redacted-with-content"
    if proves_id(text, raw):
        return None
    try:
        return None if line_id(raw) == raw.get("id") else "id-mismatch"
    except (TypeError, ValueError):
        return "malformed"
