#!/usr/bin/env python3
"""The floor of a pygls server's start: the smallest server that answers `initialize`
and publishes one diagnostic when a document opens. `bench/lsp.py` starts it the way
it starts `cairn serve` and reports how far above it Cairn is."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

server = LanguageServer("floor", "1")


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    where = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)
    )
    server.text_document_publish_diagnostics(
        types.PublishDiagnosticsParams(
            uri=doc.uri,
            version=doc.version,
            diagnostics=[types.Diagnostic(range=where, message="floor")],
        )
    )


if __name__ == "__main__":
    server.start_io()
