"""The real server names a new migration's column by the model's stated table (issue
29.3): `AddField(model_name="entry")` on a model with `db_table = "blog_entries"` is
warned about as `blog_entries.is_searchable`, the entity `cairn check` blocks."""

from __future__ import annotations

from pathlib import Path

from django_db_table import ADD_FIELD, MODELS, NEW_MIGRATION, REASON, seed_reverted_column
from lsp_helpers import cairn_diagnostics, hover_text, open_warned
from pytest_lsp import LanguageClient


async def test_a_new_migration_is_warned_on_the_stated_table(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "site"
    (root / "blog" / "migrations").mkdir(parents=True)
    (root / "blog" / "models.py").write_text(MODELS)
    migration = root / NEW_MIGRATION
    migration.write_text(ADD_FIELD)
    seed_reverted_column(root)

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
