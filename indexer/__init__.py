"""The indexer: source text -> tree-sitter symbols -> canonical entity paths.

    symbols = index_text(text, "src/app.py")       # list[Symbol], never raises on bad input
    doc = Document("db/001.sql", text)              # keeps its tree between edits
    doc.edit(0, 4, 0, 9, "people"); doc.symbols; doc.symbol_at(0, 5)
    symbols_at(symbols, line, character)            # every symbol at a position

Queries live in `queries/<language>.scm`; users extend them in `.cairn/queries/`.
See docs/indexer.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cairn.indexer.document import Document, index_text, symbols_at
from cairn.indexer.languages import language_for
from cairn.indexer.model import QueryError, Range, Role, Symbol
from cairn.indexer.queries import user_query_errors

if TYPE_CHECKING:
    from cairn.indexer.scan import FileSymbols, iter_files, scan_paths

__all__ = [
    "Document",
    "FileSymbols",
    "QueryError",
    "Range",
    "Role",
    "Symbol",
    "index_text",
    "iter_files",
    "language_for",
    "scan_paths",
    "symbols_at",
    "user_query_errors",
]


def __getattr__(name: str) -> Any:
    """The tree walk (`scan_paths`, `iter_files`, `FileSymbols`) on first use: it loads
    `pathspec`, which the language server (one document at a time) never needs."""
    if name in ("FileSymbols", "iter_files", "scan_paths"):
        from cairn.indexer import scan

        return getattr(scan, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
