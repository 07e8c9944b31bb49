"""Django models: a field is a column of `<app label>_<model>` (or `Meta.db_table`).

The app label is the folder holding `models.py` (or holding the `models/` package).
A `ForeignKey`/`OneToOneField` is stored as `<name>_id`; `db_column=` wins; a
`ManyToManyField` has no column of its own (it lives in a join table).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, ancestor, literal, node_text
from cairn.indexer.frameworks._python import class_assignment, inner_class, keyword

_FOREIGN = frozenset({"ForeignKey", "OneToOneField"})
_NO_COLUMN = frozenset({"ManyToManyField", "GenericForeignKey", "GenericRelation"})


def field(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Resolve a model field to `table.column`."""
    cls = ancestor(capture.name_node, "class_definition")
    if cls is None:
        return []
    key = ("django", cls.id)
    if key not in ctx.memo:
        ctx.memo[key] = _table(cls, ctx.path)
    table = ctx.memo[key]
    if table is None:
        return []
    call = capture.call
    if call is None:
        return []
    function = call.child_by_field_name("function")
    callee = node_text(function).rsplit(".", 1)[-1] if function is not None else ""
    if callee in _NO_COLUMN:
        return []
    db_column = keyword(call, "db_column")
    explicit = literal(db_column)
    if db_column is not None and explicit:
        return [capture.but(table=table, name=explicit, name_node=db_column)]
    name = f"{capture.name}_id" if callee in _FOREIGN else capture.name
    return [capture.but(table=table, name=name)]


def _table(cls: Node, path: str) -> str | None:
    bases = cls.child_by_field_name("superclasses")
    if bases is None or "Model" not in node_text(bases):
        return None
    meta = inner_class(cls, "Meta")
    if meta is not None:
        abstract = class_assignment(meta, "abstract")
        if abstract is not None and node_text(abstract) == "True":
            return None
        db_table = literal(class_assignment(meta, "db_table"))
        if db_table:
            return db_table
    name = cls.child_by_field_name("name")
    if name is None:
        return None
    return f"{app_label(path)}_{node_text(name).lower()}"


def app_label(path: str) -> str:
    """`shop/models.py` -> `shop`; `shop/models/order.py` -> `shop`."""
    parts = PurePosixPath(path).parts[:-1]
    if parts and parts[-1] == "models":
        parts = parts[:-1]
    return parts[-1].lower() if parts else "app"
