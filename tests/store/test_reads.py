"""Prior attempts, history as-of, full-text search and reviews."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from cairn.store import EventDraft, Store, ValidationError
from cairn.store.index import id_key, remove_index


def put(store: Store, type_: str, entity: str, reasoning: str, when: str, **kw: str):
    return store.append(
        EventDraft(type=type_, entity=entity, reasoning=reasoning, recorded_at=when, **kw)
    ).event


def test_prior_attempts_pairs_changes_with_what_closed_them(store: Store) -> None:
    e = "users.email_verified"
    a1 = put(store, "add", e, "first try", "2026-01-01")
    r1 = put(store, "revert", e, "broke signup", "2026-01-02")
    a2 = put(store, "add", e, "second try", "2026-02-01")
    m2 = put(store, "modify", e, "default false", "2026-02-02")
    r2 = put(store, "revert", e, "still broken", "2026-02-03", reverts=a2.id)
    rej = put(store, "reject", e, "too slow", "2026-02-04", alternative="a trigger")
    sup = put(store, "supersede", e, "fixed upstream", "2026-03-01", supersedes=r1.id)
    a3 = put(store, "add", e, "third try", "2026-03-02")
    rm = put(store, "remove", e, "not needed", "2026-03-05")
    attempts = store.prior_attempts(e, include_active=True)
    rows = [(a.change.id if a.change else None, a.closed_by.id if a.closed_by else None,
             a.outcome, a.confidence) for a in attempts]  # fmt: skip
    assert rows == [
        (a1.id, r1.id, "reopened", "exact"),  # its revert was superseded
        (a2.id, r2.id, "reverted", "exact"),  # named by --reverts, not the nearest
        (m2.id, None, "active", ""),
        (None, rej.id, "rejected", "exact"),  # the reject closes nothing
        (a3.id, rm.id, "removed", "proximity"),  # removal 3 days later
    ]
    assert attempts[0].reopened_by == sup.id
    assert attempts[3].alternative == "a trigger"
    assert sup.id not in {a.closed_by.id for a in attempts if a.closed_by}
    # Without --all, still-active changes are left out.
    assert [a.outcome for a in store.prior_attempts(e)] == [
        "reopened",
        "reverted",
        "rejected",
        "removed",
    ]


def test_a_revert_without_a_named_change_closes_the_nearest_one(store: Store) -> None:
    put(store, "add", "t.c", "one", "2026-01-01")
    two = put(store, "modify", "t.c", "two", "2026-01-02")
    rv = put(store, "revert", "t.c", "undo", "2026-01-03")
    attempts = store.prior_attempts("t.c")
    assert [(a.change.id, a.closed_by.id) for a in attempts if a.change] == [(two.id, rv.id)]


def test_a_late_removal_is_not_paired(store: Store) -> None:
    put(store, "add", "t.c", "one", "2026-01-01")
    put(store, "remove", "t.c", "gone", "2026-03-01")
    assert store.prior_attempts("t.c") == []


def test_prior_attempts_of_a_table_can_include_its_columns(store: Store) -> None:
    put(store, "add", "users.a", "x", "2026-01-01")
    put(store, "revert", "users.a", "y", "2026-01-02")
    put(store, "reject", "users.b", "z", "2026-01-03", alternative="w")
    assert store.prior_attempts("users") == []
    got = store.prior_attempts("USERS", include_children=True)
    assert [(a.entity, a.outcome) for a in got] == [
        ("users.a", "reverted"),
        ("users.b", "rejected"),
    ]


def test_history_as_of_uses_recorded_time_and_keeps_occurred_time(store: Store) -> None:
    old = put(store, "add", "t.c", "imported", "2026-05-01", occurred_at="2019-03-04")
    put(store, "revert", "t.c", "later", "2026-06-01")
    assert [e.id for e in store.history("t.c", as_of="2026-05-01")] == [old.id]
    assert store.history("t.c", as_of="2019-12-31") == []  # occurred then, recorded later
    assert store.history("t.c", as_of="2026-05-01")[0].occurred_at == "2019-03-04T00:00:00.000Z"
    assert len(store.history("t.c")) == 2
    with pytest.raises(ValidationError, match="as-of"):
        store.history("t.c", as_of="last tuesday")


def test_search_over_reasoning_alternatives_and_paths(store: Store) -> None:
    for i in range(6):  # unrelated decisions give the terms a meaningful rarity
        put(store, "add", f"t.c{i}", f"unrelated decision number {i}", "2026-01-01")
    put(store, "add", "deps/stripe", "payments through the stripe sdk", "2026-01-01")
    put(store, "reject", "deps/stripe", "pci scope", "2026-01-02", alternative="store raw cards")
    best = put(store, "add", "billing.card_token", "stripe stripe stripe tokens", "2026-01-03")
    hits = store.search("stripe")
    assert hits[0].event.id == best.id
    assert {h.event.entity for h in hits} == {"deps/stripe", "billing.card_token"}
    # the alternative holds both words; the path "card_token" only the stem of one
    assert [h.event.entity for h in store.search("raw cards")] == [
        "deps/stripe",
        "billing.card_token",
    ]
    assert [h.event.entity for h in store.search("card_token")] == ["billing.card_token"]
    assert store.search("naïve") == []
    with pytest.raises(ValidationError):
        store.search("  ...  ")


def test_reviews_fall_due(store: Store) -> None:
    due = put(store, "add", "t.a", "revisit me", "2026-01-01", revisit_after="2026-02-01")
    put(store, "add", "t.b", "later", "2026-01-01", revisit_after="2027-01-01")
    exp = put(store, "add", "t.c", "until", "2026-01-01", expires_when="date:2026-01-15")
    watch = put(store, "add", "t.d", "until users changes", "2026-01-01",
                expires_when="entity:USERS:changes")  # fmt: skip
    put(store, "add", "t.e", "by hand", "2026-01-01", expires_when="manual:after the audit")
    assert watch.expires_when == "entity:users:changes"
    got = store.due_reviews(today=date(2026, 3, 1))
    assert {(r.event.id, r.reason) for r in got} == {
        (due.id, "revisit_after"),
        (exp.id, "expires_when"),
    }
    put(store, "modify", "users.email", "touches users", "2026-02-10")
    got = store.due_reviews(today=date(2026, 3, 1))
    assert (watch.id, "expires_when") in {(r.event.id, r.reason) for r in got}
    assert store.due_reviews(today=date(2025, 1, 1)) == []


def test_a_superseded_decision_is_no_longer_due_for_review(store: Store) -> None:
    old = put(store, "reject", "deps/stripe", "fees", "2026-01-01",
              alternative="adyen", revisit_after="2026-02-01")  # fmt: skip
    kept = put(store, "add", "t.a", "revisit me", "2026-01-01", revisit_after="2026-02-01")
    today = date(2026, 3, 1)
    assert {r.event.id for r in store.due_reviews(today=today)} == {old.id, kept.id}
    put(store, "supersede", "deps/stripe", "fees are fine now", "2026-02-15", supersedes=old.id)
    assert [r.event.id for r in store.due_reviews(today=today)] == [kept.id]
    # The supersedes are read through their partial index, not by a scan of every event
    # (280 ms at 1M events, every time the editor saw the log change).
    seen: list[str] = []
    store.index.db.set_trace_callback(seen.append)
    try:
        assert store.index.superseded_keys([id_key(old.id)]) == {id_key(old.id)}
    finally:
        store.index.db.set_trace_callback(None)
    plan = str(store.index.db.execute("EXPLAIN QUERY PLAN " + seen[-1]).fetchall())
    assert "event_supersedes" in plan, plan


def test_relative_revisit_offsets_become_dates(store: Store) -> None:
    ev = store.append(
        EventDraft(type="add", entity="t.a", reasoning="x", revisit_after="30d")
    ).event
    assert len(ev.revisit_after) == 10 and ev.revisit_after > date.today().isoformat()


def test_source_keys_are_indexed_for_importers(store: Store) -> None:
    store.append(
        EventDraft(type="add", entity="t.a", reasoning="x", metadata={"source_key": "sql:1"})
    )
    store.append(
        EventDraft(type="add", entity="t.b", reasoning="x", metadata={"source_key": "git:9"})
    )
    assert store.source_keys("sql:") == {"sql:1"}
    assert store.source_keys("") == {"sql:1", "git:9"}


def test_open_reverts_are_the_reverts_no_supersede_names(store: Store) -> None:
    # What change fingerprints are read from: found without deriving every status.
    r1 = put(store, "revert", "a.py::f", "broke", "2026-01-01", metadata={"fingerprint": "ab"})
    r2 = put(store, "revert", "a.py::f", "broke again", "2026-01-02")
    r3 = put(store, "revert", "b.py::g", "slow", "2026-01-03", metadata={"fingerprint": "cd"})
    put(store, "reject", "c.py", "no", "2026-01-04", alternative="a rewrite")
    put(store, "add", "c.py::h", "fine", "2026-01-05")
    put(store, "supersede", "a.py::f", "fixed", "2026-01-06", supersedes=r2.id)
    assert sorted(e.id for e in store.open_reverts()) == sorted([r1.id, r3.id])
    put(store, "supersede", "b.py::g", "fast now", "2026-01-07", supersedes=r3.id)
    assert [e.id for e in store.open_reverts()] == [r1.id]
    assert store.open_reverts()[0].metadata["fingerprint"] == "ab"


def test_open_reverts_carrying_a_key_are_only_those_whose_metadata_has_it(store: Store) -> None:
    # The editor reads only the reverts with a fingerprint: the word in the reasoning, or
    # in another key's value, is not the key.
    r1 = put(store, "revert", "a.py::f", "broke", "2026-01-01", metadata={"fingerprint": "ab"})
    put(store, "revert", "a.py::g", "no fingerprint here", "2026-01-02")
    put(store, "revert", "a.py::h", "x", "2026-01-03", metadata={"note": "fingerprint"})
    r4 = put(store, "revert", "b.py::k", "slow", "2026-01-04", metadata={"fingerprint": "cd"})
    put(store, "supersede", "b.py::k", "fast now", "2026-01-05", supersedes=r4.id)
    assert [e.id for e in store.open_reverts(carrying=("fingerprint",))] == [r1.id]
    assert len(store.open_reverts()) == 3


def test_open_reverts_printing_are_found_by_line_hash_with_their_whole_change(
    store: Store, cairn_dir: Path
) -> None:
    # The gate's lookup: only reverts holding one of the asked hashes, plus the other
    # events of the same commit (a print spans them all), open ones only; a rebuild of
    # the index from the log finds the same.
    fp = "fingerprint"
    a = put(store, "revert", "a.py::f", "x", "2026-01-01", commit="c1c1", metadata={fp: "0000000a"})
    b = put(store, "revert", "b.py::g", "x", "2026-01-02", commit="c1c1", metadata={fp: "0000000b"})
    c = put(
        store, "revert", "c.py::h", "x", "2026-01-03", commit="c2c2", metadata={fp: "+0000000a"}
    )
    d = put(store, "revert", "d.py::k", "x", "2026-01-04", metadata={fp: "0000000d BAD"})
    put(store, "supersede", "d.py::k", "back", "2026-01-05", supersedes=d.id)
    e = put(store, "revert", "e.py::m", "x", "2026-01-06", metadata={fp: "0000000e"})

    def found() -> list[list[str]]:
        asks = [["0000000a"], ["0000000b"], ["+0000000a"], ["0000000d"], ["0000000e", "BAD"]]
        return [[x.id for x in store.open_reverts_printing(words)] for words in asks]

    expected = [[a.id, b.id], [a.id, b.id], [c.id], [], [e.id]]
    assert found() == expected
    assert store.open_reverts_printing(["ffffffff", "", "+"]) == []
    # every open fingerprinted revert is the same whether found by hash or by reading all
    everything = ["0000000a", "0000000b", "+0000000a", "0000000d", "0000000e"]
    assert store.open_reverts_printing(everything) == store.open_reverts(carrying=(fp,))
    store.close()
    remove_index(cairn_dir)
    with Store.open(cairn_dir) as reopened:
        store = reopened
        assert found() == expected


def test_the_index_finds_marked_rows_without_reading_the_log(store: Store) -> None:
    # Rename links and fingerprinted reverts are marked at ingest: asking for them by key
    # gives only their rows, and a rebuild marks the same.
    put(store, "rename", "users.mail", "no link", "2026-01-01")
    link = put(store, "rename", "users.email", "x", "2026-01-02", metadata={"renamed_to": "u.e"})
    put(store, "revert", "a.py::f", "no print", "2026-01-03")
    fp = put(store, "revert", "a.py::g", "p", "2026-01-04", metadata={"fingerprint": "ab"})
    cairn_dir = store.cairn_dir
    store.close()
    for rebuilt in (False, True):
        if rebuilt:
            Store.rebuild(cairn_dir)
        with Store.open(cairn_dir) as fresh:
            index = fresh.index
            links = index.rename_rows(("renamed_to", "renamed_from"))
            assert [index.event_id_at(r) for r in links] == [link.id]
            assert [index.event_id_at(r) for r in index.revert_rows(("fingerprint",))] == [fp.id]
            assert len(index.rename_rows()) == 2 and len(index.revert_rows()) == 2
            with pytest.raises(ValueError, match="marks no metadata key"):
                index.revert_rows(("source",))


def test_renames_carrying_link_keys_skip_renames_that_link_nothing(store: Store) -> None:
    put(store, "rename", "users.mail", "no link recorded", "2026-01-01")
    to = put(store, "rename", "users.email", "x", "2026-01-02", metadata={"renamed_to": "users.e"})
    back = put(store, "rename", "t.b", "y", "2026-01-03", metadata={"renamed_from": "t.a"})
    keys = ("renamed_to", "renamed_from")
    assert [e.id for e in store.renames(carrying=keys)] == [to.id, back.id]
    assert len(store.renames()) == 3


def test_a_move_is_never_a_conflict(store: Store) -> None:
    """A file reverted, then moved: the rename on its old path re-applies nothing, so
    the status stays `reverted` (written linearly, as `advance` sees it, and rebuilt, as
    `derive` does), while a real change after the verdict still conflicts."""
    put(store, "revert", "src/auth.py", "token format undone", "2026-01-01")
    meta = {"renamed_to": "src/session.py"}
    put(store, "rename", "src/auth.py", "moved", "2026-01-02", metadata=meta)
    put(store, "revert", "src/b.py", "undone", "2026-01-01")
    put(store, "rename", "src/b.py", "moved", "2026-01-02", metadata={"renamed_to": "src/c.py"})
    put(store, "modify", "src/b.py", "back again", "2026-01-03")
    cairn_dir = store.cairn_dir
    store.close()
    for rebuilt in (False, True):
        if rebuilt:
            Store.rebuild(cairn_dir)
        with Store.open(cairn_dir) as fresh:
            found = fresh.status_many(["src/auth.py", "src/b.py"])
            assert found["src/auth.py"].status.value == "reverted"
            assert found["src/b.py"].status.value == "conflict"
            assert fresh.status("src/auth.py").status.value == "reverted"
            assert [c.type.value for c in fresh.status("src/b.py").conflicts] == ["modify"]
