"""The id's one shortcut (`proven`) proves every line the store writes, is never fooled
by an edit, and leaves to `line_id`, the definition, what only it can say."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, Store, init_store, line_id
from cairn.store.canonical import canonical_json
from cairn.store.fastid import line_damage, proven
from cairn.store.redact import redacted_line

text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda s: s.strip() != ""
)
meta = st.dictionaries(
    st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8)), max_size=3
)


def _line(raw: dict[str, object], **dumps: object) -> bytes:
    return json.dumps(raw, ensure_ascii=False, **dumps).encode("utf-8")  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reason=text, alternative=text, diff=st.text(max_size=30), metadata=meta, n=st.integers(0, 3))
def test_store_lines_are_proven_and_edits_are_not(
    reason: str, alternative: str, diff: str, metadata: dict[str, object], n: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cairn_dir = init_store(Path(tmp))
        with Store.open(cairn_dir) as store:
            for i in range(n):
                store.append(EventDraft(type="add", entity=f"users.c{i}", reasoning="base"))
            store.append(
                EventDraft(
                    type="reject",
                    entity="deps/stripe",
                    reasoning=reason,
                    alternative=alternative,
                    diff=diff,
                    metadata=metadata,
                    session="s1",
                )
            )
        lines = (cairn_dir / "decisions.jsonl").read_text(encoding="utf-8").split("\n")[:-1]
    for line in lines:
        raw = json.loads(line)
        assert line_id(raw) == raw["id"]
        assert proven(line.encode("utf-8")) is not None
        assert line_damage(raw, line.encode("utf-8")) is None
        redacted = redacted_line(raw)
        assert proven(_line(redacted)) is None  # redacted lines are the definition's
        assert line_damage(redacted, _line(redacted)) is None
        assert line_id(redacted) == raw["id"]
        edited = dict(raw, entity="users.other")
        assert proven(_line(edited)) is None
        assert line_damage(edited, _line(edited)) == "id-mismatch"
        if "reasoning" in raw:
            changed = dict(raw, reasoning=raw["reasoning"] + "!")
            assert proven(_line(changed)) is None
            assert line_damage(changed, _line(changed)) == "id-mismatch"


def test_a_reformatted_line_is_the_same_event() -> None:
    raw = {"entity": "users.a", "reasoning": "x", "recorded_at": "2026-01-01T00:00:00.000Z"}
    raw["type"] = "add"
    raw["id"] = line_id(raw)
    spaced = json.dumps(raw, indent=1).encode("utf-8")
    assert proven(spaced) == (raw["id"], [], "", "")
    assert line_damage(json.loads(spaced), spaced) is None


def test_an_empty_field_the_writer_prunes_is_left_to_the_definition() -> None:
    raw = {"entity": "users.a", "type": "add", "reasoning": "x"}
    raw["id"] = line_id(raw)
    padded = dict(raw, agent="", metadata={})
    assert proven(_line(padded)) == (raw["id"], [], "", "")  # pruned as the writer does
    assert line_damage(padded, _line(padded)) is None


def test_what_the_shortcut_declines_the_definition_decides() -> None:
    base = {"entity": "users.a", "type": "add", "reasoning": "x"}
    for odd in ({"n": 1e-7}, {"deep": [{"x": 5e-9}]}):
        raw = dict(base, metadata=odd)
        raw["id"] = line_id(raw)
        assert proven(_line(raw)) is None  # floats have no canonical text
        assert line_damage(raw, _line(raw)) is None  # the definition proves it
        edited = dict(raw, reasoning="y")
        assert line_damage(edited, _line(edited)) == "id-mismatch"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reason=text, alternative=text, diff=st.text(max_size=30), metadata=meta)
def test_the_byte_shortcut_proves_what_the_store_writes_and_no_edit(
    reason: str, alternative: str, diff: str, metadata: dict[str, object]
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cairn_dir = init_store(Path(tmp))
        with Store.open(cairn_dir) as store:
            first = store.append(EventDraft(type="add", entity="users.c", reasoning="base")).event
            last = store.append(
                EventDraft(
                    type="reject",
                    entity="deps/stripe",
                    reasoning=reason,
                    alternative=alternative,
                    diff=diff,
                    metadata=metadata,
                    session="s1",
                )
            ).event
        lines = (cairn_dir / "decisions.jsonl").read_bytes().split(b"\n")[:-1]
    assert proven(lines[0]) == (first.id, [], "", "")
    assert proven(memoryview(lines[1])) == (last.id, [first.id], "", "")
    raw = json.loads(lines[1])
    assert proven(_line(raw, indent=1)) == proven(lines[1])  # a reformatted line: same event
    empty = {"agent": "", "commit": "", "supersedes": "", "diff": "", "metadata": {}}
    padded = {**{k: v for k, v in empty.items() if k not in raw}, **raw}
    assert proven(_line(padded)) == proven(lines[1])  # empty fields are pruned: same event
    assert proven(_line(dict(raw, entity="users.other"))) is None
    assert proven(_line(dict(raw, reasoning=reason + "!"))) is None
    assert proven(_line(dict(raw, metadata={**metadata, "added": 1}))) is None
    assert proven(_line(redacted_line(raw))) is None  # redacted lines take the full path
    assert proven(lines[1][:-1]) is None  # cut short


def test_the_byte_shortcut_leaves_every_odd_line_to_the_definition() -> None:
    base: dict[str, object] = {"entity": "users.a", "type": "add", "reasoning": "x"}
    odd = [
        dict(base, metadata={"n": 1e-7}),  # a float: its text is not canonical
        dict(base, metadata={"deep": [{"x": 5e-9}]}),
        dict(base, agent=None),  # null where text belongs (pruned by the definition)
        dict(base, agent=5),
        dict(base, parents="abc"),
        dict(base, novel="a field the shortcut does not know"),
        dict(base, content_digest="0" * 64),
    ]
    for raw in odd:
        raw["id"] = line_id(raw)
        assert proven(_line(raw)) is None
        assert line_damage(raw, _line(raw)) is None  # the definition proves each of them
    big = dict(base, metadata={"n": 2**70, "m": -(2**64)})
    big["id"] = line_id(big)
    assert proven(_line(big)) == (big["id"], [], "", "")  # msgspec holds it: same digits
    for bad in (b"", b"  ", b"[]", b"not json", b'{"id":"x"}', b'{"id":"\\ud800"}', b"\xff"):
        assert proven(bad) is None


@settings(max_examples=300, deadline=None)
@given(
    fields=st.dictionaries(
        st.sampled_from(
            ["agent", "entity", "type", "reasoning", "metadata", "parents", "supersedes",
             "redacted", "diff", "entity_kind", "author", "id", "other"]
        ),
        st.one_of(
            st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
            st.text(max_size=6), st.lists(st.text(max_size=3), max_size=2),
            st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
        ),
    ),
    claim=st.booleans(),
)  # fmt: skip
def test_the_byte_shortcut_never_vouches_for_what_the_definition_rejects(
    fields: dict[str, object], claim: bool
) -> None:
    raw = dict(fields)
    if claim:  # a line whose id was made for it (the forger's best case)
        try:
            raw["id"] = line_id(raw)
        except (TypeError, ValueError):
            return
    line = _line(raw)
    hit = proven(line)
    if hit is not None:
        parsed = json.loads(line)
        assert line_damage(parsed, line) is None
        assert hit[0] == parsed["id"] == line_id(parsed)


def test_the_byte_shortcut_agrees_with_the_definition_on_every_code_point() -> None:
    # msgspec decodes and re-encodes the line: every character (escapes, controls, astral
    # planes, U+2028) must come out as the canonical encoder writes it, keys sorted alike.
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]
    for start in range(0, len(chars), 4096):
        text = "".join(chars[start : start + 4096]) + '"\\'
        raw: dict[str, object] = {
            "type": "add",
            "entity": "users.email",
            "author": text,
            "reasoning": text,
            "metadata": {text: [text, 1, True, None], "b": {"z": 1, "a": text}, "a": -1},
        }
        raw["id"] = line_id(raw)
        assert proven(canonical_json(raw).encode("utf-8")) == (raw["id"], [], "", "")
        escaped = json.dumps(raw).encode("ascii")  # every non-ASCII character as \u escapes
        assert proven(escaped) == (raw["id"], [], "", "")
