"""Reading an event from its line: `Event.from_line` (a parsed line) and
`event_from_bytes` (the bytes decoded straight into the struct, what reads use) must
agree with each other and with a plain field-by-field construction, on odd lines too."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, Store
from cairn.store.fastid import loads
from cairn.store.model import Event, EventType, event_from_bytes, events_from_bytes


def _by_constructor(raw: dict[str, Any]) -> Event:
    """The plain reading of a line, field by field, through `Event(...)`."""
    meta = raw.get("metadata")
    return Event(
        id=raw["id"],
        type=EventType.parse(raw["type"]),
        entity=raw["entity"],
        parents=tuple(raw.get("parents") or ()),
        entity_kind=raw.get("entity_kind") or "",
        reasoning=raw.get("reasoning") or "",
        alternative=raw.get("alternative") or "",
        diff=raw.get("diff") or "",
        supersedes=raw.get("supersedes") or "",
        reverts=raw.get("reverts") or "",
        author=raw.get("author") or "",
        agent=raw.get("agent") or "",
        session=raw.get("session") or "",
        commit=raw.get("commit") or "",
        recorded_at=raw.get("recorded_at") or "",
        occurred_at=raw.get("occurred_at") or "",
        revisit_after=raw.get("revisit_after") or "",
        expires_when=raw.get("expires_when") or "",
        stale_when=raw.get("stale_when") or "",
        metadata=meta if isinstance(meta, dict) else {},
        redacted=bool(raw.get("redacted")),
        content_digest=raw.get("content_digest") or "",
    )


FULL = {
    "id": "a" * 64,
    "type": "revert",
    "entity": "src/app.py::Session.login",
    "parents": ["b" * 64, "c" * 64],
    "entity_kind": "method",
    "reasoning": "broke sign-in",
    "alternative": "keep the old flow",
    "diff": "-x\n+y",
    "supersedes": "d" * 64,
    "reverts": "e" * 64,
    "author": "Ann <ann@example.com>",
    "agent": "claude",
    "session": "s1",
    "commit": "f" * 40,
    "recorded_at": "2026-01-02T03:04:05.000Z",
    "occurred_at": "2026-01-01T00:00:00.000Z",
    "revisit_after": "2026-06-01",
    "expires_when": "entity:users.email:changes",
    "stale_when": "never",
    "metadata": {"part": "body", "n": [1, 2]},
    "redacted": True,
    "content_digest": "9" * 64,
}


@pytest.mark.parametrize(
    "raw",
    [
        FULL,
        {"id": "1" * 64, "type": "add", "entity": "users.email"},  # pruned: defaults
        {"id": "2" * 64, "type": " Modify ", "entity": "t", "metadata": ["not", "a dict"]},
        {"id": "3" * 64, "type": "reject", "entity": "t.c", "reasoning": None, "parents": None},
    ],
)
def test_from_line_builds_what_the_constructor_builds(raw: dict[str, Any]) -> None:
    event = Event.from_line(raw)
    expected = _by_constructor(raw)
    if not raw.get("entity_kind"):  # inferred from the path when the line leaves it out
        assert event.entity_kind != ""
        expected = Event(**{**_fields(expected), "entity_kind": event.entity_kind})
    assert event == expected
    assert _fields(event) == _fields(expected)  # every slot is set (a missing one raises)
    with pytest.raises(AttributeError):
        event.reasoning = "changed"  # type: ignore[misc]  # still frozen
    line = orjson.dumps(raw)
    assert event_from_bytes(line, loads) == event  # decoded straight, or through from_line


ODD_LINES = [
    b'{"id":"%s","type":"add","entity":"t.c","redacted":1}' % (b"4" * 64),
    b'{"id":"%s","type":"ADD","entity":"t.c","parents":null}' % (b"5" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","metadata":{"n":123456789012345678901234}}'
    % (b"6" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","metadata":{"x":NaN}}' % (b"7" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","reasoning":"\\ud800 lone"}' % (b"8" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","unknown":{"a":[1,2]},"entity_kind":""}' % (b"9" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","parents":["a",3]}' % (b"a" * 64),
    b'{"type":"add","entity":"t.c"}',
    b'{"id":"%s","type":"bogus","entity":"t.c"}' % (b"b" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","reasoning":"caf\\u00e9 \\u2603"}' % (b"c" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","metadata":{"a":[{"b":1e400}],"c":1.5}}' % (b"d" * 64),
    b'{"id":"%s","type":"add","entity":"t.c","metadata":{"big":18446744073709551616}}'
    % (b"e" * 64),
]


@pytest.mark.parametrize("line", ODD_LINES)
def test_decoding_the_bytes_agrees_with_parsing_then_building(line: bytes) -> None:
    try:
        expected: Event | type[Exception] = Event.from_line(loads(line))
    except (KeyError, ValueError) as exc:
        expected = type(exc)
    try:
        got: Event | type[Exception] = event_from_bytes(line, loads)
    except (KeyError, ValueError) as exc:
        got = type(exc)
    assert got == expected


def test_from_line_refuses_what_it_always_refused() -> None:
    with pytest.raises(KeyError):
        Event.from_line({"type": "add", "entity": "t"})
    with pytest.raises(ValueError):
        Event.from_line({"id": "1" * 64, "type": "nonsense", "entity": "t"})


def test_logged_events_read_back_equal_to_what_was_written(store: Store) -> None:
    written = [
        store.append(EventDraft(type="add", entity="users.email", reasoning="first")).event,
        store.append(
            EventDraft(type="reject", entity="users.email", reasoning="no", alternative="alt")
        ).event,
    ]
    lines = (store.cairn_dir / "decisions.jsonl").read_bytes().splitlines()
    read = [Event.from_line(orjson.loads(line)) for line in lines]
    assert read == written
    assert store.history("users.email") == written


def _fields(event: Event) -> dict[str, Any]:
    return {name: getattr(event, name) for name in Event.__struct_fields__}


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(1 << 70), max_value=1 << 70)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
_FIELD = st.sampled_from(
    ["reasoning", "alternative", "author", "entity_kind", "parents", "metadata", "redacted"]
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["add", "revert", "Reject", "nonsense"]),
    extra=st.dictionaries(_FIELD, _JSON, max_size=4),
)
def test_any_line_reads_the_same_both_ways(kind: str, extra: dict[str, Any]) -> None:
    raw = {"id": "f" * 64, "type": kind, "entity": "users.email", **extra}
    line = json.dumps(raw, ensure_ascii=False).encode("utf-8", "surrogatepass")
    try:
        expected: Event | type[Exception] = Event.from_line(loads(line))
    except (KeyError, ValueError, TypeError) as exc:
        expected = type(exc)
    try:
        got: Event | type[Exception] = event_from_bytes(line, loads)
    except (KeyError, ValueError, TypeError) as exc:
        got = type(exc)
    assert got == expected


def _each(lines: list[bytes]) -> list[Event] | type[Exception]:
    try:
        return [event_from_bytes(line, loads, {}) for line in lines]
    except (KeyError, ValueError, TypeError) as exc:
        return type(exc)


def _all(lines: list[bytes]) -> list[Event] | type[Exception]:
    try:
        return events_from_bytes([memoryview(line) for line in lines], loads, {})
    except (KeyError, ValueError, TypeError) as exc:
        return type(exc)


_WRITER_LINES = [
    orjson.dumps({"id": "1" * 64, "type": "add", "entity": "users.email", "reasoning": "r"}),
    orjson.dumps({"id": "2" * 64, "type": "revert", "entity": "deps/left-pad", "parents": ["x"]}),
    orjson.dumps(
        {
            "id": "3" * 64,
            "type": "reject",
            "entity": "t.c",
            "entity_kind": "column",
            "metadata": {"n": 1, "l": [True, None, "s"]},
        }
    ),
]


@settings(max_examples=200, deadline=None)
@given(
    picks=st.lists(st.sampled_from(range(len(_WRITER_LINES) + len(ODD_LINES))), max_size=6),
    extra=st.lists(st.dictionaries(_FIELD, _JSON, max_size=3), max_size=2),
)
def test_many_lines_read_as_each_line_reads(picks: list[int], extra: list[dict[str, Any]]) -> None:
    # A batch decodes its lines in one pass, and any line msgspec refuses sends them all
    # through `event_from_bytes`: the same events, or the same error, as line by line.
    pool = [*_WRITER_LINES, *ODD_LINES]
    lines = [pool[i] for i in picks]
    for fields in extra:
        raw = {"id": "f" * 64, "type": "modify", "entity": "users.name", **fields}
        lines.append(json.dumps(raw, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    assert _all(lines) == _each(lines)


def test_many_lines_share_the_kinds_a_caller_knows() -> None:
    lines = [_WRITER_LINES[0], _WRITER_LINES[0]]
    kinds = {"users.email": "table"}  # what the index stored, even if the path says else
    events = events_from_bytes(lines, loads, kinds)
    assert [e.entity_kind for e in events] == ["table", "table"]
    inferred = events_from_bytes(lines, loads, {})
    assert inferred == [event_from_bytes(line, loads) for line in lines]
    assert inferred[0].entity_kind not in ("", "table")
