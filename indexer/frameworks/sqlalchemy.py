"""SQLAlchemy declarative models: a `Column`/`mapped_column` field is a column of the
table named by the class's `__tablename__`; an explicit name argument wins.

Flask-SQLAlchemy names the table of a `db.Model` subclass without `__tablename__`
after the class, in snake case (`UserToken` -> `user_token`); any other class without a
table name (a mixin, an abstract base) gives nothing."""

from __future__ import annotations

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, ancestor, literal, node_text, snake_case
from cairn.indexer.frameworks._python import class_assignment, keyword, positional


def column(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Resolve a model field to `table.column`; fields of classes without a table go."""
    cls = ancestor(capture.name_node, "class_definition")
    if cls is None:
        return []
    key = ("sqlalchemy", cls.id)
    if key not in ctx.memo:
        ctx.memo[key] = literal(class_assignment(cls, "__tablename__")) or _flask_table(cls)
    table = ctx.memo[key]
    if not table:
        return []
    call = capture.call
    if call is None:  # an annotation alone (`x: Mapped[int]`): the field's own name
        return [capture.but(table=table)]
    explicit = keyword(call, "name")
    if explicit is None:
        args = positional(call)
        if args and args[0].type == "string":
            explicit = args[0]
    name = literal(explicit) if explicit is not None else None
    if explicit is not None and name:
        return [capture.but(table=table, name=name, name_node=explicit)]
    return [capture.but(table=table)]


def _flask_table(cls: Node) -> str | None:
    """Flask-SQLAlchemy's default table name for a direct `db.Model` subclass."""
    bases = cls.child_by_field_name("superclasses")
    if bases is None or class_assignment(cls, "__tablename__") is not None:
        return None  # a computed __tablename__ (a declared_attr, an f-string): unknown
    if not any(node_text(b) in ("db.Model", "Model") for b in bases.named_children):
        return None
    name = cls.child_by_field_name("name")
    return snake_case(node_text(name)) if name is not None else None
