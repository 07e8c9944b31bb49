"""Importers keep the reasons they have: a migration's reason is the message of the commit
that added it, and `import git` records dependencies added or dropped by commits that
say why (the real CLI on real git repositories)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from usability.helpers import git, ok

DROP = "Drop orders.note\n\nSupport moved notes to the ticket system; nobody read them."
REVISION = '''"""drop note

Revision ID: 9f1e
Revises:
Create Date: 2024-02-01 10:00:00.000000

"""
from alembic import op

revision = "9f1e"
down_revision = None


def upgrade():
    op.drop_column("orders", "note")
'''


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "shop"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    ok(root, "init")
    (root / "README.md").write_text("shop\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "Start the shop")
    return root


def history(root: Path, entity: str) -> list[dict]:
    return json.loads(ok(root, "history", entity, "--json"))


def test_sql_import_takes_the_reason_from_the_commit_that_added_the_file(repo: Path) -> None:
    (repo / "db").mkdir()
    (repo / "db" / "005_note.sql").write_text("ALTER TABLE orders ADD COLUMN note text;\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Let customers leave a note on orders")
    (repo / "db" / "006_drop_note.sql").write_text("ALTER TABLE orders DROP COLUMN note;\n")
    (repo / "db" / "007_gift.sql").write_text("ALTER TABLE orders ADD COLUMN gift boolean;\n")
    git(repo, "add", "db/006_drop_note.sql")
    git(repo, "commit", "-qm", DROP)
    ok(repo, "import", "sql", "db")
    add, remove = history(repo, "orders.note")
    assert add["reasoning"] == "Let customers leave a note on orders"
    assert remove["reasoning"] == DROP
    # Not committed yet: the file name is all there is.
    [gift] = history(repo, "orders.gift")
    assert gift["reasoning"] == "Migration 007_gift.sql (gift)"


def test_alembic_import_takes_the_reason_from_the_commit_too(repo: Path) -> None:
    versions = repo / "alembic" / "versions"
    versions.mkdir(parents=True)
    (versions / "9f1e_drop_note.py").write_text(REVISION)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", DROP)
    ok(repo, "import", "alembic", "alembic")
    [remove] = history(repo, "orders.note")
    assert (remove["type"], remove["reasoning"]) == ("remove", DROP)


def commit_requirements(repo: Path, text: str, message: str) -> None:
    (repo / "requirements.txt").write_text(text)
    git(repo, "add", "requirements.txt")
    git(repo, "commit", "-qm", message)


def test_import_git_records_dependency_changes_whose_messages_explain_them(repo: Path) -> None:
    commit_requirements(repo, "flask==3.0\n", "A web app")
    commit_requirements(
        repo,
        "flask==3.0\ncelery==5.3\n",
        "Add celery for background jobs\n\nE-mails go out from a worker.",
    )
    # a version change is a `modify` with from/to (issue 10), whatever the message says
    commit_requirements(repo, "flask==3.1\ncelery==5.3\n", "Bump flask")
    commit_requirements(repo, "flask==3.1\ncelery==5.3\nredis==5\n", "update deps")  # says nothing
    commit_requirements(
        repo, "flask==3.1\nredis==5\n", "Drop celery: we don't want to run a broker; RQ on Redis"
    )
    report = json.loads(ok(repo, "import", "git", "--json"))
    assert [(e["type"], e["entity"]) for e in report["events"]] == [
        ("add", "deps/celery"),
        ("modify", "deps/flask"),
        ("remove", "deps/celery"),
    ]
    [bump] = history(repo, "deps/flask")
    assert (bump["metadata"]["from"], bump["metadata"]["to"]) == ("==3.0", "==3.1")
    add, remove = history(repo, "deps/celery")
    assert add["reasoning"] == "Add celery for background jobs\n\nE-mails go out from a worker."
    assert remove["reasoning"] == "Drop celery: we don't want to run a broker; RQ on Redis"
    assert remove["metadata"]["file"] == "requirements.txt"
    assert len(remove["commit"]) == 40
    assert json.loads(ok(repo, "status", "deps/celery", "--json"))["status"] == "removed"
    assert history(repo, "deps/redis") == []
    again = json.loads(ok(repo, "import", "git", "--json"))
    assert again["imported"] == 0
