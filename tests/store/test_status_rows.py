"""`status_many` answers from per-entity status rows kept up to date on every ingest."""

from __future__ import annotations

from pathlib import Path

from cairn.store import EventDraft, Status, Store


def _same(store: Store, entities: list[str]) -> None:
    store.clear_caches()
    batch = store.status_many(entities)
    for entity in entities:
        one = store.status(entity)
        assert batch[entity].status == one.status, entity
        assert [v.id for v in batch[entity].open_verdicts] == [v.id for v in one.open_verdicts]
        assert batch[entity].reopened == one.reopened
        assert batch[entity].event_count == one.event_count
        assert {c.id for c in batch[entity].conflicts} <= {c.id for c in one.conflicts}
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
