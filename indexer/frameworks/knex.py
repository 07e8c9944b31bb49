"""Knex migrations: `knex.schema.createTable('users', (t) => { t.string('email') })`.

The callback's calls on its table builder name columns: a type method introduces one,
`dropColumn(s)` removes, `renameColumn(a, b)` removes `a` and introduces `b`.
"""

from __future__ import annotations

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, builder_method, literal, node_text
from cairn.indexer.model import Role

# Builder methods that do not name a new column.
_NOT_COLUMNS = frozenset(
    {
        "primary",
        "index",
        "unique",
        "foreign",
        "dropForeign",
        "dropIndex",
        "dropUnique",
        "dropPrimary",
        "dropTimestamps",
        "timestamps",
        "comment",
        "engine",
        "charset",
        "collate",
        "inherits",
        "check",
        "dropChecks",
        "setNullable",
        "dropNullable",
        "references",
        "onDelete",
        "onUpdate",
        "inTable",
        "defaultTo",
        "notNullable",
        "nullable",
        "unsigned",
        "after",
        "first",
        "alter",
        "dropColumn",
        "dropColumns",
        "renameColumn",
    }
)


def columns(capture: Capture, ctx: FileContext) -> list[Capture]:
    """The table itself plus one capture per column the callback touches."""
    callback = capture.call
    if callback is None:
        return [capture]
    params = callback.child_by_field_name("parameters") or callback.child_by_field_name("parameter")
    if params is None:
        return [capture]
    first = params if params.type == "identifier" else next(iter(params.named_children), None)
    if first is not None and first.type != "identifier":  # TypeScript: required_parameter
        first = first.child_by_field_name("pattern")
    if first is None or first.type != "identifier":
        return [capture]
    builder = node_text(first)
    out = [capture]
    body = callback.child_by_field_name("body")
    for call in _calls(body):
        function = call.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            continue
        method = builder_method(
            function.child_by_field_name("object"),
            function.child_by_field_name("property"),
            builder,
        )
        if method is None:
            continue
        args = call.child_by_field_name("arguments")
        strings = [a for a in (args.named_children if args else []) if literal(a)]
        column = capture.but(kind="column", table=capture.name, range_node=call)
        if method in ("dropColumn", "dropColumns"):
            out.extend(column.but(role=Role.REMOVE, name=literal(s), name_node=s) for s in strings)
        elif method == "renameColumn" and len(strings) >= 2:
            old, new = strings[0], strings[1]
            out.append(column.but(role=Role.REMOVE, name=literal(old), name_node=old))
            out.append(column.but(role=Role.INTRODUCE, name=literal(new), name_node=new))
        elif (
            method not in _NOT_COLUMNS and strings and args and args.named_children[0] == strings[0]
        ):
            first = strings[0]
            out.append(column.but(role=Role.INTRODUCE, name=literal(first), name_node=first))
    return out


def _calls(body: Node | None) -> list[Node]:
    found: list[Node] = []
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "call_expression":
            found.append(node)
        stack.extend(node.named_children)
    return found
