"""textDocument/codeLens: "3 decisions · reverted 2026-04-02" above entities whose
history deserves attention.

Which entities get a lens is the quiet rule (`cairn.core.attention`): an open verdict, a
conflict, a due review, a re-opened verdict, a removal later re-added, many decisions,
or a table whose columns have such history. An entity whose only history is its
creation by an imported migration gets none. The `quiet` setting turns the rule off
(a lens on every entity with history); `codeLens` turns lenses off. A lens runs
`cairn.history`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from msgspec.structs import replace as struct_replace

from cairn.core.attention import Attention, AttentionPolicy, Reason, attention, needs_history
from cairn.core.project import Project
from cairn.lsp.analysis import Analysis
from cairn.lsp.context import Context
from cairn.lsp.conversions import lsp_range
from cairn.lsp.render import lens_title
from cairn.lsp.server import CairnServer
from cairn.store.paths import EntityKind, covers, parse

if TYPE_CHECKING:
    from cairn.store.model import EntityStatus, Event


async def attention_by_entity(
    ctx: Context, project: Project | None, analysis: Analysis
) -> dict[str, Attention]:
    """The rule's verdict for every entity with history in the analysed document.

    History is read only for the few entities whose status cannot decide (a removal
    later re-added shows only in the events)."""
    policy: AttentionPolicy = ctx.settings.attention
    every = analysis.statuses
    statuses: dict[str, EntityStatus] = {e: s for e, s in every.items() if s.event_count}
    if not statuses:
        return {}
    wanted = tuple(sorted(e for e, s in statuses.items() if needs_history(s, policy)))
    histories: dict[str, list[Event]] = {}
    if wanted and project is not None:
        histories = await ctx.hub.call(
            project.cairn_dir, lambda s: {e: s.history(e) for e in wanted}
        )
    out: dict[str, Attention] = {}
    for entity, status in statuses.items():
        children = [s for e, s in every.items() if e != entity and covers(entity, e)]
        out[entity] = attention(status, histories.get(entity), policy, children)
    # A table's columns need not be named in this file (a dropped column's field is
    # gone from the model): the rollup of every column decides, as it does for hover.
    tables = tuple(e for e, a in out.items() if not a and _is_table(e))
    if tables and policy.quiet and project is not None:
        rollups = await ctx.hub.call(
            project.cairn_dir, lambda s: {e: s.status(e).rollup for e in tables}
        )
        for entity, rollup in rollups.items():
            with_rollup = struct_replace(statuses[entity], rollup=rollup)
            out[entity] = attention(with_rollup, histories.get(entity), policy)
    return out


def _is_table(entity: str) -> bool:
    try:
        return parse(entity).kind is EntityKind.TABLE
    except ValueError:
        return False


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
        lenses: list[types.CodeLens] = []
        seen: set[tuple[str, int]] = set()
        for symbol in analysis.symbols:
            status = analysis.statuses.get(symbol.entity)
            key = (symbol.entity, symbol.name_range.start_line)
            if status is None or not deserving.get(symbol.entity) or key in seen:
                continue
            seen.add(key)
            title = lens_title(status)
            if Reason.READDED in deserving[symbol.entity].reasons:
                title += " · re-added after removal"
            lenses.append(
                types.CodeLens(
                    range=lsp_range(symbol.name_range),
                    command=types.Command(
                        title=title,
                        command="cairn.history",
                        arguments=[{"entity": symbol.entity, "show": True, "uri": doc.uri}],
                    ),
                )
            )
        return lenses
