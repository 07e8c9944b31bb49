"""textDocument/hover: the decision card for the entity under the cursor.

Fast path: the symbol comes from the document's cached symbols; the card's data is
cached per log version (`Session.card`), so a repeated hover costs one `stat`
of the log and no thread hop; a miss costs two indexed queries on the store thread.
Symbols without history get no hover, unless the `hoverNoDecisions` setting asks for
a "no decisions yet" card. An entity whose history deserves no attention (the quiet
rule, `cairn.core.attention`; the `quiet` setting) gets a one-line card. A store that
cannot answer gives no hover (logged: `CairnServer.handle`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.core.attention import attention, needs_history
from cairn.lsp.analysis import NEWEST
from cairn.lsp.context import Context
from cairn.lsp.conversions import lsp_range
from cairn.lsp.render import hover_markdown, no_decisions_markdown, quiet_hover_markdown
from cairn.lsp.server import CairnServer
from cairn.lsp.state import OpenDocument

if TYPE_CHECKING:
    from cairn.indexer.model import Symbol
    from cairn.store.model import EntityStatus, Event

HOVER_WAIT_S = 2.0


def register(server: CairnServer) -> None:
    """Add the hover handler."""

    @server.handle(types.TEXT_DOCUMENT_HOVER, empty=None, name="hover")
    async def hover(ctx: Context, params: types.HoverParams) -> types.Hover | None:
        doc = ctx.document
        if doc is None or doc.doc is None or doc.project is None:
            return None
        symbol = doc.symbol_at(params.position.line, params.position.character)
        back = _bring_back_at(doc, params.position.line, symbol)
        if symbol is None:
            if back is None:
                return None
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=back)
            )
        entity = symbol.entity
        try:
            card = await asyncio.wait_for(
                ctx.hub.hover_data(doc.project.cairn_dir, entity, NEWEST), HOVER_WAIT_S
            )
        except asyncio.TimeoutError:
            # The store is catching up behind another process's write lock (an import,
            # a big merge): an empty hover now beats a frozen editor.
            ctx.client.log(f"hover on {entity}: the log is busy; try again in a moment")
            return None
        status = card.status
        if not status.event_count and not status.rollup:
            if back is not None:
                markdown = ""
            elif not ctx.settings.hover_no_decisions:
                return None
            else:
                markdown = no_decisions_markdown(entity)
        else:
            newest = list(card.newest)
            if await _deserves_attention(ctx, doc.project.cairn_dir, entity, status, newest):
                markdown = hover_markdown(entity, status, newest)
            else:
                markdown = quiet_hover_markdown(entity, status, newest)
        if back is not None:
            markdown = (back + "\n\n" + markdown).strip()
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
            range=lsp_range(symbol.name_range),
        )


async def _deserves_attention(
    ctx: Context, cairn_dir: Path, entity: str, status: EntityStatus, history: list[Event]
) -> bool:
    """The quiet rule for one card; the full history only when the rule needs it and
    the card's newest events may not hold the removal."""
    policy = ctx.settings.attention
    events = history
    if needs_history(status, policy) and len(history) < status.event_count:
        events = await ctx.hub.call(cairn_dir, lambda s: s.history(entity))
    return bool(attention(status, events, policy))


def _bring_back_at(doc: OpenDocument, line: int, symbol: Symbol | None) -> str | None:
    """`⚠ this brings back 3 of the 3 lines reverted on …` when the hovered line, or the
    hovered symbol's body, holds lines a revert took out (from the last analysis)."""
    for finding in doc.analysis.findings:
        data = finding.data or {}
        if data.get("kind") != "fingerprint":
            continue
        lines = set(data.get("lines") or ())
        inside = symbol is not None and any(
            symbol.range.start_line <= n <= symbol.range.end_line for n in lines
        )
        if line in lines or inside:
            return f"⚠ **{finding.message}** · `{finding.verdict_id[:8]}`"
    return None
