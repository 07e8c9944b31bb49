"""The tables of one Django app's models, for reading its migrations.

A migration names a model (`AddField(model_name="entry", ...)`), not its table; the
table is `<app>_<model>` unless the model states `db_table`, and that is said in
another file: the app's `models.py` (`class Meta: db_table = "blog_entries"`) or an
earlier migration (`CreateModel(options={"db_table": ...})`, `AlterModelTable`). The
migration resolver reads one file, so the caller (the gate, the language server,
`cairn show`, `which`) reads the app once with `app_model_tables` and passes the map
as the document's context, where `django.table_of` turns a model into its table.

The read is bounded: only files under the size limit, at most `MAX_APP_FILES` of
them, and only files that mention `db_table` or an operation that renames or deletes a
model are parsed at all (most migrations are skipped by one byte search).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath
from typing import cast

from tree_sitter import Node

from cairn.indexer.capture import literal, node_text
from cairn.indexer.frameworks._python import class_assignment, inner_class
from cairn.indexer.frameworks.django import _argument, is_model, migration_app_label
from cairn.indexer.languages import parser
from cairn.limits import MAX_FILE_BYTES, LimitExceeded, read_source

# Files of one app read for its tables (models modules and earlier migrations): a real
# app has dozens; past this the rest are not read and the defaults apply.
MAX_APP_FILES = 1_000
_MENTIONS = ("db_table", "AlterModelTable", "RenameModel", "DeleteModel")


# One migration's effect on the stated tables, in order: ("set", model, table or None
# for Django's default) or ("move", old model, new model).
Step = tuple[str, str, str | None]


def app_model_tables(
    root: Path, relpath: str, cache: dict[Path, object] | None = None
) -> dict[str, str]:
    """For a migration at `relpath` under `root`: each model of its app whose table is
    stated -> that table, as of just before this migration. Earlier migrations (by
    file name) say what the table was then; the app's models modules fill in models
    those migrations never name. Empty for any other file; never raises on bad files.
    `cache` (path -> what the file says) lets a caller that reads many migrations of
    one app (`scan_paths`) parse each file once."""
    app = migration_app_label(relpath)
    if app is None:
        return {}
    rel = PurePosixPath(relpath)
    app_dir = root / rel.parent.parent
    memo: dict[Path, object] = cache if cache is not None else {}
    if app_dir not in memo:  # the app's files, listed once per cache
        migrations = sorted(_py_files(app_dir / "migrations"))
        memo[app_dir] = (_models_files(app_dir)[:MAX_APP_FILES], migrations)
    files, migrations = cast(tuple[list[Path], list[Path]], memo[app_dir])
    tables: dict[str, str] = {}
    for path in files:
        declared = _read(path, memo, declared_tables)
        for model, table in declared.items() if isinstance(declared, dict) else ():
            tables.setdefault(model, table)
    stated: dict[str, str | None] = {}
    earlier = migrations[: bisect_left(migrations, rel.name, key=lambda p: p.name)]
    for path in earlier[: MAX_APP_FILES - len(files)]:
        steps = _read(path, memo, migration_tables)
        for step, model, table in steps if isinstance(steps, list) else ():
            if step == "move" and table is not None:
                stated[table], stated[model] = stated.get(model), None
            else:
                stated[model] = table
    for model, table in stated.items():
        if table:
            tables[model] = table
        else:
            tables.pop(model, None)
    return tables


def declared_tables(source: str) -> dict[str, str]:
    """A models module's models with `Meta.db_table` -> that table (lower-cased name)."""
    tree = parser("python").parse(source.encode("utf-8"))
    found: dict[str, str] = {}
    for cls in _top_classes(tree.root_node):
        meta = inner_class(cls, "Meta")
        name = cls.child_by_field_name("name")
        if meta is None or name is None or not is_model(cls, "models.py"):
            continue
        table = literal(class_assignment(meta, "db_table"))
        if table:
            found[node_text(name).lower()] = table
    return found


def migration_tables(source: str) -> list[Step]:
    """One migration's table-naming operations, in order, as the migration importer
    reads them: a `CreateModel` or `AlterModelTable` states a table or none,
    `RenameModel` carries a stated table to the new name (it keeps its name) and leaves
    the old name none, so the models module cannot fill in a stale table;
    `DeleteModel` forgets it."""
    tree = parser("python").parse(source.encode("utf-8"))
    steps: list[Step] = []
    for call in _calls(tree.root_node):
        function = call.child_by_field_name("function")
        op = node_text(function).rsplit(".", 1)[-1] if function is not None else ""
        model = (literal(_argument(call, "name", 0)) or "").lower()
        if op == "CreateModel" and model:
            steps.append(("set", model, _option(_argument(call, "options", 2), "db_table")))
        elif op == "AlterModelTable" and model:
            steps.append(("set", model, literal(_argument(call, "table", 1))))
        elif op == "DeleteModel" and model:
            steps.append(("set", model, None))
        elif op == "RenameModel":
            old = (literal(_argument(call, "old_name", 0)) or "").lower()
            new = (literal(_argument(call, "new_name", 1)) or "").lower()
            if old and new:
                steps.append(("move", old, new))
    return steps


def _option(node: Node | None, key: str) -> str | None:
    if node is None or node.type != "dictionary":
        return None
    for pair in node.named_children:
        if pair.type == "pair" and literal(pair.child_by_field_name("key")) == key:
            return literal(pair.child_by_field_name("value"))
    return None


def _top_classes(root: Node) -> Iterator[Node]:
    for child in root.named_children:
        if child.type == "decorated_definition":
            child = child.child_by_field_name("definition") or child
        if child.type == "class_definition":
            yield child


def _calls(root: Node) -> Iterator[Node]:
    """Every call in source order (an iterative walk: no recursion limit to hit)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "call":
            yield node
        stack.extend(reversed(node.named_children))


def _models_files(app_dir: Path) -> list[Path]:
    single = app_dir / "models.py"
    return [single] if single.is_file() else sorted(_py_files(app_dir / "models"))


def _py_files(folder: Path) -> list[Path]:
    try:
        return [p for p in folder.iterdir() if p.suffix == ".py" and p.name != "__init__.py"]
    except OSError:
        return []


def _read(path: Path, memo: dict[Path, object], parse: Callable[[str], object]) -> object:
    """What `parse` makes of the file, once per `memo`; None for a file that is not
    read (not a regular file, over the size limit, undecodable) or names no table."""
    if path not in memo:
        memo[path] = None
        try:
            text = read_source(path, MAX_FILE_BYTES)
        except (OSError, UnicodeDecodeError, LimitExceeded):
            return None
        if any(word in text for word in _MENTIONS):
            memo[path] = parse(text)
    return memo[path]
