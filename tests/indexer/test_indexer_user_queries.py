"""User queries in .cairn/queries/<language>.scm extend the built-in ones."""

from __future__ import annotations

from pathlib import Path

from indexer_helpers import entities, one, span

from cairn.indexer import Role, index_text, user_query_errors

CODE = 'def report():\n    return query_table("billing_events")\n'


def test_user_query_adds_symbols_next_to_the_built_in_ones(tmp_path: Path) -> None:
    (tmp_path / "python.scm").write_text(
        "; our data layer names tables in query_table(...)\n"
        "((call function: (identifier) @_fn\n"
        "       arguments: (argument_list . (string) @table.reference)) @range\n"
        ' (#eq? @_fn "query_table"))\n'
    )
    symbols = index_text(CODE, "src/report.py", user_queries_dir=tmp_path)
    assert entities(symbols) == [
        ("src/report.py::report", "function", "introduce"),
        ("billing_events", "table", "reference"),
    ]
    table = one(symbols, "billing_events", Role.REFERENCE)
    assert table.name_range == span(CODE, '"billing_events"')
    assert table.range == span(CODE, 'query_table("billing_events")')
    assert user_query_errors(tmp_path) == []


def test_broken_user_query_names_file_and_line_and_builtins_keep_working(tmp_path: Path) -> None:
    broken = tmp_path / "python.scm"
    broken.write_text(
        "; fine so far\n"
        "(function_definition name: (identifier) @function.introduce)\n"
        "(call (nonsense_node) @x\n"
    )
    errors = user_query_errors(tmp_path)
    assert len(errors) == 1
    assert errors[0].path == str(broken)
    assert errors[0].line == 3
    assert str(errors[0]).startswith(f"{broken}:3:")
    symbols = index_text(CODE, "src/report.py", user_queries_dir=tmp_path)
    assert entities(symbols) == [("src/report.py::report", "function", "introduce")]


def test_unknown_capture_name_is_reported_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "sql.scm").write_text(
        "\n\n(create_table (object_reference name: (_) @tabel.introduce))\n"
    )
    errors = user_query_errors(tmp_path)
    assert [(e.line, e.column) for e in errors] == [(3, 43)]
    assert "unknown capture @tabel.introduce" in errors[0].message
    assert (
        one(index_text("CREATE TABLE a (x int);", "a.sql", user_queries_dir=tmp_path), "a").kind
        == "table"
    )


def test_unknown_language_and_resolver_are_reported(tmp_path: Path) -> None:
    (tmp_path / "cobol.scm").write_text("(x) @y\n")
    (tmp_path / "python.scm").write_text('((identifier) @env.reference (#set! resolver "nope"))\n')
    messages = sorted(str(e) for e in user_query_errors(tmp_path))
    assert "no language called 'cobol'" in messages[0]
    assert "unknown resolver 'nope'" in messages[1] and ":1:" in messages[1]


def test_resolvers_fed_odd_nodes_by_a_user_query_keep_what_they_can(tmp_path: Path) -> None:
    # knex expects a callback in @call (here a Python string: the table stays, no
    # columns); sqlalchemy expects a model class (there is none: nothing)
    (tmp_path / "python.scm").write_text(
        "((call arguments: (argument_list . (string) @table.introduce . (string) @call))\n"
        ' (#set! resolver "knex"))\n'
        "((call arguments: (argument_list . (string) @column.introduce))\n"
        ' (#set! resolver "sqlalchemy"))\n'
    )
    text = 'def f():\n    make("users", "x")\n'
    assert user_query_errors(tmp_path) == []
    symbols = index_text(text, "src/f.py", user_queries_dir=tmp_path)
    assert entities(symbols) == [
        ("src/f.py::f", "function", "introduce"),
        ("users", "table", "introduce"),
    ]
