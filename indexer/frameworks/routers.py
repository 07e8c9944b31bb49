"""Route prefixes declared in the same file: FastAPI's `APIRouter(prefix="/users")` and
Flask's `Blueprint(..., url_prefix="/users")` prepend to every route registered on them.

A router assigned at module level is file-wide context, so `context()` is part of every
chunk's cache key: change a prefix and every chunk is read again.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, literal, node_text
from cairn.indexer.frameworks._python import keyword

_CANDIDATE = re.compile(rb"APIRouter|Blueprint")
_ROUTERS = {"APIRouter": "prefix", "Blueprint": "url_prefix"}


def prefixed(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Prepend the prefix of the router the route is registered on, if it has one."""
    call = capture.call
    if call is None:
        return [capture]
    function = call.child_by_field_name("function")
    target = function.child_by_field_name("object") if function is not None else None
    if target is None:
        return [capture]
    prefix = routers(call, ctx).get(node_text(target))
    if not prefix:
        return [capture]
    path = capture.name if capture.name != "/" else ""
    return [capture.but(name=prefix.rstrip("/") + path)]


def context(root: Node, ctx: FileContext) -> bytes:
    """The routers' prefixes as bytes, for the chunk cache key (cheap when there are none)."""
    if not _CANDIDATE.search(ctx.data):
        return b""
    return repr(sorted(routers(root, ctx).items())).encode()


def routers(node: Node, ctx: FileContext) -> dict[str, str]:
    """Module-level `name = APIRouter(prefix=...)`/`Blueprint(url_prefix=...)`, once per file."""
    found: dict[str, str] | None = ctx.memo.get("routers")
    if found is not None:
        return found
    found = {}
    root = node
    while root.parent is not None:
        root = root.parent
    for statement in root.named_children:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        assignment = statement.named_children[0]
        left = assignment.child_by_field_name("left")
        right = assignment.child_by_field_name("right")
        if assignment.type != "assignment" or left is None or right is None:
            continue
        function = right.child_by_field_name("function") if right.type == "call" else None
        if function is None:
            continue
        callee = node_text(function).rsplit(".", 1)[-1]
        if callee in _ROUTERS:  # a later assignment replaces an earlier one
            found[node_text(left)] = literal(keyword(right, _ROUTERS[callee])) or ""
    ctx.memo["routers"] = found
    return found


def method_in_path(capture: Capture, ctx: FileContext) -> list[Capture]:
    """`"GET /users/{id}"` (Go 1.22 ServeMux patterns) -> GET and the path; a bare path
    serves any method."""
    method, _, path = capture.name.partition(" ")
    if path.strip():
        return [capture.but(method=method, name=path.strip())]
    return [capture.but(method="ANY")]


_AXUM = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "any"})


def axum(capture: Capture, ctx: FileContext) -> list[Capture]:
    """One route per method router in `get(a).post(b)`."""
    node = capture.call
    methods: list[str] = []
    while node is not None and node.type == "call_expression":
        function = node.child_by_field_name("function")
        if function is None:
            break
        if function.type == "identifier":
            methods.append(node_text(function))
            break
        if function.type != "field_expression":
            break
        field = function.child_by_field_name("field")
        if field is not None:
            methods.append(node_text(field))
        node = function.child_by_field_name("value")
    return [capture.but(method=m) for m in reversed(methods) if m in _AXUM]


def leading_slash(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Django and Rails write paths without the leading `/` (`"users/<int:pk>/"`)."""
    if capture.name.startswith("/"):
        return [capture]
    return [capture.but(name="/" + capture.name)]
