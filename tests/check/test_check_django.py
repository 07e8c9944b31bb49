"""`cairn check` on Django code (issue 29.2-3): a new migration that re-adds a reverted
column is caught as the model field is; a form's fields are no table."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from check_fixtures import CAIRN, git

from cairn.store import EventDraft, Store, init_store

REASON = "Verification mails bounced for 30% of signups"

MIGRATION = """\
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="email_verified",
            field=models.BooleanField(default=False),
        ),
    ]
"""

FORMS = """\
from django import forms


class AssetForm(forms.ModelForm):
    add_sites = forms.ModelMultipleChoiceField(queryset=None)
"""


def _project(root: Path) -> Path:
    git(root, "init", "-q", "-b", "main")
    init_store(root)
    with Store.open(root / ".cairn") as store:
        added = store.append(
            EventDraft(type="add", entity="accounts_user.email_verified", reasoning="Verify")
        ).event.id
        store.append(
            EventDraft(
                type="revert",
                entity="accounts_user.email_verified",
                reverts=added,
                reasoning=REASON,
            )
        )
        store.append(
            EventDraft(type="revert", entity="accounts_assetform.add_sites", reasoning="x")
        )
    (root / "accounts" / "migrations").mkdir(parents=True)
    (root / "accounts" / "migrations" / "__init__.py").write_text("")
    git(root, "add", ".")
    git(root, "commit", "-qm", "base")
    return root


def test_a_new_migration_re_adding_a_reverted_column_fails_check(tmp_path: Path) -> None:
    root = _project(tmp_path)
    new = root / "accounts" / "migrations" / "0002_user_email_verified.py"
    new.write_text(MIGRATION)
    done = subprocess.run(
        [CAIRN, "check", str(new.relative_to(root))], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "accounts_user.email_verified was reverted" in done.stdout
    assert REASON in done.stdout
    assert "0002_user_email_verified.py:10:18" in done.stdout  # at the field's name


def test_a_form_is_not_a_table(tmp_path: Path) -> None:
    root = _project(tmp_path)
    forms = root / "accounts" / "forms.py"
    forms.write_text(FORMS)
    done = subprocess.run(
        [CAIRN, "check", "accounts/forms.py"], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    scan = subprocess.run(
        [CAIRN, "scan", "accounts/forms.py", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    kinds = {s["kind"] for s in json.loads(scan.stdout)}
    assert kinds == {"class"}


RUN_SQL = """\
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE accounts_user ADD COLUMN email_verified boolean DEFAULT false;",
            reverse_sql="ALTER TABLE accounts_user DROP COLUMN email_verified;",
        ),
    ]
"""


def test_a_new_migration_re_adding_a_reverted_column_with_run_sql_fails_check(
    tmp_path: Path,
) -> None:
    """RunSQL's SQL is read as the migration importer reads it: its ADD COLUMN re-adds
    the reverted column; the same SQL only as `reverse_sql` re-adds nothing."""
    root = _project(tmp_path)
    new = root / "accounts" / "migrations" / "0002_raw.py"
    new.write_text(RUN_SQL)
    done = subprocess.run(
        [CAIRN, "check", str(new.relative_to(root))], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "accounts_user.email_verified was reverted" in done.stdout
    assert "0002_raw.py:9:13" in done.stdout  # at the SQL string

    only_reverse = RUN_SQL.replace('"ALTER TABLE accounts_user ADD COLUMN', '"SELECT 1; -- ')
    new.write_text(only_reverse)
    done = subprocess.run(
        [CAIRN, "check", str(new.relative_to(root))], cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
