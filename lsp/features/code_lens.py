"""textDocument/codeLens: "3 decisions · reverted 2026-04-02" above entities with history.

One lens per entity per line, from the document's current analysis; a lens runs
`cairn.history`. The `codeLens` setting turns lenses off.
"""

from __future__ import annotations

from lsprotocol import types

from cairn.lsp.analysis import ensure_fresh, lsp_range
from cairn.lsp.render import lens_title
from cairn.lsp.server import CairnServer


def register(server: CairnServer) -> None:
    """Add the code-lens handler."""

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        if not server.settings.code_lens:
            return []
        doc = server.documents.get(params.text_document.uri)
        if doc is None or doc.doc is None:
            return []
        await ensure_fresh(server, doc)
        lenses: list[types.CodeLens] = []
        seen: set[tuple[str, int]] = set()
        for symbol in doc.symbols:
            status = doc.statuses.get(symbol.entity)
            key = (symbol.entity, symbol.name_range.start_line)
            if status is None or not status.event_count or key in seen:
                continue
            seen.add(key)
            title = lens_title(status)
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
