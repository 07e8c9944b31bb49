"""Known-answer vectors for canonical JSON and ids (the same ones as docs/canonical-json.md)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store import Store, canonical_json, content_digest, event_id, line_id
from cairn.store.canonical import prune
from cairn.store.encode import encode_event, encode_event_by_members

VECTOR_1 = {"b": 1, "a": [True, None, "x"], "é": "naïve — ✓ 日本 😀", "n": -0, "big": 10**20}
VECTOR_1_TEXT = (
    '{"a":[true,null,"x"],"b":1,"big":100000000000000000000,"n":0,"é":"naïve — ✓ 日本 😀"}'
)

VECTOR_2 = {"ctl": 'a\nb\t"q"\\\u0001\u2028', "Z": "upper sorts first"}
VECTOR_2_TEXT = '{"Z":"upper sorts first","ctl":"a\\nb\\t\\"q\\"\\\\\\u0001\u2028"}'

CONTENT = {
    "reasoning": "Stripe tokens keep us out of PCI scope — café ✓",
    "alternative": "",
    "diff": "",
    "metadata": {},
}
CONTENT_TEXT = '{"reasoning":"Stripe tokens keep us out of PCI scope — café ✓"}'
HEADER = {
    "parents": [],
    "type": "reject",
    "entity": "deps/stripe",
    "author": "Ada <ada@example.org>",
    "recorded_at": "2026-11-29T12:00:00.000Z",
}


def test_vector_text_is_sorted_compact_utf8() -> None:
    assert canonical_json(VECTOR_1) == VECTOR_1_TEXT
    assert canonical_json(VECTOR_2) == VECTOR_2_TEXT
    # Non-ASCII stays raw UTF-8 bytes, not \\u escapes.
    assert "日本".encode() in canonical_json(VECTOR_1).encode("utf-8")


def test_vector_hashes() -> None:
    assert (
        hashlib.sha256(VECTOR_1_TEXT.encode("utf-8")).hexdigest()
        == "15fe906d01a7c8e46dc86167b9c28cb438cfb8c8336a157acadf734bf1197fe9"
    )
    digest = content_digest(CONTENT)
    assert digest == hashlib.sha256(CONTENT_TEXT.encode("utf-8")).hexdigest()
    assert digest == "9fea2759b94aa50f61f624f6383a6826b6d9c9836eec064507bbd72881d17c69"
    header_text = (
        '{"author":"Ada <ada@example.org>","content_digest":"' + digest + '",'
        '"entity":"deps/stripe","recorded_at":"2026-11-29T12:00:00.000Z","type":"reject"}'
    )
    expected = hashlib.sha256(header_text.encode("utf-8")).hexdigest()
    assert event_id(HEADER, digest) == expected
    assert expected == "3da0e2c15fae5c0e364c5695305734c9f5a0dd80b29b6cc950a98b000866d013"


def test_nan_and_lone_surrogates_are_refused() -> None:
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})
    with pytest.raises(ValueError):
        canonical_json({"x": "\ud800"})


def test_empty_values_are_pruned_like_absent_ones() -> None:
    assert prune({"a": "", "b": [], "c": {}, "d": None, "e": 0, "f": False}) == {"e": 0, "f": False}
    assert content_digest({"reasoning": "x", "diff": ""}) == content_digest({"reasoning": "x"})


def test_written_lines_hash_to_their_ids_and_survive_redaction(store: Store) -> None:
    from cairn.store import EventDraft

    ev = store.append(
        EventDraft(type="add", entity="users.email", reasoning="naïve — 日本", diff="+ email")
    ).event
    line = store.log.path.read_text(encoding="utf-8").splitlines()[-1]
    raw = json.loads(line)
    assert raw["id"] == ev.id == line_id(raw)
    assert "日本" in line and "\\u" not in line
    # Redaction drops the content but keeps its digest: the id still verifies.
    digest = content_digest(
        {k: raw.get(k) for k in ("reasoning", "alternative", "diff", "metadata")}
    )
    redacted = {k: v for k, v in raw.items() if k not in ("reasoning", "diff")}
    redacted.update(redacted=True, content_digest=digest)
    assert line_id(redacted) == ev.id
    # Tampering with a header field changes the id.
    assert line_id({**raw, "entity": "users.name"}) != ev.id


_text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(
    header=st.dictionaries(
        st.sampled_from(["type", "entity", "author", "agent", "recorded_at", "stale_when"]),
        _text,
    ),
    parents=st.lists(st.text(alphabet="0123456789abcdef", min_size=64, max_size=64), max_size=2),
    content=st.dictionaries(st.sampled_from(["reasoning", "alternative", "diff"]), _text),
    metadata=st.dictionaries(_text, _json, max_size=3),
)
def test_the_writers_one_pass_encoding_is_the_canonical_definition(
    header: dict[str, str], parents: list[str], content: dict[str, str], metadata: dict[str, Any]
) -> None:
    head = prune({**header, "parents": parents})
    body = prune({**content, "metadata": metadata})
    eid, line = encode_event(head, body)
    assert eid == event_id(head, content_digest(body))
    assert line == canonical_json({**head, **body, "id": eid}).encode("utf-8") + b"\n"
    assert line_id(json.loads(line)) == eid
    assert encode_event_by_members(head, body) == (eid, line)


def test_orjson_encoding_matches_the_definition_for_every_code_point() -> None:
    # The writer hashes orjson's bytes; the definition is the standard encoder. Every
    # character (escapes, controls, astral planes) must come out the same in both.
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for start in range(0, len(chars), 4096):
        text = "".join(chars[start : start + 4096]) + '"\\'
        head = {"type": "add", "entity": "users.email", "author": text}
        body = {"reasoning": text, "metadata": {text: [text, 1, True, None]}}
        eid, line = encode_event(head, body)
        assert eid == event_id(head, content_digest(body))
        assert line == canonical_json({**head, **body, "id": eid}).encode("utf-8") + b"\n"


def test_integers_orjson_cannot_hold_take_the_standard_encoder() -> None:
    head = {"type": "add", "entity": "users.email"}
    body = {"reasoning": "big numbers", "metadata": {"n": 2**70, "m": -(2**64)}}
    eid, line = encode_event(head, body)
    assert eid == event_id(head, content_digest(body))
    assert b'"n":1180591620717411303424' in line


def test_a_lone_surrogate_is_refused_by_both_encoders() -> None:
    head = {"type": "add", "entity": "users.email"}
    for encode in (encode_event, encode_event_by_members):
        with pytest.raises(ValueError, match="lone surrogate"):
            encode(head, {"reasoning": "bad \ud800 text"})
