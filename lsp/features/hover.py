"""textDocument/hover: the decision card for the entity under the cursor.

Fast path: the symbol comes from the document's cached symbols; the card's data is
cached per log version (`Session.card`), so a repeated hover costs one `stat`
of the log and no thread hop; a miss costs two indexed queries on the store thread.
Symbols without history get no hover, unless the `hoverNoDecisions` setting asks for
a "no decisions yet" card.
"""

from __future__ import annotations

import asyncio

from lsprotocol import types

from cairn.lsp.analysis import NEWEST, lsp_range
from cairn.lsp.render import hover_markdown, no_decisions_markdown
from cairn.lsp.server import CairnServer
from cairn.lsp.stores import StoreUnavailable

HOVER_WAIT_S = 2.0


def register(server: CairnServer) -> None:
    """Add the hover handler."""

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        doc = server.documents.get(params.text_document.uri)
        if doc is None or doc.doc is None or doc.project is None:
            return None
        symbol = doc.symbol_at(params.position.line, params.position.character)
        if symbol is None:
            return None
        entity = symbol.entity
        try:
            card = await asyncio.wait_for(
                server.hub.hover_data(doc.project.cairn_dir, entity, NEWEST), HOVER_WAIT_S
            )
        except StoreUnavailable as exc:
            server.log(f"hover: {exc}", types.MessageType.Warning)
            return None
        except asyncio.TimeoutError:
            # The store is catching up behind another process's write lock (an import,
            # a big merge): an empty hover now beats a frozen editor.
            server.log(f"hover on {entity}: the log is busy; try again in a moment")
            return None
        status = card.status
        if not status.event_count and not status.rollup:
            if not server.settings.hover_no_decisions:
                return None
            markdown = no_decisions_markdown(entity)
        else:
            markdown = hover_markdown(entity, status, card.newest)
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
            range=lsp_range(symbol.name_range),
        )
