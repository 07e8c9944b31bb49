"""textDocument/diagnostic: the same diagnostics as the pushed ones, on pull.

Pushing happens in `Documents` (debounced after open/change). A client that pulls gets
the cached analysis when it matches the current text, or a fresh one at once.
"""

from __future__ import annotations

from typing import cast

from lsprotocol import types

from cairn.lsp.server import CairnServer


def register(server: CairnServer) -> None:
    """Add the pull-diagnostics handler."""

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier="cairn", inter_file_dependencies=True, workspace_diagnostics=False
        ),
    )
    async def diagnostic(params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        doc = server.documents.get(params.text_document.uri)
        if doc is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        analysis = await server.documents.fresh(doc)
        # The items stay in wire form: the converter writes them as they are.
        items = cast(list[types.Diagnostic], list(analysis.diagnostics))
        return types.RelatedFullDocumentDiagnosticReport(items=items)
