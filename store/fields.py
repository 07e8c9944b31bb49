"""The event's fields, declared once.

`EventFields` lists every field a line of the log may carry, in canonical (code point)
order, each annotated with its part of the event: the `id`; the `header`, hashed into the
id; the `content`, hashed into the content digest (and erased by a redaction); or the
`seal` a redaction leaves in the content's place. The same metadata says which fields
have a proven shape by the time they are masked and which have a size limit.

Everything that needs the list derives it from here: the content and header names
(`cairn.store.canonical`), the masking exemptions and the size limits
(`cairn.store.mask`, `cairn.store.validate`), the byte-level proof of an id
(`cairn.store.fastid`), the writer's struct encoding (`cairn.store.encode`), and the
check that `Event`, the typed read model (`cairn.store.model`), holds the same fields.

As a struct it encodes in definition order with empty fields omitted, which is the
canonical encoding (sorted keys, `prune`): a line decoded into it and encoded again with
the id and the content emptied is the header the id was hashed over.
"""

from __future__ import annotations

import typing
from hashlib import sha256
from typing import Annotated, Any

import msgspec

__all__ = [
    "CONTENT_FIELDS",
    "FIELD_NAMES",
    "HEADER_FIELDS",
    "LIMITS",
    "MAX_DIFF_BYTES",
    "MAX_LABEL_BYTES",
    "MAX_REASONING_BYTES",
    "NOT_HEADER",
    "SHAPED_FIELDS",
    "ContentFields",
    "EventFields",
    "plain_id",
]

# Size limits, in UTF-8 bytes: a decision's why is prose, not an attachment. Larger text
# belongs in the repository (link to it); the limit keeps one line of the log, and every
# reader that loads it, bounded.
MAX_REASONING_BYTES = 64 * 1024
MAX_DIFF_BYTES = 1024 * 1024
MAX_LABEL_BYTES = 1024


def _part(part: str, *, shaped: bool = False, limit: int = 0) -> msgspec.Meta:
    """A field's place in the event. `shaped`: its value has a proven shape (an id, a
    time, an enum value, the canonical entity path, a hex commit id) by the time it is
    masked, so masking cannot apply; every other field is masked, whatever its name.
    `limit`: its size limit in UTF-8 bytes (0: none of its own)."""
    return msgspec.Meta(extra={"part": part, "shaped": shaped, "limit": limit})


# The kinds of field there are, as annotated types (`_part` says what each means).
IdText = Annotated[str, _part("id", shaped=True)]
Shaped = Annotated[str, _part("header", shaped=True)]
Label = Annotated[str, _part("header", limit=MAX_LABEL_BYTES)]  # author, agent, session
Prose = Annotated[str, _part("header", limit=MAX_REASONING_BYTES)]
Text = Annotated[str, _part("content", limit=MAX_REASONING_BYTES)]
DiffText = Annotated[str, _part("content", limit=MAX_DIFF_BYTES)]
Metadata = Annotated[dict[str, Any], _part("content")]
Links = Annotated[list[str], _part("header", shaped=True)]
SealText = Annotated[str, _part("seal")]
SealFlag = Annotated[bool, _part("seal")]


class EventFields(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """Every field a line may carry, in canonical order. Omitting defaults is the
    canonical pruning of null-free fields ("" [] {} dropped). Decoding a line into it
    fails on a field of another type (null, a number where text belongs) or an unknown
    field: such a line is read the full way (`cairn.store.model.line_id`)."""

    agent: Label = ""
    alternative: Text = ""
    author: Label = ""
    commit: Shaped = ""
    content_digest: SealText = ""
    diff: DiffText = ""
    entity: Shaped = ""
    entity_kind: Shaped = ""
    expires_when: Prose = ""
    id: IdText = ""
    metadata: Metadata = {}
    occurred_at: Shaped = ""
    parents: Links = []
    reasoning: Text = ""
    recorded_at: Shaped = ""
    redacted: SealFlag = False
    reverts: Shaped = ""
    revisit_after: Shaped = ""
    session: Label = ""
    stale_when: Prose = ""
    supersedes: Shaped = ""
    type: Shaped = ""


def _meta(hint: Any) -> dict[str, Any]:
    return next(m.extra or {} for m in hint.__metadata__ if isinstance(m, msgspec.Meta))


_HINTS = typing.get_type_hints(EventFields, include_extras=True)
_INFO = {name: _meta(hint) for name, hint in _HINTS.items()}
FIELD_NAMES: tuple[str, ...] = EventFields.__struct_fields__
if list(FIELD_NAMES) != sorted(FIELD_NAMES):  # the encoding's order is the declaration's
    raise TypeError("EventFields must declare its fields in code point order")

CONTENT_FIELDS = tuple(n for n in FIELD_NAMES if _INFO[n]["part"] == "content")
HEADER_FIELDS = tuple(n for n in FIELD_NAMES if _INFO[n]["part"] == "header")
# What the id's header leaves out (it gets `content_digest` in the content's place).
NOT_HEADER = frozenset(FIELD_NAMES) - frozenset(HEADER_FIELDS)
SHAPED_FIELDS = frozenset(n for n in FIELD_NAMES if _INFO[n]["shaped"])
# Each limited field's limit, content first: the order `check_sizes` names them in.
LIMITS = tuple(
    (n, _INFO[n]["limit"]) for n in (*CONTENT_FIELDS, *HEADER_FIELDS) if _INFO[n]["limit"]
)

# The content object alone, in canonical order (empty fields omitted: pruned).
ContentFields = msgspec.defstruct(
    "ContentFields",
    [(n, _HINTS[n], getattr(EventFields(), n)) for n in CONTENT_FIELDS],
    omit_defaults=True,
    gc=False,
)

_encode = msgspec.json.Encoder().encode  # struct fields in definition (canonical) order
_encode_sorted = msgspec.json.Encoder(order="sorted").encode  # metadata's keys too
_NO_META: dict[str, Any] = {}


def plain_id(f: EventFields) -> str:
    """The id of an unredacted event's fields, from msgspec's encoding (byte for byte
    the canonical encoder's: tests/trust/test_fastid.py checks every code point). `f`
    is left as the header that was hashed: id and content emptied, `content_digest` set;
    a caller that wants the line back sets them again. Raises what msgspec raises for
    what it cannot encode (a lone surrogate, a subclass of str)."""
    metadata = f.metadata
    content = ContentFields(f.alternative, f.diff, metadata, f.reasoning)
    # Sorting is for metadata's keys (a struct's fields are in order already): without
    # metadata the plain encoder gives the same bytes, faster.
    f.content_digest = sha256((_encode_sorted if metadata else _encode)(content)).hexdigest()
    f.id = f.alternative = f.diff = f.reasoning = ""
    f.metadata = _NO_META
    return sha256(_encode(f)).hexdigest()
