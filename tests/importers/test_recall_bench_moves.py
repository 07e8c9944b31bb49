"""`bench/recall.py`'s `moved` category: a revert whose diff only moves lines is listed,
not scored (re-applying it brings nothing back), judged by the diff alone."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _recall():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("bench_recall", ROOT / "bench" / "recall.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_recall"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "A",
        "GIT_AUTHOR_EMAIL": "a@example.com",
        "GIT_COMMITTER_NAME": "A",
        "GIT_COMMITTER_EMAIL": "a@example.com",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    out = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)
    return out.stdout.decode()


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        (repo / name).write_text(text)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD").strip()


def test_a_revert_that_only_moves_lines_is_told_apart_from_one_that_changes_them(
    tmp_path: Path,
) -> None:
    recall = _recall()
    repo = tmp_path / "r"
    repo.mkdir()
    _git(repo, "init", "-q")
    _commit(repo, {"Gemfile": "gem 'rails'\ngem 'jquery-rails'\ngem 'pg'\n"}, "start")
    moved = _commit(
        repo, {"Gemfile": "gem 'rails'\ngem 'pg'\n  gem 'jquery-rails'\n"}, "Revert Gemfile change."
    )
    pinned = "gem 'rails'\ngem 'pg'\ngem 'jquery-rails', '2.0'\n"
    changed = _commit(repo, {"Gemfile": pinned}, "pin")
    created = _commit(repo, {"extra.rb": "x = 1\n"}, "add a file")
    assert recall.moves_only(repo, moved)  # the line went elsewhere, indentation aside
    assert not recall.moves_only(repo, changed)  # a line written differently is a change
    assert not recall.moves_only(repo, created)  # nothing taken out: no move

    cases = [
        recall.Case(moved, "unmarked", "Revert Gemfile change."),
        recall.Case(changed, "marker", 'Revert "pin"'),
        recall.Case(moved, "ordinary", "an ordinary commit is never set apart"),
    ]
    recall.mark_moved(repo, cases)
    assert [c.category for c in cases] == ["moved", "marker", "ordinary"]
    assert "moved" in recall.NOT_SCORED
