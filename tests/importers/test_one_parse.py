"""The import reads things once (issue 30's import time): a reverted file's syntax tree
(the rows that carry meaning are found in the tree the symbols came from), a
declaration's signature however many links list it, and a licence file per version
(copyright notices come through the import's blob reader, not a `git grep` per revert)."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_cli import commit

import cairn.indexer.languages as languages
from cairn.fingerprints import row_kinds
from cairn.importers import declarations
from cairn.importers.declarations import Decl
from cairn.importers.git_history import Blobs
from cairn.importers.trees import Notices
from cairn.indexer import index_text
from cairn.indexer.document import index_text_and_tree

PYTHON = '''"""A module docstring
over two lines."""
import os
from pathlib import Path

# a comment
def f(x):
    """Its docstring."""
    return os.path.join(x, "y")  # trailing comment


class C:
    value = Path("z")
'''

JAVA = """package org.example;

import java.util.List;

/**
 * A class comment.
 */
public class Pool {
    // a line comment
    private final List<String> items;

    public String get(int i) {
        return items.get(i); /* inline */
    }
}
"""


@pytest.mark.parametrize(("text", "path"), [(PYTHON, "src/mod.py"), (JAVA, "src/Pool.java")])
def test_rows_read_from_the_index_tree_are_those_of_a_parse_of_their_own(
    text: str, path: str
) -> None:
    rows = range(text.count("\n") + 1)
    symbols, tree = index_text_and_tree(text, path)
    assert tree is not None
    assert [s.entity for s in symbols] == [s.entity for s in index_text(text, path)]
    own = row_kinds(text, path, rows)
    assert row_kinds(text, path, rows, tree=tree) == own
    code, imports = own
    assert imports and code  # the samples hold both kinds, and quiet rows besides
    assert len(code) + len(imports) < len(rows)


def test_rows_with_the_tree_given_parse_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    _, tree = index_text_and_tree(JAVA, "src/Pool.java")

    def no_parse(language: str) -> object:
        raise AssertionError(f"parsed {language} again")

    monkeypatch.setattr(languages, "parser", no_parse)
    code, imports = row_kinds(JAVA, "src/Pool.java", range(16), tree=tree)
    assert 2 in imports  # import java.util.List;
    assert 12 in code and 8 not in code  # the body's line, not the comment's


def test_a_file_that_is_not_parsed_has_no_tree() -> None:
    symbols, tree = index_text_and_tree("# Title\n\nSome words.\n", "README.md")
    assert tree is None
    assert symbols == index_text("# Title\n\nSome words.\n", "README.md")


def test_a_signature_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = declarations.overload_suffix

    def counted(params: str) -> str:
        calls.append(params)
        return real(params)

    monkeypatch.setattr(declarations, "overload_suffix", counted)
    decl = Decl("src/Pool.java::Pool.get", "method", ["String get(int i, List<String> b) {", "}"])
    assert decl.signature == real("(int i, List<String> b)")
    assert decl.signature == decl.signature
    assert len(calls) == 1
    overload = Decl("src/Pool.java::Pool.get(int)", "method", ["String get(int i) {", "}"])
    assert overload.signature == "(int)"  # from its path: nothing parsed
    assert len(calls) == 1


def test_notices_are_read_through_the_blob_reader_and_a_licence_once(project: Path) -> None:
    first = commit(
        project,
        "App",
        "2024-01-01T10:00:00Z",
        {
            "MIT-LICENSE": "Copyright (c) 2009, Nick Quaranto\n\nPermission is granted\n",
            "copying.txt": "Copyright 2010 Not A Licence\n",  # COPYING* is case-sensitive
            "docs/LICENSE": "Copyright 2011 Only At The Root\n",
            "lib/helper.rb": "# Copyright (c) 2004 Chad Fowler\n" + "x = 1\n" * 20,
            "lib/late.rb": "x = 1\n" * 20 + "# Copyright 2005 Too Far Down\n",
        },
    )
    second = commit(project, "More", "2024-02-01T10:00:00Z", {"README": "hello\n"})
    blobs = Blobs(project)
    reads: list[tuple[str, str]] = []

    def read(rev: str, path: str) -> bytes | None:
        reads.append((rev, path))
        return blobs.read(rev, path)

    try:
        notices = Notices(read)
        assert notices.header(first, "lib/helper.rb") == {"chad", "fowler"}
        assert notices.header(first, "lib/late.rb") == frozenset()  # not its header
        assert notices.header(first, "lib/gone.rb") == frozenset()
        assert notices.licence(first) == {"nick", "quaranto"}
        licence_reads = len(reads)
        # The same licence blob in a later tree: its root is listed, the file not read again.
        assert notices.licence(second) == {"nick", "quaranto"}
        assert len(reads) == licence_reads + 1
        # A revert that changed the licence file itself: it is one of its files.
        assert notices.licence(second, ["MIT-LICENSE"]) == frozenset()
    finally:
        blobs.close()
