"""Decisions follow renames, end to end through the real CLI: what was decided under an
old name is in `status`, `history` and `cairn check` of the new one."""

from __future__ import annotations

import json
from pathlib import Path

from real_cli import cairn, cairn_json


def _migrate(project: Path, name: str, sql: str) -> None:
    (project / "db").mkdir(exist_ok=True)
    (project / "db" / name).write_text(sql)
    proc = cairn(project, "import", "sql", "db")
    assert proc.returncode == 0, proc.stderr


def test_sql_table_and_column_renames_carry_their_verdicts(project: Path) -> None:
    _migrate(
        project, "001_users.sql", "CREATE TABLE users (id int, legacy_flag bool, nick text);\n"
    )
    for args in (
        ("revert", "users.legacy_flag", "-r", "the flag broke the nightly sync"),
        ("reject", "users.nick", "--alternative", "free-text nicknames", "-r", "spam"),
    ):
        assert cairn(project, *args).returncode == 0
    _migrate(project, "002_nick.sql", "ALTER TABLE users RENAME COLUMN nick TO handle;\n")
    _migrate(project, "003_accounts.sql", "ALTER TABLE users RENAME TO accounts;\n")

    status = cairn_json(project, "status", "accounts.handle")
    assert status["status"] == "rejected"
    assert status["formerly"] == ["users.handle", "users.nick"]  # nearest first
    text = cairn(project, "status", "accounts.handle").stdout
    assert "formerly users.handle, users.nick" in text
    history = cairn_json(project, "history", "accounts.legacy_flag")
    assert [(e["type"], e["entity"]) for e in history] == [
        ("add", "users.legacy_flag"),
        ("revert", "users.legacy_flag"),
    ]

    proposed = project / "db" / "004_back.sql"
    proposed.write_text(
        "ALTER TABLE accounts ADD COLUMN legacy_flag bool;\n"
        "ALTER TABLE accounts ADD COLUMN handle text;\n"
    )
    proc = cairn(project, "check", "db/004_back.sql", "--json")
    assert proc.returncode == 1, proc.stderr
    found = {f["entity"]: f for f in json.loads(proc.stdout)["findings"]}
    assert found["accounts.legacy_flag"]["blocking"]
    assert (
        "accounts.legacy_flag (formerly `users.legacy_flag`) was reverted"
        in (found["accounts.legacy_flag"]["message"])
    )
    assert found["accounts.handle"]["verdict_types"] == ["reject"]
    assert "(formerly `users.nick`) was rejected" in found["accounts.handle"]["message"]

    # Re-opened through the new name: written where it was decided, and the gate opens.
    proc = cairn(project, "supersede", "accounts.legacy_flag", "-r", "sync job fixed")
    assert proc.returncode == 0, proc.stderr
    assert "on users.legacy_flag" in proc.stdout
    proc = cairn(project, "check", "db/004_back.sql", "--json")
    entities = {f["entity"] for f in json.loads(proc.stdout)["findings"] if f["blocking"]}
    assert entities == {"accounts.handle"}
