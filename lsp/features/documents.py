"""textDocument/didOpen, didChange, didClose, didSave.

pygls keeps the text (its built-in handlers run first); `Documents`
(`cairn.lsp.state`) keeps the indexer's `Document` in step with it, incrementally, and
schedules analysis. Saving a decision draft (a markdown file under `.cairn/drafts/`)
logs it.
"""

from __future__ import annotations

from lsprotocol import types

from cairn.lsp.drafts_flow import log_draft
from cairn.lsp.server import CairnServer


def register(server: CairnServer) -> None:
    """Add the document-sync handlers."""

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        server.documents.open(item.uri, item.text, item.version)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        document = params.text_document
        server.documents.change(document.uri, document.version, params.content_changes)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        server.documents.close(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(params: types.DidSaveTextDocumentParams) -> None:
        doc = server.documents.get(params.text_document.uri)
        if doc is not None and doc.is_draft:
            await log_draft(server, doc)
