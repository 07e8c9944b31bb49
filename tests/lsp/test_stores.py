"""StoreHub against real stores: caches follow the log, a vanished folder comes back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from lsp_helpers import make_sample

from cairn.lsp.stores import StoreHub, StoreUnavailable
from cairn.store import EventDraft, Store


@pytest.fixture
async def hub():
    hub = StoreHub()
    yield hub
    hub.shutdown()


async def test_status_cache_follows_writes_by_another_writer(hub: StoreHub, tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    cairn_dir = sample.root / ".cairn"
    first = await hub.statuses(cairn_dir, ["users.email_verified", "deps/requests"])
    assert str(first["users.email_verified"].status) == "reverted"
    assert first["deps/requests"].event_count == 0
    again = await hub.statuses(cairn_dir, ["users.email_verified"])
    assert again["users.email_verified"] is first["users.email_verified"]  # cached

    # Another process (here: another Store on the same folder) writes.
    with Store.open(cairn_dir) as other:
        other.append(EventDraft(type="reject", entity="deps/requests",
                                alternative="vendor it", reasoning="Too big."))  # fmt: skip
    after = await hub.statuses(cairn_dir, ["users.email_verified", "deps/requests"])
    assert str(after["deps/requests"].status) == "rejected"
    assert after["users.email_verified"] is not first["users.email_verified"]


async def test_preload_opens_the_session_and_answers_stay_the_same(
    hub: StoreHub, tmp_path: Path
) -> None:
    sample = make_sample(tmp_path / "shop")
    cairn_dir = sample.root / ".cairn"
    missing = tmp_path / "gone" / ".cairn"
    hub.preload([missing, cairn_dir]).result(timeout=60)  # a bad folder is left for later
    session = hub._sessions[cairn_dir]  # opened on the store thread, with its version read
    assert session._version is not None and session._version.aliases is not None
    warm = await hub.statuses(cairn_dir, ["users.email_verified", "deps/requests"])
    other = StoreHub()
    try:
        cold = await other.statuses(cairn_dir, ["users.email_verified", "deps/requests"])
    finally:
        other.shutdown()
    assert {e: (str(s.status), s.event_count) for e, s in warm.items()} == {
        e: (str(s.status), s.event_count) for e, s in cold.items()
    }
    with pytest.raises(StoreUnavailable):
        await hub.statuses(missing, ["users"])


async def test_hover_cards_are_cached_until_the_log_changes(hub: StoreHub, tmp_path: Path) -> None:
    sample = make_sample(tmp_path / "shop")
    cairn_dir = sample.root / ".cairn"
    card = await hub.hover_data(cairn_dir, "users.email_verified", 6)
    assert [str(e.type) for e in card.newest] == ["revert", "add"]  # newest first
    assert await hub.hover_data(cairn_dir, "users.email_verified", 6) is card
    await hub.prefetch_hovers(cairn_dir, ["deps/stripe"], 6)
    stripe = await hub.hover_data(cairn_dir, "deps/stripe", 6)
    assert str(stripe.status.status) == "rejected"

    sample.append(type="supersede", entity="users.email_verified", reasoning="Fixed.")
    fresh = await hub.hover_data(cairn_dir, "users.email_verified", 6)
    assert str(fresh.status.status) == "reopened"
    assert str(fresh.newest[0].type) == "supersede"


async def test_a_vanished_folder_is_reported_and_noticed_when_it_returns(
    hub: StoreHub, tmp_path: Path
) -> None:
    sample = make_sample(tmp_path / "shop")
    cairn_dir = sample.root / ".cairn"
    await hub.statuses(cairn_dir, ["users.email_verified"])
    backup = tmp_path / "backup"
    shutil.copytree(cairn_dir, backup)
    shutil.rmtree(cairn_dir)
    assert await hub.refresh_all() == {cairn_dir}
    with pytest.raises(StoreUnavailable, match="does not exist"):
        await hub.statuses(cairn_dir, ["users.email_verified"])
    shutil.copytree(backup, cairn_dir)
    assert await hub.refresh_all() == {cairn_dir}
    back = await hub.statuses(cairn_dir, ["users.email_verified"])
    assert str(back["users.email_verified"].status) == "reverted"


def test_the_version_the_servers_report_is_the_installed_one() -> None:
    from importlib.metadata import version

    import cairn

    assert cairn.__version__ == version("cairn-lsp")
