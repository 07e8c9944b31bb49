"""`cairn import alembic DIR`: revisions in `down_revision` graph order.

File names say nothing about order in Alembic; the graph does. Revisions are sorted
topologically (a merge revision after all of its parents; independent branches by
their creation date, then id), and each revision's `upgrade()` operations are read in
source order with Python's own parser. `op.execute("...")` SQL goes through the same
DDL reader as `cairn import sql`.
"""

from __future__ import annotations

import ast
import configparser
import copy
import heapq
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.importers.base import Proposed, Skipped, SourceError, normalise_time, parse_python
from cairn.importers.dates import commit_reason, file_author, file_date, file_history
from cairn.importers.ddl import Change, change_emitter, emit_rename, emit_sql
from cairn.importers.sql import file_proposals, relative
from cairn.limits import Steps
from cairn.store.paths import EntityPathError, column_path, table_path

SOURCE = "alembic"


@dataclass
class Revision:
    """One Alembic revision file."""

    path: Path
    revision: str
    down: tuple[str, ...]
    message: str
    create_date: str | None
    tree: ast.Module = field(repr=False)


def _literal(node: ast.AST | None) -> Any:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return None


def read_revision(path: Path) -> Revision | Skipped:
    """Parse one revision file's identifiers (no code is executed)."""
    parsed = parse_python(path)
    if isinstance(parsed, Skipped):
        return parsed
    tree = parsed[1]
    values: dict[str, Any] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name):
            values[target.id] = _literal(value)
    rev = values.get("revision")
    if not isinstance(rev, str):
        return Skipped(str(path), "no `revision = '...'` identifier; not an Alembic revision")
    down = values.get("down_revision")
    downs: tuple[str, ...] = (
        () if down is None else (down,) if isinstance(down, str) else tuple(down)
    )
    doc = ast.get_docstring(tree) or ""
    message = doc.splitlines()[0].strip() if doc else path.stem
    create_date = None
    for line in doc.splitlines():
        if line.lower().startswith("create date:"):
            try:
                create_date = normalise_time(line.split(":", 1)[1].strip().replace(" ", "T"))
            except SourceError:
                create_date = None
    return Revision(path, rev, downs, message, create_date, tree)


def order_revisions(revisions: list[Revision]) -> tuple[list[Revision], list[Skipped]]:
    """Topological order of the revision graph (Kahn's algorithm, deterministic)."""
    by_id = {r.revision: r for r in revisions}
    skipped: list[Skipped] = []
    children: dict[str, list[str]] = {r.revision: [] for r in revisions}
    waiting: dict[str, int] = {}
    for r in revisions:
        known = [d for d in r.down if d in by_id]
        for d in r.down:
            if d not in by_id:
                skipped.append(
                    Skipped(
                        r.path.name,
                        f"down_revision {d} is not in this directory; ordered as a root",
                    )
                )
        waiting[r.revision] = len(known)
        for d in known:
            children[d].append(r.revision)

    def rank(rev: str) -> tuple[str, str]:
        return (by_id[rev].create_date or "", rev)

    ready = [rank(r) for r, n in waiting.items() if n == 0]
    heapq.heapify(ready)
    out: list[Revision] = []
    while ready:
        _, rev = heapq.heappop(ready)
        out.append(by_id[rev])
        for child in children[rev]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, rank(child))
    if len(out) != len(revisions):
        stuck = sorted(r for r, n in waiting.items() if n > 0)
        raise SourceError(f"the revision graph has a cycle through {', '.join(stuck)}")
    return out, skipped


def _func(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    return next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _str(node: ast.AST | None) -> str | None:
    value = _literal(node)
    return value if isinstance(value, str) else None


def _arg(call: ast.Call, pos: int, name: str) -> ast.AST | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return call.args[pos] if len(call.args) > pos else None


def _column_name(node: ast.AST) -> str | None:
    """The name of `sa.Column('name', ...)`."""
    if isinstance(node, ast.Call) and _callee(node).endswith("Column"):
        return _str(_arg(node, 0, "name"))
    return None


def _callee(call: ast.Call) -> str:
    return ast.unparse(call.func)


def upgrade_changes(rev: Revision, steps: Steps | None = None) -> tuple[list[Change], list[str]]:
    """The schema changes in `upgrade()`, in execution order; plus calls not understood.

    Names bound to literals — at module level (`tables = ["a", "b"]`) or earlier in
    `upgrade()` — are substituted, and `for x in <literal list>:` loops are unrolled, so
    `for table in tables: op.add_column(table, ...)` reads as one call per table.
    Unrolling spends `steps` (nested loops multiply): `LimitExceeded` past them."""
    fn = _func(rev.tree, "upgrade")
    if fn is None:
        return [], ["no upgrade() function"]
    changes: list[Change] = []
    unknown: list[str] = []
    batches: dict[str, str] = {}  # `with op.batch_alter_table("t") as batch_op` aliases
    env = _module_env(rev.tree)
    budget = steps or Steps()
    for index, call in enumerate(_calls(fn.body, env, batches, budget)):
        budget.spend()  # a call is work too: one loop over a statement of 1,000 calls
        func = call.func
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            continue
        owner, op = func.value.id, func.attr
        if owner != "op" and owner not in batches:
            continue
        code = ast.unparse(call)
        emit = change_emitter(changes, index, code)

        try:
            if owner in batches:
                _batch_op(batches[owner], op, call, emit, unknown)
            else:
                _op(op, call, emit, unknown, index)
        except EntityPathError as exc:
            unknown.append(f"{code[:60]}: {exc}")
    return changes, unknown


_UNKNOWN = object()
# how many values an unrolled loop may take: a migration is no place for 10,000 tables
_MAX_UNROLL = 1000


def _module_env(tree: ast.Module) -> dict[str, Any]:
    """Module-level names bound to literals (strings, numbers, lists/tuples/dicts)."""
    env: dict[str, Any] = {}
    for node in tree.body:
        _bind_assignment(node, env)
    return env


def _bind_assignment(node: ast.stmt, env: dict[str, Any]) -> None:
    target: ast.expr | None = None
    value: ast.expr | None = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign):
        target, value = node.target, node.value
    if not isinstance(target, ast.Name):
        return
    resolved = _resolve(value, env) if value is not None else _UNKNOWN
    if resolved is _UNKNOWN:
        env.pop(target.id, None)  # rebound to something we cannot read: forget it
    else:
        env[target.id] = resolved


class _Substitute(ast.NodeTransformer):
    """Names bound to literals become those literals."""

    def __init__(self, env: dict[str, Any]) -> None:
        self.env = env

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.env:
            return ast.copy_location(_constant(self.env[node.id]), node)
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.expr:
        # f"{prefix}_users" with every part known is just a string
        self.generic_visit(node)
        parts: list[str] = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            elif (
                isinstance(value, ast.FormattedValue)
                and isinstance(value.value, ast.Constant)
                and value.format_spec is None
                and value.conversion == -1
            ):
                parts.append(str(value.value.value))
            else:
                return node
        return ast.copy_location(ast.Constant("".join(parts)), node)


def _constant(value: Any) -> ast.expr:
    if isinstance(value, list):
        return ast.List([_constant(v) for v in value], ast.Load())
    if isinstance(value, tuple):
        return ast.Tuple([_constant(v) for v in value], ast.Load())
    if isinstance(value, dict):
        return ast.Dict([_constant(k) for k in value], [_constant(v) for v in value.values()])
    return ast.Constant(value)


def _substituted(node: ast.AST, env: dict[str, Any]) -> Any:
    if not env:
        return node
    return _Substitute(env).visit(copy.deepcopy(node))


def _resolve(node: ast.AST, env: dict[str, Any]) -> Any:
    try:
        return ast.literal_eval(_substituted(node, env))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _UNKNOWN


def _calls(
    stmts: list[ast.stmt], env: dict[str, Any], batches: dict[str, str], steps: Steps
) -> Iterator[ast.Call]:
    """The calls `stmts` make, in execution order, with known names substituted and
    loops over literal sequences unrolled (each statement visited spends a step)."""
    for stmt in stmts:
        steps.spend()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # a nested helper runs only if called; its body is no statement here
        if isinstance(stmt, ast.For):
            values = _resolve(stmt.iter, env)
            if isinstance(values, dict):
                values = list(values)
            if isinstance(values, (list, tuple)) and len(values) <= _MAX_UNROLL:
                for value in values:
                    inner = dict(env)
                    if _bind_target(stmt.target, value, inner):
                        yield from _calls(stmt.body, inner, batches, steps)
                continue
            yield from _expression_calls(stmt.iter, env)
            yield from _calls(stmt.body, env, batches, steps)
            yield from _calls(stmt.orelse, env, batches, steps)
            continue
        if isinstance(stmt, ast.With):
            for item in stmt.items:
                call = _substituted(item.context_expr, env)
                if (
                    isinstance(call, ast.Call)
                    and _callee(call).endswith("batch_alter_table")
                    and isinstance(item.optional_vars, ast.Name)
                ):
                    table = _str(_arg(call, 0, "table_name"))
                    if table:
                        batches[item.optional_vars.id] = table
                yield from _expression_calls(item.context_expr, env)
            yield from _calls(stmt.body, env, batches, steps)
            continue
        if isinstance(stmt, (ast.If, ast.While)):
            yield from _expression_calls(stmt.test, env)
            yield from _calls(stmt.body, env, batches, steps)
            yield from _calls(stmt.orelse, env, batches, steps)
            continue
        if isinstance(stmt, ast.Try):
            yield from _calls(stmt.body, env, batches, steps)
            for handler in stmt.handlers:
                yield from _calls(handler.body, env, batches, steps)
            yield from _calls(stmt.orelse, env, batches, steps)
            yield from _calls(stmt.finalbody, env, batches, steps)
            continue
        yield from _expression_calls(stmt, env)
        _bind_assignment(stmt, env)


def _bind_target(target: ast.expr, value: Any, env: dict[str, Any]) -> bool:
    if isinstance(target, ast.Name):
        env[target.id] = value
        return True
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (list, tuple)):
        if len(target.elts) != len(value):
            return False
        return all(_bind_target(t, v, env) for t, v in zip(target.elts, value, strict=True))
    return False


def _expression_calls(node: ast.AST, env: dict[str, Any]) -> Iterator[ast.Call]:
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    calls.sort(key=lambda c: (c.lineno, c.col_offset))
    for call in calls:
        yield _substituted(call, env)


def _batch_op(table: str, op: str, call: ast.Call, emit: Any, unknown: list[str]) -> None:
    shifted = ast.Call(
        func=call.func, args=[ast.Constant(table), *call.args], keywords=call.keywords
    )
    _op(op, shifted, emit, unknown, 0)


def _op(op: str, call: ast.Call, emit: Any, unknown: list[str], index: int) -> None:
    table = _str(_arg(call, 0, "table_name"))
    if op == "create_table" and table:
        emit("create", table_path(table), "table")
        for arg in call.args[1:]:
            name = _column_name(arg)
            if name:
                emit("add", column_path(table, name), "column", definition=ast.unparse(arg))
    elif op == "drop_table" and table:
        emit("delete", table_path(table), "table")
    elif op == "add_column" and table:
        column = _arg(call, 1, "column")
        name = _column_name(column) if column is not None else None
        if column is not None and name:
            emit("add", column_path(table, name), "column", definition=ast.unparse(column))
    elif op == "drop_column" and table:
        name = _str(_arg(call, 1, "column_name"))
        if name:
            emit("remove", column_path(table, name), "column")
    elif op == "alter_column" and table:
        name = _str(_arg(call, 1, "column_name"))
        if not name:
            return
        old = column_path(table, name)
        kws = {k.arg for k in call.keywords}
        new_name = next((_str(k.value) for k in call.keywords if k.arg == "new_column_name"), None)
        if new_name:
            new = column_path(table, new_name)
            emit_rename(emit, "column", old, new)
        elif "type_" in kws:
            emit("retype", old, "column")
        else:
            emit("modify", old, "column")
    elif op == "rename_table":
        old_t, new_t = _str(_arg(call, 0, "old_table_name")), _str(_arg(call, 1, "new_table_name"))
        if old_t and new_t:
            emit_rename(emit, "table", table_path(old_t), table_path(new_t))
    elif op in ("create_index", "drop_index"):
        adds = op == "create_index"
        target = (
            _str(_arg(call, 1, "table_name"))
            if adds
            else next((_str(k.value) for k in call.keywords if k.arg == "table_name"), None)
        )
        named = _str(_arg(call, 0, "index_name")) or ""
        if target:
            emit("index_add" if adds else "index_remove", table_path(target), "table", index=named)
        elif not adds:
            unknown.append(f"{ast.unparse(call)[:60]}: drop_index without table_name")
    elif op == "execute":
        text = _arg(call, 0, "sqltext")
        if isinstance(text, ast.Call) and _callee(text).split(".")[-1] == "text" and text.args:
            text = text.args[0]  # op.execute(sa.text("..."))
        sql = _str(text)
        if sql is None:
            unknown.append(f"{ast.unparse(call)[:60]}: SQL is not a literal string")
            return
        emit_sql(sql, emit, unknown, "op.execute({})")
    elif op in (
        "create_foreign_key",
        "drop_constraint",
        "create_unique_constraint",
        "create_check_constraint",
        "create_primary_key",
    ):
        target = (
            _str(_arg(call, 1, "table_name"))
            if op != "create_foreign_key"
            else _str(_arg(call, 1, "source_table"))
        )
        if target:
            emit("modify", table_path(target), "table", change=op)
    elif op in ("get_bind", "get_context", "f", "inline_literal", "batch_alter_table"):
        return
    else:
        unknown.append(f"op.{op}(...): not a table or column operation Cairn reads")


def versions_folder(directory: Path) -> Path:
    """Where the revisions are, given the versions folder, the script folder, or a
    project root (its alembic.ini's `script_location`, else alembic/ or migrations/)."""
    candidates = [directory / "versions"]
    ini = directory / "alembic.ini"
    if ini.is_file():
        config = configparser.ConfigParser(interpolation=None)
        try:
            config.read(ini, encoding="utf-8")
            location = config.get("alembic", "script_location", fallback="")
        except (configparser.Error, UnicodeDecodeError):
            location = ""
        # `%(here)s` is alembic.ini's own folder; a `package:path` location is not a folder
        location = location.replace("%(here)s", str(directory)).strip()
        if location and ":" not in location.replace(str(directory), ""):
            candidates.insert(0, directory / location / "versions")
    candidates += [directory / "alembic" / "versions", directory / "migrations" / "versions"]
    return next((c for c in candidates if c.is_dir()), directory)


def import_alembic(
    directory: Path, root: Path, unit_done: list | None = None
) -> tuple[int, Iterator[Proposed | Skipped]]:
    """(number of revisions, the proposals in graph order)."""
    if not directory.is_dir():
        raise SourceError(f"{directory}: not a directory")
    versions = versions_folder(directory)
    revisions: list[Revision] = []
    skipped: list[Skipped] = []
    for path in sorted(versions.glob("*.py")):
        if path.name == "__init__.py":
            continue
        item = read_revision(path)
        (skipped if isinstance(item, Skipped) else revisions).append(item)  # type: ignore[arg-type]
    if not revisions:
        raise SourceError(f"{versions}: no Alembic revision files found")
    ordered, graph_notes = order_revisions(revisions)
    added, dates = file_history([r.path for r in ordered])

    def items() -> Iterator[Proposed | Skipped]:
        yield from skipped
        yield from graph_notes
        for rev in ordered:
            rel = relative(rev.path, root)
            when, origin = (
                (rev.create_date, "Create Date") if rev.create_date else file_date(rev.path, dates)
            )
            yield from file_proposals(
                lambda: upgrade_changes(rev),  # noqa: B023 (file_proposals calls it at once)
                source=SOURCE,
                rel=rel,
                reasoning=commit_reason(
                    added, rev.path, f"Alembic revision {rev.revision}: {rev.message}"
                ),
                occurred_at=when,
                extra={
                    "revision": rev.revision,
                    "down_revision": list(rev.down),
                    "date_from": origin,
                },
                author=file_author(rev.path, dates),
                unit_done=unit_done,
            )

    return len(ordered), items()
