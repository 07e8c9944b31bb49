"""Open documents: the one owner of document state.

A document belongs to the nearest directory above it that holds a `.cairn/` folder
(`cairn.core.project.ProjectFinder`, which honours `CAIRN_DIR` as the CLI does), so a
multi-root workspace (or a monorepo with several projects) gets one log per root
without configuration. Each open document keeps one indexer `Document`, edited
incrementally from `didChange` content changes on the event loop, plus its last
`Analysis`, tagged with the version it was computed for.

`Documents` is the only writer: handlers call `open`, `change`, `close`, `schedule`,
`fresh`, `refresh`, and read the `OpenDocument` views it hands out (whose fields they
never assign). Analysis works on a `DocumentSnapshot` (frozen: the text, symbols and
project of one version), so what it awaits on the worker thread cannot change under it;
its result is kept only if the document is still at that version.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
from lsprotocol import types

from cairn.core.position import history_from, rank
from cairn.core.project import Project
from cairn.indexer import Document, app_model_tables, symbols_at, user_query_errors
from cairn.lsp.analysis import EMPTY, Analysis, analyse, prefetch_hovers
from cairn.lsp.conversions import relative_to, uri_path, wire_diagnostics
from cairn.lsp.settings import Settings

if TYPE_CHECKING:
    from cairn.indexer.model import Symbol
    from cairn.lsp.server import CairnServer

log = logging.getLogger(__name__)
NOT_IN_PROJECT = "outside a Cairn project"
TOO_LARGE = "too large"


class DocumentSnapshot(msgspec.Struct, frozen=True):
    """One version of a document, as analysis sees it (immutable: safe to await over)."""

    uri: str
    version: int
    project: Project | None
    relpath: str | None
    symbols: tuple[Symbol, ...]
    text: str
    is_draft: bool = False
    refused: bool = False  # a save of this draft was refused: its problems are errors
    settings: Settings = msgspec.field(default_factory=Settings)  # its workspace folder's


class OpenDocument(msgspec.Struct):
    """One open file: its text model, its project and its last analysis.

    Handlers read it; only `Documents` writes it.
    """

    uri: str
    path: Path | None
    project: Project | None
    relpath: str | None  # repository-relative path, as the indexer and entity paths want it
    version: int
    doc: Document | None  # None when the file is not analysed (binary, huge, outside a project)
    skipped: str | None = None  # why it is not analysed
    is_draft: bool = False
    refused: bool = False  # a save of this draft was refused: show its problems as errors
    analysis: Analysis = EMPTY
    _by_line: dict[int, list[Symbol]] = msgspec.field(default_factory=dict)
    _lines_of: object = None  # the symbol list _by_line indexes

    @property
    def fresh(self) -> bool:
        """True when the last analysis matches the current text."""
        return self.analysis.version == self.version

    def entities_at(self, line: int, character: int) -> list[Symbol]:
        """The symbols at a position, best first by the core's rule
        (`cairn.core.position`; history from the last analysis): names by line first (a
        dict lookup), else the innermost enclosing construct."""
        if self.doc is None:
            return []
        symbols = self.doc.symbols
        if self._lines_of is not symbols:
            by_line: dict[int, list[Symbol]] = {}
            for symbol in symbols:
                r = symbol.name_range
                for number in range(r.start_line, r.end_line + 1):
                    by_line.setdefault(number, []).append(symbol)
            self._by_line, self._lines_of = by_line, symbols
        here = symbols_at(self._by_line.get(line, ()), line, character, named_only=True)
        if not here:
            here = symbols_at(symbols, line, character)
        return rank(here, history_from(self.analysis.statuses))


class Documents:
    """The open documents of one server: open, change, close, schedule, publish."""

    def __init__(self, server: CairnServer) -> None:
        self._server = server
        self._open: dict[str, OpenDocument] = {}

    # --- reading ----------------------------------------------------------------------

    def get(self, uri: str) -> OpenDocument | None:
        """The open document at `uri`, or None."""
        return self._open.get(uri)

    def __iter__(self) -> Iterator[OpenDocument]:
        return iter(list(self._open.values()))

    def __len__(self) -> int:
        return len(self._open)

    def projects(self) -> list[Project]:
        """The projects of the open documents, each once."""
        found: dict[Path, Project] = {}
        for doc in self._open.values():
            if doc.project is not None:
                found.setdefault(doc.project.cairn_dir, doc.project)
        return list(found.values())

    def snapshot(self, doc: OpenDocument) -> DocumentSnapshot:
        """The document's current version, frozen for analysis."""
        if doc.is_draft:
            text = self._text(doc.uri)
            symbols: tuple[Symbol, ...] = ()
        elif doc.doc is not None and doc.project is not None:
            symbols = tuple(doc.doc.symbols)
            text = doc.doc.text
        else:
            symbols, text = (), ""
        return DocumentSnapshot(
            uri=doc.uri,
            version=doc.version,
            project=doc.project,
            relpath=doc.relpath,
            symbols=symbols,
            text=text,
            is_draft=doc.is_draft,
            refused=doc.refused,
            settings=self._server.settings_for(doc.uri),
        )

    # --- the document lifecycle --------------------------------------------------------

    def open(self, uri: str, text: str, version: int) -> None:
        """didOpen: build the server's view and analyse it at once."""
        self._open[uri] = self._build(uri, text, version)
        self.schedule(uri, 0)

    def change(
        self, uri: str, version: int, changes: Sequence[types.TextDocumentContentChangeEvent]
    ) -> None:
        """didChange: apply the edits incrementally, then analyse after the debounce."""
        doc = self._open.get(uri)
        if doc is None:
            return
        doc.version = version
        self._apply(doc, changes)
        self.schedule(uri)

    def close(self, uri: str) -> None:
        """didClose: forget the document; a pushing server clears its diagnostics."""
        self._server.scheduler.cancel(uri)
        doc = self._open.pop(uri, None)
        if doc is not None and not self._server.pulls_diagnostics:
            self._publish(uri, doc.version, [])

    def adopt_new_projects(self) -> None:
        """Documents opened outside any project join one created since (`cairn init`)."""
        orphans = [(d, d.path) for d in self._open.values() if d.project is None and d.path]
        if not orphans:
            return
        projects = self._server.projects
        projects.forget()
        for doc, path in orphans:
            if projects.for_path(path) is None:
                continue
            self.open(doc.uri, self._text(doc.uri), doc.version)

    # --- analysis ---------------------------------------------------------------------

    def schedule(self, uri: str, delay_ms: int | None = None) -> None:
        """(Re)start the document's debounced analysis (`debounceMs` unless given)."""
        delay = self._server.settings_for(uri).debounce_ms if delay_ms is None else delay_ms
        self._server.scheduler.debounce(uri, delay / 1000, lambda: self._analyse_now(uri))

    async def fresh(self, doc: OpenDocument) -> Analysis:
        """The analysis of the current text: the cached one, or a new one at once
        (for requests that need an answer now: pull diagnostics, code lens)."""
        if not doc.fresh:
            self._server.scheduler.cancel(doc.uri)
            await self._analyse_now(doc.uri)
        return doc.analysis

    def refresh(self, cairn_dirs: Iterable[Path] | None) -> None:
        """The log changed underneath: forget the affected documents' analyses, push
        new ones (or ask a pulling client to pull), and ask for new code lenses."""
        server = self._server
        wanted = None if cairn_dirs is None else set(cairn_dirs)
        for doc in list(self._open.values()):
            if doc.project is None and not doc.is_draft:
                continue
            if (
                wanted is not None
                and doc.project is not None
                and doc.project.cairn_dir not in wanted
            ):
                continue
            doc.analysis = EMPTY
            if not server.pulls_diagnostics:
                self.schedule(doc.uri, 0)
        self.ask_to_refresh()

    def ask_to_refresh(self) -> None:
        """Ask the client for new code lenses and, when it pulls, new diagnostics (what
        it holds may be stale: the log changed)."""
        server, client = self._server, self._server.client
        # Fire and forget: a command's answer must not wait for the client's refresh.
        if client.capability("workspace.code_lens.refresh_support"):
            server.scheduler.spawn(client.refresh_code_lenses())
        if server.pulls_diagnostics and client.capability("workspace.diagnostics.refresh_support"):
            server.scheduler.spawn(client.refresh_diagnostics())

    @property
    def pulls_diagnostics(self) -> bool:
        """True when the client pulls diagnostics (decided at initialize)."""
        return self._server.pulls_diagnostics

    def settle_draft(
        self, doc: OpenDocument, *, refused: bool, diagnostics: list[types.Diagnostic]
    ) -> None:
        """A draft's save was handled: keep (and push) what it says now."""
        doc.refused = refused
        shown = wire_diagnostics(diagnostics)
        doc.analysis = Analysis(version=doc.version, diagnostics=shown)
        if not self._server.pulls_diagnostics:
            self._publish(doc.uri, doc.version, list(shown))

    async def refuse_draft(self, doc: OpenDocument) -> None:
        """A draft's save was refused: its problems become errors, shown at once."""
        doc.refused = True
        self._server.scheduler.cancel(doc.uri)
        await self._analyse_now(doc.uri)

    async def _analyse_now(self, uri: str) -> None:
        doc = self._open.get(uri)
        if doc is None:
            return
        snapshot = self.snapshot(doc)

        def current() -> bool:  # neither edited nor closed (and reopened) meanwhile
            return self._open.get(uri) is doc and doc.version == snapshot.version

        pushing = not self._server.pulls_diagnostics
        shown: list[Analysis] = []

        def early(analysis: Analysis) -> None:
            # What the statuses say, while the open reverts are read (see `analyse`);
            # a pulling client waits for the whole analysis instead.
            if current():
                doc.analysis = analysis
                shown.append(analysis)
                self._publish(uri, snapshot.version, list(analysis.diagnostics))

        result = await analyse(
            self._server, snapshot, current, early if pushing else None, previous=doc.analysis
        )
        if result is None or not current():
            return  # the newer analysis publishes
        doc.analysis = result
        if pushing and not (shown and shown[-1] is result):
            self._publish(uri, snapshot.version, list(result.diagnostics))
        prefetch_hovers(self._server, snapshot, result)

    def _publish(self, uri: str, version: int, diagnostics: list[dict[str, Any]]) -> None:
        self._server.publish_diagnostics(uri, version, diagnostics)
        doc = self._open.get(uri)
        if doc is not None and doc.doc is not None:
            # The edit cache of a newly opened file is filled while the client reads its
            # diagnostics, not before they are sent (`Document.remember_chunks`); an
            # edit that arrives first fills it itself.
            _soon(doc.doc.remember_chunks)

    # --- building and editing the indexer's document -----------------------------------

    def _text(self, uri: str) -> str:
        """The text pygls keeps (its own didOpen/didChange handlers run first)."""
        return self._server.client.text(uri)

    def _build(self, uri: str, text: str, version: int) -> OpenDocument:
        path = uri_path(uri)
        project = self._server.projects.for_path(path) if path is not None else None
        relpath = relative_to(path, project.root) if path is not None and project else None
        doc = OpenDocument(
            uri=uri, path=path, project=project, relpath=relpath, version=version, doc=None
        )
        if project is None or relpath is None:
            doc.skipped = NOT_IN_PROJECT
            return doc
        if relpath.startswith(".cairn/drafts/") and relpath.endswith(".md"):
            doc.is_draft = True
            return doc
        self._index(doc, text)
        return doc

    def _apply(
        self, doc: OpenDocument, changes: Sequence[types.TextDocumentContentChangeEvent]
    ) -> None:
        """Apply content changes to the indexer's document (or rebuild it from pygls' text)."""
        if doc.doc is None:
            if doc.skipped == TOO_LARGE and doc.project is not None:
                self._index(doc, self._text(doc.uri))
            return
        try:
            for change in changes:
                if isinstance(change, types.TextDocumentContentChangePartial):
                    r = change.range
                    doc.doc.edit(
                        r.start.line, r.start.character, r.end.line, r.end.character, change.text
                    )
                else:
                    doc.doc.replace(change.text)
        except Exception as exc:  # a bad range must not leave a half-edited tree behind
            self._server.client.log(f"rebuilding {doc.relpath} after a failed edit: {exc}")
            self._index(doc, self._text(doc.uri))
            return
        text = self._text(doc.uri)
        if len(text) > self._server.settings_for(doc.uri).max_file_bytes:
            self._index(doc, text)

    def _index(self, doc: OpenDocument, text: str) -> None:
        server = self._server
        limit = server.settings_for(doc.uri).max_file_bytes
        if len(text) > limit:
            doc.doc = None
            doc.skipped = TOO_LARGE
            server.client.log(f"not analysing {doc.relpath}: larger than maxFileBytes ({limit})")
            return
        if doc.project is None or doc.relpath is None:
            return
        queries = doc.project.queries
        if queries.is_dir():
            self._report_query_errors(doc.project)
        try:
            # what the file's Django app says of its tables is read once, at open
            tables = app_model_tables(doc.project.root, doc.relpath)
            doc.doc = Document(
                doc.relpath, text, queries if queries.is_dir() else None, model_tables=tables
            )
            doc.skipped = None
        except Exception as exc:
            doc.doc = None
            doc.skipped = f"cannot index: {exc}"
            server.client.log(f"not analysing {doc.relpath}: {exc}")

    def _report_query_errors(self, project: Project) -> None:
        """Tell the user once per problem about broken `.cairn/queries/*.scm` files.

        The indexer skips a broken query and keeps the built-in ones, so this is a
        message, never a failure.
        """
        server = self._server
        try:
            errors = user_query_errors(project.queries)
        except Exception as exc:  # a query checker bug must not stop the document opening
            message = f"could not check {project.queries}: {exc!r}"
            server.client.log(message, types.MessageType.Warning)
            return
        for error in errors:
            where = relative_to(Path(error.path), project.root) or error.path
            text = f"{where}:{error.line}:{error.column}: {error.message}"
            if server.client.warn_once(
                f"query:{text}",
                f"Cairn: {text}. This query is skipped; the built-in ones still work.",
            ):
                server.client.log(f"user query skipped: {text}", types.MessageType.Warning)


def _soon(work: Callable[[], None]) -> None:
    """Run `work` on the loop once the current step is done (at once without a loop)."""
    try:
        asyncio.get_running_loop().call_soon(work)
    except RuntimeError:
        work()
