"""Status is a function of the set of events: any order of the log's lines gives the same."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, EventType, Store, init_store
from cairn.store.errors import StoreError

ENTITIES = ["users", "users.email", "deps/stripe", "src/a.py::f"]
TYPES = ["add", "modify", "remove", "revert", "reject", "supersede"]

ops = st.lists(
    st.tuples(st.sampled_from(ENTITIES), st.sampled_from(TYPES), st.integers(0, 3)),
    min_size=1,
    max_size=14,
)


def _build(store: Store, steps: list[tuple[str, str, int]]) -> None:
    for entity, type_, pick in steps:
        d = EventDraft(type=type_, entity=entity, reasoning=f"{type_} {entity}")
        if type_ == "reject":
            d.alternative = f"alt {pick}"
        if type_ == "revert" and pick % 2:
            applied = [e.id for e in store.history(entity) if e.type.is_applied]
            if applied:
                d.reverts = applied[pick % len(applied)]
        if type_ == "supersede":
            open_ids = [v.id for v in store.status(entity).open_verdicts]
            if not open_ids:
                continue
            d.supersedes = open_ids[pick % len(open_ids)]
        try:
            store.append(d)
        except StoreError:
            continue


@settings(max_examples=40, deadline=None)
@given(ops, st.randoms(use_true_random=False))
def test_any_permutation_of_the_lines_gives_the_same_statuses(
    steps: list[tuple[str, str, int]], rnd: random.Random
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        original = init_store(Path(tmp) / "a")
        with Store.open(original) as store:
            _build(store, steps)
            expected = {e: store.status(e) for e in ENTITIES}
            heads = store.heads()
            lines = store.log.path.read_text(encoding="utf-8").splitlines()
        rnd.shuffle(lines)
        permuted = init_store(Path(tmp) / "b")
        (permuted / "decisions.jsonl").write_text("\n".join(lines) + ("\n" if lines else ""))
        with Store.open(permuted) as other:
            batch = other.status_many(ENTITIES)  # the editor's one-query path
            for entity in ENTITIES:
                assert batch[entity].status == expected[entity].status, entity
                assert {v.id for v in batch[entity].open_verdicts} == {
                    v.id for v in expected[entity].open_verdicts
                }
                assert batch[entity].reopened == expected[entity].reopened
                assert batch[entity].event_count == expected[entity].event_count
                assert {c.id for c in batch[entity].conflicts} <= {
                    c.id for c in expected[entity].conflicts
                }
                assert bool(batch[entity].conflicts) == bool(expected[entity].conflicts)
            for entity in ENTITIES:
                got = other.status(entity)
                want = expected[entity]
                assert got.status == want.status, entity
                assert {v.id for v in got.open_verdicts} == {v.id for v in want.open_verdicts}
                assert {c.id for c in got.conflicts} == {c.id for c in want.conflicts}
                assert got.reopened == want.reopened
                assert got.event_count == want.event_count
            assert other.heads() == heads


def test_the_table_ignores_column_verdicts_in_any_order(tmp_path: Path) -> None:
    d = init_store(tmp_path)
    with Store.open(d) as s:
        s.append(EventDraft(type="create", entity="users", reasoning="t"))
        s.append(
            EventDraft(
                type=EventType.REJECT, entity="users.ssn", reasoning="pii", alternative="store ssn"
            )
        )
        assert s.status("users").status.value == "active"
        assert s.status("users").rollup["users.ssn"].value == "rejected"
