"""Spring MVC: `@GetMapping("/{id}")` on a method, under the class's
`@RequestMapping("/api/users")` if any -> `route/GET /api/users/{id}`."""

from __future__ import annotations

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, ancestor, literal, node_text

_METHODS = {
    "GetMapping": "GET",
    "PostMapping": "POST",
    "PutMapping": "PUT",
    "PatchMapping": "PATCH",
    "DeleteMapping": "DELETE",
}


def route(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Resolve the HTTP method and the full path."""
    method = _METHODS.get(capture.method or "")
    if method is None:
        return []
    path = capture.name if capture.name_node.type == "string_literal" else ""
    cls = ancestor(capture.name_node, "class_declaration")
    prefix = _class_mapping(cls) if cls is not None else ""
    full = "/".join(p.strip("/") for p in (prefix, path) if p.strip("/"))
    return [capture.but(method=method, name="/" + full)]


def _class_mapping(cls: Node) -> str:
    for modifiers in cls.children:
        if modifiers.type != "modifiers":
            continue
        for annotation in modifiers.named_children:
            name = annotation.child_by_field_name("name")
            args = annotation.child_by_field_name("arguments")
            if annotation.type != "annotation" or name is None or args is None:
                continue
            if node_text(name) != "RequestMapping":
                continue
            for arg in args.named_children:
                if arg.type == "string_literal":
                    return literal(arg) or ""
                key = arg.child_by_field_name("key")
                if arg.type == "element_value_pair" and key and node_text(key) in ("value", "path"):
                    return literal(arg.child_by_field_name("value")) or ""
    return ""
