"""Which events are an entity's: `entity_events` and `entity_events_recent`
(`Index._list_entities`); which event has an id key: `key_events` and `key_events_recent`
(`Index._list_keys`). Whatever batches wrote them (small ones, one past the fold, one
large enough to go to `entity_events` sorted, a rebuild, another connection's, one that
failed), every event is listed once under its entity and once under its key, the older
ones in the full lists, and every read by entity or by key answers as a scan of `event`
does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cairn.store import EventDraft, Store, index_schema
from cairn.store.index import Index, Row
from cairn.store.index_rows import BY_PATHS_IN_ORDER_SQL, SELECT_EVENTS, row_of, summarise
from cairn.store.index_schema import KEY_SHIFT


def _drafts(first: int, n: int) -> list[EventDraft]:
    kinds = ["add", "modify", "reject", "revert", "add", "annotate"]
    return [
        EventDraft(
            type=kinds[i % len(kinds)],
            entity=f"billing.invoices.c{i % 7}" if i % 3 else f"deps/stripe{i % 2}",
            reasoning=f"plan {i} for the cards" if i % 2 else f"step {i}",
        )
        for i in range(first, first + n)
    ]


def _supersede(store: Store, entity: str) -> EventDraft:
    """A supersede of the entity's first open verdict (derived in full at ingest)."""
    verdict = store.status(entity).open_verdicts[0]
    return EventDraft(type="supersede", entity=entity, supersedes=verdict.id, reasoning="again")


def _check_lists(index: Index) -> tuple[int, int]:
    """Assert the lists hold exactly `event`'s (entity, seq), split at
    `entity_events_recent_from`; returns how many each holds."""
    db = index.db
    old = db.execute("SELECT entity, seq FROM entity_events").fetchall()
    new = db.execute("SELECT entity, seq FROM entity_events_recent").fetchall()
    assert sorted(old + new) == sorted(db.execute("SELECT entity, seq FROM event").fetchall())
    split = int(index.meta().get("entity_events_recent_from", 1))
    assert all(seq < split for _, seq in old)
    assert all(seq >= split for _, seq in new)
    _check_keys(index)
    return len(old), len(new)


def _check_keys(index: Index) -> None:
    """Assert the key lists hold exactly `event`'s (bucket, seq), split at
    `key_events_recent_from`, and every event is found by its key and by a key range."""
    db = index.db
    old = db.execute("SELECT bucket, seq FROM key_events").fetchall()
    new = db.execute("SELECT bucket, seq FROM key_events_recent").fetchall()
    every = db.execute(f"SELECT id_key >> {KEY_SHIFT}, seq FROM event").fetchall()
    assert sorted(old + new) == sorted(every)
    split = int(index.meta().get("key_events_recent_from", 1))
    assert all(seq < split for _, seq in old)
    assert all(seq >= split for _, seq in new)
    assert index._keys_recent_from == split  # what the next flush folds from
    for row in _every_row(index):
        assert index._known(row.key)
        assert row in index.rows_by_key_range(row.key, row.key)


def _check_reads(index: Index) -> None:
    """Every read by entity answers as a scan of `event` does."""
    every = _every_row(index)
    by_ent: dict[int, list[Row]] = {}
    for r in every:
        by_ent.setdefault(r.entity, []).append(r)
    paths = dict(index.db.execute("SELECT id, path FROM entity").fetchall())
    for ent, rows in by_ent.items():
        assert index.rows_for(ent) == rows
    wanted = [*sorted(paths.values()), "nothing.here"]
    found = index.rows_for_paths(wanted)
    assert found == {p: by_ent.get(index.ent_of(p) or -1, []) for p in wanted}
    # What a status derivation reads (`StatusRows.derive_statuses`).
    found_in_order = index.db.execute(BY_PATHS_IN_ORDER_SQL, (json.dumps(wanted),))
    summaries = dict(summarise(found_in_order, wanted))
    for p in wanted:
        rows, count, notes = summaries[p]
        assert count == len(found[p])
        assert notes == sum(1 for r in found[p] if r.type.is_note)
        assert {r.seq for r in rows} <= {r.seq for r in found[p]}


def _every_row(index: Index) -> list[Row]:
    """Every event's row, in ingest order, from a scan of `event`."""
    return [row_of(t) for t in index.db.execute(SELECT_EVENTS + " ORDER BY seq")]


def _answers(store: Store) -> dict[str, object]:
    """What a user sees of entities: history, status, prior attempts, search (by path
    words, which reads an entity's events through the lists)."""
    out: dict[str, object] = {}
    for path in store.entities():
        out[f"history {path}"] = [e.id for e in store.history(path)]
        out[f"status {path}"] = store.status(path)
    out["under billing"] = [e.id for e in store.history("billing", include_children=True)]
    for query in ("invoices", "invoices cards", "stripe0 plan"):
        out[f"search {query}"] = [(h.event.id, h.score) for h in store.search(query)]
    return out


def test_small_batches_past_the_fold_list_every_event_once(
    cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_schema, "RECENT_MAX", 40)
    seen_both = False
    with Store.open(cairn_dir) as store:
        first = 0
        for n in (7, 13, 1, 1, 25, 9, 30, 2, 17):
            store.append_many(_drafts(first, n))
            first += n
            old, new = _check_lists(store.index)
            seen_both = seen_both or (old > 0 and new > 0)
            _check_reads(store.index)
        store.append(_supersede(store, "deps/stripe1"))
        _check_lists(store.index)
        _check_reads(store.index)
        answers = _answers(store)
    assert seen_both  # the reads were checked with events in both lists
    Store.rebuild(cairn_dir)  # more than RECENT_MAX events: all in `entity_events`, sorted
    with Store.open(cairn_dir) as store:
        assert _check_lists(store.index) == (first + 1, 0)
        _check_reads(store.index)
        assert _answers(store) == answers


def test_a_large_batch_goes_to_the_full_list_after_what_the_recent_one_held(
    cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_schema, "RECENT_MAX", 20)
    with Store.open(cairn_dir) as store:
        store.append_many(_drafts(0, 15))
        assert _check_lists(store.index) == (0, 15)
        store.append_many(_drafts(15, 30))
        assert _check_lists(store.index) == (45, 0)
        store.append_many(_drafts(45, 3))
        assert _check_lists(store.index) == (45, 3)
        _check_reads(store.index)


def test_a_failed_ingest_lists_nothing_and_the_next_lists_its_events(
    cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_schema, "RECENT_MAX", 20)
    with Store.open(cairn_dir) as store:
        store.append_many(_drafts(0, 18))
        before = _check_lists(store.index)
        calls = 0
        derived = Index._derived

        def fail_once(self: Index, *args: object) -> object:
            # After the lists were written (a supersede is derived in full), inside the
            # same transaction: it must roll them back with everything else.
            nonlocal calls
            calls += 1
            if calls == 1:
                raise RuntimeError("the disk went away")
            return derived(self, *args)  # type: ignore[arg-type]

        batch = [*_drafts(18, 4), _supersede(store, "deps/stripe1")]
        monkeypatch.setattr(Index, "_derived", fail_once)
        with pytest.raises(RuntimeError):
            store.append_many(batch)
        assert _check_lists(store.index) == before
        # The lines were written before the index failed: the next write catches the
        # index up with them first, then indexes its own.
        store.append_many(_drafts(22, 3))
        assert calls >= 2
        assert sum(_check_lists(store.index)) == 18 + 5 + 3
        _check_reads(store.index)


def test_two_connections_taking_turns_keep_one_split(
    cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each learns where the recent list starts from the other's commit (in meta).
    monkeypatch.setattr(index_schema, "RECENT_MAX", 16)
    with Store.open(cairn_dir) as one, Store.open(cairn_dir) as two:
        first = 0
        for i in range(8):
            store = one if i % 2 else two
            store.append_many(_drafts(first, 5 + i))
            first += 5 + i
            _check_lists(store.index)
        for store in (one, two):
            store.history("deps/stripe0")  # catches up with the other's last batch
            _check_lists(store.index)
            _check_reads(store.index)
        assert _answers(one) == _answers(two)
