"""A shipped query's `; part:` sections run only in files holding one of their words.

A part's patterns compare a capture with fixed words (`(#eq? @_fn "drop_table")`), so
they cannot match in a file without those words. These tests hold the gate to that:
every gate predicate's capture is in every match (else the predicate would hold on a
match without it), a file that needs a part finds exactly what the whole query finds,
and a file that does not need it neither compiles nor runs it.
"""

from __future__ import annotations

import pytest
import test_indexer_javascript as js_samples
import test_indexer_python as py_samples

from cairn.indexer import Document, QueryError, queries
from cairn.indexer.capture import FileContext
from cairn.indexer.extract import extract
from cairn.indexer.languages import GRAMMARS, language_for
from cairn.indexer.queries import (
    WALKS,
    builtin_query,
    pattern_gate,
    pattern_parts,
    pattern_spans,
)

# the languages that ship a query (SQL's rules are a walk: `queries.WALKS`)
QUERIED = sorted(set(GRAMMARS) - set(WALKS))

PARTED = ["python", "javascript", "typescript", "tsx"]


def _whole_symbols(doc: Document) -> list[object]:
    language = doc.language
    assert language is not None and doc._tree is not None
    whole = builtin_query(language)
    assert whole is not None
    return list(extract(doc._tree, FileContext(doc.file, language, doc._data), doc._lines, [whole]))


def _parts_run(doc: Document) -> set[str]:
    """The parts among the document's queries (by their patterns' texts)."""
    split = queries._split(doc.language or "")
    assert split is not None and split.spans is not None
    source = split.text.encode("utf-8")
    found: set[str] = set()
    for compiled in doc._queries():
        for index in range(compiled.query.pattern_count):
            body = compiled.text.encode("utf-8")[
                compiled.query.start_byte_for_pattern(index) : compiled.query.end_byte_for_pattern(
                    index
                )
            ]
            for (start, end, _), part in zip(split.spans, split.part_of, strict=True):
                if part is not None and source[start:end] == body:
                    found.add(part)
    return found


@pytest.mark.parametrize("language", PARTED)
def test_the_shipped_queries_have_parts(language: str) -> None:
    split = queries._split(language)
    assert split is not None and split.spans is not None
    assert split.parts, f"{language} should have framework parts"
    assert any(p is None for p in split.part_of)  # and a core


@pytest.mark.parametrize("language", QUERIED)
def test_every_gate_capture_is_in_every_match(language: str) -> None:
    split = queries._split(language)
    assert split is not None and split.spans is not None
    source = split.text.encode("utf-8")
    whole = builtin_query(language)
    assert whole is not None
    names = [whole.query.capture_name(i) for i in range(whole.query.capture_count)]
    for index, ((start, end, _), part) in enumerate(zip(split.spans, split.part_of, strict=True)):
        if part is None:
            continue
        gate = pattern_gate(source[start:end])
        assert gate, f"pattern {index} of {language} is in part {part} without words"
        for capture, words in gate:
            quantifier = whole.query.capture_quantifier(index, names.index(capture))
            assert quantifier in ("", "+"), (language, index, capture, quantifier)
            assert all(w in source[start:end] for w in words)


# (file, text, the part it needs); the samples are the language tests' own
NEEDS = [
    ("app/models.py", py_samples.SQLALCHEMY, "orm"),
    ("migrations/versions/001_orders.py", py_samples.ALEMBIC, "orm"),
    ("api/routes.py", py_samples.ROUTES, "env"),
    ("src/server.js", js_samples.SERVER, "env"),
    ("src/server.ts", js_samples.SERVER, "env"),
    ("src/server.tsx", js_samples.SERVER, "env"),
    ("migrations/001_users.js", js_samples.KNEX, "migrations"),
    ("migrations/001_users.ts", js_samples.KNEX, "migrations"),
    ("migrations/20240101-accounts.js", js_samples.SEQUELIZE, "migrations"),
]


@pytest.mark.parametrize(("path", "text", "part"), NEEDS, ids=[n[0] for n in NEEDS])
def test_a_file_that_needs_a_part_runs_it_and_finds_what_the_whole_query_finds(
    path: str, text: str, part: str
) -> None:
    doc = Document(path, text)
    assert part in _parts_run(doc)
    found = doc.symbols
    assert found == _whole_symbols(doc)
    ours = [s for s in found if s.kind in ("table", "column", "env")]
    assert ours, f"{path} should hold {part} symbols"


# files without any of a part's words: no part compiled or run, the same symbols
WITHOUT = [
    ("app/views.py", py_samples.DEFS),
    ("shop/urls.py", py_samples.URLS),
    ("app/models.py", py_samples.DJANGO),
    ("src/util.js", "export function helper() {}\nconst app = express();\n"),
    ("src/util.ts", "interface Shape { x: number }\nexport const A = 1;\n"),
]


@pytest.mark.parametrize(("path", "text"), WITHOUT, ids=[w[0] for w in WITHOUT])
def test_a_file_without_a_parts_words_does_not_run_it(path: str, text: str) -> None:
    doc = Document(path, text)
    split = queries._split(doc.language or "")
    assert split is not None
    data = doc._data
    needed = {
        part
        for part, words in split.parts.items()
        if any(w in data for w in words)
        and any(all(any(w in data for w in ws) for _, ws in g) for g in split.gates[part])
    }
    assert _parts_run(doc) == needed
    assert doc.symbols == _whole_symbols(doc)
    assert doc.symbols, f"{path} should hold symbols"


def test_the_django_sample_runs_no_orm_part() -> None:
    # Django's fields are matched by a regex the gate cannot read: they stay in the core;
    # `db_table` holds the search word `_table`, but no ORM pattern has all its words
    doc = Document("shop/models.py", py_samples.DJANGO)
    assert b"_table" in doc._data
    assert "orm" not in _parts_run(doc)
    assert any(s.kind == "column" for s in doc.symbols)


def test_an_edit_that_brings_a_parts_word_runs_the_part() -> None:
    doc = Document("app/settings.py", "DEBUG = True\n")
    assert _parts_run(doc) == set()
    assert [s.entity for s in doc.symbols] == ["app/settings.py::DEBUG"]
    doc.edit(1, 0, 1, 0, 'import os\nKEY = os.environ["SECRET_KEY"]\n')
    assert "env" in _parts_run(doc)
    assert "env/SECRET_KEY" in [s.entity for s in doc.symbols]
    doc.edit(2, 0, 3, 0, "")
    assert _parts_run(doc) == set()
    assert [s.entity for s in doc.symbols] == ["app/settings.py::DEBUG"]


def test_part_sections_and_the_core() -> None:
    text = (
        "(identifier) @a\n"
        "; part: orm\n"
        '((call) @b (#eq? @b "x"))\n'
        "; a comment ; part: not-a-directive\n"
        '((call) @c (#eq? @c "y"))\n'
        "; part:\n"
        "(string) @d\n"
        "; part: env\n"
        '((call) @e (#any-of? @e "p" "q"))\n'
    )
    spans = pattern_spans(text)
    assert spans is not None
    assert pattern_parts(text, spans) == [None, "orm", "orm", None, "env"]


def test_an_inherited_files_last_part_ends_with_it() -> None:
    split = queries._split("typescript")
    assert split is not None and split.spans is not None
    source = split.text.encode("utf-8")
    own = [
        part
        for (start, end, _), part in zip(split.spans, split.part_of, strict=True)
        if b"interface_declaration" in source[start:end]
    ]
    assert own == [None]  # TypeScript's own patterns are in the core


@pytest.mark.parametrize(
    ("pattern", "gate"),
    [
        ('((call) @a (#eq? @a "drop_table"))', [("a", (b"drop_table",))]),
        ('((call) @a (#any-of? @a "get" "pop"))', [("a", (b"get", b"pop"))]),
        ('((call) @a (#match? @a "schema$"))', [("a", (b"schema",))]),
        ('((call) @a (#match? @a "^op$"))', [("a", (b"op",))]),
        ('((call) @a (#match? @a "^[A-Z]+Field$"))', []),  # a regex: no word
        ('((call) @a (#not-eq? @a "x"))', []),
        ("((call) @a (#eq? @a @b))", []),
        ('((call) @a (#eq? @a "a\\\\b"))', []),  # an escape: left to tree-sitter
        ('((call) @a ; (#eq? @a "in a comment")\n (#eq? @a "op"))', [("a", (b"op",))]),
        (
            '((call) @_op @_fn (#eq? @_op "op") (#eq? @_fn "x"))',
            [("_op", (b"op",)), ("_fn", (b"x",))],
        ),
    ],
)
def test_pattern_gates(pattern: str, gate: list[tuple[str, tuple[bytes, ...]]]) -> None:
    assert pattern_gate(pattern.encode()) == gate


def test_a_part_pattern_without_words_is_an_error() -> None:
    with pytest.raises(QueryError, match="compares no capture with fixed words"):
        queries._read_split("python", "(identifier) @a\n; part: orm\n(call) @b\n")


def test_a_part_needs_only_one_of_its_words() -> None:
    split = queries._read_split(
        "python",
        '; part: orm\n((call function: (identifier) @_f) @b (#eq? @_f "create_table"))\n'
        '((call function: (identifier) @_f) @c (#any-of? @_f "Table" "mapped_column"))\n',
    )
    assert split.parts == {"orm": (b"create_table", b"Table", b"mapped_column")}


def test_a_part_searches_a_word_once_when_another_holds_it() -> None:
    split = queries._read_split(
        "python", '; part: env\n((identifier) @a (#any-of? @a "getenv" "getenvb"))\n'
    )
    assert split.parts == {"env": (b"getenv",)}


def test_language_for_the_samples() -> None:
    for path, _, _ in NEEDS:
        assert language_for(path) in PARTED


def test_a_parts_search_words_must_be_in_every_match() -> None:
    with pytest.raises(QueryError, match="are not in every match"):
        queries._read_split(
            "python",
            '; part: orm _column\n((call function: (identifier) @_f) @b (#eq? @_f "drop_table"))\n',
        )
    split = queries._read_split(
        "python",
        '; part: orm _table\n((call function: (identifier) @_f) @b (#eq? @_f "drop_table"))\n',
    )
    assert split.parts == {"orm": (b"_table",)}


@pytest.mark.parametrize(("path", "text", "part"), NEEDS, ids=[n[0] for n in NEEDS])
def test_a_big_file_runs_the_core_and_its_parts_as_one_query(
    monkeypatch: pytest.MonkeyPatch, path: str, text: str, part: str
) -> None:
    monkeypatch.setattr(queries, "COMBINE_FROM", len(text.encode("utf-8")))
    doc = Document(path, text)
    assert len(doc._queries()) == 1
    assert part in _parts_run(doc)
    assert doc.symbols == _whole_symbols(doc)
    bigger = Document(path, text + "\n")  # one byte more: still combined, same query
    assert bigger._queries() == doc._queries()
    monkeypatch.setattr(queries, "COMBINE_FROM", len(text.encode("utf-8")) + 10)
    separate = Document(path, text)
    assert len(separate._queries()) >= 2
    assert separate.symbols == doc.symbols


def test_a_big_file_without_parts_runs_the_core_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(queries, "COMBINE_FROM", 0)
    doc = Document("app/views.py", py_samples.DEFS)
    assert _parts_run(doc) == set() and len(doc._queries()) == 1
    assert doc.symbols == _whole_symbols(doc)
