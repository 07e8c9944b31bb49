"""A document's first symbols come from one pass without the chunk bookkeeping
(`first_index`), and the chunk cache is filled later (`Document.remember_chunks`): both
must equal what `extract` gives and leaves behind with an empty cache, and an edit that
comes before the fill must still reuse the untouched chunks."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_indexer_go_rust_java as g
import test_indexer_javascript as j
import test_indexer_python as p
import test_indexer_ruby as r
import test_indexer_sql as s

from cairn.indexer import Document, Role, index_text
from cairn.indexer.capture import FileContext
from cairn.indexer.extract import ChunkCache, extract, first_index

# A migration that is mostly comment lines, a statement repeated word for word (two
# chunks with one key), non-ASCII text before names (UTF-16 columns) and a syntax error.
MIGRATION = (
    "-- backfill notes\n" * 3
    + s.MIGRATION
    + "-- émoji 🎉 before a statement\n"
    + "ALTER TABLE users ADD COLUMN bio text;\n"
    + "-- again\n"
    + "ALTER TABLE users ADD COLUMN bio text;\n"
    + "ALTER TABLE  ADD COLUMN broken;\n"
    + "/* ünïcode */ ALTER TABLE orgs ADD COLUMN naïve_name text;\n"
)

SAMPLES = {
    "db/001.sql": MIGRATION,
    "db/002.sql": s.MIGRATION,
    "shop/models.py": p.SQLALCHEMY + p.DJANGO + p.ALEMBIC + p.ROUTES + p.PREFIXED,
    "api/broken.py": p.ROUTES.replace("def ", "def (", 1) + p.DJANGO,
    "src/server.ts": j.SERVER + j.KNEX + j.SEQUELIZE,
    "db/migrate/001_users.rb": r.MIGRATION + r.ROUTES,
    "main.go": g.GO + g.GO_ROUTES.split("\n", 1)[1],
    "src/main.rs": g.RUST + g.AXUM,
    "src/Shop.java": g.JAVA,
    "db/only_comments.sql": "-- one\n-- two\n/* three */\n",
    "db/one.sql": "ALTER TABLE t ADD COLUMN c int;",
    "empty.py": "",
}


def with_empty_cache(doc: Document) -> tuple[list, ChunkCache]:  # type: ignore[type-arg]
    """What `extract` returns for the document, and the cache it leaves, from nothing."""
    assert doc._tree is not None and doc.language is not None
    cache = ChunkCache()
    ctx = FileContext(doc.file, doc.language, doc._data)
    return extract(doc._tree, ctx, doc._lines, doc._queries(), cache), cache


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_first_symbols_and_the_filled_cache_equal_extracts(path: str) -> None:
    doc = Document(path, SAMPLES[path])
    symbols = list(doc.symbols)
    assert symbols == index_text(SAMPLES[path], path)
    if doc._tree is None:
        return  # nothing parsed (empty): nothing to remember either
    expected, cache = with_empty_cache(doc)
    assert symbols == expected
    doc.remember_chunks()
    assert doc._chunks is not None
    assert doc._chunks.context == cache.context
    assert doc._chunks.entries == cache.entries
    assert doc.symbols == symbols  # remembering changes nothing shown


def test_the_samples_hold_symbols_and_many_chunks() -> None:
    for path in ("db/001.sql", "shop/models.py", "src/server.ts", "main.go"):
        doc = Document(path, SAMPLES[path])
        assert doc.symbols, path
        doc.remember_chunks()
        assert doc._chunks is not None and len(doc._chunks.entries) >= 3, path


def test_a_scope_reaching_outside_its_chunk_is_left_to_extract(tmp_path: Path) -> None:
    (tmp_path / "python.scm").write_text(
        "(module (function_definition name: (identifier) @function.introduce)) @range\n",
        "utf-8",
    )
    text = "def first():\n    pass\n\n\ndef second():\n    pass\n"
    doc = Document("app.py", text, tmp_path)
    assert doc._tree is not None and doc.language is not None
    ctx = FileContext(doc.file, doc.language, doc._data)
    assert first_index(doc._tree, ctx, doc._lines, doc._queries()) is None
    expected, cache = with_empty_cache(doc)
    assert doc.symbols == expected  # chunk by chunk, as before
    assert doc._chunks is not None and doc._chunks.entries == cache.entries  # filled at once
    assert not doc._unremembered


def test_an_edit_before_the_fill_reuses_the_untouched_chunks() -> None:
    text = SAMPLES["db/001.sql"]
    doc = Document("db/001.sql", text)
    before = {(x.entity, x.role): x for x in doc.symbols}
    assert doc._chunks is not None and not doc._chunks.entries  # not filled yet
    line = text.splitlines().index("ALTER TABLE users DROP COLUMN legacy_flag;")
    doc.edit(line, 30, line, 41, "old_flag")
    after = {(x.entity, x.role): x for x in doc.symbols}
    assert after == {(x.entity, x.role): x for x in index_text(doc.text, "db/001.sql")}
    assert ("users.old_flag", Role.REMOVE) in after
    # a statement the edit did not touch kept its very symbol object
    kept = next(k for k in before if k[0] == "users.email_verified")
    assert after[kept] is before[kept]


def test_a_replacement_before_the_fill_reuses_the_same_statements() -> None:
    text = SAMPLES["db/002.sql"]
    doc = Document("db/002.sql", text)
    before = {(x.entity, x.role): x for x in doc.symbols}
    doc.replace("-- a new first line\n" + text)
    after = {(x.entity, x.role): x for x in doc.symbols}
    assert after == {(x.entity, x.role): x for x in index_text(doc.text, "db/002.sql")}
    key = next(k for k in before if k[0] == "old_things")
    assert after[key].name_range.start_line == before[key].name_range.start_line + 1


def test_remembering_twice_or_after_a_new_version_is_harmless() -> None:
    text = SAMPLES["db/002.sql"]
    doc = Document("db/002.sql", text)
    assert doc.symbols
    doc.remember_chunks()
    assert doc._chunks is not None
    entries = dict(doc._chunks.entries)
    doc.remember_chunks()  # nothing due
    assert doc._chunks.entries == entries
    doc.replace(text + "ALTER TABLE t ADD COLUMN c int;\n")
    doc.remember_chunks()  # the new version's symbols were never asked for
    assert doc._chunks.entries == entries
    assert any(x.entity == "t.c" for x in doc.symbols)
