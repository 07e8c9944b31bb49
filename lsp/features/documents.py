"""textDocument/didOpen, didChange, didClose, didSave.

pygls keeps the text (its built-in handlers run first); this module keeps the
indexer's `Document` in step with it, incrementally, and schedules analysis. Saving
a decision draft (a markdown file under `.cairn/drafts/`) logs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types

from cairn.core.project import Project
from cairn.indexer import Document, user_query_errors
from cairn.lsp.analysis import publish, schedule
from cairn.lsp.drafts_flow import log_draft
from cairn.lsp.server import CairnServer
from cairn.lsp.workspace import OpenDocument, relative_to, uri_path


def register(server: CairnServer) -> None:
    """Add the document-sync handlers."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        server.documents[item.uri] = open_document(server, item.uri, item.text, item.version)
        schedule(server, item.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = server.documents.get(uri)
        if doc is None:
            return
        doc.version = params.text_document.version
        apply_changes(server, doc, params.content_changes)
        schedule(server, uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        pending = server.pending.pop(uri, None)
        if pending is not None:
            pending.cancel()
        doc = server.documents.pop(uri, None)
        if doc is not None and not server.pulls_diagnostics:
            doc.diagnostics = []
            publish(server, doc)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        doc = server.documents.get(params.text_document.uri)
        if doc is not None and doc.is_draft:
            await log_draft(server, doc)


def open_document(server: CairnServer, uri: str, text: str, version: int) -> OpenDocument:
    """Build the server's view of a newly opened document."""
    path = uri_path(uri)
    project = server.projects.for_path(path) if path is not None else None
    relpath = relative_to(path, project.root) if path is not None and project else None
    doc = OpenDocument(
        uri=uri, path=path, project=project, relpath=relpath, version=version, doc=None
    )
    if project is None or relpath is None:
        doc.skipped = "outside a Cairn project"
        return doc
    if relpath.startswith(".cairn/drafts/") and relpath.endswith(".md"):
        doc.is_draft = True
        return doc
    _index(server, doc, text)
    return doc


def apply_changes(
    server: CairnServer,
    doc: OpenDocument,
    changes: Sequence[types.TextDocumentContentChangeEvent],
) -> None:
    """Apply content changes to the indexer's document (or rebuild it from pygls' text)."""
    if doc.doc is None:
        if doc.skipped == "too large" and doc.project is not None:
            _index(server, doc, server.workspace.get_text_document(doc.uri).source)
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
        server.log(f"rebuilding {doc.relpath} after a failed edit: {exc}")
        _index(server, doc, server.workspace.get_text_document(doc.uri).source)
        return
    text = server.workspace.get_text_document(doc.uri).source
    if len(text) > server.settings.max_file_bytes:
        _index(server, doc, text)


def _index(server: CairnServer, doc: OpenDocument, text: str) -> None:
    if len(text) > server.settings.max_file_bytes:
        doc.doc = None
        doc.skipped = "too large"
        server.log(
            f"not analysing {doc.relpath}: larger than maxFileBytes "
            f"({server.settings.max_file_bytes})"
        )
        return
    if doc.project is None or doc.relpath is None:
        return
    queries = doc.project.queries
    if queries.is_dir():
        report_query_errors(server, doc.project)
    try:
        doc.doc = Document(doc.relpath, text, queries if queries.is_dir() else None)
        doc.skipped = None
    except Exception as exc:
        doc.doc = None
        doc.skipped = f"cannot index: {exc}"
        server.log(f"not analysing {doc.relpath}: {exc}")


def report_query_errors(server: CairnServer, project: Project) -> None:
    """Tell the user once per problem about broken `.cairn/queries/*.scm` files.

    The indexer skips a broken query and keeps the built-in ones, so this is a
    message, never a failure.
    """
    try:
        errors = user_query_errors(project.queries)
    except Exception as exc:  # a query checker bug must not stop the document opening
        server.log(f"could not check {project.queries}: {exc!r}", types.MessageType.Warning)
        return
    for error in errors:
        where = relative_to(Path(error.path), project.root) or error.path
        text = f"{where}:{error.line}:{error.column}: {error.message}"
        key = f"query:{text}"
        if key in server.warned:
            continue
        server.log(f"user query skipped: {text}", types.MessageType.Warning)
        server.warn_once(
            key, f"Cairn: {text}. This query is skipped; the built-in ones still work."
        )
