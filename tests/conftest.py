"""Fixtures more than one area of the suite uses."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def collector_state() -> Iterator[None]:
    """Give the cyclic collector back as the test found it (tests that pause it)."""
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.fixture(scope="session", autouse=True)
def no_stray_gate_daemons() -> Iterator[None]:
    """The Claude Code hook starts a gate daemon for the next edit; a test run would leave
    one per project it made. The hook's own tests turn it on where they mean to."""
    import os

    was = os.environ.get("CAIRN_GATE_DAEMON")
    os.environ["CAIRN_GATE_DAEMON"] = "0"
    yield
    if was is None:
        os.environ.pop("CAIRN_GATE_DAEMON", None)
    else:
        os.environ["CAIRN_GATE_DAEMON"] = was


@pytest.fixture(scope="session", autouse=True)
def private_state_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Machine-local state (which sites this machine's exports wrote) goes to a folder of
    the test run, never the user's own ~/.local/state; subprocesses inherit it."""
    import os

    was = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("state"))
    yield
    if was is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = was
