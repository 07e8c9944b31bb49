"""The write path indexes a batch it has just appended without parsing its lines again
(`Index.ingest_written`): the index it leaves must be the one a rebuild makes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cairn.store import EventDraft, Store
from cairn.store.index import FLUSH_EVERY, id_key
from cairn.store.index_ingest import _Batch
from cairn.store.index_rows import BY_KEY_RANGE_SQL, BY_KEY_SQL, KNOWN_SQL
from cairn.store.index_schema import KEY_SHIFT


def _tables(store: Store) -> dict[str, Any]:
    db = store.index.db
    out: dict[str, Any] = {}
    for table in (
        "event", "entity", "chain", "merge", "review", "source_key", "idempotency_key",
        "entity_status", "damage", "marked_key",
    ):  # fmt: skip
        out[table] = db.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()
    # Which of the two lists holds an entity's event depends on the batches; not which.
    both = (
        "SELECT entity, seq FROM entity_events "
        "UNION ALL SELECT entity, seq FROM entity_events_recent ORDER BY 2"
    )
    out["entity_events"] = db.execute(both).fetchall()
    keys = (
        "SELECT bucket, seq FROM key_events "
        "UNION ALL SELECT bucket, seq FROM key_events_recent ORDER BY 2"
    )
    out["key_events"] = db.execute(keys).fetchall()
    out["heads"] = store.heads()
    for word in ("plan", "rollback", "cards", "email", "stripe"):
        out[f"search {word}"] = [(h.event.id, round(h.score, 9)) for h in store.search(word)]
    return out


def _metadata(i: int, kind: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"source_key": f"git:{i}"} if i % 8 == 0 else {}
    if kind == "revert" and i % 2:
        meta["fingerprint"] = f"ab{i} cd{i}"  # a marked key (`MARKED_KEYS`)
    return meta


def _drafts(first: int, n: int) -> list[EventDraft]:
    kinds = ["add", "modify", "reject", "revert", "remove", "add", "annotate"]
    out = []
    for i in range(first, first + n):
        kind = kinds[i % len(kinds)]
        out.append(
            EventDraft(
                type=kind,
                entity=f"t{i % 5}.c{i % 3}" if i % 4 else f"deps/stripe{i % 2}",
                reasoning=f"plan {i} rollback the email cards" if i % 2 else f"step {i}",
                alternative="raw cards" if kind == "reject" else "",
                diff=f"-a{i}\n+b{i}" if i % 3 else "",
                recorded_at=f"2026-0{1 + i % 9}-1{i % 10}T10:00:00Z",
                occurred_at="2020-01-02" if i % 5 == 0 else "",
                revisit_after="2027-01-01" if i % 6 == 0 else "",
                expires_when="manual:stripe v3 ships" if i % 7 == 0 else "",
                metadata=_metadata(i, kind),
                key=f"k-{i}" if i % 9 == 0 else "",
            )
        )
    return out


def test_a_written_batch_indexes_as_a_rebuild_of_its_log_does(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        store.append_many(_drafts(0, 40))
        store.append(EventDraft(type="supersede", entity="t1.c1", reasoning="reopen"))
        store.append_many(_drafts(40, 30))
        written = _tables(store)
    assert written["review"] and written["source_key"] and written["idempotency_key"]
    assert written["marked_key"]
    Store.rebuild(cairn_dir)
    with Store.open(cairn_dir) as store:
        assert _tables(store) == written


def test_a_batch_larger_than_a_flush_indexes_as_a_rebuild_does(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        drafts = [
            EventDraft(type="add", entity=f"t.c{i % 7}", reasoning=f"change {i}")
            for i in range(FLUSH_EVERY + 5)
        ]
        store.append_many(drafts)
        written = _tables(store)
        assert len(written["event"]) == FLUSH_EVERY + 5
    Store.rebuild(cairn_dir)
    with Store.open(cairn_dir) as store:
        assert _tables(store) == written


def test_a_batch_not_prepared_on_the_current_heads_is_refused(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        first = store.append(EventDraft(type="add", entity="t.a", reasoning="one")).event
        second = store.append(EventDraft(type="add", entity="t.a", reasoning="two")).event
        index = store.index
        size = store.log.path.stat().st_size
        before = index.event_count()
        # `first` is no head any more, and the index does not stand at offset 0.
        assert not index.ingest_written([first], size, [10])
        assert not index.ingest_written([second], 0, [10])
        assert index.event_count() == before


def _indexes(store: Store) -> dict[str, str]:
    sql = "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    return dict(store.index.db.execute(sql).fetchall())


def test_a_rebuild_leaves_the_event_indexes_as_the_schema_says(
    cairn_dir: Path,
) -> None:
    with Store.open(cairn_dir) as store:
        created = _indexes(store)
        store.append_many(_drafts(0, 30))
        before = _tables(store)
    assert {"event_renames", "event_reverts", "event_supersedes"} <= set(created)
    Store.rebuild(cairn_dir)
    with Store.open(cairn_dir) as store:
        assert _indexes(store) == created
        assert _tables(store) == before
        for sql, args in ((BY_KEY_SQL, (5,)), (KNOWN_SQL, (5,)), (BY_KEY_RANGE_SQL, (5, 9, 3))):
            plan = store.index.db.execute(f"EXPLAIN QUERY PLAN {sql}", args)
            steps = [step[3] for step in plan.fetchall()]
            # Each key list searched by its key, each of its events found by seq.
            assert sum(s.startswith("SEARCH l USING PRIMARY KEY (bucket") for s in steps) == 2
            assert steps.count("SEARCH v USING INTEGER PRIMARY KEY (rowid=?)") == 2
            assert not any(s.startswith("SCAN") for s in steps)


def test_id_keys_that_share_an_index_bucket_are_told_apart(cairn_dir: Path) -> None:
    # The key lists hold a key's top bits only: two keys in one bucket must still each find
    # their own row (by key, by key range in key order), and a third none.
    with Store.open(cairn_dir) as store:
        events = store.append_many(_drafts(0, 3))
        index = store.index
        key = id_key(events[0].id)
        twin = key ^ 1  # same bucket, another key
        assert twin >> KEY_SHIFT == key >> KEY_SHIFT
        with index.write_transaction():
            index.db.execute(
                "INSERT INTO event SELECT 1000, entity, ?, type, chain, pos + 1000, target_key, "
                "recorded_ms, occurred_ms, line_offset, line_length FROM event WHERE seq = 1",
                (twin,),
            )
            index.db.execute("INSERT INTO key_events_recent VALUES (?, 1000)", (twin >> KEY_SHIFT,))
        assert index._known(key) and index._known(twin) and not index._known(key ^ 2)
        assert [r.seq for r in index.rows_by_key_range(key, key)] == [1]
        assert [r.seq for r in index.rows_by_key_range(twin, twin)] == [1000]
        both = index.rows_by_key_range(key & ~3, key | 3)
        assert [r.key for r in both] == sorted([key, twin])
        assert index._resolve(twin, _Batch()) == (1000, (0, 1000))
        assert store.get(events[0].id) == events[0]


@pytest.mark.parametrize("recent", [1 << 17, 3])
def test_a_rebuild_that_meets_a_fork_finds_the_flushed_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recent: int
) -> None:
    # Two branches from one event, joined as a union merge: the second branch's first
    # event names a parent that is no chain's tip any more and was flushed (small
    # flushes here), which the rebuild looks up by id key in the database; with a small
    # `RECENT_MAX`, after its key was folded from `key_events_recent` into `key_events`.
    from cairn.store import index_ingest, index_schema, init_store

    monkeypatch.setattr(index_ingest, "FLUSH_EVERY", 2)
    monkeypatch.setattr(index_schema, "RECENT_MAX", recent)

    main, other = init_store(tmp_path / "main"), init_store(tmp_path / "other")
    with Store.open(main) as store:
        store.append_many(_drafts(0, 5))
    base = (main / "decisions.jsonl").read_bytes()
    (other / "decisions.jsonl").write_bytes(base)
    with Store.open(other) as store:
        store.append_many(_drafts(5, 4))
    theirs = (other / "decisions.jsonl").read_bytes()[len(base) :]
    with Store.open(main) as store:
        store.append_many(_drafts(9, 4))
    with open(main / "decisions.jsonl", "ab") as fh:
        fh.write(theirs)
    with Store.open(main) as store:
        merged = _tables(store)  # caught up incrementally
        assert len(merged["heads"]) == 2
    Store.rebuild(main)
    with Store.open(main) as store:
        assert _tables(store) == merged


def test_a_failed_rebuild_leaves_the_indexes_in_place(
    cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(cairn_dir) as store:
        store.append_many(_drafts(0, 10))
        created = _indexes(store)
    from cairn.store.index import Index, remove_index

    remove_index(cairn_dir)

    def fail(self: Index, session: object, records: object) -> None:
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(Index, "_feed", fail)
    with pytest.raises(RuntimeError):
        Store.open(cairn_dir)
    monkeypatch.undo()
    with Store.open(cairn_dir) as store:
        assert _indexes(store) == created
        assert len(store.history("t1.c1")) > 0


def test_a_bulk_append_folds_the_wal_in_less_often_and_a_single_one_as_before(
    cairn_dir: Path,
) -> None:
    from cairn.store.index_ingest import _BULK_EVENTS, _BULK_WAL_PAGES
    from cairn.store.index_state import DEFAULT_WAL_PAGES

    def every(store: Store) -> int:
        return int(store.index.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0])

    with Store.open(cairn_dir) as store, Store.open(cairn_dir) as reader:
        assert every(store) == DEFAULT_WAL_PAGES
        events = store.append_many(_drafts(0, _BULK_EVENTS))
        assert every(store) == _BULK_WAL_PAGES
        # What the WAL holds is read like the database: another connection sees it all.
        assert reader.get(events[-1].id) == events[-1]
        assert len(reader.history("t1.c1")) == len(store.history("t1.c1")) > 0
        store.append(EventDraft(type="add", entity="t9.c9", reasoning="one more"))
        assert every(store) == DEFAULT_WAL_PAGES
        store.index.checkpoint()
        assert reader.status("t9.c9").event_count == 1


def test_absent_references_and_times_are_stored_as_null(cairn_dir: Path) -> None:
    # The write path and the rebuild bind a sentinel for them (not None: see `_EVENT_SQL`),
    # which must never reach a row; nor may a status row without a detail get a kind.
    def stored(store: Store) -> tuple[list[Any], list[Any]]:
        db = store.index.db
        ev = db.execute(
            "SELECT seq, typeof(target_key), typeof(occurred_ms), occurred_ms FROM event "
            "ORDER BY seq"
        )
        est = db.execute(
            "SELECT path, kind IS NULL, detail IS NULL FROM entity_status ORDER BY path"
        )
        return ev.fetchall(), est.fetchall()

    with Store.open(cairn_dir) as store:
        rejected = store.append(EventDraft(type="reject", entity="t.a", reasoning="no"))
        store.append_many(
            [
                EventDraft(type="add", entity="t.b", reasoning="plain"),
                EventDraft(type="add", entity="t.c", reasoning="then", occurred_at="1969-12-31"),
                EventDraft(
                    type="supersede", entity="t.a", reasoning="yes", supersedes=rejected.event.id
                ),
            ]
        )
        written = stored(store)
    ev, est = written
    assert [row[1:3] for row in ev] == [
        ("null", "null"),
        ("null", "null"),
        ("null", "integer"),
        ("integer", "null"),
    ]
    assert ev[2][3] == -86_400_000  # a time before 1970 is a negative number, not NULL
    assert ("t.b", 1, 1) in est and ("t.c", 1, 1) in est
    Store.rebuild(cairn_dir)
    with Store.open(cairn_dir) as store:
        assert stored(store) == written
