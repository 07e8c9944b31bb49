"""A new Django migration names a model, not its table (issue 29.3): when the model
states `db_table` (in `models.py`, or in an earlier migration's `CreateModel` options
or `AlterModelTable`), `cairn check` on the migration names the stated table, as the
migration importer does, and catches a re-added reverted column on it."""

from __future__ import annotations

import subprocess
from pathlib import Path

from check_fixtures import CAIRN, git
from django_db_table import ADD_FIELD, MODELS, NEW_MIGRATION, REASON, seed_reverted_column

from cairn.indexer import app_model_tables

INITIAL = """\
from django.db import migrations, models


class Migration(migrations.Migration):
    operations = [
        migrations.CreateModel(
            name="Entry",
            fields=[("id", models.AutoField(primary_key=True))],
            options={{"db_table": "{table}"}},
        ),
    ]
"""

RENAME = """\
from django.db import migrations


class Migration(migrations.Migration):
    operations = [migrations.AlterModelTable(name="entry", table="{table}")]
"""


def _project(root: Path, files: dict[str, str]) -> Path:
    git(root, "init", "-q", "-b", "main")
    seed_reverted_column(root)
    for rel, text in {"blog/migrations/__init__.py": "", **files}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    return root


def _check(root: Path, rel: str) -> subprocess.CompletedProcess[str]:
    (root / rel).write_text(ADD_FIELD)
    return subprocess.run([CAIRN, "check", rel], cwd=root, capture_output=True, text=True)


NEW = NEW_MIGRATION


def test_a_new_migration_on_a_model_with_db_table_in_models_py_fails_check(
    tmp_path: Path,
) -> None:
    root = _project(tmp_path, {"blog/models.py": MODELS})
    done = _check(root, NEW)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "blog_entries.is_searchable was reverted" in done.stdout
    assert REASON in done.stdout
    assert f"{NEW}:10:18" in done.stdout  # at the field's name
    assert "blog_entry." not in done.stdout


def test_the_table_stated_in_earlier_migrations_wins_and_later_ones_are_not_read(
    tmp_path: Path,
) -> None:
    """Earlier migrations say what the table was when this one runs: a CreateModel's
    `db_table`, then an AlterModelTable; a migration after this one changes nothing."""
    root = _project(
        tmp_path,
        {
            "blog/migrations/0001_initial.py": INITIAL.format(table="entries_old"),
            "blog/migrations/0002_rename.py": RENAME.format(table="blog_entries"),
            "blog/migrations/0009_later.py": RENAME.format(table="entries_later"),
        },
    )
    assert app_model_tables(root, NEW) == {"entry": "blog_entries"}
    assert app_model_tables(root, "blog/migrations/0002_rename.py") == {"entry": "entries_old"}
    assert app_model_tables(root, "blog/models.py") == {}  # only a migration has context
    done = _check(root, NEW)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "blog_entries.is_searchable was reverted" in done.stdout


def test_without_a_stated_table_the_default_name_applies(tmp_path: Path) -> None:
    """A model whose table is Django's default names `blog_entry`: no revert there."""
    root = _project(
        tmp_path, {"blog/models.py": MODELS.replace('db_table = "blog_entries"', "ordering = []")}
    )
    assert app_model_tables(root, NEW) == {}
    done = _check(root, NEW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_unreadable_models_file_leaves_the_defaults(tmp_path: Path) -> None:
    """A models.py that is not a file (a FIFO would block a reader) or over the size
    limit is skipped, not read: the check still runs."""
    root = _project(tmp_path, {})
    (root / "blog" / "models.py").mkdir()
    assert app_model_tables(root, NEW) == {}
    done = _check(root, NEW)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_renamed_model_keeps_its_stated_table_and_a_deleted_one_forgets_it(
    tmp_path: Path,
) -> None:
    """As the migration importer has it: RenameModel leaves a stated table's name alone
    (so a new migration on the new model name names it, and the rename names nothing);
    after DeleteModel, the model's name means a new model with the default table."""
    rename = """\
from django.db import migrations


class Migration(migrations.Migration):
    operations = [migrations.RenameModel(old_name="Entry", new_name="Post")]
"""
    delete = 'from django.db import migrations\nops = [migrations.DeleteModel("Post")]\n'
    root = _project(
        tmp_path,
        {
            "blog/migrations/0001_initial.py": INITIAL.format(table="blog_entries"),
            "blog/migrations/0002_rename.py": rename,
            "blog/migrations/0003_delete.py": delete,
        },
    )
    assert app_model_tables(root, "blog/migrations/0003_delete.py") == {"post": "blog_entries"}
    assert app_model_tables(root, NEW) == {}
    scan = subprocess.run(
        [CAIRN, "scan", "blog/migrations/0002_rename.py"], cwd=root, capture_output=True, text=True
    )
    assert scan.returncode == 0, scan.stderr
    assert "blog_entries" not in scan.stdout and "blog_post" not in scan.stdout
