"""`cairn export html OUT/` never deletes what it did not write (issue 35, item 1).

A cloned repository can ship any file, links and a `.cairn-site` marker included; the
export must refuse every target that would replace the project, and replace only a
folder this machine's export wrote.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from real_cli import cairn, git, one_line_error


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under `root` (links not followed), by relative path."""
    out: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            out[str(path.relative_to(root))] = (
                os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            )
        out.update({str((Path(folder) / d).relative_to(root)) + "/": b"" for d in dirs})
    return out


@pytest.fixture
def hostile_clone(tmp_path: Path) -> Path:
    """A clone of a repository that ships `site -> .` and a `.cairn-site` marker, with a
    decision logged and an uncommitted file (what the user would lose)."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    (upstream / "app.py").write_text("def pay():\n    return 1\n")
    (upstream / ".cairn-site").write_text("This folder was written by `cairn export html`\n")
    os.symlink(".", upstream / "site")
    os.symlink(".git", upstream / "docs")
    assert cairn(upstream, "init").returncode == 0
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "ship a trap")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    assert (clone / "site").is_symlink()
    proc = cairn(clone, "log", "app.py::pay", "reject", "-r", "not here", "--alternative", "x")
    assert proc.returncode == 0, proc.stderr
    (clone / "work-in-progress.py").write_text("uncommitted")
    return clone


@pytest.mark.parametrize("target", ["site", "site/", "docs", "docs/site", ".", "..", ".git"])
def test_a_shipped_link_or_the_project_itself_is_refused_and_nothing_is_touched(
    hostile_clone: Path, target: str
) -> None:
    before = snapshot(hostile_clone)
    proc = cairn(hostile_clone, "export", "html", target)
    one_line_error(proc)
    assert snapshot(hostile_clone) == before
    assert not [p for p in hostile_clone.parent.iterdir() if p.name.startswith(".")]


def test_a_target_reached_through_a_link_into_cairn_dir_is_refused(
    hostile_clone: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(hostile_clone / ".cairn", elsewhere / "hop")
    before = snapshot(hostile_clone)
    one_line_error(cairn(hostile_clone, "export", "html", str(elsewhere / "hop" / "site")))
    one_line_error(cairn(hostile_clone, "export", "html", str(tmp_path)))  # holds the root
    assert snapshot(hostile_clone) == before


def test_a_shipped_folder_with_a_marker_is_not_replaced(tmp_path: Path) -> None:
    upstream = tmp_path / "upstream"
    (upstream / "site" / "e").mkdir(parents=True)
    git(upstream, "init", "-q", "-b", "main")
    assert cairn(upstream, "init").returncode == 0
    (upstream / "site" / ".cairn-site").write_text("written by `cairn export html`\n")
    (upstream / "site" / "index.html").write_text("theirs")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-q", "-m", "a site with a marker")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(upstream), str(clone))
    (clone / "site" / "notes.md").write_text("uncommitted, mine")
    proc = cairn(clone, "export", "html", "site")
    one_line_error(proc)
    assert "not written by `cairn export html` on this machine" in proc.stderr
    assert (clone / "site" / "notes.md").read_text() == "uncommitted, mine"
    assert (clone / "site" / "index.html").read_text() == "theirs"


def test_a_site_this_machine_wrote_is_replaced_until_someone_adds_to_it(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    assert cairn(project, "init").returncode == 0
    assert cairn(project, "log", "users.email", "add", "-r", "login").returncode == 0
    first = cairn(project, "export", "html", "site")
    assert first.returncode == 0, first.stderr
    again = cairn(project, "export", "html", "site")
    assert again.returncode == 0, again.stderr  # its own output: replaced
    (project / "site" / "keep.txt").write_text("mine now")
    proc = cairn(project, "export", "html", "site")
    one_line_error(proc)
    assert (project / "site" / "keep.txt").read_text() == "mine now"
    # a link to a site this machine wrote is still a link: refused, not followed
    os.symlink(project / "site", tmp_path / "alias")
    one_line_error(cairn(project, "export", "html", str(tmp_path / "alias")))
    assert (project / "site" / "keep.txt").exists()


def test_file_exports_refuse_the_repository_config(hostile_clone: Path) -> None:
    config = (hostile_clone / ".git" / "config").read_bytes()
    for fmt in ("jsonl", "markdown"):
        one_line_error(cairn(hostile_clone, "export", fmt, "-o", ".git/config"))
        one_line_error(cairn(hostile_clone, "export", fmt, "-o", "docs/config"))
    assert (hostile_clone / ".git" / "config").read_bytes() == config
