"""Reading a big log pauses the cyclic collector and always gives it back as it was."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from cairn.store import EventDraft, Store, init_store
from cairn.store.errors import ValidationError
from cairn.store.gcpause import gc_paused
from cairn.store.verify import verify


def test_the_collector_is_off_inside_and_restored_after_an_error(collector_state: None) -> None:
    gc.enable()
    with pytest.raises(RuntimeError), gc_paused():
        assert not gc.isenabled()
        raise RuntimeError("the read failed")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_state: None) -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_verify_and_a_rebuild_leave_the_collector_on(tmp_path: Path, collector_state: None) -> None:
    gc.enable()
    cairn_dir = init_store(tmp_path)
    with Store.open(cairn_dir) as store:
        store.append_many(
            [EventDraft(type="add", entity=f"t.c{i}", reasoning="r") for i in range(20)]
        )
    assert verify(cairn_dir, full=True).ok
    Store.rebuild(cairn_dir)
    assert gc.isenabled()


def test_a_write_pauses_the_collector_and_gives_it_back_even_when_refused(
    tmp_path: Path, collector_state: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CAIRN_AUTHOR", raising=False)
    seen: list[bool] = []

    def author() -> str:  # asked while the drafts are prepared, under the write lock
        seen.append(gc.isenabled())
        return "ana"

    gc.enable()
    with Store.open(init_store(tmp_path), author=author) as store:
        store.append_many(
            [EventDraft(type="add", entity=f"t.c{i}", reasoning="r") for i in range(3)]
        )
        assert seen == [False] and gc.isenabled()
        with pytest.raises(ValidationError):
            store.append_many(
                [
                    EventDraft(type="add", entity="t.d", reasoning="r"),
                    EventDraft(type="add", entity="t.e", reasoning=" "),
                ]
            )
        assert gc.isenabled()
        assert len(store.history("t.d")) == 0
