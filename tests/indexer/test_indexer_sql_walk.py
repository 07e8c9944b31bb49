"""SQL's walk (`cairn.indexer.sql_walk`) finds what the SQL query it replaced found.

The query (`sql_query_oracle.scm`, the former `queries/sql.scm`) is kept here as the
oracle: its compile cost a language server's start ~494 M instructions, so the indexer
walks the tree instead, and these tests hold the walk to the query's symbols (entity,
kind, role, name range and whole range) on every SQL text the tests hold, on mixed and
truncated statements (error recovery) and on a migration shaped like the bench's.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.indexer import Document, index_text, queries
from cairn.indexer.capture import FileContext
from cairn.indexer.extract import ChunkCache, extract, first_index
from cairn.indexer.languages import parser
from cairn.indexer.queries import WALKS, Patterns, builtin_queries, compile_query
from cairn.indexer.sql_walk import PRIMARIES, SQL_WALK, _may_hold_rule
from cairn.indexer.text import LineIndex

TESTS = Path(__file__).resolve().parents[1]
ORACLE_TEXT = (Path(__file__).with_name("sql_query_oracle.scm")).read_text("utf-8")

# One statement per rule and the shapes around them: schema-qualified and quoted names,
# several actions in one ALTER TABLE, MySQL's forms, DDL inside a transaction, and
# statements with nothing to find.
STATEMENTS = [
    'CREATE TABLE IF NOT EXISTS public."Users" (id serial PRIMARY KEY, "Email" text NOT NULL,'
    " org_id int REFERENCES orgs(id));",
    "CREATE TABLE a.b (x int REFERENCES c, y int REFERENCES d (e) ON DELETE CASCADE, z text);",
    "CREATE TABLE t (a int, b int, PRIMARY KEY (a, b), FOREIGN KEY (b) REFERENCES u(c));",
    "CREATE TABLE t2 AS SELECT * FROM t;",
    "CREATE TEMPORARY TABLE `q` (`a` INT NOT NULL AUTO_INCREMENT, KEY ix (a));",
    "ALTER TABLE users ADD COLUMN email_verified boolean DEFAULT false;",
    "ALTER TABLE users ADD COLUMN a int, ADD COLUMN b int, DROP COLUMN c;",
    "ALTER TABLE users DROP COLUMN legacy_flag;",
    "ALTER TABLE users RENAME COLUMN nick TO nickname;",
    "ALTER TABLE users ALTER COLUMN org_id TYPE bigint;",
    "ALTER TABLE IF EXISTS ONLY s.users ALTER COLUMN org_id SET NOT NULL,"
    " ADD COLUMN d int REFERENCES e(f);",
    "ALTER TABLE sessions RENAME TO user_sessions;",
    "ALTER TABLE x ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES y(b);",
    "ALTER TABLE m MODIFY COLUMN a bigint;",
    "ALTER TABLE m CHANGE COLUMN a b bigint;",
    "DROP TABLE IF EXISTS old_things;",
    "DROP TABLE a, b.c CASCADE;",
    "CREATE UNIQUE INDEX ix_users_email ON app.users (lower(email), org_id);",
    "CREATE INDEX CONCURRENTLY IF NOT EXISTS ix ON t USING btree"
    " (a DESC, (b + 1), coalesce(c, d));",
    "CREATE INDEX ix2 ON t (upper(x), lower(y.z)) WHERE a > 1;",
    "CREATE INDEX ON t (a);",
    "DROP INDEX ix ON t;",
    "DROP INDEX IF EXISTS ix;",
    "INSERT INTO t (a, b) VALUES (1, 2), (3, 4);",
    "SELECT a, b FROM t WHERE c IN (SELECT d FROM e);",
    "UPDATE t SET a = 1 WHERE b = 2;",
    "CREATE VIEW v AS SELECT * FROM t;",
    "BEGIN; ALTER TABLE t ADD COLUMN q int; COMMIT;",
    "WITH x AS (SELECT 1) SELECT * FROM x;",
    "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql;",
    "-- comment CREATE TABLE nothing (x int);",
    "/* block ALTER TABLE */",
    'CREATE TABLE "Quoted ""Name""" ("Col" INT);',
    'ALTER TABLE t RENAME COLUMN "A" TO "B";',
    "CREATE TABLE t (a int CHECK (a > 0) REFERENCES u);",
]
_DDL = re.compile(r"\b(create|alter|drop|references)\b", re.IGNORECASE)


def _texts_in_tests() -> list[str]:
    """Every string constant in the test suite that mentions DDL: the SQL fixtures, and
    texts of other languages that must find nothing as SQL either."""
    found: dict[str, None] = {}
    for path in sorted(TESTS.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text("utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if is_text and _DDL.search(node.value):
                found.setdefault(node.value)
    for path in sorted(TESTS.rglob("*.sql")):
        found.setdefault(path.read_text("utf-8", "replace"))
    return list(found)


def _mixed(count: int, seed: int) -> Iterator[str]:
    """Runs of statements, some cut short (error recovery), some in lower case."""
    rng = random.Random(seed)
    for _ in range(count):
        text = "\n".join(rng.choice(STATEMENTS) for _ in range(rng.randint(1, 8)))
        if rng.random() < 0.4:
            text = text[: rng.randint(0, len(text))]
        if rng.random() < 0.2:
            text = text.lower()
        yield text


def _bench_shaped() -> str:
    """250 `ALTER TABLE t ADD COLUMN c` among comment lines, 5,000 lines (the shape of
    `bench/lsp.py`'s migration, whose open the walk was written for)."""
    lines: list[str] = []
    for i in range(250):
        lines.append(f"ALTER TABLE t{i % 17} ADD COLUMN c{i} integer NOT NULL DEFAULT 0;")
        lines.extend(f"-- note {len(lines)}: backfill in batches" for _ in range(19))
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def oracle() -> Patterns:
    return compile_query("sql", ORACLE_TEXT, "sql_query_oracle.scm")


def _symbols(text: str | bytes, rules: Patterns) -> tuple[object, ...]:
    """What each of the generic layer's entry points makes of `text` with `rules`: a
    one-shot index, an index with a chunk cache, and the first open's one pass."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    tree = parser("sql").parse(data)
    lines = LineIndex(data)

    def ctx() -> FileContext:
        return FileContext("db/001.sql", "sql", data)

    return (
        extract(tree, ctx(), lines, [rules]),
        extract(tree, ctx(), lines, [rules], ChunkCache()),
        first_index(tree, ctx(), lines, [rules]),
    )


def test_the_walk_finds_what_the_query_found_in_every_sql_text_of_the_tests(
    oracle: Patterns,
) -> None:
    texts = _texts_in_tests()
    assert len(texts) > 50  # the scan found the suite's SQL
    found = 0
    for text in texts:
        expected = _symbols(text, oracle)
        assert _symbols(text, SQL_WALK) == expected, text
        found += len(expected[0])  # type: ignore[arg-type]
    assert found > 100


def test_the_walk_finds_what_the_query_found_in_mixed_and_cut_statements(
    oracle: Patterns,
) -> None:
    rules_seen: set[int] = set()
    for text in [*STATEMENTS, *_mixed(400, seed=7)]:
        assert _symbols(text, SQL_WALK) == _symbols(text, oracle), text
        root = parser("sql").parse(text.encode("utf-8")).root_node
        rules_seen.update(pattern for pattern, _ in SQL_WALK.matches(root))
    assert rules_seen == set(range(len(PRIMARIES)))  # every rule was exercised


def test_the_walk_finds_what_the_query_found_in_a_bench_shaped_migration(
    oracle: Patterns,
) -> None:
    text = _bench_shaped()
    symbols = _symbols(text, SQL_WALK)
    assert symbols == _symbols(text, oracle)
    assert len(symbols[0]) == 500  # type: ignore[arg-type]  # each ALTER: table and column


def test_matches_in_a_byte_range_cover_the_statements_that_overlap_it() -> None:
    text = "ALTER TABLE a ADD COLUMN x int;\nDROP TABLE b;\nCREATE INDEX i ON c (y);\n"
    root = parser("sql").parse(text.encode()).root_node
    start = text.index("DROP")
    inside = SQL_WALK.matches(root, (start, start + len("DROP TABLE b;")))
    assert [nodes["table.remove"][0].text for _, nodes in inside] == [b"b"]
    assert len(SQL_WALK.matches(root)) == 5  # a: action and reference; b; c: table, column


def test_an_edited_migration_matches_a_fresh_index() -> None:
    text = _bench_shaped()
    doc = Document("db/001.sql", text)
    assert len(doc.symbols) == 500
    doc.edit(20, len("ALTER TABLE t1 ADD COLUMN "), 20, len("ALTER TABLE t1 ADD COLUMN c1"), "z")
    assert doc.symbols == index_text(doc.text, "db/001.sql")
    assert any(s.entity == "t1.z" for s in doc.symbols)


def test_opening_a_sql_file_compiles_no_query(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_compile(*_: object) -> None:
        raise AssertionError("a query was compiled for SQL")

    monkeypatch.setattr(queries, "Query", no_compile)
    assert WALKS["sql"] is SQL_WALK
    assert builtin_queries("sql", "001.sql", b"") == [SQL_WALK]
    symbols = Document("db/001.sql", "CREATE TABLE t (a int);\n").symbols
    assert [s.entity for s in symbols] == ["t", "t.a"]


def test_a_user_sql_query_still_adds_to_the_walk(tmp_path: Path) -> None:
    (tmp_path / "sql.scm").write_text("(create_view (object_reference name: (_) @table.introduce))")
    text = "CREATE VIEW v AS SELECT 1;\nDROP TABLE t;\n"
    symbols = index_text(text, "db/001.sql", user_queries_dir=tmp_path)
    assert [(s.entity, s.role.value) for s in symbols] == [("v", "introduce"), ("t", "remove")]


@pytest.mark.parametrize(
    ("statement", "walked"),
    [
        ("INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y');", False),
        ("SELECT a FROM t WHERE b IN (SELECT c FROM d);", False),
        ("INSERT INTO t (a) VALUES ('a Table of contents');", True),  # the word: walked
        ("create table t (a int);", True),
        ("ALTER TABLE t ADD COLUMN a int;", True),
        ("CREATE INDEX i ON t (a);", True),
        ("CREATE TYPE p AS (a int REFERENCES u);", True),
        ("INSERT INTO t (a VALUES (1;", True),  # a syntax error: always walked
    ],
)
def test_a_statement_without_a_rules_keyword_is_not_walked(statement: str, walked: bool) -> None:
    root = parser("sql").parse(statement.encode()).root_node
    assert _may_hold_rule(root.children[0]) is walked


def test_a_data_statement_among_ddl_changes_nothing(oracle: Patterns) -> None:
    rows = ",\n".join(f"({i}, 'name {i}', now())" for i in range(2000))
    text = f"CREATE TABLE t (a int, b text, c timestamp);\nINSERT INTO t VALUES\n{rows};\n"
    text += "ALTER TABLE t ADD COLUMN d int REFERENCES u(e);\n"
    symbols = _symbols(text, SQL_WALK)
    assert symbols == _symbols(text, oracle)
    assert len(symbols[0]) == 8  # type: ignore[arg-type]
