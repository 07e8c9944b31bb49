"""Which lines `cairn check` counts: real `git diff -U0` output and edit diffs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from cairn.cli.check_cmd import _new_side, changed_lines, parse_added_lines


def git(cwd: Path, *args: str) -> str:
    """Run git in a throwaway repository with a fixed identity."""
    env_args = ["-c", "user.name=T", "-c", "user.email=t@example.invalid"]
    env_args += ["-c", "core.quotepath=off"]
    proc = subprocess.run(
        ["git", *env_args, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return proc.stdout


def diff(cwd: Path, *extra: str) -> str:
    return git(cwd, "diff", "-U0", "--no-color", "-M", "--src-prefix=a/", "--dst-prefix=b/", *extra)


def test_added_and_changed_lines_of_a_real_diff(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "a.sql").write_text("one\ntwo\nthree\nfour\n")
    (tmp_path / "gone.sql").write_text("x\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    # change line 2, insert after 4, delete gone.sql's only line, add a new file
    (tmp_path / "a.sql").write_text("one\nTWO\nthree\nfour\nfive\nsix\n")
    (tmp_path / "gone.sql").write_text("")
    (tmp_path / "dir with space").mkdir()
    (tmp_path / "dir with space" / "new é.sql").write_text("++ looks like a header\nb\n")
    git(tmp_path, "add", ".")
    added = parse_added_lines(diff(tmp_path, "--cached"))
    assert added == {"a.sql": {2, 5, 6}, "dir with space/new é.sql": {1, 2}}


@pytest.mark.parametrize("quotepath", ["on", "off"])
def test_quoted_paths_are_unquoted(tmp_path: Path, quotepath: str) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / 'we"ird é.sql').write_text("a\n")
    git(tmp_path, "add", ".")
    out = subprocess.run(
        ["git", "-c", f"core.quotepath={quotepath}", "diff", "--cached", "-U0", "--dst-prefix=b/"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert '+++ "b/we\\"ird' in out  # git quotes the name either way (it holds a quote)
    assert parse_added_lines(out) == {'we"ird é.sql': {1}}


def test_a_rename_counts_only_the_edited_lines(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    body = "".join(f"line {i}\n" for i in range(1, 21))
    (tmp_path / "old.py").write_text(body)
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "mv", "old.py", "new.py")
    (tmp_path / "new.py").write_text(body.replace("line 7\n", "line seven\n"))
    git(tmp_path, "add", ".")
    assert parse_added_lines(diff(tmp_path, "--cached")) == {"new.py": {7}}


def test_new_side_of_revisions() -> None:
    assert _new_side(None, True) == ":"
    assert _new_side("main", False) is None
    assert _new_side("main..topic", False) == "topic:"
    assert _new_side("main...", False) == "HEAD:"


def test_changed_lines_of_an_edit() -> None:
    old = "a\nb\nc\n"
    assert changed_lines(old, old) == frozenset()
    assert changed_lines(old, "a\nB\nc\n") == {2}
    assert changed_lines(old, "z\na\nb\nc\nd\n") == {1, 5}
    assert changed_lines(old, "a\nc\n") == frozenset()  # a pure deletion adds nothing
