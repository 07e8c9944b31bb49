"""One Django project for the `db_table` tests (issue 29.3), shared by the gate's test
(`cairn check`) and the server's (hover and diagnostics) so the two read the same
model, the same migration and the same reverted column: the entity they must agree
on is `blog_entries.is_searchable`, not Django's default `blog_entry`."""

from __future__ import annotations

from pathlib import Path

from cairn.store import EventDraft, Store, init_store

REASON = "Search indexing of every entry doubled the nightly job; reverted in 0007"
COLUMN = "blog_entries.is_searchable"
NEW_MIGRATION = "blog/migrations/0008_entry_is_searchable.py"

MODELS = """\
from django.db import models


class Entry(models.Model):
    headline = models.CharField(max_length=200)

    class Meta:
        db_table = "blog_entries"
"""

ADD_FIELD = """\
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("blog", "0007_remove_entry_is_searchable")]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="is_searchable",
            field=models.BooleanField(default=False),
        ),
    ]
"""


def seed_reverted_column(root: Path) -> None:
    """A store at `root` where the column was added and then reverted, for REASON."""
    init_store(root)
    with Store.open(root / ".cairn") as store:
        added = store.append(EventDraft(type="add", entity=COLUMN, reasoning="Search")).event.id
        store.append(EventDraft(type="revert", entity=COLUMN, reverts=added, reasoning=REASON))
