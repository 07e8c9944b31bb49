"""textDocument/codeLens: "3 decisions · reverted 2026-04-02" above entities whose
history deserves attention.

Which entities get a lens is the quiet rule (`cairn.core.attention`): an open verdict, a
conflict, a due review, a re-opened verdict, a removal later re-added, many decisions,
or a table whose columns have such history. An entity whose only history is its
creation by an imported migration gets none. The `quiet` setting turns the rule off
(a lens on every entity with history); `codeLens` turns lenses off. A lens runs
`cairn.history`. The rule and the titles are the core's (`cairn.core.view`, which
`cairn show` prints too); this module reads the store for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.core.attention import Attention, AttentionPolicy
from cairn.core.project import Project
from cairn.core.view import (
    history_wanted,
    lens_attention,
    lenses,
    tables_needing_rollup,
    with_rollups,
)
from cairn.lsp.analysis import Analysis
from cairn.lsp.context import Context
from cairn.lsp.conversions import lsp_range
from cairn.lsp.server import CairnServer

if TYPE_CHECKING:
    from cairn.store.model import Event


async def attention_by_entity(
    ctx: Context, project: Project | None, analysis: Analysis
) -> dict[str, Attention]:
    """The rule's verdict for every entity with history in the analysed document.

    History is read only for the few entities whose status cannot decide (a removal
    later re-added shows only in the events)."""
    policy: AttentionPolicy = ctx.settings.attention
    statuses = analysis.statuses
    wanted = history_wanted(statuses, policy)
    histories: dict[str, list[Event]] = {}
    if wanted and project is not None:
        histories = await ctx.hub.call(
            project.cairn_dir, lambda s: {e: s.history(e) for e in wanted}
        )
    out = lens_attention(statuses, histories, policy)
    tables = tables_needing_rollup(out, policy)
    if tables and project is not None:
        rollups = await ctx.hub.call(
            project.cairn_dir, lambda s: {e: s.status(e).rollup for e in tables}
        )
        out = with_rollups(out, statuses, histories, rollups, policy)
    return out


def register(server: CairnServer) -> None:
    """Add the code-lens handler."""

    @server.handle(
        types.TEXT_DOCUMENT_CODE_LENS,
        types.CodeLensOptions(resolve_provider=False),
        empty=[],
        name="code lens",
    )
    async def code_lens(ctx: Context, params: types.CodeLensParams) -> list[types.CodeLens]:
        if not ctx.settings.code_lens:
            return []
        doc = ctx.document
        if doc is None or doc.doc is None:
            return []
        analysis = await ctx.documents.fresh(doc)
        deserving = await attention_by_entity(ctx, doc.project, analysis)
        return [
            types.CodeLens(
                range=lsp_range(lens.name_range),
                command=types.Command(
                    title=lens.title,
                    command="cairn.history",
                    arguments=[{"entity": lens.entity, "show": True, "uri": doc.uri}],
                ),
            )
            for lens in lenses(analysis.symbols, analysis.statuses, deserving)
        ]
