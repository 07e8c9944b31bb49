"""textDocument/hover: the decision card for the entity under the cursor.

Fast path: the symbol comes from the document's cached symbols; the card's data is
cached per log version (`Session.card`), so a repeated hover costs one `stat`
of the log and no thread hop; a miss costs two indexed queries on the store thread.
Symbols without history get no hover, unless the `hoverNoDecisions` setting asks for
a "no decisions yet" card. An entity whose history deserves no attention (the quiet
rule, `cairn.core.attention`; the `quiet` setting) gets a one-line card.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.core.position import has_history, rank
from cairn.core.present import md_code, md_text, no_decisions_markdown
from cairn.core.view import NEWEST, card_markdown, needs_events
from cairn.lsp.context import Context
from cairn.lsp.conversions import lsp_range
from cairn.lsp.server import CairnServer
from cairn.lsp.state import OpenDocument

if TYPE_CHECKING:
    from cairn.core.session import Card, Session
    from cairn.indexer.model import Symbol
    from cairn.store.model import Event

HOVER_WAIT_S = 2.0


def register(server: CairnServer) -> None:
    """Add the hover handler."""

    @server.handle(types.TEXT_DOCUMENT_HOVER, empty=None, name="hover")
    async def hover(ctx: Context, params: types.HoverParams) -> types.Hover | None:
        doc = ctx.document
        if doc is None or doc.doc is None or doc.project is None:
            return None
        here = doc.entities_at(params.position.line, params.position.character)
        symbol = here[0] if here else None
        back = _bring_back_at(doc, params.position.line, symbol)
        if symbol is None:
            if back is None:
                return None
            return types.Hover(
                contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=back)
            )
        cards: dict[str, Card] = {}
        for one in here:
            try:
                cards[one.entity] = await asyncio.wait_for(
                    ctx.hub.hover_data(doc.project.cairn_dir, one.entity, NEWEST), HOVER_WAIT_S
                )
            except asyncio.TimeoutError:
                # The store is catching up behind another process's write lock (an
                # import, a big merge): an empty hover now beats a frozen editor.
                ctx.client.log(f"hover on {one.entity}: the log is busy; try again in a moment")
                return None
        # The core's rule again, with the cards' statuses (the analysis may be older):
        # every entity here with history gets its card, the rule's first one on top.
        here = rank(here, lambda entity: has_history(cards[entity].status))
        shown = [s for s in here if has_history(cards[s.entity].status)]
        parts: list[str] = []
        policy = ctx.settings.attention
        for one in shown:
            card = cards[one.entity]
            events = None
            if needs_events(card, policy):
                events = await _history(ctx, doc.project.cairn_dir, one.entity)
            parts.append(card_markdown(one.entity, card, events, policy))
        if not parts and back is None:
            if not ctx.settings.hover_no_decisions:
                return None
            parts.append(no_decisions_markdown(here[0].entity))
        markdown = "\n\n---\n\n".join(parts)
        if back is not None:
            markdown = (back + "\n\n" + markdown).strip()
        symbol = shown[0] if shown else here[0]
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown),
            range=lsp_range(symbol.name_range),
        )


async def _history(ctx: Context, cairn_dir: Path, entity: str) -> list[Event]:
    """An entity's whole history (the quiet rule needs it for a few)."""

    def read(session: Session) -> list[Event]:
        return session.history(entity)

    return await ctx.hub.call(cairn_dir, read)


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
            return f"⚠ **{md_text(finding.message)}** · {md_code(finding.verdict_id[:8])}"
    return None
