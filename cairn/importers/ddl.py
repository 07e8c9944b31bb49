"""SQL DDL -> schema changes, read from the tree-sitter SQL parse tree (no regexes).

Each statement of a migration becomes zero or more `Change`s on tables and columns,
in Selvedge's vocabulary: a table is `create`d or `delete`d, a column is `add`ed,
`remove`d, `retype`d or `modify`d, a rename is a `rename` on the old name plus an
`add`/`create` on the new one, an index is `index_add`/`index_remove` on its table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tree_sitter import Language, Node, Parser

from cairn.store.paths import EntityPathError, column_path, table_path

# Statements that change data or code rather than the schema: skipped, said why.
_NOT_SCHEMA = {
    "insert": "data change (INSERT), not schema",
    "update": "data change (UPDATE), not schema",
    "delete": "data change (DELETE), not schema",
    "select": "a query, not a schema change",
    "create_function": "a function definition, not a table or column",
    "create_view": "a view, not a table or column",
    "create_materialized_view": "a view, not a table or column",
    "create_trigger": "a trigger, not a table or column",
    "create_extension": "an extension, not a table or column",
    "create_schema": "a schema, not a table or column",
    "create_type": "a type, not a table or column",
    "create_sequence": "a sequence, not a table or column",
    "transaction": "transaction control",
    "set_statement": "a session setting",
}


@dataclass
class Change:
    """One schema change found in one statement."""

    type: str
    entity: str
    kind: str  # "table" or "column"
    statement: int  # 0-based index of the statement in its file or section
    sql: str  # the statement's text, for the event's diff
    comment: str = ""  # the comment just above the statement, if any
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Unparsed:
    """A statement that produced no change, and why."""

    statement: int
    sql: str
    reason: str


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_sql

    return Parser(Language(tree_sitter_sql.language()))


# What a migration's reader calls for each change it finds: type, entity, kind, metadata.
Emit = Callable[..., None]


def change_emitter(changes: list[Change], index: int, code: str) -> Emit:
    """An `Emit` that records changes of the operation at `index`, whose text is `code`."""

    def emit(type_: str, entity: str, kind: str, **meta: Any) -> None:
        changes.append(Change(type_, entity, kind, index, code, "", dict(meta)))

    return emit


def emit_rename(emit: Emit, kind: str, old: str, new: str) -> None:
    """A table or column renamed (`old`, `new`: entity paths): the old path's `rename`
    and the new path's creation (`create` for a table, `add` for a column), each naming
    the other, so history follows the rename."""
    emit("rename", old, kind, renamed_to=new)
    emit("create" if kind == "table" else "add", new, kind, renamed_from=old)


def emit_sql(sql: str, emit: Emit, unknown: list[str], where: str) -> None:
    """The changes of raw SQL a migration runs, through `emit`; a statement that says
    none is noted in `unknown` under `where` (a template for the statement's start)."""
    for entry in parse_sql(sql, dbmate_sections=False):
        if isinstance(entry, Change):
            emit(entry.type, entry.entity, entry.kind, **entry.metadata)
        else:
            unknown.append(f"{where.format(repr(entry.sql[:40]))}: {entry.reason}")


def parse_sql(text: str, *, dbmate_sections: bool = True) -> list[Change | Unparsed]:
    """The schema changes in `text`, statement by statement, in source order.

    With `dbmate_sections`, only the `-- migrate:up` section counts when the file has
    one (dbmate keeps the rollback in `-- migrate:down`).
    """
    data = text.encode("utf-8")
    root = _parser().parse(data).root_node
    up_start, up_end = 0, len(data)
    if dbmate_sections:
        up_start, up_end = _dbmate_up_section(root, len(data))
    out: list[Change | Unparsed] = []
    index = 0
    last_comment = ""
    last_comment_end = -1
    for node in root.named_children:
        if node.start_byte < up_start or node.start_byte >= up_end:
            continue
        if node.type in ("comment", "marginalia"):
            body = _text(node).lstrip("-/* ").rstrip("*/ ").strip()
            if node.start_point.row == last_comment_end + 1 and last_comment:
                last_comment = f"{last_comment} {body}"
            else:
                last_comment = body
            last_comment_end = node.end_point.row
            continue
        comment = last_comment if node.start_point.row == last_comment_end + 1 else ""
        last_comment = ""
        sql = _text(node).strip()
        if node.type == "ERROR" or node.has_error:
            out.append(Unparsed(index, sql, "could not parse this statement"))
        else:
            changes = _statement_changes(node, index, sql, comment)
            if isinstance(changes, str):
                out.append(Unparsed(index, sql, changes))
            else:
                out.extend(changes)
        index += 1
    return out


def _dbmate_up_section(root: Node, size: int) -> tuple[int, int]:
    start, end = 0, size
    for node in root.children:
        if node.type != "comment":
            continue
        marker = _text(node).lstrip("-").strip().lower().replace(" ", "")
        if marker.startswith("migrate:up"):
            start = node.end_byte
        elif marker.startswith("migrate:down"):
            end = node.start_byte
    return start, end


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _kids(node: Node, kind: str) -> list[Node]:
    return [c for c in node.named_children if c.type == kind]


def _statement_changes(stmt: Node, index: int, sql: str, comment: str) -> list[Change] | str:
    inner = stmt.named_children[0] if stmt.named_children else None
    if inner is None:
        return "empty statement"
    out: list[Change] = []

    def emit(type_: str, entity: str, kind: str, **metadata: Any) -> None:
        out.append(Change(type_, entity, kind, index, sql, comment, dict(metadata)))

    try:
        if inner.type == "create_table":
            table = table_path(_text(_kids(inner, "object_reference")[0]))
            emit("create", table, "table")
            for defs in _kids(inner, "column_definitions"):
                for col in _kids(defs, "column_definition"):
                    emit("add", _column(table, col), "column", definition=_text(col))
        elif inner.type == "alter_table":
            table = table_path(_text(_kids(inner, "object_reference")[0]))
            for action in inner.named_children[1:]:
                _alter_action(table, action, emit)
        elif inner.type == "drop_table":
            for ref in _kids(inner, "object_reference"):
                emit("delete", table_path(_text(ref)), "table")
        elif inner.type == "create_index":
            refs = _kids(inner, "object_reference")
            if not refs:
                return "CREATE INDEX without a table"
            name = _kids(inner, "identifier")
            fields = [_text(f) for f in _kids(inner, "index_fields")]
            emit(
                "index_add",
                table_path(_text(refs[0])),
                "table",
                index=_text(name[0]) if name else "",
                columns=fields[0] if fields else "",
            )
        elif inner.type == "drop_index":
            return "DROP INDEX does not name its table"
        else:
            return _NOT_SCHEMA.get(inner.type, f"{inner.type.replace('_', ' ')} is not DDL")
    except (EntityPathError, IndexError) as exc:
        return f"could not name the entity: {exc}"
    return out or "no table or column change in this statement"


def _column(table: str, definition: Node) -> str:
    # A quoted column name parses as a `literal`; the `name` field covers both.
    name = definition.child_by_field_name("name") or _kids(definition, "identifier")[0]
    return column_path(table, _text(name))


def _alter_action(table: str, action: Node, emit: Any) -> None:
    kind = action.type
    if kind == "add_column":
        col = _kids(action, "column_definition")[0]
        emit("add", _column(table, col), "column", definition=_text(col))
    elif kind == "drop_column":
        emit("remove", column_path(table, _text(_kids(action, "identifier")[0])), "column")
    elif kind == "rename_column":
        old, new = (_text(n) for n in _kids(action, "identifier")[:2])
        emit_rename(emit, "column", column_path(table, old), column_path(table, new))
    elif kind in ("alter_column", "modify_column", "change_column"):
        defs = _kids(action, "column_definition")
        ident = _kids(action, "identifier") or _kids(action, "literal")
        entity = _column(table, defs[0]) if defs else column_path(table, _text(ident[0]))
        keywords = {c.type for c in action.children}
        retype = "keyword_type" in keywords or kind == "modify_column"
        emit("retype" if retype else "modify", entity, "column", change=_text(action))
    elif kind == "rename_object":
        new = table_path(_text(_kids(action, "object_reference")[0]))
        emit_rename(emit, "table", table, new)
    elif kind in ("add_constraint", "drop_constraint", "alter_constraint"):
        emit("modify", table, "table", change=_text(action))
