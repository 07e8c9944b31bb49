"""SQL's tables and columns, found by walking the syntax tree instead of a query.

Every other language's symbols come from a tree-sitter query (`queries/<lang>.scm`).
SQL's did too, until its compile was measured: `ts_query_new` analyses the grammar's
whole parse table whatever the query holds, and tree-sitter-sql's table is large, so
compiling the SQL query cost ~494 M instructions (15% of a language server's start
to its first diagnostics, on a 5,000-line migration; docs/performance.md, "The SQL
query replaced by a walk"). A query cannot be cached between processes, so the rules
are written here as a walk over the tree, which costs in proportion to the file.

The walk hands `extract` what a query would: matches as (pattern, {capture: nodes}),
with the patterns' entity captures (`primaries`) and settings, so the generic layer
(`direct_symbols`: names folded by the store's builders, ranges, settling) is shared
with every query-driven language. The rules, one per pattern of the former query:

* `CREATE TABLE t (c ...)`: `t` introduced; each column introduced (range: its
  definition).
* `ALTER TABLE t ...`: `t` referenced (range: the statement); `ADD COLUMN c` introduces
  `t.c`, `DROP COLUMN c` removes it, `RENAME COLUMN a TO b` removes `t.a` and introduces
  `t.b`, `ALTER COLUMN c` references it (range: the action); `RENAME TO u` removes `t`
  and introduces `u` (range: the statement; the reference to `t` then gives way in
  `extract._settle`).
* `DROP TABLE t`: `t` removed.
* `CREATE INDEX ix ON t (a, f(b))`: `t` referenced, and each indexed column (a plain
  column, or a column that is a function's argument).
* `DROP INDEX ix ON t` (MySQL): `t` referenced.
* a column's `REFERENCES u(c)`: `u` referenced and, when a column follows, `u.c`
  (range: the column's definition).

tests/indexer/test_indexer_sql_walk.py holds the walk to the former query's output
(kept there as the test's oracle) on every SQL text of the tests, on mixed and cut
statements and on a migration shaped like the bench's.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

import msgspec
from tree_sitter import Node

from cairn.indexer.languages import grammar
from cairn.indexer.model import Role

Match = tuple[int, dict[str, list[Node]]]

# The patterns, in the former query's order: each one's entity captures as
# (capture name, kind, role), as `queries._primaries` read them from a query's text.
_I, _R, _X = Role.INTRODUCE, Role.REFERENCE, Role.REMOVE
CREATE_TABLE, CREATE_COLUMN, ALTER_ACTION, RENAME_TABLE = 0, 1, 2, 3
ALTER_TABLE, DROP_TABLE, INDEX_TABLE, INDEX_COLUMN = 4, 5, 6, 7
DROP_INDEX, REFERENCES_TABLE, REFERENCES_COLUMN = 8, 9, 10
PRIMARIES: tuple[tuple[tuple[str, str, Role], ...], ...] = (
    (("table.introduce", "table", _I),),
    (("column.introduce", "column", _I),),
    (
        ("column.introduce", "column", _I),
        ("column.remove", "column", _X),
        ("column.reference", "column", _R),
    ),
    (("table.remove", "table", _X), ("table.introduce", "table", _I)),
    (("table.reference", "table", _R),),
    (("table.remove", "table", _X),),
    (("table.reference", "table", _R),),
    (("column.reference", "column", _R),),
    (("table.reference", "table", _R),),
    (("table.reference", "table", _R),),
    (("column.reference", "column", _R),),
)


class _Kinds(msgspec.Struct, frozen=True):
    """The grammar's node kinds the rules compare, as numbers (a node's `kind_id` is an
    int read in C; its `type` would make a string per node)."""

    create_table: int
    alter_table: int
    drop_table: int
    create_index: int
    drop_index: int
    column_definition: int
    column_definitions: int
    object_reference: int
    add_column: int
    drop_column: int
    rename_column: int
    alter_column: int
    rename_object: int
    index_fields: int
    field: int
    invocation: int
    term: int
    keyword_references: int
    identifier: int

    @property
    def heads(self) -> frozenset[int]:
        """The kinds a rule starts at (where a query's patterns are rooted)."""
        return frozenset(
            {
                self.create_table,
                self.alter_table,
                self.drop_table,
                self.create_index,
                self.drop_index,
                self.column_definition,
            }
        )


@cache
def _kinds() -> _Kinds:
    language = grammar("sql")
    ids = {name: language.id_for_node_kind(name, True) for name in _Kinds.__struct_fields__}
    missing = sorted(name for name, kind in ids.items() if kind is None)
    if missing:
        # a grammar without these kinds is not the one the rules were written for
        raise LookupError(f"tree-sitter-sql has no node kind {', '.join(missing)}")
    return _Kinds(**{name: kind for name, kind in ids.items() if kind is not None})


class SqlWalk:
    """The built-in SQL rules, in the shape `extract` reads a compiled query in
    (`queries.Patterns`): one match per pattern of the former query and per way it
    matched, so that the generic layer's direct path makes the symbols."""

    def __init__(self) -> None:
        self.source = "cairn.indexer.sql_walk"
        self.builtin = True
        self.sees_comments = False  # no rule reads a comment
        self.settings: tuple[dict[str, str | None], ...] = tuple({} for _ in PRIMARIES)
        self.primaries = PRIMARIES
        # every match becomes its symbols directly: entity kinds only, no resolver
        self.direct: tuple[bool, ...] = tuple(True for _ in PRIMARIES)

    def matches(self, root: Node, byte_range: tuple[int, int] | None = None) -> list[Match]:
        """The rules' matches under `root`, in the tree's order; with a `byte_range`,
        those in the subtrees that overlap it (as `QueryCursor.set_byte_range`).

        Every node that can hold a rule is visited, as a query's cursor visits every
        node: a statement inside a transaction, a function's body or an ERROR node
        counts like a top-level one. On the bench's 5,000-line migration this costs
        ~37 M instructions, against the query's ~20 M of matching after its 494 M
        compile."""
        kinds = _kinds()
        heads = kinds.heads
        low, high = byte_range if byte_range is not None else (0, 0)

        def within(children: list[Node]) -> list[Node]:
            if byte_range is None:
                return children
            return [c for c in children if c.start_byte < high and c.end_byte > low]

        out: list[Match] = list(_rule(root, kinds)) if root.kind_id in heads else []
        # the top-level statements: comments (no children) and data hold no rule
        top = [c for c in within(root.children) if c.child_count and _may_hold_rule(c)]
        stack = top[::-1]
        while stack:
            node = stack.pop()
            if node.kind_id in heads:
                out.extend(_rule(node, kinds))
            if node.child_count:
                stack.extend(reversed(within(node.children)))
        return out


# Every rule's head spells one of these keywords: CREATE/ALTER/DROP TABLE, CREATE/DROP
# INDEX, and a column's REFERENCES (the only rule rooted at a column definition).
_KEYWORDS = (b"table", b"index", b"references")


def _may_hold_rule(node: Node) -> bool:
    """False when no rule can match in `node`'s subtree: its text holds none of
    `_KEYWORDS` (in any case) and it has no syntax error (error recovery can put a
    keyword in the tree that is not in the text, a MISSING node). A statement of data
    (a seed file's 20,000-row INSERT: 360,000 nodes) is then skipped whole, where a
    walk of it in Python would cost twice the query's matching."""
    if node.has_error:
        return True
    text = node.text
    if text is None:
        return True
    lowered = text.lower()
    return any(word in lowered for word in _KEYWORDS)


def _names(node: Node, field_name: str) -> list[Node]:
    """The named children in a field (`name: (_)` in a query)."""
    return [c for c in node.children_by_field_name(field_name) if c.is_named]


def _rule(node: Node, k: _Kinds) -> Iterator[Match]:
    """The matches rooted at `node` (one of `_Kinds.heads`), pattern by pattern. As in
    a query, `(parent (a) (b))` pairs each child `a` with each later child `b`."""
    kind = node.kind_id
    children = node.children
    refs = [i for i, c in enumerate(children) if c.kind_id == k.object_reference]
    if kind == k.create_table:
        for i in refs:
            for name in _names(children[i], "name"):
                yield CREATE_TABLE, {"table.introduce": [name], "range": [node]}
        for i in refs:
            tables = _names(children[i], "name")
            for defs in children[i + 1 :]:
                if defs.kind_id != k.column_definitions:
                    continue
                for column in defs.children:
                    if column.kind_id != k.column_definition:
                        continue
                    for table in tables:
                        for name in _names(column, "name"):
                            yield (
                                CREATE_COLUMN,
                                {"table": [table], "column.introduce": [name], "range": [column]},
                            )
    elif kind == k.alter_table:
        for i in refs:
            for table in _names(children[i], "name"):
                yield from _alter_actions(children[i + 1 :], table, k)
        for i in refs:
            for table in _names(children[i], "name"):
                for action in children[i + 1 :]:
                    if action.kind_id != k.rename_object:
                        continue
                    for target in action.children:
                        if target.kind_id != k.object_reference:
                            continue
                        for name in _names(target, "name"):
                            match = {"table.remove": [table], "table.introduce": [name]}
                            yield RENAME_TABLE, {**match, "range": [node]}
        for i in refs:
            for name in _names(children[i], "name"):
                yield ALTER_TABLE, {"table.reference": [name], "range": [node]}
    elif kind == k.drop_table:
        for i in refs:
            for name in _names(children[i], "name"):
                yield DROP_TABLE, {"table.remove": [name], "range": [node]}
    elif kind == k.create_index:
        for i in refs:
            for name in _names(children[i], "name"):
                yield INDEX_TABLE, {"table.reference": [name], "range": [node]}
        for i in refs:
            for table in _names(children[i], "name"):
                for fields in children[i + 1 :]:
                    if fields.kind_id != k.index_fields:
                        continue
                    for one in fields.children:
                        if one.kind_id != k.field:
                            continue
                        for name in _index_columns(one, k):
                            yield (
                                INDEX_COLUMN,
                                {"table": [table], "column.reference": [name], "range": [node]},
                            )
    elif kind == k.drop_index:
        for i in refs:
            for name in _names(children[i], "name"):
                yield DROP_INDEX, {"table.reference": [name], "range": [node]}
    elif kind == k.column_definition:
        marks = [i for i, c in enumerate(children) if c.kind_id == k.keyword_references]
        if not marks:
            return
        after = [i for i in refs if i > marks[0]]
        for i in after:
            for name in _names(children[i], "name"):
                yield REFERENCES_TABLE, {"table.reference": [name], "range": [node]}
        for i in after:
            following = children[i].next_named_sibling
            if following is None or following.kind_id != k.identifier:
                continue
            for table in _names(children[i], "name"):
                yield (
                    REFERENCES_COLUMN,
                    {"table": [table], "column.reference": [following], "range": [node]},
                )


def _alter_actions(actions: list[Node], table: Node, k: _Kinds) -> Iterator[Match]:
    """`ALTER TABLE t` actions on columns (each a match, as the query's alternatives)."""
    for action in actions:
        kind = action.kind_id
        if kind == k.add_column:
            for column in action.children:
                if column.kind_id == k.column_definition:
                    for name in _names(column, "name"):
                        yield (
                            ALTER_ACTION,
                            {"table": [table], "column.introduce": [name], "range": [action]},
                        )
        elif kind == k.drop_column:
            for name in _names(action, "name"):
                yield ALTER_ACTION, {"table": [table], "column.remove": [name], "range": [action]}
        elif kind == k.rename_column:
            for name in _names(action, "old_name"):
                yield ALTER_ACTION, {"table": [table], "column.remove": [name], "range": [action]}
            for name in _names(action, "new_name"):
                yield (
                    ALTER_ACTION,
                    {"table": [table], "column.introduce": [name], "range": [action]},
                )
        elif kind == k.alter_column:
            for name in _names(action, "name"):
                yield (
                    ALTER_ACTION,
                    {"table": [table], "column.reference": [name], "range": [action]},
                )


def _index_columns(one: Node, k: _Kinds) -> Iterator[Node]:
    """An index field's column: `(field column: (_))`, or the column a function of it
    reads, `(field function: (invocation (term value: (field name: (_)))))`."""
    yield from _names(one, "column")
    for call in _names(one, "function"):
        if call.kind_id != k.invocation:
            continue
        for term in call.children:
            if term.kind_id != k.term:
                continue
            for value in _names(term, "value"):
                if value.kind_id == k.field:
                    yield from _names(value, "name")


SQL_WALK = SqlWalk()
