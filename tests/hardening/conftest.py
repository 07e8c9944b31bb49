"""Fixtures for the hardening tests: a project on disk and the real CLI entry point."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.store import Store, init_store

from .cli import Run


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An initialised project, the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    init_store(root)
    monkeypatch.chdir(root)
    monkeypatch.delenv("CAIRN_DIR", raising=False)
    monkeypatch.setenv("CAIRN_AUTHOR", "Ada <ada@example.org>")
    return root


@pytest.fixture
def run(project: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    return Run(capsys)


@pytest.fixture
def store(project: Path) -> Iterator[Store]:
    opened = Store.open(project / ".cairn")
    yield opened
    opened.close()
