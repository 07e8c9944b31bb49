"""The migration and ADR importers end to end through the real CLI and store."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from real_cli import BIN, cairn, cairn_json, env, git

from cairn.store import Store
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


def test_a_statement_inserted_into_an_imported_migration_adds_only_its_events(
    project: Path,
) -> None:
    folder = write(project / "db" / "migration", FLYWAY)
    first = cairn_json(project, "import", "sql", "db/migration")
    tokens = folder / "V10__tokenise_cards.sql"
    lines = tokens.read_text().splitlines(keepends=True)
    # a new statement before the existing ones, and the rest re-indented
    lines.insert(1, "ALTER TABLE payments ADD COLUMN card_brand text;\n")
    lines[3] = "ALTER  TABLE payments\n    DROP COLUMN card_number ;\n"
    tokens.write_text("".join(lines))
    again = cairn_json(project, "import", "sql", "db/migration")
    assert [(e["type"], e["entity"]) for e in again["events"]] == [("add", "payments.card_brand")]
    assert again["already_imported"] == first["imported"]
    with Store.open(project / ".cairn") as store:
        # only one event per change: nothing that followed the new statement came back
        assert len(store.history("payments.card_token")) == 1
        assert len(store.history("payments.card_number")) == 2  # the V2 add, the V10 remove


def test_a_column_added_to_a_create_table_in_place_adds_only_that_column(
    project: Path,
) -> None:
    schema = project / "db" / "schema.sql"
    write(project / "db", {"schema.sql": "CREATE TABLE users (\n  id int,\n  email text\n);\n"})
    assert cairn_json(project, "import", "sql", "db")["imported"] == 3
    schema.write_text(schema.read_text().replace("email text", "email text,\n  nickname text"))
    again = cairn_json(project, "import", "sql", "db")
    assert [(e["type"], e["entity"]) for e in again["events"]] == [("add", "users.nickname")]
    assert again["already_imported"] == 3


def test_identical_statements_in_one_file_are_told_apart(project: Path) -> None:
    add = "ALTER TABLE users ADD COLUMN nickname text;\n"
    drop = "ALTER TABLE users DROP COLUMN nickname;\n"
    migration = project / "db" / "0001_users.up.sql"
    write(project / "db", {"0001_users.up.sql": "CREATE TABLE users (id int);\n" + add + drop})
    first = cairn_json(project, "import", "sql", "db")
    assert first["imported"] == 4
    migration.write_text(migration.read_text() + add)  # the same statement once more
    again = cairn_json(project, "import", "sql", "db")
    assert [(e["type"], e["entity"]) for e in again["events"]] == [("add", "users.nickname")]
    assert again["events"][0]["source_key"].endswith(":users.nickname#2")
    assert cairn_json(project, "import", "sql", "db")["imported"] == 0


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
    assert "sql: would import 2 events, 0 already imported, 1 skipped" in proc.stdout
    assert "0001_users.down.sql: down migration" in proc.stdout
    assert (project / ".cairn" / "decisions.jsonl").read_text() == ""


def test_missing_path_is_a_one_line_error(project: Path) -> None:
    proc = cairn(project, "import", "sql", "nowhere")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "nowhere" in proc.stderr


def test_a_folder_without_sql_files_is_an_error_not_an_empty_import(project: Path) -> None:
    (project / "db" / "migrations").mkdir(parents=True)
    (project / "db" / "migrations" / "README.md").write_text("migrations go here\n")
    proc = cairn(project, "import", "sql", "db/migrations")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "db/migrations: no .sql files found" in proc.stderr


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


def test_two_imports_at_once_write_each_event_once(project: Path) -> None:
    write(
        project / "db",
        {
            f"V{n}__t{n}.sql": f"CREATE TABLE t{n} (id int);\nALTER TABLE t{n} ADD COLUMN c text;\n"
            for n in range(1, 61)
        },
    )
    runs = [
        subprocess.Popen(
            [str(BIN / "cairn"), "import", "sql", "db", "--json"],
            cwd=project,
            env=env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    reports = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        reports.append(json.loads(out))
    # one run wrote everything, the other found it already imported
    assert sorted(r["imported"] for r in reports) == [0, 180]
    assert sorted(r["already_imported"] for r in reports) == [0, 180]
    with Store.open(project / ".cairn") as store:
        assert len(store) == 180
