"""The indexer: source text -> tree-sitter symbols -> canonical entity paths.

    symbols = index_text(text, "src/app.py")       # list[Symbol], never raises on bad input
    doc = Document("db/001.sql", text)              # keeps its tree between edits
    doc.edit(0, 4, 0, 9, "people"); doc.symbols; doc.symbol_at(0, 5)
    symbols_at(symbols, line, character)            # every symbol at a position

Queries live in `queries/<language>.scm`; users extend them in `.cairn/queries/`.
See docs/indexer.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cairn.lazy import exports

if TYPE_CHECKING:
    from cairn.indexer.document import Document, index_text, symbols_at
    from cairn.indexer.languages import language_for
    from cairn.indexer.model import QueryError, Range, Role, Symbol
    from cairn.indexer.queries import user_query_errors
    from cairn.indexer.scan import FileSymbols, iter_files, scan_paths

# Which module defines each name, imported on first use (PEP 562): a command that needs
# one grammar's symbols, or only `cairn.indexer.manifests`, loads no more than that (the
# tree walk's `pathspec` included, which the language server never needs).
_HOME = {
    "Document": "document",
    "index_text": "document",
    "symbols_at": "document",
    "language_for": "languages",
    "QueryError": "model",
    "Range": "model",
    "Role": "model",
    "Symbol": "model",
    "user_query_errors": "queries",
    "FileSymbols": "scan",
    "iter_files": "scan",
    "scan_paths": "scan",
}

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

__getattr__ = exports(__name__, _HOME)
