"""Alembic: `op.alter_column(..., new_column_name=...)` is a rename, and the table of a
`batch_op.add_column(...)` comes from its `with op.batch_alter_table(...)`."""

from __future__ import annotations

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, ancestor, literal
from cairn.indexer.frameworks._python import keyword, positional
from cairn.indexer.model import Role


def alter_column(capture: Capture, ctx: FileContext) -> list[Capture]:
    """A rename removes the old column and introduces the new one."""
    call = capture.call
    if call is None:
        return [capture]
    new = keyword(call, "new_column_name")
    new_name = literal(new)
    if new is None or not new_name:
        return [capture]
    return [
        capture.but(role=Role.REMOVE),
        capture.but(role=Role.INTRODUCE, name=new_name, name_node=new),
    ]


def batch(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Take the table from the enclosing `with op.batch_alter_table("t") as batch_op:`."""
    node = capture.name_node
    while True:
        statement = ancestor(node, "with_statement")
        if statement is None:
            return []
        for call in _with_calls(statement):
            function = call.child_by_field_name("function")
            if (
                function is not None
                and function.text
                and function.text.endswith(b"batch_alter_table")
            ):
                args = positional(call)
                table = literal(args[0]) if args else None
                return [capture.but(table=table)] if table else []
        node = statement


def _with_calls(statement: Node) -> list[Node]:
    out: list[Node] = []
    stack = [c for c in statement.children if c.type == "with_clause"]
    while stack:
        current = stack.pop()
        if current.type == "call":
            out.append(current)
            continue
        stack.extend(current.named_children)
    return out
