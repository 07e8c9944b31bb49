"""Who wrote a decision: the store runs no git; the application hands it git's user."""

from __future__ import annotations

import getpass
import subprocess
from pathlib import Path

import pytest

from cairn.core.project import Project
from cairn.core.session import Session
from cairn.gitrefs import git_author
from cairn.store import EventDraft, Store, init_store


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CAIRN_AUTHOR", raising=False)
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for key, value in (("user.name", "Ada Lovelace"), ("user.email", "ada@example.org")):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    init_store(root)
    return root


def draft() -> EventDraft:
    return EventDraft(type="add", entity="users.email", reasoning="login needs it")


def test_the_store_alone_runs_no_git(repo: Path) -> None:
    with Store.open(repo / ".cairn") as store:
        event = store.append(draft()).event
    assert event.author == getpass.getuser()  # not git's user: nobody asked git


def test_the_application_supplies_gits_user(repo: Path) -> None:
    with Store.open(repo / ".cairn", author=git_author(repo)) as store:
        event = store.append(draft()).event
    assert event.author == "Ada Lovelace <ada@example.org>"
    with Session.open(Project(root=repo, cairn_dir=repo / ".cairn")) as session:
        again = session.store.append(draft()).event
    assert again.author == "Ada Lovelace <ada@example.org>"


def test_cairn_author_and_an_explicit_author_come_first(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CAIRN_AUTHOR", "Grace")
    with Store.open(repo / ".cairn", author=git_author(repo)) as store:
        assert store.append(draft()).event.author == "Grace"
        named = EventDraft(type="add", entity="users.name", reasoning="r", author="Lin")
        assert store.append(named).event.author == "Lin"
