"""Fixtures for the trust tests (helpers live in harness.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cairn.store import EventDraft

from .harness import append_events, cairn, git


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository initialised as a Cairn project by the real CLI."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    done = cairn(root, "init")
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def cairn_dir(repo: Path) -> Path:
    """The `.cairn/` folder of `repo`."""
    return repo / ".cairn"


@pytest.fixture
def seeded(cairn_dir: Path) -> Iterator[list[Any]]:
    """Five events on a few entities, written through the store."""
    yield append_events(
        cairn_dir,
        [
            EventDraft(type="add", entity="users.email", reasoning="login by email"),
            EventDraft(type="add", entity="users.email_verified", reasoning="verify addresses"),
            EventDraft(type="modify", entity="users.email", reasoning="make it unique"),
            EventDraft(
                type="reject",
                entity="deps/stripe",
                reasoning="fees too high",
                alternative="use stripe for billing",
            ),
            EventDraft(type="add", entity="src/auth.py::Session.login", reasoning="sessions"),
        ],
    )
