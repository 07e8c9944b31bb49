"""The verify shortcut (`proves_id`) proves every line the store writes, is never fooled
by an edit, and leaves to `line_id` what only it can say."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, Store, init_store, line_id
from cairn.store.fastid import line_damage, proves_id
from cairn.store.redact import redacted_line

text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40).filter(
    lambda s: s.strip() != ""
)
meta = st.dictionaries(
    st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8)), max_size=3
)


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
        assert line_damage(raw) is None
        huge = any(isinstance(v, int) and abs(v) >= 2**63 for v in metadata.values())
        assert proves_id(raw) or huge  # orjson holds 64-bit integers: the rest is line_id's
        redacted = redacted_line(raw)
        assert proves_id(redacted)
        assert line_id(redacted) == raw["id"]
        edited = dict(raw, entity="users.other")
        assert not proves_id(edited)
        assert line_damage(edited) == "id-mismatch"
        if "reasoning" in raw:
            changed = dict(raw, reasoning=raw["reasoning"] + "!")
            assert not proves_id(changed)
            assert line_damage(changed) == "id-mismatch"


def test_a_reformatted_line_is_the_same_event() -> None:
    raw = {"entity": "users.a", "reasoning": "x", "recorded_at": "2026-01-01T00:00:00.000Z"}
    raw["type"] = "add"
    raw["id"] = line_id(raw)
    spaced = json.loads(json.dumps(raw, indent=1))
    assert proves_id(spaced)
    assert line_damage(spaced) is None


def test_an_empty_field_the_writer_prunes_is_left_to_the_definition() -> None:
    raw = {"entity": "users.a", "type": "add", "reasoning": "x"}
    raw["id"] = line_id(raw)
    padded = dict(raw, agent="", metadata={})
    assert not proves_id(padded)
    assert line_damage(padded) is None  # the definition prunes them: same event


def test_what_orjson_may_encode_otherwise_is_left_to_the_definition() -> None:
    base = {"entity": "users.a", "type": "add", "reasoning": "x"}
    for odd in ({"n": 1e-7}, {"n": 2**70}, {"deep": [{"x": 5e-9}]}):
        raw = dict(base, metadata=odd)
        raw["id"] = line_id(raw)
        assert not proves_id(raw)  # orjson writes these differently, or not at all
        assert line_damage(raw) is None  # the definition proves it
        assert line_damage(dict(raw, reasoning="y")) == "id-mismatch"
