"""Encoding an event: its id and its canonical line, produced together in one pass.

The one definition is `cairn.store.canonical` (`event_id`, `canonical_bytes`); these are
faster routes to the same bytes, each checked against it (tests/store/test_canonical.py,
tests/store/test_write_fast_paths.py): orjson over pruned dicts, the standard encoder
member by member for what orjson refuses, and msgspec over `EventFields` for the plain
events most of a bulk load is.
"""

from __future__ import annotations

import json
from hashlib import sha256
from typing import Any

import msgspec
import orjson

from cairn.store.fields import EventFields, plain_id

__all__ = ["encode_event", "encode_event_by_members", "encode_owned", "encode_plain"]

_dumps = orjson.dumps
_SORTED = orjson.OPT_SORT_KEYS
_SORTED_LINE = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
_encode_str = json.encoder.encode_basestring  # what the canonical encoder uses for text
_encode_any = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def _encode_member(value: Any) -> str:
    """Canonical JSON of one member's value; a list of strings (the parents) without the
    general encoder's Python-level walk, which was a tenth of a bulk load."""
    if type(value) is str:
        return _encode_str(value)
    if type(value) is list and all(type(v) is str for v in value):
        return "[" + ",".join(map(_encode_str, value)) + "]"
    return _encode_any(value)


def encode_event(header: dict[str, Any], content: dict[str, Any]) -> tuple[str, bytes]:
    """(id, line) for pruned header and content fields.

    The same bytes as `event_id` and `canonical_bytes` of the whole line (the one
    definition, in `cairn.store.canonical`), produced by orjson: with sorted keys and
    no options its output is byte for byte the canonical encoder's for what a prepared
    event holds (strings, lists, objects with string keys, integers, booleans, null),
    at a quarter of the cost of encoding each member in Python. What orjson refuses
    (an integer beyond 64 bits, a lone surrogate) takes the standard encoder.
    tests/store/test_canonical.py checks both against the one definition.
    """
    return encode_owned(dict(header), content)


def encode_owned(header: dict[str, Any], content: dict[str, Any]) -> tuple[str, bytes]:
    """`encode_event` of a header the caller gives away: the one dict becomes the id's
    header (with `content_digest`) and then the whole line, instead of two copies."""
    try:
        header["content_digest"] = sha256(_dumps(content, option=_SORTED)).hexdigest()
        eid = sha256(_dumps(header, option=_SORTED)).hexdigest()
        del header["content_digest"]
        header.update(content)
        header["id"] = eid
        return eid, _dumps(header, option=_SORTED_LINE)
    except TypeError:  # metadata orjson cannot hold (only content can fail)
        for name in ("content_digest", "id", *content):
            header.pop(name, None)
        return encode_event_by_members(header, content)


_msgspec_encode = msgspec.json.Encoder().encode


def encode_plain(f: EventFields) -> tuple[str, bytes] | None:
    """`encode_event` of an event without metadata whose fields are all text (the
    parents a list of text), from the struct: the same bytes (its fields are declared in
    canonical order and empty ones are omitted, which is `prune`; msgspec escapes text
    as the canonical encoder does, tests/store/test_write_fast_paths.py checks every
    code point) without building, copying and sorting dicts. `f` gets its id. None for
    what msgspec refuses (a lone surrogate, a subclass of str): the dict path decides.
    """
    alternative, diff, reasoning, metadata = f.alternative, f.diff, f.reasoning, f.metadata
    try:
        eid = plain_id(f)
    except (ValueError, TypeError):
        eid = ""
    # `plain_id` left `f` as the header it hashed: the line is the whole event again.
    f.content_digest = ""
    f.alternative, f.diff, f.reasoning, f.metadata, f.id = (
        alternative, diff, reasoning, metadata, eid,
    )  # fmt: skip
    if not eid:
        return None
    try:
        return eid, _msgspec_encode(f) + b"\n"
    except (ValueError, TypeError):
        return None


def encode_event_by_members(header: dict[str, Any], content: dict[str, Any]) -> tuple[str, bytes]:
    """`encode_event` with the standard encoder, one member at a time (what orjson cannot
    encode; raises ValueError for text UTF-8 cannot hold)."""
    members: dict[str, str] = {}
    for key, value in header.items():
        members[key] = f'"{key}":{_encode_member(value)}'
    body = {}
    for key, value in content.items():
        body[key] = f'"{key}":{_encode_member(value)}'
    try:
        packed = ("{" + ",".join(body[k] for k in sorted(body)) + "}").encode()
    except UnicodeEncodeError:
        raise ValueError("text contains a lone surrogate; it cannot be encoded as UTF-8") from None
    digest = sha256(packed).hexdigest()
    members["content_digest"] = f'"content_digest":"{digest}"'
    head = "{" + ",".join(members[k] for k in sorted(members)) + "}"
    try:
        eid = sha256(head.encode()).hexdigest()
    except UnicodeEncodeError:
        raise ValueError("text contains a lone surrogate; it cannot be encoded as UTF-8") from None
    del members["content_digest"]
    members.update(body)
    members["id"] = f'"id":"{eid}"'
    line = "{" + ",".join(members[k] for k in sorted(members)) + "}\n"
    return eid, line.encode()
