"""Fixtures: a fresh project with an initialised `.cairn/` and an open store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.store import Store, init_store


@pytest.fixture
def cairn_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CAIRN_AUTHOR", "Ada Lovelace <ada@example.org>")
    return init_store(tmp_path / "repo")


@pytest.fixture
def store(cairn_dir: Path) -> Iterator[Store]:
    opened = Store.open(cairn_dir)
    yield opened
    opened.close()
