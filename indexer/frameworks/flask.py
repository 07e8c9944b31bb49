"""Flask's `@app.route(path, methods=[...])`: one route per listed method, GET if none."""

from __future__ import annotations

from cairn.indexer.capture import Capture, FileContext, literal
from cairn.indexer.frameworks._python import keyword
from cairn.indexer.frameworks.routers import prefixed


def route(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Expand the `methods=` list (and prepend a Blueprint's `url_prefix`)."""
    call = capture.call
    if call is None:
        return [capture.but(method="GET")]
    methods_node = keyword(call, "methods")
    out: list[Capture] = []
    for resolved in prefixed(capture, ctx):
        if methods_node is None:
            out.append(resolved.but(method="GET"))
            continue
        methods = [literal(item) for item in methods_node.named_children]
        out.extend(resolved.but(method=m.upper()) for m in methods if m)
    return out
