"""Flask's `@app.route(path, methods=[...])`: one route per listed method, GET if none."""

from __future__ import annotations

from cairn.indexer.capture import Capture, FileContext, literal
from cairn.indexer.frameworks._python import keyword


def route(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Expand the `methods=` list."""
    call = capture.nodes["call"][0]
    methods_node = keyword(call, "methods")
    if methods_node is None:
        return [capture.but(method="GET")]
    methods = [literal(item) for item in methods_node.named_children]
    return [capture.but(method=m.upper()) for m in methods if m]
