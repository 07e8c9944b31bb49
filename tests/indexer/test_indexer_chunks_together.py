"""A first index builds all chunks' symbols in one pass and splits them back; it must
equal building each top-level chunk alone, which is what an edit re-indexes."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_indexer_go_rust_java as g
import test_indexer_javascript as j
import test_indexer_python as p
import test_indexer_ruby as r
import test_indexer_sql as s

from cairn.indexer import Document
from cairn.indexer.capture import FileContext
from cairn.indexer.extract import _build_together, _index_chunks
from cairn.indexer.model import Symbol

SAMPLES = {
    "db/001.sql": s.MIGRATION,
    "shop/models.py": p.SQLALCHEMY + p.DJANGO + p.ALEMBIC + p.ROUTES + p.PREFIXED,
    "src/server.ts": j.SERVER + j.KNEX + j.SEQUELIZE,
    "db/migrate/001_users.rb": r.MIGRATION + r.ROUTES,
    "src/lib.rs": g.RUST,
    "main.go": g.GO + g.GO_ROUTES.split("\n", 1)[1],
    "src/main.rs": g.RUST + g.AXUM,
    "src/Shop.java": g.JAVA,
}


def one_chunk_at_a_time(doc: Document) -> list[Symbol]:
    """Every top-level chunk indexed alone, as after an edit to it."""
    assert doc._tree is not None and doc.language is not None
    root = doc._tree.root_node
    chunks = [c for c in root.children if "comment" not in c.type]
    ctx = FileContext(doc.file, doc.language, doc._data)
    out: list[Symbol] = []
    for index in range(len(chunks)):
        out += _index_chunks(root, chunks, [index], ctx, doc._lines, doc._queries())[index]
    return out


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_one_pass_equals_chunk_by_chunk(path: str) -> None:
    doc = Document(path, SAMPLES[path])
    assert doc._tree is not None and len(doc._tree.root_node.children) >= 2
    assert doc.symbols, path
    assert doc.symbols == one_chunk_at_a_time(doc)


def test_a_scope_reaching_outside_its_chunk_is_built_chunk_by_chunk(tmp_path: Path) -> None:
    # A user's pattern whose @range is the whole module. Chunk by chunk, each function
    # nests only in its own module-wide scope; in one pass, `first` would nest in the
    # later `second`'s scope (`second.first`), so the one pass must not be used.
    (tmp_path / "python.scm").write_text(
        "(module (function_definition name: (identifier) @function.introduce)) @range\n",
        "utf-8",
    )
    text = "def first():\n    pass\n\n\ndef second():\n    pass\n"
    doc = Document("app.py", text, tmp_path)
    assert doc.symbols == one_chunk_at_a_time(doc)
    assert sorted(sym.entity for sym in doc.symbols) == [
        "app.py::first",
        "app.py::first.first",
        "app.py::second",
        "app.py::second.second",
    ]


def test_nothing_to_build_gives_every_chunk_an_empty_list() -> None:
    doc = Document("notes.py", "import os\nimport sys\n")
    assert doc._tree is not None
    chunks = list(doc._tree.root_node.children)
    ctx = FileContext(doc.file, "python", doc._data)
    built = _build_together(ctx, doc._lines, "notes.py::", chunks, [0, 1], [], [])
    assert built == {0: [], 1: []}
    assert doc.symbols == []


def test_two_distant_edits_rebuild_only_their_chunks_in_one_pass(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from indexer_helpers import assert_consistent

    from cairn.indexer import extract as extract_module

    text = s.MIGRATION
    doc = Document("db/001.sql", text)
    before = doc.symbols
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("CREATE TABLE "))
    last = max(i for i, line in enumerate(lines) if line.startswith("ALTER TABLE "))
    assert first < last - 2
    passes: list[list[int]] = []
    real = extract_module._build_together

    def spy(*args: object) -> object:
        passes.append(list(args[4]))  # type: ignore[call-overload]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(extract_module, "_build_together", spy)
    # two edits before the symbols are asked for: the chunk path, two dirty chunks
    # with clean ones between them (a space after the keywords changes no entity)
    doc.edit(last, len("ALTER TABLE"), last, len("ALTER TABLE"), " ")
    doc.edit(first, len("CREATE TABLE"), first, len("CREATE TABLE"), " ")
    lines[first] = lines[first].replace("CREATE TABLE", "CREATE TABLE ", 1)
    lines[last] = lines[last].replace("ALTER TABLE", "ALTER TABLE ", 1)
    assert [sym.entity for sym in doc.symbols] == [sym.entity for sym in before]
    assert [len(dirty) for dirty in passes] == [2]  # the two edited chunks, in one pass
    assert_consistent(doc, "\n".join(lines), "db/001.sql")
