"""Open documents: incremental edits in UTF-16 positions, symbol lookup, robustness."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st
from indexer_helpers import assert_consistent, entities, one, span

from cairn.indexer import Document, Range, Role, index_text
from cairn.indexer.text import MAX_BYTES, LineIndex

SOURCE = """\
import os

class Session:
    def login(self, user):
        token = os.environ["TOKEN"]  # ключ 🔑
        return token

def logout():
    pass
"""


def lsp_apply(text: str, sl: int, sc: int, el: int, ec: int, new: str) -> str:
    """Reference implementation of an LSP edit on a str (UTF-16 positions, \\n lines)."""

    def index(line: int, character: int) -> int:
        lines = text.split("\n")
        if line >= len(lines):  # past the last line: the end of the document
            return len(text)
        offset = sum(len(x) + 1 for x in lines[:line])
        units = 0
        for i, ch in enumerate(lines[line]):
            if units >= character:
                return offset + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return offset + len(lines[line])

    start, end = index(sl, sc), index(el, ec)
    return text[:start] + new + text[end:]


def test_edit_renames_a_method_incrementally() -> None:
    doc = Document("src/auth.py", SOURCE)
    assert one(doc.symbols, "src/auth.py::Session.login").kind == "method"
    tree_before = doc._tree
    login = span(SOURCE, "login")
    doc.edit(
        login.start_line, login.start_character, login.end_line, login.end_character, "sign_in"
    )
    assert doc._tree is not None and doc._tree is not tree_before
    assert doc.text == SOURCE.replace("login", "sign_in")
    renamed = one(doc.symbols, "src/auth.py::Session.sign_in")
    assert renamed.name_range == span(doc.text, "sign_in")
    assert not [s for s in doc.symbols if s.entity.endswith("login")]


def test_edit_after_astral_characters_uses_utf16_columns() -> None:
    doc = Document("src/auth.py", SOURCE)
    # append after the emoji: the column counts the 🔑 as two UTF-16 code units
    line = SOURCE.split("\n")[4]
    end = len(line.encode("utf-16-le")) // 2
    doc.edit(4, end, 4, end, "\n        os.getenv('HOME')")
    expected = lsp_apply(SOURCE, 4, end, 4, end, "\n        os.getenv('HOME')")
    assert doc.text == expected
    home = one(doc.symbols, "env/HOME", Role.REFERENCE)
    assert home.name_range == span(expected, "'HOME'")


def test_name_ranges_are_utf16() -> None:
    text = 'x = "😀 ünïcode"; import os; os.environ["KEY"]\n'
    key = one(index_text(text, "a.py"), "env/KEY")
    assert key.name_range == span(text, '"KEY"')
    assert key.name_range.start_character == len(text[: text.index('"KEY"')]) + 1


def test_replace_and_new_lines() -> None:
    doc = Document("db/001.sql", "CREATE TABLE a (x int);")
    assert entities(doc.symbols)[0] == ("a", "table", "introduce")
    doc.replace("CREATE TABLE b (y int);\r\nDROP TABLE a;\r\n")
    assert entities(doc.symbols) == [
        ("b", "table", "introduce"),
        ("b.y", "column", "introduce"),
        ("a", "table", "remove"),
    ]
    assert one(doc.symbols, "a").name_range == Range(1, 11, 1, 12)


def test_symbol_at_prefers_innermost_name_then_innermost_range() -> None:
    doc = Document("src/auth.py", SOURCE)
    token = span(SOURCE, '"TOKEN"')
    hit = doc.symbol_at(token.start_line, token.start_character + 2)
    assert hit is not None and hit.entity == "env/TOKEN"
    at_end = doc.symbol_at(token.end_line, token.end_character)
    assert at_end is not None and at_end.entity == "env/TOKEN"
    inside_body = span(SOURCE, "return token")
    hit = doc.symbol_at(inside_body.start_line, inside_body.start_character)
    assert hit is not None and hit.entity == "src/auth.py::Session.login"
    assert doc.symbol_at(0, 0) is None


def test_out_of_range_edits_are_clamped_not_raised() -> None:
    doc = Document("src/auth.py", "def a(): pass\n")
    doc.edit(40, 3, 50, 0, "def b(): pass\n")
    assert doc.text == "def a(): pass\ndef b(): pass\n"
    assert [e for e, _, _ in entities(doc.symbols)] == ["src/auth.py::a", "src/auth.py::b"]
    doc.edit(0, 999, 0, 999, "  # c")
    assert doc.text.splitlines()[0] == "def a(): pass  # c"


EDITS = st.lists(
    st.tuples(
        st.integers(0, 12),
        st.integers(0, 40),
        st.integers(0, 3),
        st.integers(0, 12),
        st.sampled_from(
            ["", "x", "def f():\n    pass\n", "class K:\n", "é", "🔑", "(", '"', "\n", "  ", "_id"]
        ),
    ),
    max_size=8,
)


@settings(max_examples=60, deadline=None)
@given(EDITS)
def test_incremental_edits_match_a_fresh_parse(edits: list[tuple[int, int, int, int, str]]) -> None:
    doc = Document("src/auth.py", SOURCE)
    expected = SOURCE
    for line, char, dl, dc, new in edits:
        end_line, end_char = line + dl, dc if dl else char + dc
        doc.edit(line, char, end_line, end_char, new)
        expected = lsp_apply(expected, line, char, end_line, end_char, new)
        assert doc.text == expected
    assert_consistent(doc, expected, "src/auth.py")


CLASS_SOURCE = """\
import os

class Repo(Base):
    __tablename__ = "repos"
    name = Column(String)

    @app.get("/repos")
    def list(self, q):
        def key(r):
            return os.environ["SORT"]  # é
        return sorted(q, key=key)

    def get(self):
        return os.getenv("REPO_URL")

def outside():
    pass
"""


@settings(max_examples=int(os.environ.get("CAIRN_FUZZ", "80")), deadline=None)
@given(EDITS)
def test_symbols_read_after_every_edit_match_a_fresh_parse(
    edits: list[tuple[int, int, int, int, str]],
) -> None:
    # Reading symbols after each single edit takes the splice path (one function
    # re-queried) whenever the edit stays inside a function.
    doc = Document("src/repo.py", CLASS_SOURCE)
    expected = CLASS_SOURCE
    assert doc.symbols == index_text(expected, "src/repo.py")
    for line, char, dl, dc, new in edits:
        end_line, end_char = line + dl, dc if dl else char + dc
        doc.edit(line, char, end_line, end_char, new)
        expected = lsp_apply(expected, line, char, end_line, end_char, new)
        assert_consistent(doc, expected, "src/repo.py")


def test_an_edit_inside_a_method_keeps_the_other_symbols() -> None:
    doc = Document("src/repo.py", CLASS_SOURCE)
    before = doc.symbols
    target = span(CLASS_SOURCE, '"REPO_URL"')
    doc.edit(
        target.start_line,
        target.start_character + 1,
        target.start_line,
        target.start_character + 5,
        "GIT",
    )
    after = doc.symbols
    assert one(after, "env/GIT_URL").name_range.start_line == target.start_line
    assert not [s for s in after if s.entity == "env/REPO_URL"]
    unchanged = [s for s in before if s.entity not in ("env/REPO_URL",)]
    # symbols outside the edited method are the very same objects: nothing re-queried
    assert all(any(a is b for a in after) for b in unchanged if b.range.end_line < 12)
    assert after == index_text(doc.text, "src/repo.py")


SQL_EDITS = st.lists(
    st.tuples(
        st.integers(0, 3),
        st.integers(0, 30),
        st.integers(0, 6),
        st.sampled_from(["", "ADD COLUMN z int;", "\nALTER TABLE t ", ",", "DROP", '"Q"', "ä"]),
    ),
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(SQL_EDITS)
def test_incremental_sql_edits_match_a_fresh_parse(edits: list[tuple[int, int, int, str]]) -> None:
    text = "CREATE TABLE t (a int, b text);\nALTER TABLE t ADD COLUMN c int;\nDROP TABLE u;\n"
    doc = Document("db/001.sql", text)
    for line, char, length, new in edits:
        doc.edit(line, char, line, char + length, new)
        text = lsp_apply(text, line, char, line, char + length, new)
    assert_consistent(doc, text, "db/001.sql")


def test_bad_input_never_raises() -> None:
    assert index_text("", "a.py") == []
    assert index_text(b"", "db/x.sql") == []
    assert index_text("   \n\n", "a.go") == []
    assert index_text(b"\x00\x01\x02def f(): pass", "a.py") == []  # binary
    assert index_text("def f(): pass", "notes.unknown") == []
    big = "x = 1\n" * (MAX_BYTES // 6 + 10)
    assert index_text(big, "big.py") == []


def test_invalid_utf8_keeps_the_sound_parts() -> None:
    data = b"# caf\xe9 \xff\xfe\ndef ok():\n    pass\n"
    symbols = index_text(data, "legacy.py")
    assert entities(symbols) == [("legacy.py::ok", "function", "introduce")]
    assert symbols[0].name_range == Range(1, 4, 1, 6)


def test_half_typed_code_keeps_the_sound_parts() -> None:
    text = "def broken(:\n    x = \n\nclass Good:\n    def fine(self):\n        pass\n"
    names = [e for e, _, _ in entities(index_text(text, "wip.py"))]
    assert "wip.py::Good" in names and "wip.py::Good.fine" in names
    sql = "CREATE TABLE ok (a int);\nALTER TABLE ;\nCREATE TABLE also_ok (b int);\n"
    tables = [e for e, k, _ in entities(index_text(sql, "x.sql")) if k == "table"]
    assert tables[0] == "ok" and "also_ok" in tables


def test_five_thousand_line_file_indexes_completely() -> None:
    chunk = 'class Model{0}(Base):\n    __tablename__ = "t{0}"\n    c = Column(String)\n\n\n'
    text = "".join(chunk.format(i) for i in range(1000))
    assert text.count("\n") == 5000
    symbols = index_text(text, "models.py")
    assert len([s for s in symbols if s.kind == "column"]) == 1000
    assert one(symbols, "t999.c").name_range == span(text, "c", after='t999"\n')


@settings(max_examples=100, deadline=None)
@given(
    st.text(alphabet="ab\né🔑", max_size=30),
    st.integers(0, 40),
    st.integers(0, 10),
    st.text(alphabet="xy\n", max_size=6),
)
def test_line_index_patched_after_an_edit_equals_a_fresh_one(
    text: str, start: int, length: int, new: str
) -> None:
    data = text.encode()
    start = min(start, len(data))
    end = min(start + length, len(data))
    inserted = new.encode()
    edited = data[:start] + inserted + data[end:]
    old = LineIndex(data)
    assert old.starts  # computed before the edit, as a document does
    assert old.after_edit(edited, start, end, inserted).starts == LineIndex(edited).starts
