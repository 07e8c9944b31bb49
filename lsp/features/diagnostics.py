"""textDocument/diagnostic: the same diagnostics as the pushed ones, on pull.

Pushing happens in `Documents` (debounced after open/change). A client that pulls gets
the cached analysis when it matches the current text, or a fresh one at once.
"""

from __future__ import annotations

from typing import cast

from lsprotocol import types

from cairn.lsp.context import Context
from cairn.lsp.server import CairnServer


def register(server: CairnServer) -> None:
    """Add the pull-diagnostics handler."""

    @server.handle(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="cairn", inter_file_dependencies=True, workspace_diagnostics=False
        ),
    )
    async def diagnostic(
        ctx: Context, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        if ctx.document is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        analysis = await ctx.documents.fresh(ctx.document)
        # The items stay in wire form: the converter writes them as they are.
        items = cast(list[types.Diagnostic], list(analysis.diagnostics))
        return types.RelatedFullDocumentDiagnosticReport(items=items)
