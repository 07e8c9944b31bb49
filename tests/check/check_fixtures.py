"""A real project for the gate's tests: a git repository with a decision log."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cairn.store import EventDraft, Store, init_store

BIN = Path(sys.executable).parent
CAIRN = str(BIN / "cairn")
REVERT_REASON = "Verification mails bounced for 30% of users; reverted in 002"
REJECT_REASON = "Its retry logic double-charged customers during the outage"
REJECTED = "stripe-python v1 client"
MIGRATION = """\
-- 003: bring back e-mail verification
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;
"""


def git(cwd: Path, *args: str) -> str:
    """Run git with a fixed identity and no user configuration."""
    proc = subprocess.run(
        ["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def make_project(root: Path, *, repo: bool = True) -> Path:
    """users.email_verified added then reverted; deps/stripe's v1 client rejected.

    With `repo` the folder becomes a git repository with one commit; without, it is
    left for the caller's repository (a project in a monorepo's subfolder).
    """
    if repo:
        git(root, "init", "-q", "-b", "main")
    init_store(root)
    with Store.open(root / ".cairn") as store:
        store.append(EventDraft(type="add", entity="users.email_verified", reasoning="Verify"))
        store.append(
            EventDraft(type="revert", entity="users.email_verified", reasoning=REVERT_REASON)
        )
        store.append(
            EventDraft(
                type="reject", entity="deps/stripe", alternative=REJECTED, reasoning=REJECT_REASON
            )
        )
    (root / "db").mkdir()
    (root / "db" / "001_users.sql").write_text("CREATE TABLE users (id integer primary key);\n")
    (root / "requirements.txt").write_text("requests==2.32\n")
    if repo:
        git(root, "add", ".")
        git(root, "commit", "-qm", "base")
    return root


def cairn(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The real CLI, as a hook or CI job runs it."""
    return subprocess.run(
        [CAIRN, *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120
    )
