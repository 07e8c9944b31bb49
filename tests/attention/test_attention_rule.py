"""The quiet rule on real store statuses: what deserves attention and what stays quiet."""

from __future__ import annotations

from pathlib import Path

from cairn.core.attention import AttentionPolicy, Reason, attention, needs_history
from cairn.store import EventDraft, Store, init_store


def make_store(tmp_path: Path) -> Store:
    return Store.open(init_store(tmp_path / "repo"))


def test_an_imported_creation_alone_is_quiet_and_verdicts_are_loud(tmp_path: Path) -> None:
    with make_store(tmp_path) as store:
        store.append(EventDraft(type="add", entity="users.email", reasoning="0001_initial"))
        added = store.append(EventDraft(type="add", entity="users.flag", reasoning="x")).event
        store.append(
            EventDraft(type="revert", entity="users.flag", reasoning="broke", reverts=added.id)
        )
        quiet = store.status("users.email")
        loud = store.status("users.flag")
        table = store.status("users")
    assert not attention(quiet)
    assert attention(loud).reasons == (Reason.OPEN_VERDICT,)
    # a table with no history of its own but a reverted column: its rollup says so
    assert Reason.CHILDREN in attention(table).reasons
    # the setting turns the rule off: any history deserves a lens
    assert attention(quiet, policy=AttentionPolicy(quiet=False)).reasons == (Reason.HISTORY,)


def test_a_removal_later_readded_needs_the_history(tmp_path: Path) -> None:
    with make_store(tmp_path) as store:
        for type_, day in (("add", "2020-01-01"), ("remove", "2021-01-01"), ("add", "2022-01-01")):
            store.append(EventDraft(type=type_, entity="t.c", reasoning=type_, occurred_at=day))
        store.append(EventDraft(type="add", entity="t.d", reasoning="a", occurred_at="2020-01-01"))
        store.append(
            EventDraft(type="remove", entity="t.d", reasoning="r", occurred_at="2021-01-01")
        )
        readded, removed = store.status("t.c"), store.status("t.d")
        readded_events, removed_events = store.history("t.c"), store.history("t.d")
    assert str(readded.status) == "active"  # the status alone cannot tell
    assert needs_history(readded)
    assert not attention(readded)
    assert attention(readded, readded_events).reasons == (Reason.READDED,)
    # dropped and never re-added: the status says so, no history needed
    assert not needs_history(removed)
    assert attention(removed, removed_events).reasons == (Reason.REMOVED,)


def test_many_decisions_is_a_setting(tmp_path: Path) -> None:
    with make_store(tmp_path) as store:
        for i in range(3):
            store.append(EventDraft(type="modify", entity="src/a.py::f", reasoning=f"r{i}"))
        status = store.status("src/a.py::f")
    assert not attention(status, [])  # 3 is not more than the default 3
    assert attention(status, [], AttentionPolicy(busy_after=2)).reasons == (Reason.BUSY,)
    assert not needs_history(status, AttentionPolicy(busy_after=2))  # the count decides
