"""The real server names a new migration's column by the model's stated table (issue
29.3): `AddField(model_name="entry")` on a model with `db_table = "blog_entries"` is
warned about as `blog_entries.is_searchable`, the entity `cairn check` blocks."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import cairn_diagnostics, hover_text, open_warned
from pytest_lsp import LanguageClient

from cairn.store import EventDraft, Store, init_store

REASON = "Search indexing of every entry doubled the nightly job"

MODELS = """\
from django.db import models


class Entry(models.Model):
    headline = models.CharField(max_length=200)

    class Meta:
        db_table = "blog_entries"
"""

MIGRATION = """\
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


async def test_a_new_migration_is_warned_on_the_stated_table(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    (root / "blog" / "migrations").mkdir(parents=True)
    (root / "blog" / "models.py").write_text(MODELS)
    migration = root / "blog" / "migrations" / "0008_entry_is_searchable.py"
    migration.write_text(MIGRATION)
    init_store(root)
    with Store.open(root / ".cairn") as store:
        added = store.append(
            EventDraft(type="add", entity="blog_entries.is_searchable", reasoning="Search")
        ).event.id
        store.append(
            EventDraft(
                type="revert", entity="blog_entries.is_searchable", reverts=added, reasoning=REASON
            )
        )

    uri = await open_warned(client, root, migration, "python")

    found = [
        (d.range.start.line, d.range.start.character, d.message)
        for d in cairn_diagnostics(client, uri)
    ]
    assert len(found) == 1, found
    line, character, message = found[0]
    assert (line, character) == (9, 17)  # on "is_searchable"
    assert "blog_entries.is_searchable was reverted" in message
    assert REASON in message
    hover = await hover_text(client, uri, 9, 20)
    assert "blog_entries.is_searchable" in hover
    assert "blog_entry." not in hover
