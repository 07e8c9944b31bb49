"""Bounded importers (issue 35, item 10): a migration folder or ADR folder a cloned
repository ships can hold files built to stall or crash a parser. Each such file is
skipped and named in the summary with why; the rest of the folder is imported; the
import never aborts, hangs or reads a device. Generated hostile files, the real CLI."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from real_cli import cairn

from cairn.limits import MAX_FILE_BYTES, MAX_NESTING, MAX_STEPS
from importers.fixtures import ADRS

GOOD_ALEMBIC = """revision = "a1"
down_revision = None


def upgrade():
    op.add_column("users", sa.Column("nickname", sa.String()))
"""


def alembic(revision: str, down: str, body: str, prelude: str = "") -> str:
    return f'{prelude}revision = "{revision}"\ndown_revision = "{down}"\n\n\ndef upgrade():\n{body}'


def run_import(project: Path, *args: str) -> dict[str, Any]:
    proc = cairn(project, "import", *args, "--json", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    import json

    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def skipped(report: dict[str, Any]) -> dict[str, str]:
    return {Path(s["item"]).name: s["reason"] for s in report["skipped_items"]}


def special_files(folder: Path, fifo: str, device: str) -> None:
    """A FIFO nobody writes to (opening it for reading would block for ever) and a link
    to /dev/zero (reading it would never end), with migration names."""
    os.mkfifo(folder / fifo)
    (folder / device).symlink_to("/dev/zero")


def too_deep_python() -> str:
    # no brackets (Python's parser refuses 200 of those itself): a chain of `not`
    return "x = " + "not " * (MAX_NESTING * 5) + "True\n"


def test_hostile_alembic_revisions_are_skipped_by_name_and_the_rest_imported(
    project: Path,
) -> None:
    versions = project / "alembic" / "versions"
    versions.mkdir(parents=True)
    (versions / "a1_good.py").write_text(GOOD_ALEMBIC)
    # 4 KB of nested loops over literal lists: 60**3 calls once unrolled
    loops = (
        "    for a in T:\n        for b in T:\n            for c in T:\n"
        "                op.add_column(a, sa.Column(b + c, sa.String()))\n"
    )
    prelude = "T = [" + ", ".join(f'"t{i}"' for i in range(60)) + "]\n"
    (versions / "b2_loops.py").write_text(alembic("b2", "a1", loops, prelude))
    (versions / "c3_deep.py").write_text(alembic("c3", "b2", "    pass\n", too_deep_python()))
    (versions / "d4_huge.py").write_text(
        alembic("d4", "c3", "    pass\n", "# padding\n" * (MAX_FILE_BYTES // 10 + 1))
    )
    special_files(versions, "e5_fifo.py", "f6_zero.py")

    report = run_import(project, "alembic", "alembic")
    assert [e["entity"] for e in report["events"]] == ["users.nickname"]
    why = skipped(report)
    assert f"over {MAX_STEPS:,} calls" in why["b2_loops.py"]
    assert f"nested deeper than {MAX_NESTING} levels" in why["c3_deep.py"]
    assert "byte limit" in why["d4_huge.py"]
    assert "not a regular file" in why["e5_fifo.py"]
    assert "not a regular file" in why["f6_zero.py"]


def test_hostile_django_migrations_are_skipped_and_the_rest_imported(project: Path) -> None:
    folder = project / "shop" / "migrations"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    (folder / "0001_initial.py").write_text(
        "from django.db import migrations, models\n\n\n"
        "class Migration(migrations.Migration):\n"
        "    initial = True\n"
        "    dependencies = []\n"
        "    operations = [\n"
        "        migrations.CreateModel(name='Order', fields=[\n"
        "            ('id', models.AutoField(primary_key=True)),\n"
        "            ('total', models.IntegerField()),\n"
        "        ]),\n"
        "    ]\n"
    )
    (folder / "0002_deep.py").write_text(
        too_deep_python() + "\n\nclass Migration:\n    dependencies = [('shop', '0001_initial')]\n"
    )
    special_files(folder, "0003_fifo.py", "0004_zero.py")

    report = run_import(project, "django", "shop")
    assert {e["entity"] for e in report["events"]} >= {"shop_order", "shop_order.total"}
    why = skipped(report)
    assert f"nested deeper than {MAX_NESTING} levels" in why["0002_deep.py"]
    assert "not a regular file" in why["0003_fifo.py"]
    assert "not a regular file" in why["0004_zero.py"]


def test_hostile_rails_migrations_are_skipped_and_the_rest_imported(project: Path) -> None:
    folder = project / "db" / "migrate"
    folder.mkdir(parents=True)
    (folder / "20240101000000_add_nick.rb").write_text(
        "class AddNick < ActiveRecord::Migration[7.0]\n"
        "  def change\n    add_column :users, :nick, :string\n  end\nend\n"
    )
    depth = 20_000  # deep enough to exhaust Python's stack walking the tree recursively
    (folder / "20240102000000_deep.rb").write_text(
        "class Deep < ActiveRecord::Migration[7.0]\n  def change\n    x = "
        + "[" * depth
        + "]" * depth
        + "\n  end\nend\n"
    )
    special_files(folder, "20240103000000_fifo.rb", "20240104000000_zero.rb")

    report = run_import(project, "rails", ".")
    assert [e["entity"] for e in report["events"]] == ["users.nick"]
    why = skipped(report)
    assert f"nested deeper than {MAX_NESTING} levels" in why["20240102000000_deep.rb"]
    assert "not a regular file" in why["20240103000000_fifo.rb"]
    assert "not a regular file" in why["20240104000000_zero.rb"]


def test_adrs_built_for_quadratic_parsing_finish_and_the_rest_import(project: Path) -> None:
    folder = project / "docs" / "adr"
    folder.mkdir(parents=True)
    for name, text in ADRS.items():
        (folder / name).write_text(text)
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("x = 1\n")
    # each was quadratic or worse in its regex: a run of `[`, a line of blanks after a
    # field name, an unclosed link title, and thousands of real links to stat
    brackets = "[" * 300_000
    blanks = "status" + " " * 300_000 + "x"
    title = '[a](src/app.py "' + "t" * 300_000
    many_links = "\n".join("[x](../../src/app.py)" for _ in range(MAX_STEPS + 1))
    for i, body in enumerate((brackets, blanks, title, many_links), start=90):
        (folder / f"00{i}-hostile.md").write_text(f"# Hostile {i}\n\n{body}\n")
    special_files(folder, "0095-fifo.md", "0096-zero.md")

    report = run_import(project, "adr", "docs/adr")
    assert report["imported"] > 0
    why = skipped(report)
    assert f"over {MAX_STEPS:,}" in why["0093-hostile.md"]
    assert "not a regular file" in why["0095-fifo.md"]
    assert "not a regular file" in why["0096-zero.md"]


@pytest.mark.parametrize("kind", ["sql"])
def test_a_sql_migration_that_is_a_device_is_skipped(project: Path, kind: str) -> None:
    folder = project / "db" / "migration"
    folder.mkdir(parents=True)
    (folder / "V1__users.sql").write_text("ALTER TABLE users ADD COLUMN nick text;\n")
    special_files(folder, "V2__fifo.sql", "V3__zero.sql")
    report = run_import(project, kind, "db/migration")
    assert [e["entity"] for e in report["events"]] == ["users.nick"]
    why = skipped(report)
    assert "not a regular file" in why["V2__fifo.sql"]
    assert "not a regular file" in why["V3__zero.sql"]
