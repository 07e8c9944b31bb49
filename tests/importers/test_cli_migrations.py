"""The migration and ADR importers end to end through the real CLI and store."""

from __future__ import annotations

from pathlib import Path

from cairn.store import Store

from importers.cli_helpers import cairn, cairn_json, git
from importers.fixtures import ADRS, ALEMBIC, FLYWAY, RAILS, write


def test_sql_import_is_ordered_dated_tagged_and_idempotent(project: Path) -> None:
    write(project / "db" / "migration", FLYWAY)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "migrations", date="2022-06-01T12:00:00Z")
    first = cairn_json(project, "import", "sql", "db/migration")
    assert [(e["type"], e["entity"]) for e in first["events"]][-3:] == [
        ("add", "users.email_verified"),  # V2.1 sorts before V10
        ("add", "payments.card_token"),
        ("remove", "payments.card_number"),
    ]
    reasons = {s["item"].split(" statement")[0]: s["reason"] for s in first["skipped_items"]}
    assert "INSERT" in reasons["db/migration/V2__add_payments.sql"]
    assert "view" in reasons["db/migration/R__reporting_view.sql"]
    with Store.open(project / ".cairn") as store:
        [removal] = [e for e in store.history("payments.card_number") if e.type.value == "remove"]
        status = store.status("payments.card_number").status.value
    assert status == "removed"
    assert removal.agent == "cairn-import/sql"
    assert removal.occurred_at.startswith("2022-06-01T12:00:00")  # the commit that added it
    assert "never card numbers" in removal.reasoning
    assert removal.diff == "ALTER TABLE payments DROP COLUMN card_number"
    assert removal.metadata["date_from"] == "git"
    assert removal.author == "Ann Example <ann@example.com>"  # who committed the migration
    again = cairn_json(project, "import", "sql", "db/migration")
    assert again["imported"] == 0 and again["already_imported"] == first["imported"]


def test_human_output_and_dry_run(project: Path) -> None:
    write(
        project / "db",
        {
            "0001_users.up.sql": "CREATE TABLE users (id int);\n",
            "0001_users.down.sql": "DROP TABLE users;\n",
        },
    )
    proc = cairn(project, "import", "sql", "--dry-run", "db")
    assert proc.returncode == 0, proc.stderr
    assert "sql: would import 2 event(s), 0 already imported, 1 skipped" in proc.stdout
    assert "0001_users.down.sql: down migration" in proc.stdout
    assert (project / ".cairn" / "decisions.jsonl").read_text() == ""


def test_missing_path_is_a_one_line_error(project: Path) -> None:
    proc = cairn(project, "import", "sql", "nowhere")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "nowhere" in proc.stderr


def test_alembic_and_rails_histories(project: Path) -> None:
    write(project / "alembic" / "versions", ALEMBIC)
    report = cairn_json(project, "import", "alembic", "alembic")
    assert report["imported"] == 16
    write(project / "db" / "migrate", RAILS)
    rails = cairn_json(project, "import", "rails", ".")
    assert rails["imported"] == 13
    with Store.open(project / ".cairn") as store:
        events = store.history("users.email_verified")
    assert [(e.type.value, e.agent) for e in events] == [
        ("add", "cairn-import/alembic"),
        ("remove", "cairn-import/alembic"),
    ]
    assert events[1].occurred_at.startswith("2023-03-01T08:30:00")
    assert cairn_json(project, "import", "alembic", "alembic")["imported"] == 0
    assert cairn_json(project, "import", "rails", ".")["imported"] == 0


def test_adr_import_rejects_and_reopens(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "payments.py").write_text("def charge():\n    pass\n")
    write(project / "docs" / "adr", ADRS)
    report = cairn_json(project, "import", "adr", "docs/adr")
    assert report["imported"] == 10
    with Store.open(project / ".cairn") as store:
        charge = store.status("src/payments.py::charge")
        history = store.history("src/payments.py::charge")
        braintree = store.status("deps/braintree")
    assert charge.status.value == "reopened"
    # ADR-0006 names the function itself too: its own decision, then the re-opening
    assert [e.type.value for e in history] == ["reject", "modify", "supersede"]
    reject, _, reopen = history
    assert reject.alternative.startswith("Store encrypted card numbers")
    assert reject.metadata["adr"] == "docs/adr/0003-store-card-numbers.md"
    assert reopen.supersedes == reject.id
    assert braintree.status.value == "active"
    assert cairn_json(project, "import", "adr", "docs/adr")["imported"] == 0
