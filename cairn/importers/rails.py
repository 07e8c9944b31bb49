"""`cairn import rails DIR`: `db/migrate/*.rb` in timestamp order.

Each migration's `change` (or `up`) method is read with tree-sitter's Ruby grammar,
in source order: `create_table` blocks (their `t.<type>` columns, `t.references`,
`t.timestamps`), `change_table` blocks, `add_/remove_/rename_/change_column`,
`add_/remove_reference`, indexes, `rename_table`, `drop_table`, and `execute` SQL
(read by the same DDL reader as `cairn import sql`). `down` is the rollback: ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from tree_sitter import Language, Node, Parser

from cairn.importers.base import Proposed, Skipped, SourceError
from cairn.importers.dates import commit_reason, file_author, file_history
from cairn.importers.ddl import Change, Emit, emit_rename, emit_sql
from cairn.importers.sql import file_proposals, relative, stamp_date
from cairn.limits import nesting_within, read_source
from cairn.store.paths import EntityPathError, column_path, table_path

SOURCE = "rails"
_NAME = re.compile(r"^(?P<stamp>\d{14})_(?P<desc>\w+)\.rb$")
_COLUMN_TYPES = frozenset(
    {
        "string",
        "text",
        "integer",
        "bigint",
        "float",
        "decimal",
        "numeric",
        "datetime",
        "timestamp",
        "time",
        "date",
        "binary",
        "boolean",
        "json",
        "jsonb",
        "uuid",
        "inet",
        "cidr",
        "macaddr",
        "hstore",
        "citext",
        "money",
        "xml",
        "column",
        "virtual",
        "primary_key",
    }
)


@lru_cache(maxsize=1)
def _parser() -> Parser:
    import tree_sitter_ruby

    return Parser(Language(tree_sitter_ruby.language()))


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


def _name(node: Node | None) -> str | None:
    """The value of `:users`, `"users"` or `'users'`."""
    if node is None:
        return None
    if node.type == "simple_symbol":
        return _text(node)[1:]
    if node.type == "string":
        parts = [c for c in node.named_children if c.type == "string_content"]
        if len(parts) == 1 and len(node.named_children) == 1:
            return _text(parts[0])
    return None


def _args(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "pair"] if args is not None else []


def _kwargs(call: Node) -> dict[str, Node]:
    args = call.child_by_field_name("arguments")
    out: dict[str, Node] = {}
    for pair in args.named_children if args is not None else []:
        if pair.type == "pair":
            key = _text(pair.child_by_field_name("key")).rstrip(":").lstrip(":")
            value = pair.child_by_field_name("value")
            if value is not None:
                out[key] = value
    return out


def _method_name(call: Node) -> str:
    return _text(call.child_by_field_name("method"))


def _statement_calls(body: Node | None) -> list[Node]:
    """Calls directly in a body, plus those inside `reversible`/`up`-style blocks."""
    if body is None:
        return []
    out: list[Node] = []
    for child in body.named_children:
        if child.type == "call":
            name = _method_name(child)
            block = child.child_by_field_name("block")
            if name in ("reversible",) and block is not None:
                continue  # both directions inside; `up`/`down` need the block argument
            if child.child_by_field_name("receiver") is not None and name == "up":
                out.extend(_statement_calls(_block_body(child)))
                continue
            out.append(child)
        elif child.type == "identifier":
            out.append(child)
    return out


def _block_body(call: Node) -> Node | None:
    block = call.child_by_field_name("block")
    if block is None:
        return None
    return next(
        (c for c in block.named_children if c.type in ("body_statement", "block_body")), None
    )


def migration_changes(text: str) -> tuple[list[Change], list[str]]:
    """The schema changes a Rails migration's `change`/`up` makes, in source order."""
    root = _parser().parse(text.encode("utf-8")).root_node
    nesting_within(root, lambda node: node.named_children)  # _walk below recurses
    methods = [n for n in _walk(root) if n.type == "method"]
    body = None
    for wanted in ("change", "up"):
        for m in methods:
            if _text(m.child_by_field_name("name")) == wanted:
                body = next((c for c in m.named_children if c.type == "body_statement"), None)
                break
        if body is not None:
            break
    if body is None:
        return [], ["no `change` or `up` method"]
    changes: list[Change] = []
    unknown: list[str] = []
    for index, call in enumerate(_statement_calls(body)):
        code = _text(call)

        def emit(
            type_: str, entity: str, kind: str, _code: str = code, _i: int = index, **meta: Any
        ) -> None:
            changes.append(Change(type_, entity, kind, _i, _code, "", dict(meta)))

        try:
            _call(call, emit, unknown)
        except EntityPathError as exc:
            unknown.append(f"{code[:60]}: {exc}")
    return changes, unknown


def _walk(node: Node) -> Iterator[Node]:
    yield node
    for child in node.named_children:
        yield from _walk(child)


def _call(call: Node, emit: Emit, unknown: list[str]) -> None:
    if call.type != "call":
        return
    name = _method_name(call)
    args = [_name(a) for a in _args(call)]
    kwargs = _kwargs(call)
    t0 = args[0] if args else None
    if name == "create_table" and t0:
        emit("create", table_path(t0), "table")
        _table_block(t0, call, emit, creating=True)
    elif name == "change_table" and t0:
        _table_block(t0, call, emit, creating=False)
    elif name == "drop_table" and t0:
        emit("delete", table_path(t0), "table")
    elif name == "rename_table" and t0 and len(args) > 1 and args[1]:
        emit_rename(emit, "table", table_path(t0), table_path(args[1]))
    elif name == "add_column" and t0 and len(args) > 1 and args[1]:
        emit("add", column_path(t0, args[1]), "column", definition=_text(call))
    elif name in ("remove_column", "remove_columns") and t0:
        # remove_column's third argument is the type (for reversibility), not a column
        for col in args[1:] if name == "remove_columns" else args[1:2]:
            if col:
                emit("remove", column_path(t0, col), "column")
    elif name == "rename_column" and t0 and len(args) > 2 and args[1] and args[2]:
        old, new = column_path(t0, args[1]), column_path(t0, args[2])
        emit_rename(emit, "column", old, new)
    elif name == "change_column" and t0 and len(args) > 1 and args[1]:
        emit("retype", column_path(t0, args[1]), "column", change=_text(call))
    elif (
        name in ("change_column_null", "change_column_default", "change_column_comment")
        and t0
        and len(args) > 1
        and args[1]
    ):
        emit("modify", column_path(t0, args[1]), "column", change=_text(call))
    elif name in ("add_reference", "add_belongs_to") and t0 and len(args) > 1 and args[1]:
        emit("add", column_path(t0, f"{args[1]}_id"), "column", definition=_text(call))
    elif name in ("remove_reference", "remove_belongs_to") and t0 and len(args) > 1 and args[1]:
        emit("remove", column_path(t0, f"{args[1]}_id"), "column")
    elif name == "add_timestamps" and t0:
        for col in ("created_at", "updated_at"):
            emit("add", column_path(t0, col), "column")
    elif name == "remove_timestamps" and t0:
        for col in ("created_at", "updated_at"):
            emit("remove", column_path(t0, col), "column")
    elif name in ("add_index", "remove_index") and t0:
        emit(
            "index_add" if name == "add_index" else "index_remove",
            table_path(t0),
            "table",
            index=_text(kwargs["name"]) if "name" in kwargs else _text(call),
        )
    elif name == "execute":
        raw = _args(call)
        sql = _string_value(raw[0], call) if raw else None
        if sql is None:
            unknown.append(f"{_text(call)[:60]}: SQL is not a literal string")
            return
        emit_sql(sql, emit, unknown, "execute {}")
    else:
        unknown.append(f"{_text(call)[:60]}: not a table or column operation Cairn reads")


def _string_value(node: Node, call: Node) -> str | None:
    """A literal string argument, including a heredoc (`execute <<~SQL ... SQL`)."""
    if node.type == "string":
        return "".join(_text(c) for c in node.named_children if c.type == "string_content")
    if node.type == "heredoc_beginning":
        # The heredoc's text is the statement after the call, not an argument.
        body = call.next_named_sibling
        if body is not None and body.type == "heredoc_body":
            return "".join(_text(c) for c in body.named_children if c.type == "heredoc_content")
    return None


def _table_block(table: str, call: Node, emit: Emit, *, creating: bool) -> None:
    """`t.string :email`, `t.references :org`, `t.timestamps`, `t.remove :x` ..."""
    body = _block_body(call)
    for inner in body.named_children if body is not None else []:
        if inner.type != "call":
            continue
        method = _method_name(inner)
        cols = [c for c in (_name(a) for a in _args(inner)) if c]
        code = _text(inner)
        if method in _COLUMN_TYPES:
            for col in cols:
                emit("add", column_path(table, col), "column", definition=code)
        elif method in ("references", "belongs_to"):
            for col in cols:
                emit("add", column_path(table, f"{col}_id"), "column", definition=code)
        elif method == "timestamps":
            for col in ("created_at", "updated_at"):
                emit("add", column_path(table, col), "column", definition=code)
        elif not creating and method == "remove":
            for col in cols:
                emit("remove", column_path(table, col), "column")
        elif not creating and method == "rename" and len(cols) == 2:
            old, new = column_path(table, cols[0]), column_path(table, cols[1])
            emit_rename(emit, "column", old, new)
        elif not creating and method == "change" and cols:
            emit("retype", column_path(table, cols[0]), "column", change=code)
        elif method == "index":
            emit("index_add", table_path(table), "table", index=code)


def import_rails(
    directory: Path, root: Path, unit_done: list | None = None
) -> tuple[int, Iterator[Proposed | Skipped]]:
    """(number of migrations, the proposals in timestamp order)."""
    if not directory.is_dir():
        raise SourceError(f"{directory}: not a directory")
    migrate = directory / "db" / "migrate"
    folder = migrate if migrate.is_dir() else directory
    files: list[tuple[str, Path, str]] = []
    skipped: list[Skipped] = []
    for path in sorted(folder.glob("*.rb")):
        m = _NAME.match(path.name)
        if m is None:
            skipped.append(Skipped(path.name, "not named <14-digit timestamp>_<name>.rb"))
        else:
            files.append((m["stamp"], path, m["desc"].replace("_", " ")))
    if not files:
        raise SourceError(f"{folder}: no Rails migrations (<timestamp>_<name>.rb) found")
    files.sort()

    added, dates = file_history([f[1] for f in files])  # why and who; the date is in the name

    def items() -> Iterator[Proposed | Skipped]:
        yield from skipped
        for stamp, path, desc in files:
            rel = relative(path, root)
            yield from file_proposals(
                lambda: migration_changes(read_source(path)),  # noqa: B023 (called at once)
                source=SOURCE,
                rel=rel,
                reasoning=commit_reason(added, path, f"Rails migration {path.name} ({desc})"),
                occurred_at=stamp_date(stamp),
                extra={"version": stamp, "migration": path.name},
                author=file_author(path, dates),
                unit_done=unit_done,
            )

    return len(files), items()
