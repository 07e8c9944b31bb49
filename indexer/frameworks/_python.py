"""Small helpers for resolvers reading Python syntax trees."""

from __future__ import annotations

from tree_sitter import Node

from cairn.indexer.capture import literal, node_text


def positional(call: Node) -> list[Node]:
    """A call's positional arguments."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return []
    return [
        child
        for child in args.named_children
        if child.type not in ("keyword_argument", "comment", "dictionary_splat", "list_splat")
    ]


def keyword(call: Node, name: str) -> Node | None:
    """The value node of keyword argument `name=`, if given."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    for child in args.named_children:
        if child.type == "keyword_argument":
            key = child.child_by_field_name("name")
            if key is not None and node_text(key) == name:
                return child.child_by_field_name("value")
    return None


def class_assignment(class_node: Node, name: str) -> Node | None:
    """The right-hand side of `name = ...` directly in a class body."""
    body = class_node.child_by_field_name("body")
    if body is None:
        return None
    for statement in body.named_children:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        assignment = statement.named_children[0]
        if assignment.type != "assignment":
            continue
        left = assignment.child_by_field_name("left")
        if left is not None and node_text(left) == name:
            return assignment.child_by_field_name("right")
    return None


def inner_class(class_node: Node, name: str) -> Node | None:
    """A class defined directly in `class_node`'s body (e.g. Django's `Meta`)."""
    body = class_node.child_by_field_name("body")
    if body is None:
        return None
    for statement in body.named_children:
        if statement.type == "class_definition":
            key = statement.child_by_field_name("name")
            if key is not None and node_text(key) == name:
                return statement
    return None


def string_value(node: Node | None) -> str | None:
    """A plain string literal's value."""
    value = literal(node)
    return value if value else None
