"""textDocument/didOpen, didChange, didClose, didSave.

pygls keeps the text (its built-in handlers run first); `Documents`
(`cairn.lsp.state`) keeps the indexer's `Document` in step with it, incrementally, and
schedules analysis. Saving a decision draft (a markdown file under `.cairn/drafts/`)
logs it; saving code compares its declarations with the last save's, and offers to
move the history of a symbol renamed since (`features.renames`).
"""

from __future__ import annotations

from lsprotocol import types

from cairn.lsp.context import Context
from cairn.lsp.drafts_flow import log_draft
from cairn.lsp.features import renames
from cairn.lsp.server import CairnServer


def register(server: CairnServer) -> None:
    """Add the document-sync handlers."""

    @server.handle(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ctx: Context, params: types.DidOpenTextDocumentParams) -> None:
        item = params.text_document
        ctx.documents.open(item.uri, item.text, item.version)
        renames.remember(item.uri, item.text)

    @server.handle(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ctx: Context, params: types.DidChangeTextDocumentParams) -> None:
        document = params.text_document
        ctx.documents.change(document.uri, document.version, params.content_changes)

    @server.handle(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ctx: Context, params: types.DidCloseTextDocumentParams) -> None:
        ctx.documents.close(params.text_document.uri)
        renames.forget(params.text_document.uri)

    @server.handle(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    async def did_save(ctx: Context, params: types.DidSaveTextDocumentParams) -> None:
        if ctx.document is not None and ctx.document.is_draft:
            await log_draft(ctx, ctx.document)
        elif ctx.document is not None:
            # A symbol renamed in the editor: offered like a renamed file.
            uri = params.text_document.uri
            await renames.offer_symbol_renames(ctx, uri, ctx.client.text(uri))
