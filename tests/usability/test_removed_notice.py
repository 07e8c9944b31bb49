"""A removed entity coming back: a notice with the removal's reason, exit 0; blocking with
--strict-removed (the real `cairn check`)."""

from __future__ import annotations

import json
from pathlib import Path

from usability.helpers import cairn, git, ok

REASON = "Nobody read order notes; support uses the ticket system"


def test_readding_a_dropped_column_quotes_the_removal(tmp_path: Path) -> None:
    root = tmp_path / "shop"
    (root / "db").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    ok(root, "init")
    ok(root, "log", "orders.note", "add", "-r", "free-text notes")
    ok(root, "log", "orders.note", "remove", "-r", REASON)
    assert json.loads(ok(root, "status", "orders.note", "--json"))["status"] == "removed"
    (root / "db" / "007_note_again.sql").write_text("ALTER TABLE orders ADD COLUMN note text;\n")

    notice = cairn(root, "check")
    assert notice.returncode == 0, notice.stderr
    first = notice.stdout.splitlines()[0]
    assert first.startswith("db/007_note_again.sql:1:")
    assert ": information: orders.note was removed on " in first and REASON in first
    assert notice.stdout.splitlines()[-1] == "cairn check: ok, 1 file checked (1 informational)"

    report = json.loads(cairn(root, "check", "--json").stdout)
    [finding] = report["findings"]
    assert (finding["kind"], finding["severity"], finding["blocking"]) == (
        "removed",
        "information",
        False,
    )
    assert finding["reasoning"] == REASON

    strict = cairn(root, "check", "--strict-removed")
    assert strict.returncode == 1
    assert ": error: orders.note was removed" in strict.stdout
    assert '`cairn log orders.note add --reason "..."`' in strict.stdout

    # Recording the re-addition makes the column active again: nothing left to say.
    ok(root, "log", "orders.note", "add", "-r", "notes are back for gift messages")
    assert cairn(root, "check", "--strict-removed").stdout.startswith("cairn check: ok")
