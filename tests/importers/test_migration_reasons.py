"""Migration events take their reason, author and date from the commit that wrote the
migration (issue 28): the commit says why, the file name only what. Real git
repositories, the real CLI."""

from __future__ import annotations

from pathlib import Path

from real_cli import cairn_json, git

from cairn.store import Store

DROP = """\
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [("app", "0001_initial")]

    operations = [migrations.RemoveField(model_name="profile", name="api_key")]
"""

INITIAL = """\
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True
    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Profile",
            fields=[
                ("id", models.AutoField(primary_key=True)),
                ("api_key", models.CharField(max_length=40)),
            ],
        ),
    ]
"""

WHY = "Drop Profile.api_key\n\nBoth are stored with Project now."


def _commit(root: Path, message: str, date: str, author: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, f"--author={author}", date=date)


def test_django_events_carry_the_message_and_author_of_the_commit_that_wrote_them(
    project: Path,
) -> None:
    migrations = project / "app" / "migrations"
    migrations.mkdir(parents=True)
    (migrations / "0001_initial.py").write_text(INITIAL)
    _commit(project, "Profiles", "2019-01-10T10:00:00Z", "Ann Example <ann@example.com>")
    (migrations / "0023_auto_20190117_1419.py").write_text(DROP)
    _commit(project, WHY, "2019-01-17T14:19:00Z", "Bo Writer <bo@example.com>")
    # Renumbered in place (git sees a rename), then moved with its app: neither commit
    # is why the column went, nor its author who wrote it.
    git(project, "mv", "app/migrations/0023_auto_20190117_1419.py", "app/migrations/0002_drop.py")
    _commit(project, "Renumber migrations", "2019-02-01T10:00:00Z", "Cy Mover <cy@example.com>")
    git(project, "mv", "app", "core")
    _commit(project, "Move app to core", "2019-03-01T10:00:00Z", "Cy Mover <cy@example.com>")
    cairn_json(project, "import", "django", ".")
    with Store.open(project / ".cairn") as store:
        [drop] = store.history("core_profile.api_key")[1:]
    assert drop.type.value == "remove"
    assert drop.reasoning == WHY
    assert drop.author == "Bo Writer <bo@example.com>"
    assert drop.occurred_at.startswith("2019-01-17T14:19")
    assert drop.metadata["migration"] == "core.0002_drop"


def test_rails_events_carry_the_commit_message_and_keep_the_migration_name(
    project: Path,
) -> None:
    migrate = project / "db" / "migrate"
    migrate.mkdir(parents=True)
    (migrate / "20190117141900_remove_api_key_from_profiles.rb").write_text(
        "class RemoveApiKeyFromProfiles < ActiveRecord::Migration[5.2]\n"
        "  def change\n    remove_column :profiles, :api_key, :string\n  end\nend\n"
    )
    _commit(project, WHY, "2019-01-17T14:19:00Z", "Bo Writer <bo@example.com>")
    cairn_json(project, "import", "rails", ".")
    with Store.open(project / ".cairn") as store:
        [drop] = store.history("profiles.api_key")
    assert drop.reasoning == WHY
    assert drop.author == "Bo Writer <bo@example.com>"
    assert drop.metadata["migration"] == "20190117141900_remove_api_key_from_profiles.rb"
