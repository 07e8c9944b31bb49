"""`Index.tracer`: each statement the index runs inside the block, with its parameters
and its time, reported once; nothing outside it."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from cairn.store import EventDraft, Store

Seen = list[tuple[str, Any, float]]


def _recorder(seen: Seen) -> Any:
    return lambda sql, params, seconds: seen.append((sql, params, seconds))


def test_a_batch_append_reports_each_statement_with_its_rows_and_time(store: Store) -> None:
    seen: Seen = []
    drafts = [EventDraft(type="add", entity=f"t.c{i}", reasoning=f"step {i}") for i in range(5)]
    with store.index.tracer(_recorder(seen)):
        store.append_many(drafts)
    inserts = [(sql, params) for sql, params, _ in seen if sql.startswith("INSERT INTO event ")]
    assert len(inserts) == 1  # one executemany for the batch's rows
    assert [row[0] for row in inserts[0][1]] == [1, 2, 3, 4, 5]  # the rows, by seq
    # Full-text rows are written by the first search, not by an append (`search_index`).
    assert not any("event_fts" in sql for sql, _, _ in seen)
    assert all(seconds >= 0 for _, _, seconds in seen)
    assert isinstance(store.index.db, sqlite3.Connection)  # the plain connection again
    before = len(seen)
    store.status_many(["t.c1"])
    store.append(EventDraft(type="add", entity="t.c9", reasoning="after"))
    assert len(seen) == before


def test_a_query_is_reported_once_its_rows_are_read(store: Store) -> None:
    seen: Seen = []
    count_to = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) "
    with store.index.tracer(_recorder(seen)):
        cursor = store.index.db.execute(count_to + "SELECT x FROM c", (1000,))
        assert seen == []  # its rows are still to come: so is part of its time
        assert sum(x for (x,) in cursor) == 500_500
        assert [(sql, params) for sql, params, _ in seen] == [
            (count_to + "SELECT x FROM c", (1000,))
        ]
        store.index.db.execute(count_to + "SELECT max(x) FROM c", (10,)).fetchone()
        # One row asked for and the cursor dropped: reported, once.
        assert len(seen) == 2 and seen[1][1] == (10,)


def test_the_store_answers_the_same_while_traced(store: Store) -> None:
    for i in range(6):
        store.append(EventDraft(type="modify", entity=f"t.c{i % 3}", reasoning=f"step {i}"))
    store.append(EventDraft(type="revert", entity="t.c0", reasoning="undo"))
    plain = (store.status_many(["t.c0", "t.c1"]), store.history("t.c0"), store.search("undo"))
    store.clear_caches()
    seen: Seen = []
    with store.index.tracer(_recorder(seen)):
        traced = (store.status_many(["t.c0", "t.c1"]), store.history("t.c0"), store.search("undo"))
    assert traced == plain
    assert any("entity_status" in sql for sql, _, _ in seen)
    assert any("event_fts MATCH" in sql for sql, _, _ in seen)


def test_an_inner_tracer_reports_in_its_block_and_the_outer_one_after(store: Store) -> None:
    outer: Seen = []
    inner: Seen = []
    with store.index.tracer(_recorder(outer)):
        with store.index.tracer(_recorder(inner)):
            store.index.event_count()
        assert len(inner) == 1 and outer == []
        store.index.event_count()
    assert len(inner) == 1 and len(outer) == 1


def test_the_default_tracer_logs_each_statement_at_debug(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG, logger="cairn.store.sql"), store.index.tracer():
        store.index.event_count()
    (record,) = [r for r in caplog.records if r.name == "cairn.store.sql"]
    assert record.getMessage().endswith(" ms  SELECT count(*) FROM event")
