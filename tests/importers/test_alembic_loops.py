"""Alembic revisions that loop over module-level literals or name tables through
variables (`for table in tables: op.add_column(table, ...)`, `op.drop_table(name)`)
import like literal calls, through the real CLI."""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn_json, git

from cairn.importers.alembic import import_alembic
from cairn.importers.base import Proposed, Skipped
from importers.fixtures import write

LOOPS = {
    "a1_timestamps.py": '''\
"""add timestamps everywhere

Revision ID: a1
Revises:
Create Date: 2023-03-01 10:00:00
"""
import sqlalchemy as sa
from alembic import op

revision = "a1"
down_revision = None

tables = ["users", "orders", "invoices"]
old_table = "legacy_audit"
PREFIX = "tmp"
COLUMNS = (("users", "nickname"), ("orders", "coupon"))


def upgrade():
    for table in tables:
        op.add_column(table, sa.Column("updated_at", sa.DateTime(), nullable=True))
    op.drop_table(old_table)
    for table, column in COLUMNS:
        op.drop_column(table, column)
    scratch = f"{PREFIX}_import"
    op.create_table(scratch, sa.Column("id", sa.Integer()))
    for name in {"users": 1, "orders": 2}:
        with op.batch_alter_table(name) as batch_op:
            batch_op.drop_column("updated_at")
    for row in fetch_rows():
        op.execute(row)


def downgrade():
    for table in tables:
        op.drop_column(table, "updated_at")
''',
}


def test_loops_and_names_resolve_to_one_call_each(tmp_path: Path) -> None:
    folder = write(tmp_path / "alembic" / "versions", LOOPS)
    _, items = import_alembic(folder.parent, tmp_path)
    listed = list(items)
    proposed = [(p.type, p.entity) for p in listed if isinstance(p, Proposed)]
    assert proposed == [
        ("add", "users.updated_at"),
        ("add", "orders.updated_at"),
        ("add", "invoices.updated_at"),
        ("delete", "legacy_audit"),
        ("remove", "users.nickname"),
        ("remove", "orders.coupon"),
        ("create", "tmp_import"),
        ("add", "tmp_import.id"),
        ("remove", "users.updated_at"),
        ("remove", "orders.updated_at"),
    ]
    # a loop over something not literal stays unread, and says so
    assert [s.reason for s in listed if isinstance(s, Skipped)] == [
        "op.execute(row): SQL is not a literal string"
    ]
    keys = [p.source_key for p in listed if isinstance(p, Proposed)]
    assert len(set(keys)) == len(keys)  # one event per unrolled call


def test_the_cli_imports_loop_migrations_idempotently(project: Path) -> None:
    write(project / "alembic" / "versions", LOOPS)
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "timestamps", date="2023-03-02T00:00:00Z")
    first = cairn_json(project, "import", "alembic", "alembic")
    assert first["imported"] == 10
    assert [e["entity"] for e in first["events"]][:3] == [
        "users.updated_at",
        "orders.updated_at",
        "invoices.updated_at",
    ]
    again = cairn_json(project, "import", "alembic", "alembic")
    assert again["imported"] == 0 and again["already_imported"] == 10
