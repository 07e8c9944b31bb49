"""Rails migrations: `create_table :users do |t| t.string :email end` and
`change_table`. Calls on the block's builder name columns: a type introduces one,
`t.references :org` introduces `org_id`, `t.timestamps` the two timestamp columns,
`t.remove` removes, `t.rename :a, :b` renames."""

from __future__ import annotations

import re

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, builder_method, literal, node_text
from cairn.indexer.model import Role

_REFERENCES = frozenset({"references", "belongs_to"})
_NOT_COLUMNS = frozenset({"remove_index", "check_constraint", "foreign_key"})
# `t.index "lower(handle)"`: an expression index on one column
_ONE_COLUMN_EXPRESSION = re.compile(r"^\s*\w+\(\s*(\w+)\s*\)\s*$")
_CHANGES = frozenset({"change", "change_default", "change_null", "rename_index"})


def table_column(capture: Capture, ctx: FileContext) -> list[Capture]:
    """The table plus one capture per column the block touches."""
    block = capture.call
    if block is None:  # `create_table :t` without a block
        return [capture]
    params = block.child_by_field_name("parameters")
    idents = [p for p in (params.named_children if params else []) if p.type == "identifier"]
    if not idents:
        return [capture]
    builder = node_text(idents[0])
    body = block.child_by_field_name("body")
    out = [capture]
    for call in body.named_children if body is not None else []:
        if call.type != "call":
            continue
        method_node = call.child_by_field_name("method")
        method = builder_method(call.child_by_field_name("receiver"), method_node, builder)
        if method is None or method_node is None:
            continue
        args = call.child_by_field_name("arguments")
        symbols = [a for a in (args.named_children if args else []) if _is_name(a)]
        column = capture.but(kind="column", table=capture.name, range_node=call)
        if method == "timestamps":
            out.extend(
                column.but(role=Role.INTRODUCE, name=n, name_node=method_node)
                for n in ("created_at", "updated_at")
            )
        elif method == "remove":
            out.extend(column.but(role=Role.REMOVE, name=literal(s), name_node=s) for s in symbols)
        elif method == "rename" and len(symbols) >= 2:
            out.append(column.but(role=Role.REMOVE, name=literal(symbols[0]), name_node=symbols[0]))
            out.append(
                column.but(role=Role.INTRODUCE, name=literal(symbols[1]), name_node=symbols[1])
            )
        elif method == "index":
            out.extend(
                column.but(role=Role.REFERENCE, name=name, name_node=node)
                for node, name in _indexed(args)
            )
        elif method in _NOT_COLUMNS or not symbols:
            continue
        elif method in _REFERENCES:
            out.append(
                column.but(
                    role=Role.INTRODUCE, name=f"{literal(symbols[0])}_id", name_node=symbols[0]
                )
            )
        elif method in _CHANGES:
            out.append(
                column.but(role=Role.REFERENCE, name=literal(symbols[0]), name_node=symbols[0])
            )
        else:
            out.extend(
                column.but(role=Role.INTRODUCE, name=literal(s), name_node=s) for s in symbols
            )
    return out


def _indexed(args: Node | None) -> list[tuple[Node, str]]:
    """The columns `t.index` names: `:a`, `%i[a b]`, `[:a, :b]`, `"lower(a)"`."""
    first = args.named_children[0] if args is not None and args.named_children else None
    if first is None:
        return []
    if first.type in ("symbol_array", "string_array", "array"):
        items = [n for n in first.named_children if n.type != "comment"]
        return [(n, (literal(n) or node_text(n)).strip()) for n in items]
    name = literal(first)
    if not name:
        return []
    if first.type == "string" and not name.isidentifier():
        found = _ONE_COLUMN_EXPRESSION.match(name)
        return [(first, found.group(1))] if found else []
    return [(first, name)]


def _is_name(node: Node) -> bool:
    return node.type in ("simple_symbol", "string") and bool(literal(node))


def reference(capture: Capture, ctx: FileContext) -> list[Capture]:
    """`add_reference :users, :org` adds the column `org_id`."""
    return [capture.but(name=f"{capture.name}_id")]
