"""Builds the e2e workspace: a migration re-adding a column whose addition was reverted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from cairn.store import EventDraft, Store, init_store

MIGRATION = """\
-- Re-adds the column that was reverted in April: the warning should show here.
CREATE TABLE users (
    id integer PRIMARY KEY,
    email text NOT NULL
);

ALTER TABLE users ADD COLUMN email_verified boolean DEFAULT false;
"""


def main(root: Path) -> None:
    """Write the files, a git repository, and the decisions the test expects to see."""
    (root / "db").mkdir(parents=True, exist_ok=True)
    (root / "db" / "002_email_verified.sql").write_text(MIGRATION, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    # Decisions record the git identity; a fixed one keeps screenshots the same everywhere.
    for key, value in (("user.name", "Dev"), ("user.email", "dev@example.invalid")):
        subprocess.run(["git", "-C", str(root), "config", key, value], check=True)
    store = Store.open(init_store(root))
    added = store.append(
        EventDraft(
            type="add",
            entity="users.email_verified",
            reasoning="Track whether the address was confirmed before sending receipts.",
            author="ana",
        )
    ).event
    reverted = store.append(
        EventDraft(
            type="revert",
            entity="users.email_verified",
            reasoning="The backfill locked the users table for 40 minutes; verify via the auth "
            "provider instead.",
            reverts=added.id,
            author="ana",
        )
    ).event
    json.dump({"added": added.id, "reverted": reverted.id}, sys.stdout)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
