"""Fixtures for the importer tests: a real project in a real git repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_cli import cairn, git


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty git repository with `cairn init` done."""
    root = tmp_path / "app"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    proc = cairn(root, "init")
    assert proc.returncode == 0, proc.stderr
    return root
