"""Django: model fields are columns of `<app label>_<model>` (or `Meta.db_table`), and a
migration's operations introduce, reference and remove the tables and columns they name.

The app label is the folder holding `models.py` (or holding the `models/` package), and
for a migration the folder holding `migrations/`. A `ForeignKey`/`OneToOneField` is
stored as `<name>_id`; `db_column=` wins; a `ManyToManyField` has no column of its own
(it lives in a join table). The naming rules (`model_table`, `field_column`) are the
ones the migration importer (`cairn.importers.django`) uses too: one place.

Forms, `ModelForm`s, DRF serializers, admin classes and filter sets declare fields with
the same `XField(...)` calls; they are not models and have no table.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath

from tree_sitter import Node

from cairn.indexer.capture import Capture, FileContext, ancestor, literal, node_text
from cairn.indexer.frameworks._python import class_assignment, inner_class, keyword, positional
from cairn.indexer.model import Role

# Field classes stored as `<name>_id`, and those without a column of their own.
RELATIONS = frozenset({"ForeignKey", "OneToOneField", "ForeignObject", "ParentalKey"})
NO_COLUMN = frozenset(
    {"ManyToManyField", "GenericRelation", "GenericForeignKey", "ParentalManyToManyField"}
)
# Base-class name endings of classes that declare fields but are no model.
_NOT_MODELS = (
    "Form",
    "FormSet",
    "Serializer",
    "Admin",
    "Inline",
    "FilterSet",
    "Filter",
    "Schema",
    "Resource",
)
# Modules whose `XField(...)` calls declare no column (`forms.CharField`).
_NOT_MODEL_MODULES = frozenset({"forms", "serializers", "filters", "django_filters"})
# Base classes of models whose names do not end in `Model`.
_MODEL_BASES = frozenset({"AbstractUser", "AbstractBaseUser"})


def model_table(app_label: str, model: str) -> str:
    """Django's default table name: `<app_label>_<model name lower-cased>`."""
    return f"{app_label}_{model.lower()}"


def table_of(app: str, model: str, tables: Mapping[str, str]) -> str:
    """The table of app `app`'s model `model`: the table stated for it (`tables`, keyed
    by the model's lower-cased name: `django_apps.app_model_tables`), else Django's
    default."""
    return tables.get(model.lower()) or model_table(app, model)


def field_column(name: str, field_class: str, db_column: str | None = None) -> str | None:
    """The column a field stores in (`db_column` wins; a relation is `<name>_id`), or
    None for a field without a column of its own (many-to-many, generic relations)."""
    if field_class in NO_COLUMN:
        return None
    if db_column:
        return db_column
    return f"{name}_id" if field_class in RELATIONS else name


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
    dotted = node_text(function).split(".") if function is not None else [""]
    if len(dotted) > 1 and dotted[-2] in _NOT_MODEL_MODULES:
        return []
    db_column = keyword(call, "db_column")
    explicit = literal(db_column)
    column = field_column(capture.name, dotted[-1], explicit)
    if column is None:
        return []
    if db_column is not None and explicit:
        return [capture.but(table=table, name=explicit, name_node=db_column)]
    return [capture.but(table=table, name=column)]


def _bases(cls: Node) -> list[str]:
    """The last dotted part of each base class (`models.Model` -> `Model`)."""
    bases = cls.child_by_field_name("superclasses")
    if bases is None:
        return []
    return [
        node_text(b).rsplit(".", 1)[-1]
        for b in bases.named_children
        if b.type != "keyword_argument"
    ]


def is_model(cls: Node, path: str) -> bool:
    """A Django model class: a base named `…Model` (`models.Model`, `TimeStampedModel`),
    a known model base, or, in a models module, any base but a form's, serializer's or
    admin's."""
    bases = _bases(cls)
    if not bases or any(b.endswith(_NOT_MODELS) for b in bases):
        return False
    if any(b.endswith("Model") or b in _MODEL_BASES for b in bases):
        return True
    return in_models_module(path) and not all(b in ("object", "Enum") for b in bases)


def in_models_module(path: str) -> bool:
    """`shop/models.py` or `shop/models/order.py`."""
    parts = PurePosixPath(path).parts
    return parts[-1] == "models.py" or (len(parts) > 1 and parts[-2] == "models")


def _table(cls: Node, path: str) -> str | None:
    if not is_model(cls, path):
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
    return model_table(app_label(path), node_text(name))


def meta_table(capture: Capture, ctx: FileContext) -> list[Capture]:
    """`db_table = "t"` in a model's `class Meta` introduces the table t (an abstract
    model's or a form's Meta names none)."""
    meta = ancestor(capture.name_node, "class_definition")
    cls = ancestor(meta, "class_definition") if meta is not None else None
    if cls is None:
        return []
    key = ("django", cls.id)
    if key not in ctx.memo:
        ctx.memo[key] = _table(cls, ctx.path)
    return [capture] if ctx.memo[key] == capture.name else []


def app_label(path: str) -> str:
    """`shop/models.py` -> `shop`; `shop/models/order.py` -> `shop`."""
    parts = PurePosixPath(path).parts[:-1]
    if parts and parts[-1] == "models":
        parts = parts[:-1]
    return parts[-1].lower() if parts else "app"


def migration_app_label(path: str | PurePosixPath) -> str | None:
    """`shop/migrations/0002_x.py` -> `shop`; None outside a `migrations` folder."""
    parts = PurePosixPath(path).parts
    if len(parts) < 3 or parts[-2] != "migrations":
        return None
    return parts[-3]


# --- migrations ---------------------------------------------------------------------------

# Operations on one model's table (the model is `model_name=`/`name=`, first argument).
_TABLE_OPTIONS = frozenset(
    {
        "AlterUniqueTogether",
        "AlterIndexTogether",
        "AddConstraint",
        "RemoveConstraint",
        "AlterOrderWithRespectTo",
        "AddIndex",
        "RemoveIndex",
        "RenameIndex",
    }
)


def migration(capture: Capture, ctx: FileContext) -> list[Capture]:
    """One operation of a migration's `operations` list -> its tables and columns.

    A model's table comes from the app's stated tables, the document's context
    (`ctx.model_tables`, read by the caller from `models.py` and earlier migrations),
    else Django's default. The class of a field removed here (a foreign key's
    `<name>_id`) is not known: the column then follows the default."""
    app = migration_app_label(ctx.path)
    call = capture.call
    if app is None or call is None:
        return []
    if ancestor(call, "call") is not None:
        return []  # an operation inside another call (SeparateDatabaseAndState) is not read
    op = capture.name
    found: list[Capture] = []

    def emit(kind: str, role: Role, node: Node | None, table: str | None = None) -> None:
        name = literal(node)
        if node is not None and name:
            found.append(capture.but(kind=kind, role=role, name=name, name_node=node, table=table))

    def column(table: str, role: Role, name_node: Node | None, field_call: Node | None) -> None:
        name = literal(name_node)
        if name_node is None or not name:
            return
        cls = _callee(field_call)
        db_column = keyword(field_call, "db_column") if field_call is not None else None
        explicit = literal(db_column)
        stored = field_column(name, cls, explicit)
        if stored is None:
            return
        node = db_column if db_column is not None and explicit else name_node
        found.append(
            capture.but(kind="column", role=role, name=stored, name_node=node, table=table)
        )

    if op == "RunSQL":
        return _run_sql(capture, _argument(call, "sql", 0))
    model_node = _argument(call, "model_name", 0)
    if op in ("AddField", "RemoveField", "AlterField", "RenameField"):
        model = literal(model_node)
        if not model:
            return []
        table = table_of(app, model, ctx.model_tables)
        if op == "RenameField":
            emit("column", Role.REMOVE, _argument(call, "old_name", 1), table)
            emit("column", Role.INTRODUCE, _argument(call, "new_name", 2), table)
            return found
        role = {"AddField": Role.INTRODUCE, "RemoveField": Role.REMOVE}.get(op, Role.REFERENCE)
        column(table, role, _argument(call, "name", 1), _argument(call, "field", 2))
        return found
    name_node = _argument(call, "name", 0)
    model = literal(name_node)
    if op == "CreateModel" and model:
        options = _options(_argument(call, "options", 2))
        if options.get("proxy") == "True" or options.get("managed") == "False":
            return []
        table = options.get("db_table") or table_of(app, model, ctx.model_tables)
        found.append(
            capture.but(kind="table", role=Role.INTRODUCE, name=table, name_node=name_node)
        )
        fields = _argument(call, "fields", 1)
        for item in fields.named_children if fields is not None else []:
            parts = item.named_children if item.type == "tuple" else []
            if len(parts) == 2:
                column(table, Role.INTRODUCE, parts[0], parts[1])
        return found
    if op == "DeleteModel" and model:
        table = table_of(app, model, ctx.model_tables)
        found.append(capture.but(kind="table", role=Role.REMOVE, name=table, name_node=name_node))
        return found
    if op == "RenameModel":
        old, new = _argument(call, "old_name", 0), _argument(call, "new_name", 1)
        if (literal(old) or "").lower() in ctx.model_tables:
            return []  # db_table stated: the table keeps its name (as the importer has it)
        for node, role in ((old, Role.REMOVE), (new, Role.INTRODUCE)):
            value = literal(node)
            if node is not None and value:
                table = table_of(app, value, ctx.model_tables)
                found.append(capture.but(kind="table", role=role, name=table, name_node=node))
        return found
    if op == "AlterModelTable" and model:
        table_node = _argument(call, "table", 1)
        table = table_of(app, model, ctx.model_tables)
        found.append(capture.but(kind="table", role=Role.REMOVE, name=table, name_node=name_node))
        emit("table", Role.INTRODUCE, table_node)
        return found
    if op in _TABLE_OPTIONS:
        node = model_node if literal(model_node) else name_node
        return _table_option(capture, call, app, node, ctx.model_tables)
    return []


def _run_sql(capture: Capture, sql: Node | None) -> list[Capture]:
    """`RunSQL` with literal SQL (a string or a list of them; never `reverse_sql`): the
    tables and columns the SQL reader finds in it, placed on the string, as the
    migration importer reads the same SQL (`cairn.importers.django`)."""
    from cairn.indexer.document import index_text

    strings = sql.named_children if sql is not None and sql.type == "list" else [sql]
    found: list[Capture] = []
    for node in strings:
        text = literal(node)
        if node is None or not text:
            continue
        for symbol in index_text(text, "migration.sql"):
            if symbol.kind == "table":
                found.append(
                    capture.but(kind="table", role=symbol.role, name=symbol.entity, name_node=node)
                )
            elif symbol.kind == "column" and "." in symbol.entity:
                table, name = symbol.entity.rsplit(".", 1)
                found.append(
                    capture.but(
                        kind="column", role=symbol.role, name=name, name_node=node, table=table
                    )
                )
    return found


def _table_option(
    capture: Capture, call: Node, app: str, node: Node | None, tables: Mapping[str, str]
) -> list[Capture]:
    """An operation on a model's table options (an index, a constraint, ...): the table
    it references, and the columns an index names."""
    model = literal(node)
    if node is None or not model:
        return []
    table = table_of(app, model, tables)
    found = [capture.but(kind="table", role=Role.REFERENCE, name=table, name_node=node)]
    index = _argument(call, "index", 1)
    fields = keyword(index, "fields") if index is not None and index.type == "call" else None
    for item in fields.named_children if fields is not None else []:
        name = (literal(item) or "").lstrip("-")  # "-date_modified": descending
        if item.type == "string" and name:
            found.append(
                capture.but(
                    kind="column", role=Role.REFERENCE, name=name, name_node=item, table=table
                )
            )
    return found


def _argument(call: Node, name: str, position: int) -> Node | None:
    """An operation's argument, by keyword or position (as Django's signatures allow)."""
    value = keyword(call, name)
    if value is not None:
        return value
    args = positional(call)
    return args[position] if len(args) > position else None


def _callee(call: Node | None) -> str:
    """`models.ForeignKey(...)` -> `ForeignKey`."""
    if call is None or call.type != "call":
        return ""
    function = call.child_by_field_name("function")
    return node_text(function).rsplit(".", 1)[-1] if function is not None else ""


def _options(node: Node | None) -> dict[str, str]:
    """A CreateModel's literal `options={...}`: key -> value (strings unquoted, other
    values as written: `True`, `False`)."""
    out: dict[str, str] = {}
    if node is None or node.type != "dictionary":
        return out
    for pair in node.named_children:
        if pair.type != "pair":
            continue
        key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
        name = literal(key)
        if name and value is not None:
            out[name] = literal(value) or node_text(value)
    return out
