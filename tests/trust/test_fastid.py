"""The verify shortcut agrees with `line_id` on every line the store writes, and is never
fooled by an edit (a False only sends the line to the slow path)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, Store, init_store, line_id
from cairn.store.canonical import canonical_json
from cairn.store.fastid import proves_id
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
        assert proves_id(line, raw)
        redacted = redacted_line(raw)
        assert proves_id(canonical_json(redacted), redacted)
        edited = dict(raw, entity="users.other")
        assert not proves_id(canonical_json(edited), edited)
        if "reasoning" in raw:
            changed = dict(raw, reasoning=raw["reasoning"] + "!")
            assert not proves_id(canonical_json(changed), changed)


def test_reformatted_line_is_left_to_the_slow_path() -> None:
    raw = {"entity": "users.a", "reasoning": "x", "recorded_at": "2026-01-01T00:00:00.000Z"}
    raw["type"] = "add"
    raw["id"] = line_id(raw)
    spaced = json.dumps(raw, indent=1)
    assert not proves_id(spaced, raw)  # no verdict...
    assert line_id(json.loads(spaced)) == raw["id"]  # ...and the slow path still accepts it
