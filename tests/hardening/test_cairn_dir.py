"""Item 8: CAIRN_DIR pointing at a project root (not its .cairn/) is refused with the
path it expected, instead of silently starting a second log there."""

from __future__ import annotations

from pathlib import Path

import pytest

from .cli import Run


def test_a_project_root_is_refused_with_the_expected_path(
    run: Run, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_DIR", str(project))
    code, _, err = run("log", "users.email", "add", "-r", "x")
    assert code == 2 and f"CAIRN_DIR={project / '.cairn'}" in err
    assert not (project / "decisions.jsonl").exists() and not (project / "index.db").exists()


def test_any_other_folder_is_refused(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "notes"
    other.mkdir()
    (other / "todo.txt").write_text("x")
    monkeypatch.setenv("CAIRN_DIR", str(other))
    code, _, err = run("status", "users.email")
    assert code == 2 and "not a Cairn folder" in err
    assert sorted(p.name for p in other.iterdir()) == ["todo.txt"]


def test_a_real_cairn_folder_and_an_empty_one_named_so_work(
    run: Run, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_DIR", str(project / ".cairn"))
    assert run("log", "users.email", "add", "-r", "x")[0] == 0
    fresh = tmp_path / "elsewhere" / ".cairn"
    fresh.mkdir(parents=True)
    monkeypatch.setenv("CAIRN_DIR", str(fresh))
    code, _, err = run("log", "users.email", "add", "-r", "x")
    assert code == 0, err
