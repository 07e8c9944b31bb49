"""`KEY=value` list items (docker compose `environment:`) declare the variable `KEY`."""

from __future__ import annotations

from cairn.indexer.capture import Capture, FileContext


def assignment(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Keep the name before `=`."""
    name = capture.name.partition("=")[0].strip()
    return [capture.but(name=name)] if name else []
