"""`status_many` answers from per-entity status rows kept up to date on every ingest."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import EntityStatus, EventDraft, Status, Store, ValidationError, init_store


def _same(store: Store, entities: list[str]) -> None:
    store.clear_caches()
    batch = store.status_many(entities)
    for entity in entities:
        one = store.status(entity)
        assert batch[entity].status == one.status, entity
        # Whole events, not only their ids: the batch reads their lines its own way.
        assert batch[entity].open_verdicts == one.open_verdicts
        assert batch[entity].reopened == one.reopened
        assert batch[entity].event_count == one.event_count
        assert all(c in one.conflicts for c in batch[entity].conflicts)
        assert bool(batch[entity].conflicts) == bool(one.conflicts)


def test_rows_follow_each_append_from_this_and_another_store(cairn_dir: Path) -> None:
    entities = ["users.email", "users.name", "deps/left-pad", "nothing.here"]
    with Store.open(cairn_dir) as store, Store.open(cairn_dir) as other:
        steps = [
            (store, "add", "users.email", ""),
            (store, "modify", "users.name", ""),
            (other, "revert", "users.email", ""),
            (store, "reject", "deps/left-pad", "left-pad"),
            (other, "modify", "users.email", ""),  # re-applied without supersede
            (store, "supersede", "users.email", ""),
            (other, "supersede", "deps/left-pad", ""),
            (store, "remove", "users.name", ""),
        ]
        seen = []
        for writer, etype, entity, alt in steps:
            writer.append(EventDraft(type=etype, entity=entity, reasoning=etype, alternative=alt))
            _same(store, entities)
            seen.append(store.status_many(["users.email"])["users.email"].status)
        assert seen[2] is Status.REVERTED and seen[4] is Status.CONFLICT
        final = store.status_many(entities)
        assert final["users.email"].status is Status.REOPENED
        assert final["deps/left-pad"].status is Status.REOPENED
        assert final["users.name"].status is Status.REMOVED
        assert final["nothing.here"].status is Status.UNKNOWN


def test_a_batch_of_plain_entities_reads_no_event_rows(store: Store) -> None:
    for i in range(30):
        store.append(EventDraft(type="modify", entity=f"t.c{i % 6}", reasoning=f"step {i}"))
    store.append(EventDraft(type="revert", entity="t.c0", reasoning="undo"))
    store.refresh()
    store.clear_caches()
    statements: list[str] = []
    store.index.db.set_trace_callback(statements.append)
    try:
        got = store.status_many([f"t.c{i}" for i in range(1, 6)])
    finally:
        store.index.db.set_trace_callback(None)
    assert {s.status for s in got.values()} == {Status.ACTIVE}
    assert all(s.event_count == 5 for s in got.values())
    # One query on the status rows; all of the entities' events were read before.
    assert len(statements) == 1 and " ev " not in statements[0] + " "


def test_a_batch_with_verdicts_makes_two_queries_whatever_its_size(store: Store) -> None:
    for i in range(12):
        entity = f"t.c{i}"
        store.append(EventDraft(type="add", entity=entity, reasoning=f"add {i}"))
        store.append(EventDraft(type="revert", entity=entity, reasoning=f"undo {i}"))
        store.append(EventDraft(type="modify", entity=entity, reasoning=f"again {i}"))
    store.refresh()
    store.clear_caches()
    statements: list[str] = []
    store.index.db.set_trace_callback(statements.append)
    try:
        got = store.status_many([f"t.c{i}" for i in range(12)] + ["t.none"])
    finally:
        store.index.db.set_trace_callback(None)
    assert got["t.c3"].status is Status.CONFLICT
    assert [v.reasoning for v in got["t.c3"].open_verdicts] == ["undo 3"]
    assert [c.reasoning for c in got["t.c3"].conflicts] == ["again 3"]
    assert got["t.none"].status is Status.UNKNOWN
    # The status rows, then where the explaining lines are: not one query per entity.
    assert len(statements) == 2


_STEP = st.tuples(
    st.sampled_from(["add", "modify", "remove", "revert", "reject", "rename"]),
    st.sampled_from(["t.a", "t.b", "deps/x"]),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.lists(_STEP, min_size=1, max_size=6), min_size=1, max_size=5))
def test_stored_rows_match_a_full_derivation_after_any_batches(
    batches: list[list[tuple[str, str]]],
) -> None:
    # Most ingests skip deriving an entity that stays active (only applied changes on
    # an active entity): every other mix must still be derived, batch after batch.
    entities = ["t.a", "t.b", "deps/x"]
    with tempfile.TemporaryDirectory() as tmp:
        cairn_dir = init_store(Path(tmp))
        with Store.open(cairn_dir) as store:
            for batch in batches:
                store.append_many(
                    [EventDraft(type=t, entity=e, reasoning=f"{t} {e}") for t, e in batch]
                )
                _same(store, entities)
        Store.rebuild(cairn_dir)
        with Store.open(cairn_dir) as store:
            _same(store, entities)


def test_a_rolled_back_ingest_leaves_no_counts_behind(store: Store) -> None:
    store.append(EventDraft(type="add", entity="t.a", reasoning="first"))
    index = store.index
    with contextlib.suppress(RuntimeError), index.write_transaction():
        index._touched_ents[index.ent_of("t.a") or 0] = 5
        raise RuntimeError("the ingest failed")
    store.append(EventDraft(type="modify", entity="t.a", reasoning="second"))
    store.clear_caches()
    assert store.status_many(["t.a"])["t.a"].event_count == 2


def test_a_batch_takes_the_callers_strings_canonical_or_not(store: Store) -> None:
    store.append(EventDraft(type="add", entity="users.email", reasoning="add"))
    store.append(EventDraft(type="revert", entity="users.email", reasoning="undo"))
    store.append(EventDraft(type="add", entity="src/app.py::login", reasoning="add"))
    asked = [
        "users.email",  # canonical: found as it is
        "USERS.Email",  # not canonical: canonicalised, then found
        "public.users.email",
        " ./src/app.py::login ",
        "nothing.here",  # canonical, nothing logged
        "Nothing.There",  # neither
    ]
    for _ in range(2):  # cold, then from the remembered statuses
        got = store.status_many(asked)
        assert list(got) == asked
        for raw in asked[:3]:
            assert got[raw].entity == "users.email"
            assert got[raw].status is Status.REVERTED
            assert [v.reasoning for v in got[raw].open_verdicts] == ["undo"]
        assert got[" ./src/app.py::login "].entity == "src/app.py::login"
        assert got[" ./src/app.py::login "].status is Status.ACTIVE
        assert got["nothing.here"] == EntityStatus("nothing.here", Status.UNKNOWN)
        assert got["Nothing.There"] == EntityStatus("nothing.there", Status.UNKNOWN)
    store.clear_caches()
    with pytest.raises(ValidationError, match="empty part"):
        store.status_many(["users.email", "users..email"])
