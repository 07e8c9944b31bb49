"""An open document: its text, its tree (kept between edits) and its symbols."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from tree_sitter import Point, Tree

from cairn.indexer import manifests
from cairn.indexer.capture import FileContext
from cairn.indexer.extract import CODE_KINDS, ChunkCache, extract, first_index, remember
from cairn.indexer.languages import GRAMMARS, language_for, parser
from cairn.indexer.model import QueryError, Range, Symbol
from cairn.indexer.overloads import name_overloads
from cairn.indexer.queries import Patterns, builtin_queries, user_query
from cairn.indexer.splice import EditRecord, splice
from cairn.indexer.text import MAX_BYTES, LineIndex, to_bytes
from cairn.limits import looks_binary


class Document:
    """A file's text and symbols, updated incrementally: `edit` applies `tree.edit` and
    re-parses against the old tree, so an edit costs little more than the change."""

    def __init__(
        self,
        file: str,
        text: str | bytes,
        user_queries_dir: str | Path | None = None,
        *,
        language: str | None = None,
        model_tables: Mapping[str, str] | None = None,
        _one_shot: bool = False,
    ) -> None:
        self.file = file.replace("\\", "/")
        self.model_tables: Mapping[str, str] = model_tables or {}
        self.language = language if language is not None else language_for(self.file)
        self.user_queries_dir = user_queries_dir
        self._tree: Tree | None = None
        self._symbols: list[Symbol] | None = None
        # the symbols before overloads were named (`overloads.name_overloads`): what an
        # edit splices into and the chunk cache remembers, which know nothing of them
        self._plain: list[Symbol] | None = None
        self._text: str | None = None
        # a document that will be edited remembers symbols per chunk; a one-shot need not
        self._chunks: ChunkCache | None = None if _one_shot else ChunkCache()
        # the symbols came from `first_index`: the chunk cache is filled from them later
        # (`remember_chunks`), not before they are shown
        self._unremembered = False
        # symbols as they were before the edits since, for splice() (one edit only)
        self._base: list[Symbol] | None = None
        self._pending: list[EditRecord] = []
        self._indexable: bool | None = None  # decided per version of the text
        self._query_list: list[Patterns] | None = None  # chosen per version
        self._set_data(to_bytes(text))

    # --- text -------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The document's text (invalid UTF-8 shows as U+FFFD)."""
        if self._text is None:
            self._text = self._data.decode("utf-8", "replace")
        return self._text

    @property
    def indexable(self) -> bool:
        """False for unknown languages, binary content, files over the size limit and
        files no query applies to (a `package-lock.json` is never parsed). Decided once
        per version of the text, when it is parsed (or not)."""
        if self._indexable is None:
            self._indexable = (
                self.language is not None
                and len(self._data) <= MAX_BYTES
                and not looks_binary(self._data)
                and (self.language not in GRAMMARS or bool(self._queries()))
            )
        return self._indexable

    def _queries(self) -> list[Patterns]:
        """The built-in and user queries with a pattern for this file (compiled once;
        chosen once per version of the text)."""
        if self._query_list is None:
            self._query_list = self._find_queries()
        return self._query_list

    def _find_queries(self) -> list[Patterns]:
        if self.language is None or self.language not in GRAMMARS:
            return []
        # only the patterns that apply to this file's name, and the framework parts its
        # text can match, are compiled and matched
        name = self.file.rsplit("/", 1)[-1]
        found = builtin_queries(self.language, name, self._data)
        try:
            extra = user_query(self.language, self.user_queries_dir)
        except QueryError:
            extra = None  # reported by user_query_errors(); the built-in queries still run
        narrowed = extra.for_file(name) if extra is not None else None
        if narrowed is not None:
            found.append(narrowed)
        return found

    def replace(self, text: str | bytes) -> None:
        """Replace the whole text (a full-document sync); the tree is rebuilt."""
        self.remember_chunks()  # chunks whose bytes stay are reused
        self._tree = None
        self._base = None
        self._pending = []
        self._set_data(to_bytes(text))

    def edit(
        self, start_line: int, start_char: int, end_line: int, end_char: int, new_text: str
    ) -> None:
        """Apply an LSP content change (positions in UTF-16 code units)."""
        self.remember_chunks()  # before the tree is edited: what the re-index reuses
        lines = self._lines
        start_byte, start_col = lines.byte_offset(start_line, start_char)
        end_byte, end_col = lines.byte_offset(end_line, end_char)
        if end_byte < start_byte:
            start_byte, end_byte, start_col, end_col = end_byte, start_byte, end_col, start_col
        start_row = lines.point(start_byte)[0]
        end_row = lines.point(end_byte)[0]
        inserted = to_bytes(new_text)
        data = self._data[:start_byte] + inserted + self._data[end_byte:]
        newlines = inserted.count(b"\n")
        if newlines:
            new_end_col = len(inserted) - (inserted.rfind(b"\n") + 1)
        else:
            new_end_col = start_col + len(inserted)
        new_end_row = start_row + newlines
        old_tree = self._tree
        if old_tree is not None:
            old_tree.edit(
                start_byte=start_byte,
                old_end_byte=end_byte,
                new_end_byte=start_byte + len(inserted),
                start_point=Point(start_row, start_col),
                old_end_point=Point(end_row, end_col),
                new_end_point=Point(new_end_row, new_end_col),
            )
        if self._plain is not None:
            self._base, self._pending = self._plain, []
        start = (start_row, lines.utf16_column(start_row, start_col))
        old_end = (end_row, lines.utf16_column(end_row, end_col))
        self._set_data(
            data, keep_tree=True, lines=lines.after_edit(data, start_byte, end_byte, inserted)
        )
        changed: tuple[tuple[int, int], ...] = ()
        if old_tree is not None and self._tree is not None:
            changed = tuple((r.start_byte, r.end_byte) for r in old_tree.changed_ranges(self._tree))
        new_end = (new_end_row, self._lines.utf16_column(new_end_row, new_end_col))
        record = EditRecord(
            start_byte, start_byte + len(inserted), start, old_end, new_end, changed
        )
        self._pending.append(record)

    # --- symbols ----------------------------------------------------------------------

    @property
    def symbols(self) -> list[Symbol]:
        """Every symbol in the document, sorted by position (computed once per version)."""
        if self._symbols is None:
            plain = self.plain_symbols
            self._symbols = name_overloads(plain, self._data, self._lines, self.language)
        return self._symbols

    @property
    def plain_symbols(self) -> list[Symbol]:
        """The symbols before overloads are named (`name_overloads`): each overload
        under its bare path only."""
        if self._plain is None:
            self._plain = self._index()
        return self._plain

    def remember_chunks(self) -> None:
        """Fill the chunk cache an edit reuses, if the symbols were found without it.

        A document's first symbols come from one pass over the file (`first_index`),
        without the per-chunk bookkeeping (a tenth of a large file's open); the editor's
        server calls this once their diagnostics are out, and an edit or a replacement
        that comes first calls it before it changes anything."""
        if not self._unremembered:
            return
        self._unremembered = False
        if self._chunks is None or self._tree is None or self._plain is None:
            return
        if self.language is None:
            return
        ctx = FileContext(self.file, self.language, self._data, model_tables=self.model_tables)
        remember(self._chunks, self._tree, ctx, self._lines, self._queries(), self._plain)

    def symbol_at(self, line: int, character: int) -> Symbol | None:
        """The symbol whose name is under the position (innermost first), else the
        innermost symbol whose whole range contains it. Which of several symbols at one
        place a surface shows is the core's rule (`cairn.core.position`), which starts
        from `symbols_at`."""
        found = symbols_at(self.symbols, line, character)
        return found[0] if found else None

    def symbols_at(self, line: int, character: int) -> list[Symbol]:
        """Every symbol at the position (see the module function `symbols_at`)."""
        return symbols_at(self.symbols, line, character)

    # --- internals --------------------------------------------------------------------

    def _set_data(
        self, data: bytes, *, keep_tree: bool = False, lines: LineIndex | None = None
    ) -> None:
        self._data = data
        self._text = None
        self._symbols = None
        self._plain = None
        self._unremembered = False
        self._indexable = None
        self._query_list = None
        self._lines = lines if lines is not None else LineIndex(data)
        if not keep_tree:
            self._tree = None
        if self.indexable and self.language in GRAMMARS:
            ts_parser = parser(self.language)
            old = self._tree
            self._tree = ts_parser.parse(data, old) if old is not None else ts_parser.parse(data)
        else:
            self._tree = None

    def _index(self) -> list[Symbol]:
        if not self.indexable:
            return []
        if self.language == "requirements":
            return manifests.requirements(self.file, self.text)
        if self.language == "gomod":
            return manifests.go_mod(self.file, self.text)
        if self.language == "dockerfile":
            return manifests.dockerfile(self.file, self.text)
        if self._tree is None or self.language is None:
            return []
        queries = self._queries()
        ctx = FileContext(self.file, self.language, self._data, model_tables=self.model_tables)
        base, pending = self._base, self._pending
        self._base, self._pending = None, []
        if base is not None and len(pending) == 1:
            spliced = splice(self._tree, ctx, self._lines, queries, base, pending[0])
            if spliced is not None:
                return spliced
        if self._chunks is not None and not self._chunks.entries:
            # Nothing to reuse: one pass, and the cache later (`remember_chunks`).
            found = first_index(self._tree, ctx, self._lines, queries)
            if found is not None:
                self._unremembered = True
                return found
        return extract(self._tree, ctx, self._lines, queries, self._chunks)


def symbols_at(
    symbols: Iterable[Symbol], line: int, character: int, *, named_only: bool = False
) -> list[Symbol]:
    """The symbols at a position, in the document's order: those whose name holds it
    (the innermost names: a column and its field share one), else (unless `named_only`)
    those whose whole range is the innermost to hold it. On equal ranges there the
    definition wins: a decorated function and its route share the decorated range, and
    a position in the body means the function."""
    every = symbols if isinstance(symbols, (list, tuple)) else list(symbols)
    named = [s for s in every if s.name_range.contains(line, character)]
    if named:
        least = min(_size(s.name_range) for s in named)
        return [s for s in named if _size(s.name_range) == least]
    if named_only:
        return []
    enclosing = [s for s in every if s.range.contains(line, character)]
    if not enclosing:
        return []
    best = min(_enclosing_key(s) for s in enclosing)
    return [s for s in enclosing if _enclosing_key(s) == best]


def _size(r: Range) -> tuple[int, int]:
    return (r.end_line - r.start_line, r.end_character - r.start_character)


def index_text(
    text: str | bytes,
    file: str,
    *,
    user_queries_dir: str | Path | None = None,
    model_tables: Mapping[str, str] | None = None,
    overloads: bool = True,
) -> list[Symbol]:
    """The symbols of one file's text; never raises on bad input. `model_tables` is
    what the file's Django app states about its tables (`app_model_tables`). Without
    `overloads`, overloaded declarations keep their one bare path (`name_overloads` not
    run): enough to ask whether a name is declared, at a sixth less of a Java file's cost."""
    doc = Document(file, text, user_queries_dir, model_tables=model_tables, _one_shot=True)
    return doc.symbols if overloads else doc.plain_symbols


def index_text_and_tree(text: str | bytes, file: str) -> tuple[list[Symbol], Tree | None]:
    """`index_text`, and the syntax tree the symbols were read from (None when the file
    was not parsed): a caller that asks the tree more (`cairn.fingerprints.row_kinds`)
    does not parse the file a second time."""
    doc = Document(file, text, _one_shot=True)
    return doc.symbols, doc._tree


def _enclosing_key(symbol: Symbol) -> tuple[tuple[int, int], bool]:
    return _size(symbol.range), symbol.kind not in CODE_KINDS
