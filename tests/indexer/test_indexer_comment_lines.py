"""SQL comment lines left out of the parse (`cairn.indexer.comment_lines`): the tree
holds the same nodes, at the same places, but the left-out comments, and the symbols
are the same as a whole parse's, for opened, edited and one-shot documents."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from indexer_helpers import assert_consistent
from tree_sitter import Node, Tree

from cairn.indexer import Document, index_text
from cairn.indexer import comment_lines as cl
from cairn.indexer.languages import parser
from cairn.indexer.text import LineIndex

PATH = "db/migrations/0042_people.sql"

FRAGMENTS = [
    "ALTER TABLE users ADD COLUMN nickname integer;",
    "ALTER TABLE users DROP COLUMN legacy;",
    "ALTER TABLE users RENAME TO people;",
    "CREATE INDEX ix_users_email ON users (email);",
    "DROP TABLE gone;",
    "-- a comment line",
    "  -- an indented comment line",
    "--",
    "-- it has ; and ' and \" and /* in it",
    "CREATE TABLE teams (\n  id integer,\n  -- inside the table\n  name text\n);",
    "INSERT INTO notes VALUES ('a;\n-- not a comment: in a string\nb');",
    "INSERT INTO notes VALUES ('it''s;\n-- in a string with a doubled quote\n');",
    "SELECT 'x' -- a trailing comment\n;",
    "/* a block ;\n-- inside the block\n*/",
    "/* a block */ -- then a comment",
    'CREATE TABLE "Odd;\n-- a quoted name\n" (a integer);',
    "BEGIN;",
    "COMMIT;",
    "ALTER TABLE broken ADD COLUMN;",
    "SELECT E'it\\'s;\n-- in an escaped string\n';",
    "CREATE FUNCTION f() RETURNS integer AS $$ SELECT 1;\n-- in a body\n $$ LANGUAGE sql;",
    "ALTER TABLE `ticks` ADD COLUMN x integer;",
    "SELECT 1",
    "'unterminated;",
    "/* unterminated",
    "",
]


def _full_tree(text: str) -> Tree:
    return parser("sql").parse(text.encode())


def _shape(tree: Tree) -> list[tuple[str, int, int, tuple[int, int], tuple[int, int]]]:
    """Every node but comments and the root, in document order."""
    out: list[tuple[str, int, int, tuple[int, int], tuple[int, int]]] = []

    def walk(node: Node) -> Iterator[Node]:
        for child in node.children:
            yield child
            yield from walk(child)

    for node in walk(tree.root_node):
        if node.type != "comment":
            out.append(
                (
                    node.type,
                    node.start_byte,
                    node.end_byte,
                    tuple(node.start_point),
                    tuple(node.end_point),
                )
            )
    return out


def _leaves(node: Node) -> Iterator[Node]:
    """The tokens (nodes without children, named or not) under `node`."""
    if node.child_count == 0:
        yield node
    for child in node.children:
        yield from _leaves(child)


def _whole_parse_symbols(text: str, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    with monkeypatch.context() as m:
        m.setattr(Document, "_code_ranges", lambda self, data: None)
        return list(Document(PATH, text).symbols)


@pytest.fixture
def few_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leave comment lines out however few there are, so small texts exercise it."""
    monkeypatch.setattr(cl, "MIN_LINES", 1)


@pytest.mark.usefixtures("few_lines")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=24))
def test_the_same_tree_and_symbols_as_a_whole_parse(fragments: list[str]) -> None:
    text = "\n".join(fragments) + "\n"
    with pytest.MonkeyPatch.context() as mp:
        expected = _whole_parse_symbols(text, mp)
    doc = Document(PATH, text)
    assert doc.symbols == expected
    assert index_text(text, PATH) == expected
    full = _full_tree(text)
    assert doc._tree is not None
    assert _shape(doc._tree) == _shape(full)
    assert doc._tree.root_node.has_error == full.root_node.has_error
    # the pre-lexer never leaves out a line whose absence breaks a sound text (which
    # the whole-parse fallback would otherwise hide), nor any byte of a token but a
    # comment's, as the whole parse reads the text (tree-sitter would read a string
    # across a left-out line, and its node would keep its place)
    assert doc._skip_comments or full.root_node.has_error
    data = text.encode()
    kept = cl.sql_code_ranges(data) or []
    bounds = [0, *(b for r in kept for b in (r.start_byte, r.end_byte)), len(data)]
    gaps = [(bounds[i], bounds[i + 1]) for i in range(0, len(bounds), 2)] if kept else []
    left_out = [(start, end) for start, end in gaps if start < end]
    if full.root_node.has_error:
        return  # parsed whole (above); error recovery makes tokens of nothing
    for leaf in _leaves(full.root_node):
        inside = [(a, b) for a, b in left_out if leaf.start_byte < b and leaf.end_byte > a]
        if leaf.type != "comment":
            assert not inside, (leaf, inside)
        elif inside:  # a left-out comment sits between statements, not within one
            assert leaf.parent is not None
            assert leaf.parent.type in ("program", "transaction", "block"), leaf.parent


def test_a_mostly_comment_migration_is_parsed_without_its_comment_lines() -> None:
    statements = [f"ALTER TABLE t{i % 7} ADD COLUMN c{i} integer;" for i in range(40)]
    text = "".join(s + "\n" + "-- backfill in batches\n" * 10 for s in statements)
    ranges = cl.sql_code_ranges(text.encode())
    assert ranges is not None and len(ranges) == 40
    lines = LineIndex(text.encode())
    for r in ranges:
        assert tuple(r.start_point) == lines.point(r.start_byte)
        assert tuple(r.end_point) == lines.point(r.end_byte)
        assert text.encode()[r.start_byte : r.end_byte].startswith(b"ALTER TABLE")
    doc = Document(PATH, text)
    assert doc._tree is not None
    assert doc._tree.root_node.child_count == 80  # statements and `;`: no comment node
    assert len(doc.symbols) == 80
    assert _shape(doc._tree) == _shape(_full_tree(text))


def test_the_last_range_ends_at_the_end_of_a_text_without_a_final_newline() -> None:
    text = "-- top\n" * 70 + "ALTER TABLE a ADD COLUMN b integer;\nSELECT 1"
    ranges = cl.sql_code_ranges(text.encode())
    assert ranges is not None
    last = ranges[-1]
    assert last.end_byte == len(text.encode())
    assert tuple(last.end_point) == LineIndex(text.encode()).point(len(text.encode()))


@pytest.mark.parametrize(
    ("before", "why"),
    [
        ("SELECT 'a\n", "inside a string"),
        ("SELECT 1\n", "no `;` yet: inside the statement"),
        ("/* open\n", "inside a block comment"),
        ("SELECT E'\\n';\n", "after a backslash (not modelled)"),
        ("SELECT $1;\n", "after a `$` (not modelled)"),
        ("SELECT `a`;\n", "after a backtick (not modelled)"),
    ],
)
def test_comment_lines_that_may_not_be_comments_are_parsed(before: str, why: str) -> None:
    text = before + "-- line\n" * 100 + "'; /* */ SELECT 2;\n"
    assert cl.sql_code_ranges(text.encode()) is None, why


def test_too_few_comment_lines_are_not_worth_leaving_out() -> None:
    text = "SELECT 1;\n" + "-- a note\n" * (cl.MIN_LINES - 1) + "SELECT 2;\n"
    assert cl.sql_code_ranges(text.encode()) is None
    more = "SELECT 1;\n" + "-- a note\n" * cl.MIN_LINES + "SELECT 2;\n"
    assert cl.sql_code_ranges(more.encode()) is not None


def test_a_syntax_error_is_parsed_whole_and_the_document_stops_leaving_lines_out() -> None:
    text = "ALTER TABLE a ADD COLUMN b integer;\n" + "-- note\n" * 80 + "ALTER TABLE c ADD;\n"
    doc = Document(PATH, text)
    assert doc._tree is not None and doc._tree.root_node.has_error
    assert _shape(doc._tree) == _shape(_full_tree(text))
    assert any(n.type == "comment" for n in doc._tree.root_node.children)
    assert doc._skip_comments is False
    doc.replace(text.replace("ADD;", "ADD COLUMN d integer;"))
    assert doc._skip_comments is True
    assert not any(n.type == "comment" for n in doc._tree.root_node.children)


def test_edits_keep_the_document_equal_to_a_fresh_index() -> None:
    head = "ALTER TABLE users ADD COLUMN a integer;\n"
    text = head + "-- note\n" * 80 + "ALTER TABLE users ADD COLUMN b integer;\n" + "-- end\n" * 10
    doc = Document(PATH, text)
    assert_consistent(doc, text, PATH)

    def edit(line: int, start: int, end: int, new: str) -> None:
        nonlocal text
        lines = text.split("\n")
        lines[line] = lines[line][:start] + new + lines[line][end:]
        text = "\n".join(lines)
        doc.edit(line, start, line, end, new)
        assert_consistent(doc, text, PATH)

    edit(5, 3, 4, "N")  # inside a left-out comment line
    edit(40, 0, 2, "")  # a comment line becomes code: `note` alone (a syntax error)
    edit(40, 0, 4, "DROP TABLE gone;")  # ... and then a statement
    assert any(s.entity == "gone" for s in doc.symbols)
    edit(0, 29, 30, "z")  # rename a column in the first statement
    assert any(s.entity == "users.z" for s in doc.symbols)


def test_no_lines_are_left_out_when_a_user_query_is_present(tmp_path: object) -> None:
    from pathlib import Path

    queries = Path(str(tmp_path)) / "queries"
    queries.mkdir()
    (queries / "sql.scm").write_text("(comment) @env.reference\n")
    text = "SELECT 1;\n" + "-- NOTE_ME\n" * 80
    doc = Document(PATH, text, queries)
    assert doc._tree is not None
    assert sum(n.type == "comment" for n in doc._tree.root_node.children) == 80
    plain = Document(PATH, text)
    assert plain._tree is not None
    assert not any(n.type == "comment" for n in plain._tree.root_node.children)
