"""The chunk cache's keys (kind id and bytes, one file-wide context) and `widen`'s
per-language wrappers: what a re-index reuses, and when it must not."""

from __future__ import annotations

from tree_sitter import Node

from cairn.indexer import Document
from cairn.indexer.languages import parser
from cairn.indexer.symbols import widen

PY = """\
from fastapi import APIRouter

router = APIRouter(prefix="/users")


@router.get("/me")
def me():
    pass


def helper():
    return 1
"""


def _first(node: Node, kind: str) -> Node:
    found = _find(node, kind)
    assert found is not None, kind
    return found


def _find(node: Node, kind: str) -> Node | None:
    if node.type == kind:
        return node
    for child in node.children:
        found = _find(child, kind)
        if found is not None:
            return found
    return None


def test_widen_reads_the_parent_only_in_languages_with_wrappers() -> None:
    sql = parser("sql").parse(b"ALTER TABLE t ADD COLUMN c integer;\n").root_node
    add = _first(sql, "add_column")
    assert widen(add, "sql") is add
    assert widen(add).type == widen(add, "sql").type  # nothing to widen either way
    py = parser("python").parse(b"@app.get('/x')\ndef f():\n    pass\n").root_node
    function = _first(py, "function_definition")
    assert widen(function, "python").type == "decorated_definition"
    assert widen(function, "ruby") is function  # no wrapper in that language
    go = parser("go").parse(b"package p\n\nconst X = 1\n").root_node
    spec = _first(go, "const_spec")
    assert widen(spec, "go").type == "const_declaration"
    js = parser("javascript").parse(b"export function f() {}\n").root_node
    declaration = _first(js, "function_declaration")
    assert widen(declaration, "javascript").type == "export_statement"


def test_an_edit_reuses_the_untouched_chunks_symbols() -> None:
    doc = Document("api/users.py", PY)
    before = {s.entity: s for s in doc.symbols}
    cache = doc._chunks
    # the first symbols come from one pass; the edit fills the cache before it applies
    assert cache is not None and cache.context is None and not cache.entries
    line = PY.splitlines().index("    return 1")
    doc.edit(line, 11, line, 12, "2")
    context = cache.context
    assert context is not None
    after = {s.entity: s for s in doc.symbols}
    assert after.keys() == before.keys()
    assert cache.context == context
    # the route's chunk was not queried again: its very symbol objects came back
    route = next(e for e in before if e.startswith("route/"))
    assert after[route] is before[route]
    assert all(isinstance(kind, int) and isinstance(text, bytes) for kind, text in cache.entries)


def test_a_changed_context_reuses_nothing() -> None:
    doc = Document("api/users.py", PY)
    before = {s.entity for s in doc.symbols}
    cache = doc._chunks
    assert cache is not None
    line = PY.splitlines().index('router = APIRouter(prefix="/users")')
    column = PY.splitlines()[line].index("/users") + 1
    doc.edit(line, column, line, column + 5, "people")
    after = {s.entity for s in doc.symbols}
    assert "route/GET /users/me" in before
    assert "route/GET /people/me" in after and "route/GET /users/me" not in after
    assert b"/people" in (cache.context or b"")


def test_a_chunk_with_a_syntax_error_is_never_kept() -> None:
    broken = PY.replace("def helper():", "def helper(:")
    doc = Document("api/users.py", broken)
    assert doc.symbols
    doc.remember_chunks()
    cache = doc._chunks
    assert cache is not None
    assert not any(b"def helper(:" in text for _, text in cache.entries)
    assert any(b"def me()" in text for _, text in cache.entries)
