"""Shared assertions: expected ranges are computed from the source text itself."""

from __future__ import annotations

from cairn.indexer import Document, Range, Role, Symbol, index_text
from cairn.indexer.capture import FileContext
from cairn.indexer.extract import extract


def span(text: str, needle: str, occurrence: int = 0, *, after: str | None = None) -> Range:
    """The LSP range (UTF-16) of the `occurrence`-th `needle` in `text` (counting from
    the first `after`, when given)."""
    index = text.index(after) - 1 if after is not None else -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    return Range(*_position(text, index), *_position(text, index + len(needle)))


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index)
    start = text.rfind("\n", 0, index) + 1
    return line, len(text[start:index].encode("utf-16-le")) // 2


def one(symbols: list[Symbol], entity: str, role: Role | None = None) -> Symbol:
    """The single symbol for `entity` (and `role`), failing loudly otherwise."""
    found = [s for s in symbols if s.entity == entity and (role is None or s.role is role)]
    assert len(found) == 1, f"{entity} {role}: {found!r} in {[s.entity for s in symbols]}"
    return found[0]


def entities(symbols: list[Symbol]) -> list[tuple[str, str, str]]:
    """(entity, kind, role) triples in output order."""
    return [(s.entity, s.kind, s.role.value) for s in symbols]


def uncached_symbols(doc: Document) -> list[Symbol]:
    """What a full, uncached extraction finds in the document's current tree: the
    incremental paths (chunk cache, splice) must agree with it exactly."""
    if not doc.indexable or doc._tree is None or doc.language is None:
        return doc.symbols
    ctx = FileContext(doc.file, doc.language, doc._data)
    return extract(doc._tree, ctx, doc._lines, doc._queries(), None)


def assert_consistent(doc: Document, text: str, path: str) -> None:
    """The document's symbols equal a full extraction over its own tree, and equal a
    fresh index of its text whenever the tree is error-free. (With syntax errors,
    tree-sitter's incremental re-parse may recover differently from a fresh parse;
    that is the parser's choice, not the indexer's.)"""
    assert doc.text == text
    assert doc.symbols == uncached_symbols(doc)
    if doc._tree is None or not doc._tree.root_node.has_error:
        assert doc.symbols == index_text(text, path)
