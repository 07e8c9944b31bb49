"""SQLAlchemy declarative models: a `Column`/`mapped_column` field is a column of the
table named by the class's `__tablename__`; an explicit name argument wins."""

from __future__ import annotations

from cairn.indexer.capture import Capture, FileContext, ancestor, literal
from cairn.indexer.frameworks._python import class_assignment, keyword, positional


def column(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Resolve a model field to `table.column`; fields of classes without a table go."""
    cls = ancestor(capture.name_node, "class_definition")
    if cls is None:
        return []
    key = ("sqlalchemy", cls.id)
    if key not in ctx.memo:
        ctx.memo[key] = literal(class_assignment(cls, "__tablename__"))
    table = ctx.memo[key]
    if not table:
        return []
    call = capture.call
    if call is None:
        return []
    explicit = keyword(call, "name")
    if explicit is None:
        args = positional(call)
        if args and args[0].type == "string":
            explicit = args[0]
    name = literal(explicit) if explicit is not None else None
    if explicit is not None and name:
        return [capture.but(table=table, name=name, name_node=explicit)]
    return [capture.but(table=table)]
