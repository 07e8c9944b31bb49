"""The tables of one Django app's models, for reading its migrations.

A migration names a model (`AddField(model_name="entry", ...)`), not its table; the
table is `<app>_<model>` unless the model states `db_table`, and that is said in
another file: the app's `models.py` (`class Meta: db_table = "blog_entries"`) or an
earlier migration (`CreateModel(options={"db_table": ...})`, `AlterModelTable`). The
migration resolver reads one file, so the caller (the gate, the language server,
`cairn show`, `which`) reads the app once with `app_model_tables` and passes the map
as the document's context, where `django.table_of` turns a model into its table.

The read is bounded: only files under the size limit, at most `MAX_APP_FILES` of
them, and only files that mention `db_table` or `AlterModelTable` are parsed at all
(most migrations are skipped by one byte search).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from tree_sitter import Node

from cairn.indexer.capture import literal, node_text
from cairn.indexer.frameworks._python import class_assignment, inner_class, keyword, positional
from cairn.indexer.frameworks.django import is_model, migration_app_label, model_table
from cairn.indexer.languages import parser
from cairn.limits import MAX_FILE_BYTES, LimitExceeded, read_source

# Files of one app read for its tables (models modules and earlier migrations): a real
# app has dozens; past this the rest are not read and the defaults apply.
MAX_APP_FILES = 1_000
_MENTIONS = ("db_table", "AlterModelTable")


def app_model_tables(root: Path, relpath: str) -> dict[str, str]:
    """For a migration at `relpath` under `root`: each model of its app whose table is
    stated -> that table, as of just before this migration. Earlier migrations (by
    file name) say what the table was then; the app's models modules fill in models
    those migrations never name. Empty for any other file; never raises on bad files."""
    app = migration_app_label(relpath)
    if app is None:
        return {}
    rel = PurePosixPath(relpath)
    app_dir = root / rel.parent.parent
    budget = [MAX_APP_FILES]
    tables: dict[str, str] = {}
    for source in _texts(_models_files(app_dir), budget):
        for model, table in declared_tables(source).items():
            tables.setdefault(model, table)
    stated: dict[str, str] = {}
    earlier = sorted(p for p in _py_files(app_dir / "migrations") if p.name < rel.name)
    for source in _texts(earlier, budget):
        migration_tables(source, app, stated)
    tables.update(stated)
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


def migration_tables(source: str, app: str, tables: dict[str, str]) -> None:
    """Apply one migration's table-naming operations to `tables`, in order: a
    `CreateModel` names its table (stated or default), `AlterModelTable` renames it,
    `DeleteModel` forgets it."""
    tree = parser("python").parse(source.encode("utf-8"))
    for call in _calls(tree.root_node):
        function = call.child_by_field_name("function")
        op = node_text(function).rsplit(".", 1)[-1] if function is not None else ""
        args = positional(call)
        name_node = keyword(call, "name") or (args[0] if args else None)
        model = (literal(name_node) or "").lower()
        if not model:
            continue
        if op == "CreateModel":
            options = keyword(call, "options") or (args[2] if len(args) > 2 else None)
            tables[model] = _option(options, "db_table") or model_table(app, model)
        elif op == "AlterModelTable":
            table = literal(keyword(call, "table") or (args[1] if len(args) > 1 else None))
            tables[model] = table or model_table(app, model)
        elif op == "DeleteModel":
            tables.pop(model, None)


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


def _texts(paths: list[Path], budget: list[int]) -> Iterator[str]:
    """The text of each file that may state a table, while the budget lasts."""
    for path in paths:
        if budget[0] <= 0:
            return
        budget[0] -= 1
        try:
            text = read_source(path, MAX_FILE_BYTES)
        except (OSError, UnicodeDecodeError, LimitExceeded):
            continue
        if any(word in text for word in _MENTIONS):
            yield text
