"""Decisions linked to the commit that landed them: the real post-commit hook Cairn
writes, real commits in a real git repository, and every surface that shows it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from check_fixtures import CAIRN, cairn, git, make_project

from cairn.core.present import hover_markdown, quiet_hover_markdown
from cairn.core.project import find_project
from cairn.core.session import Session
from cairn.githooks import block, hook_file, make_executable, merged

LOG = Path(".cairn/decisions.jsonl")


def install_post_commit(root: Path) -> Path:
    path = hook_file(root, "post-commit")
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(merged(None, block("post-commit", CAIRN)))
    make_executable(path)
    return path


def commit_all(root: Path, message: str, *extra: str, add: bool = True) -> tuple[str, str]:
    """(HEAD after the commit, what the hooks printed on stderr)."""
    if add:
        git(root, "add", "-A")

    proc = subprocess.run(
        ["git", "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-qm",
         message, *extra],
        cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return git(root, "rev-parse", "HEAD").strip(), proc.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path)
    install_post_commit(root)
    return root


def log_decision(root: Path) -> str:
    proc = cairn(
        root, "log", "orders.note", "add", "-r", "Support needs a free-text note", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["id"])


def test_the_hook_links_a_decision_to_its_commit_without_rewriting_it(project: Path) -> None:
    eid = log_decision(project)
    before = (project / LOG).read_bytes()
    sha, _ = commit_all(project, "orders: add a note column")
    after = (project / LOG).read_bytes()
    assert after.startswith(before)  # append-only: the decision's line is untouched
    link = json.loads(after[len(before) :].decode())
    assert link["type"] == "annotate" and link["metadata"]["annotates"] == eid
    assert link["commit"] == sha
    status = json.loads(cairn(project, "status", "orders.note", "--json").stdout)
    assert status["commits"] == {eid: sha}
    text = cairn(project, "status", "orders.note").stdout
    assert "latest: add" in text and f"in commit {sha[:12]}" in text
    history = cairn(project, "history", "orders.note").stdout
    assert f"in commit {sha[:12]}" in history and "Landed in" not in history
    assert cairn(project, "verify").returncode == 0
    # the old decisions were landed by the base commit, not this one: no link for them
    assert status["event_count"] == 2


def test_running_the_link_again_writes_nothing(project: Path) -> None:
    log_decision(project)
    sha, _ = commit_all(project, "orders: add a note column")
    once = (project / LOG).read_bytes()
    proc = cairn(project, "link-commit", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["linked"] == []
    assert (project / LOG).read_bytes() == once
    # the next commit carries the link line itself: a link is never linked
    sha2, _ = commit_all(project, "carry the link", "--allow-empty")
    assert (project / LOG).read_bytes() == once and sha2 != sha


def test_an_amended_commit_is_linked_again_and_wins(project: Path) -> None:
    eid = log_decision(project)
    first, _ = commit_all(project, "orders: add a note column")
    amended, _ = commit_all(project, "orders: add a note column (amended)", "--amend")
    assert amended != first
    status = json.loads(cairn(project, "status", "orders.note", "--json").stdout)
    assert status["commits"] == {eid: amended}


def test_hover_and_site_show_the_commit(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    cairn(
        project, "supersede", "users.email_verified", "-r", "Mail provider fixed"
    ).check_returncode()
    git(project, "rm", "-q", "--cached", "-r", ".cairn")  # stays in the tree
    sha, err = commit_all(project, "untrack the log", add=False)
    assert "does not hold the decision log" in err  # said once, the commit went through
    git(project, "add", "-A")
    sha, _ = commit_all(project, "track it again")
    with Session.open(find_project(project)) as session:
        card = session.card("users.email_verified", 6)
        markdown = hover_markdown("users.email_verified", card.status, card.newest)
    # Everything the log held landed again in this commit (it was re-added whole).
    assert f"commit `{sha[:12]}`" in markdown
    assert "Landed in" not in markdown  # a link is shown as the commit, not as a note
    quiet = quiet_hover_markdown("users.email_verified", card.status, card.newest)
    assert "supersede" in quiet and f"commit `{sha[:12]}`" in quiet and "annotate" not in quiet
    site = tmp_path_factory.mktemp("site")
    cairn(project, "export", "html", str(site)).check_returncode()
    pages = "".join(p.read_text() for p in (site / "e").glob("users.email_verified*.html"))
    assert f"Commit <code>{sha[:12]}</code>" in pages
    # add, revert, supersede, each linked: three decisions and three notes, counted apart
    assert " · 3 decisions" in markdown.splitlines()[0]
    assert " · 3 decisions, 3 notes</p>" in pages


def test_link_commit_outside_a_repository_is_a_one_line_error(tmp_path: Path) -> None:
    make_project(tmp_path, repo=False)
    proc = cairn(tmp_path, "link-commit")
    assert proc.returncode == 2
    assert "not in a git repository" in proc.stderr and "Traceback" not in proc.stderr
    proc = cairn(tmp_path, "link-commit", "--output=/tmp/x")
    assert proc.returncode == 2
