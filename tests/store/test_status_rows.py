"""`status_many` answers from per-entity status rows kept up to date on every ingest."""

from __future__ import annotations

import contextlib
import gc
import json
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import (
    EntityStatus,
    Event,
    EventDraft,
    EventType,
    Reapplied,
    Status,
    Store,
    StoreError,
    ValidationError,
    init_store,
)
from cairn.store.index import KINDS, status_code
from cairn.store.paths import kind_of


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
        assert batch[entity].note_count == one.note_count
        # The batch keeps the newest re-applying change, as its row holds it: the same
        # id, type, times, author and agent as the whole event `status` reads.
        assert len(batch[entity].conflicts) == (1 if one.conflicts else 0)
        for c in batch[entity].conflicts:
            assert isinstance(c, Reapplied)
            whole = {e.id: e for e in one.conflicts}[c.id]
            assert c == _reapplied(whole)
            assert store.events_of([c]) == [whole]


def _reapplied(event: Event) -> Reapplied:
    return Reapplied(
        event.id, event.type, event.recorded_at, event.occurred_at, event.author, event.agent
    )


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
    with store.index.tracer(lambda sql, params, seconds: statements.append(sql)):
        got = store.status_many([f"t.c{i}" for i in range(1, 6)])
    assert {s.status for s in got.values()} == {Status.ACTIVE}
    assert all(s.event_count == 5 for s in got.values())
    # One query on the status rows; all of the entities' events were read before.
    assert len(statements) == 1 and " event " not in statements[0] + " "


def test_a_batch_with_verdicts_makes_one_query_whatever_its_size(store: Store) -> None:
    for i in range(12):
        entity = f"t.c{i}"
        store.append(EventDraft(type="add", entity=entity, reasoning=f"add {i}"))
        store.append(EventDraft(type="revert", entity=entity, reasoning=f"undo {i}"))
        store.append(EventDraft(type="modify", entity=entity, reasoning=f"again {i}"))
    store.refresh()
    store.clear_caches()
    statements: list[str] = []
    read: list[int] = []
    lines_at = store.index.lines_at
    store.index.lines_at = lambda spans: read.append(len(spans)) or lines_at(spans)  # type: ignore[method-assign]
    try:
        with store.index.tracer(lambda sql, params, seconds: statements.append(sql)):
            got = store.status_many([f"t.c{i}" for i in range(12)] + ["t.none"])
    finally:
        del store.index.lines_at
    assert got["t.c3"].status is Status.CONFLICT
    assert [v.reasoning for v in got["t.c3"].open_verdicts] == ["undo 3"]
    (again,) = got["t.c3"].conflicts
    assert isinstance(again, Reapplied) and again.type is EventType.MODIFY
    assert [c.reasoning for c in store.events_of(got["t.c3"].conflicts)] == ["again 3"]
    assert got["t.none"].status is Status.UNKNOWN
    # The status rows say where the explaining lines are: no query per entity, and none
    # on the events' rows; of the log, only the open verdicts' lines are read (the
    # conflict is in its row).
    assert len(statements) == 1 and " event " not in statements[0] + " "
    assert read == [12]


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
        index._touched_ents["t.a"] = [(99, 0, 0, 0, True, 0, 0)] * 5
        index._full_ents.add("t.a")
        raise RuntimeError("the ingest failed")
    store.append(EventDraft(type="modify", entity="t.a", reasoning="second"))
    store.clear_caches()
    assert store.status_many(["t.a"])["t.a"].event_count == 2


def _stored_rows(store: Store) -> dict[str, tuple[int, int, int, object, object]]:
    rows = store.index.db.execute(
        "SELECT path, status, event_count, note_count, kind, detail FROM entity_status"
    ).fetchall()
    return {
        path: (st, cnt, notes, kd, json.loads(detail) if detail else None)
        for path, st, cnt, notes, kd, detail in rows
    }


def _rederived(store: Store) -> dict[str, tuple[int, int, int, object, object]]:
    """What a full derivation of every entity writes (rolled back afterwards)."""
    index = store.index
    paths = [p for (p,) in index.db.execute("SELECT path FROM entity")]
    index.db.execute("BEGIN IMMEDIATE")
    try:
        index.derive_statuses(paths)
        return _stored_rows(store)
    finally:
        index.db.execute("ROLLBACK")


_ANY_STEP = st.tuples(
    st.sampled_from(
        ["add", "modify", "remove", "revert", "reject", "supersede", "annotate", "rename"]
    ),
    st.sampled_from(["t.a", "t.b", "deps/x"]),
    st.integers(min_value=0, max_value=5),  # recorded day: conflicts are picked by it
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches=st.lists(st.lists(_ANY_STEP, min_size=1, max_size=8), min_size=1, max_size=5))
def test_rows_moved_forward_equal_a_full_derivation(
    batches: list[list[tuple[str, str, int]]],
) -> None:
    # Rows moved forward event by event (status_rows.advance), with recorded times out
    # of order, must be exactly what deriving each entity from all its rows writes:
    # status, count, open verdicts, the newest conflict, the re-opened verdicts and
    # where their lines are; and the batch answered from those rows alone must be the
    # status derived from the entity's events and read from the log.
    entities = ["t.a", "t.b", "deps/x"]
    with tempfile.TemporaryDirectory() as tmp:
        cairn_dir = init_store(Path(tmp))
        with Store.open(cairn_dir) as store:
            for batch in batches:
                drafts = []
                for etype, entity, day in batch:
                    draft = EventDraft(
                        type=etype,
                        entity=entity,
                        reasoning=f"{etype} {entity}",
                        recorded_at=f"2026-01-0{day + 1}",
                        metadata={"annotates": "x"} if etype == "annotate" else {},
                    )
                    try:
                        store.validator().check(draft)
                    except StoreError:
                        continue  # a supersede with no open verdict to name
                    drafts.append(draft)
                    store.append_many([draft])
                store.refresh()
                assert _stored_rows(store) == _rederived(store)
                _same(store, entities)
        Store.rebuild(cairn_dir)
        with Store.open(cairn_dir) as store:
            assert _stored_rows(store) == _rederived(store)
            _same(store, entities)


def test_a_batch_moves_rows_forward_like_single_appends(cairn_dir: Path) -> None:
    steps = [
        ("add", "t.a"), ("revert", "t.a"), ("modify", "t.a"), ("reject", "t.b"),
        ("remove", "t.c"), ("add", "t.c"), ("remove", "t.c"), ("modify", "t.a"),
        ("revert", "t.b"), ("add", "t.b"),
    ]  # fmt: skip
    with Store.open(cairn_dir) as store:
        store.append_many([EventDraft(type=t, entity=e, reasoning=f"{t} {e}") for t, e in steps])
        assert _stored_rows(store) == _rederived(store)
        got = store.status_many(["t.a", "t.b", "t.c"])
        assert got["t.a"].status is Status.CONFLICT
        assert got["t.b"].status is Status.CONFLICT
        assert got["t.c"].status is Status.REMOVED


def _write(store: Store, steps: list[tuple[str, str, int]]) -> None:
    for etype, entity, day in steps:
        draft = EventDraft(
            type=etype, entity=entity, reasoning=f"{etype} {entity}",
            recorded_at=f"2026-01-0{day + 1}",
        )  # fmt: skip
        try:
            store.append_many([draft])
        except StoreError:
            continue  # a supersede with no open verdict to name


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    common=st.lists(_ANY_STEP, max_size=6),
    ours=st.lists(_ANY_STEP, min_size=1, max_size=6),
    theirs=st.lists(_ANY_STEP, min_size=1, max_size=6),
    after=st.lists(_ANY_STEP, min_size=1, max_size=6),
)
def test_rows_after_a_union_merge_equal_a_full_derivation(
    common: list[tuple[str, str, int]],
    ours: list[tuple[str, str, int]],
    theirs: list[tuple[str, str, int]],
    after: list[tuple[str, str, int]],
) -> None:
    # Two branches' logs joined as git's union merge does: their lines are not linear
    # (each branch's descend from only part of the other's), and what is written after
    # the merge descends from several chains.
    with tempfile.TemporaryDirectory() as tmp:
        main = init_store(Path(tmp) / "main")
        other = init_store(Path(tmp) / "other")
        with Store.open(main) as store:
            _write(store, [s for s in common if s[0] != "annotate"])
        base = (
            (main / "decisions.jsonl").read_bytes() if (main / "decisions.jsonl").exists() else b""
        )
        (other / "decisions.jsonl").write_bytes(base)
        with Store.open(other) as store:
            _write(store, [s for s in theirs if s[0] != "annotate"])
        theirs_lines = (other / "decisions.jsonl").read_bytes()[len(base) :]
        with Store.open(main) as store:
            _write(store, [s for s in ours if s[0] != "annotate"])
            with open(main / "decisions.jsonl", "ab") as fh:
                fh.write(theirs_lines)
            store.refresh()
            assert _stored_rows(store) == _rederived(store)
            _same(store, ["t.a", "t.b", "deps/x"])
            _write(store, [s for s in after if s[0] != "annotate"])
            assert _stored_rows(store) == _rederived(store)
            _same(store, ["t.a", "t.b", "deps/x"])


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


def test_a_batch_fills_in_the_kind_each_line_leaves_out(store: Store) -> None:
    # A line leaves `entity_kind` out when the path says it; the batch takes that kind
    # from the status row (`entity_status.kind`), so it must be the grammar's, for every
    # kind of path.
    paths = [
        "users",
        "users.email",
        "src/",
        "src/app.py",
        "src/app.py::Session.login",
        "route/GET /users/{id}",
        "deps/left-pad",
        "env/API_URL",
    ]
    for path in paths:
        store.append(EventDraft(type="add", entity=path, reasoning=f"add {path}"))
        store.append(EventDraft(type="revert", entity=path, reasoning=f"undo {path}"))
    # A kind the writer gave that the path does not say stays in the line, and wins.
    store.append(
        EventDraft(type="reject", entity="src/app.py::run", entity_kind="function", reasoning="no")
    )
    paths.append("src/app.py::run")
    stored = dict(store.index.db.execute("SELECT path, kind FROM entity_status").fetchall())
    for path in paths:
        assert KINDS[stored[path]] == kind_of(path).value, path
    store.clear_caches()
    batch = store.status_many(paths)
    for path in paths:
        one = store.status(path)
        assert batch[path].open_verdicts == one.open_verdicts, path
        assert [v.entity_kind for v in batch[path].open_verdicts] == [
            "function" if path.endswith("::run") else kind_of(path).value
        ], path
    Store.rebuild(store.cairn_dir)
    with Store.open(store.cairn_dir) as again:
        assert (
            dict(again.index.db.execute("SELECT path, kind FROM entity_status").fetchall())
            == stored
        )


def test_a_cold_batch_leaves_the_collector_as_it_found_it(store: Store) -> None:
    # The batch pauses the cyclic collector while it builds its answers.
    store.append(EventDraft(type="add", entity="t.a", reasoning="add"))
    store.append(EventDraft(type="revert", entity="t.a", reasoning="undo"))
    for enabled in (True, False):
        (gc.enable if enabled else gc.disable)()
        try:
            store.clear_caches()
            assert store.status_many(["t.a"])["t.a"].status is Status.REVERTED
            assert gc.isenabled() is enabled
        finally:
            gc.enable()


def test_a_batchs_statuses_and_events_are_not_tracked_by_the_collector(store: Store) -> None:
    # A cold batch at 1M events builds ~500 statuses and ~600 events and ends with a
    # collection: neither type can be in a reference cycle, so neither is walked.
    store.append(EventDraft(type="add", entity="t.a", reasoning="add"))
    store.append(EventDraft(type="revert", entity="t.a", reasoning="undo"))
    store.append(EventDraft(type="add", entity="t.b", reasoning="add"))
    store.clear_caches()
    batch = store.status_many(["t.a", "t.b", "t.none"])
    assert batch["t.a"].open_verdicts and batch["t.b"].status is Status.ACTIVE
    assert not any(gc.is_tracked(s) for s in batch.values())
    assert not any(gc.is_tracked(e) for e in batch["t.a"].open_verdicts)


def test_a_batch_with_a_lone_surrogate_is_refused_like_any_bad_path(store: Store) -> None:
    # The batch's paths go to SQLite as JSON; orjson refuses a lone surrogate, so that
    # list is encoded the standard way, looked up, and the path then refused by name.
    store.append(EventDraft(type="add", entity="t.a", reasoning="add"))
    store.clear_caches()
    with pytest.raises(ValidationError, match="U\\+D800"):
        store.status_many(["t.a", "t\ud800.b"])
    assert store.status_many(["t.a"])["t.a"].status is Status.ACTIVE


def test_the_batch_query_reads_the_rows_the_row_query_reads(store: Store) -> None:
    # `status_table` has SQLite write the rows as three lists (the path's place in the
    # batch, status/kind/count in one number, the detail as stored): it must read back
    # what `status_rows` gives, for any path, count and kind.
    paths = ['route/GET /a?b="x\\y"', "tbl.café", "deps/@scope/pkg", "env/A_B", "t.plain"]
    for i, path in enumerate(paths):
        store.append(EventDraft(type="add", entity=path, reasoning=f"add {i}"))
        if i % 2 == 0:
            store.append(EventDraft(type="revert", entity=path, reasoning=f"undo {i}"))
        if i == 0:
            store.append(EventDraft(type="supersede", entity=path, reasoning="again"))
            store.append(EventDraft(type="reject", entity=path, reasoning="no", alternative="a"))
            store.append(EventDraft(type="modify", entity=path, reasoning="anyway"))
    store.append_many(
        [EventDraft(type="modify", entity="t.plain", reasoning=f"m {i}") for i in range(300)]
    )
    store.refresh()
    asked = sorted([*paths, "t.none"])
    first = store.status(paths[1]).latest
    assert first is not None
    meta = {"annotates": first.id}
    store.append_many(
        [
            EventDraft(type="annotate", entity=paths[1], reasoning=f"n {i}", metadata=meta)
            for i in range(3)
        ]
    )
    rows = [
        [p, st, cnt, notes, kd, json.loads(d) if d else 0]
        for p, st, cnt, notes, kd, d in store.index.status_rows(asked)
    ]
    keys, codes, details = store.index.status_table(asked)
    got = []
    for key, code, detail in zip(keys, codes, details, strict=True):
        st, kd, cnt, notes = status_code(code)
        got.append([asked[key], st, cnt, notes, kd, detail])
    assert sorted(got, key=str) == sorted(rows, key=str)
    assert {r[0] for r in got} == set(paths)
    assert any(r[5] and r[5][2] for r in got)  # a re-opened pair, with its spans
    assert any(r[2] > 255 for r in got)  # a count wider than the bits below it
    assert [r[3] for r in got if r[0] == paths[1]] == [3]  # notes above the count's bits
    assert any(r[4] is not None for r in got) and any(r[4] is None for r in got)
    assert store.index.status_table(["t.none"]) == ([], [], [])
    _same(store, asked)


def test_rows_kept_between_batches_follow_other_writers_and_failed_batches(
    cairn_dir: Path,
) -> None:
    # A bulk append keeps the status rows it wrote in memory for its next batch: they
    # must be dropped when another writer moves the index on, and a batch whose index
    # transaction fails must leave neither its rows nor its moved-forward states behind.
    entities = ["t.a", "t.b", "t.c", "deps/x"]

    def batch(writer: Store, steps: list[tuple[str, str]]) -> None:
        writer.append_many([EventDraft(type=t, entity=e, reasoning=f"{t} {e}") for t, e in steps])

    with Store.open(cairn_dir) as store, Store.open(cairn_dir) as other:
        batch(store, [("add", "t.a"), ("add", "t.b"), ("add", "t.c"), ("reject", "deps/x")])
        assert store.index._kept  # what the next batch starts from
        batch(other, [("revert", "t.a"), ("modify", "t.b")])
        batch(store, [("modify", "t.a"), ("add", "deps/x"), ("modify", "t.c")])
        assert store.status_many(["t.a"])["t.a"].status is Status.CONFLICT
        assert _stored_rows(store) == _rederived(store)
        _same(store, entities)

        index = store.index

        def fail(paths: object) -> None:
            raise sqlite3.OperationalError("disk I/O error")

        index.derive_statuses = fail  # type: ignore[method-assign]
        batch(store, [("revert", "t.b"), ("modify", "t.b"), ("remove", "t.c")])
        assert store.write_warnings  # the lines are written, the index is not
        del index.derive_statuses
        batch(store, [("modify", "t.b"), ("modify", "t.c"), ("revert", "t.a")])
        assert _stored_rows(store) == _rederived(store)
        _same(store, entities)
        counts = {e: s.event_count for e, s in store.status_many(entities).items()}
        assert counts == {"t.a": 4, "t.b": 5, "t.c": 4, "deps/x": 2}
        batch(other, [("modify", "t.c")])
        assert _stored_rows(other) == _rederived(other)


def test_a_batch_shows_the_conflict_and_reopened_pairs_from_rows_alike_after_a_rebuild(
    cairn_dir: Path,
) -> None:
    # What the batch shows of the re-applying change and of a re-opened pair comes from
    # the status row: written by the write path (one append, then a batch), by a full
    # derivation (the supersede) and by a rebuild (parsed lines), all alike.
    with Store.open(cairn_dir) as store:
        store.append(EventDraft(type="add", entity="t.a", reasoning="first"))
        undo = store.append(EventDraft(type="revert", entity="t.a", reasoning="undo")).event
        store.append(EventDraft(type="supersede", entity="t.a", reasoning="ok", supersedes=undo.id))
        store.append(EventDraft(type="reject", entity="t.a", reasoning="no", alternative="x"))
        store.append_many(
            [
                EventDraft(
                    type="modify", entity="t.a", reasoning="again", author="Ann <a@b.c>",
                    agent="bot", occurred_at="2025-05-05T10:00:00Z",
                ),
                EventDraft(type="add", entity="t.b", reasoning="b"),
            ]
        )  # fmt: skip
        store.clear_caches()
        before = store.status_many(["t.a", "t.b"])
        whole = store.status("t.a")
    (shown,) = before["t.a"].conflicts
    assert shown == _reapplied(whole.conflicts[-1])
    assert (shown.author, shown.agent, shown.when[:10]) == ("Ann <a@b.c>", "bot", "2025-05-05")
    assert before["t.a"].reopened == whole.reopened and len(whole.reopened) == 1
    assert before["t.a"].status is Status.CONFLICT and before["t.b"].conflicts == []
    Store.rebuild(cairn_dir)
    with Store.open(cairn_dir) as store:
        assert store.status_many(["t.a", "t.b"]) == before


def _two_decisions_two_links(store: Store, entity: str) -> None:
    """Two decisions, each then linked to a commit (as the post-commit hook writes)."""
    for i, etype in enumerate(("add", "revert")):
        store.append(EventDraft(type=etype, entity=entity, reasoning=f"{etype} it"))
        decision = store.status(entity).latest
        assert decision is not None
        store.append(
            EventDraft(
                type="annotate",
                entity=entity,
                reasoning="Landed in a commit.",
                commit=f"{i + 1:040x}",
                metadata={"annotates": decision.id, "landed_in": f"{i + 1:040x}"},
            )
        )


def test_commit_links_are_counted_as_notes_not_decisions(store: Store) -> None:
    _two_decisions_two_links(store, "t.linked")
    store.clear_caches()
    for status in (store.status("t.linked"), store.status_many(["t.linked"])["t.linked"]):
        assert (status.decision_count, status.note_count, status.event_count) == (2, 2, 4)
        assert status.to_dict()["decision_count"] == 2 and status.to_dict()["note_count"] == 2


def test_moved_forward_and_rebuilt_rows_count_notes_alike(cairn_dir: Path) -> None:
    # The same events through `advance` (one append at a time) and through `summarise`
    # (a rebuild derives every entity from all its rows): if either path counted a
    # note as a decision, or lost one, the two stored rows would differ.
    with Store.open(cairn_dir) as store:
        _two_decisions_two_links(store, "t.linked")
        moved = _stored_rows(store)["t.linked"]
    assert moved[1:3] == (4, 2)  # four events, two of them notes
    Store.rebuild(cairn_dir)
    with Store.open(cairn_dir) as store:
        assert _stored_rows(store)["t.linked"] == moved
        assert store.status_many(["t.linked"])["t.linked"].decision_count == 2


def test_a_stored_detail_reads_back_as_the_tuple_its_type_declares() -> None:
    # `Detail` is a tuple: what is read back must be one (orjson gives a list), and a
    # detail with a part missing fails where it is read, not later at an unpacking.
    from cairn.store.status_rows import detail_parts, encode_detail

    stored = encode_detail([3, 7], 9, [[1, 2]], {3: (0, 40), 7: (40, 52)}, 0, ["a", "b"])
    assert stored is not None
    parts = detail_parts(stored)
    assert type(parts) is tuple
    assert parts == ([3, 7], 9, [[1, 2]], [0, 40, 40, 52], 0, ["a", "b"])
    with pytest.raises(ValueError):
        detail_parts("[[3], 9, [], [0, 40], 0]")
