"""`may_declare` lets the rename walk skip parsing a version: it must never say "no"
where `declarations` finds the element, and it should say "no" where a file only uses
the name."""

from __future__ import annotations

import random
import re

import pytest

from cairn.importers.declarations import (
    _python_def,
    _python_target,
    _words,
    declarations,
    may_declare,
)

PYTHON = """\
import os
from x import helper, Other

LIMIT = 3
A, B = 1, 2
D, \\
    E = 5, 6
C = \\
    4
TIMEOUT: int


class Pool:
    MAX_SIZE: int = 10

    def get(self, key):
        return helper(key) + LIMIT

    async def close(self):
        pass

    class Meta:
        ordering = ["name"]


def outer():
    def inner():
        pass
    return inner


if os.environ.get("X"):
    DEBUG = True
"""


def test_every_declared_python_element_may_be_declared() -> None:
    found = declarations(PYTHON, "pkg/pool.py")
    assert {
        "Pool.get",
        "Pool.close",
        "Pool.Meta",
        "LIMIT",
        "A",
        "B",
        "C",
        "D",
        "E",
        "TIMEOUT",
    } <= set(found)
    for qualified in found:
        assert may_declare(PYTHON.encode(), "pkg/pool.py", qualified), qualified


@pytest.mark.parametrize(
    "qualified",
    [
        "helper",  # imported and called
        "Other",  # imported only
        "Cache.get",  # a method of that name, in another class
        "Pool.evict",  # never there
        "key",  # a parameter and an argument
    ],
)
def test_a_python_file_that_only_uses_a_name_is_not_parsed(qualified: str) -> None:
    assert qualified not in declarations(PYTHON, "pkg/pool.py")
    assert not may_declare(PYTHON.encode(), "pkg/pool.py", qualified)


def test_other_languages_need_only_the_name_as_a_word() -> None:
    java = b"class Pool { Conn get(Key k) { return getter(k); } }"
    assert may_declare(java, "src/Pool.java", "Pool.get")
    assert may_declare(java, "src/Pool.java", "Cache.get")  # no grammar rule here: parse
    assert not may_declare(java, "src/Pool.java", "Pool.put")
    assert not may_declare(java, "src/Pool.java", "Pool.gett")


JAVA_OVERLOADS = b"""class V {
  Object visit(final QualifiedNameExpr n, A arg) { return visit(other, arg); }
  Object visit(@Nullable java.util.List<Map<K, V>> xs, int... more) { return null; }
  V(String a) {}
  void call() { visit(NameExpr.of("x"), ignored); }
}"""


def test_an_overload_is_declared_only_where_its_types_follow_its_name() -> None:
    found = {
        d.entity.partition("::")[2]
        for ds in declarations(JAVA_OVERLOADS.decode(), "src/V.java").values()
        for d in ds
    }
    for qualified in found:  # never "no" where the parse finds it
        assert may_declare(JAVA_OVERLOADS, "src/V.java", qualified), qualified
    assert "V.visit(List,int[])" in found
    # The name is there, its parameter types are not (or not in that order).
    assert not may_declare(JAVA_OVERLOADS, "src/V.java", "V.visit(ArrayAccessExpr,A)")
    assert not may_declare(JAVA_OVERLOADS, "src/V.java", "V.visit(A,QualifiedNameExpr)")
    # A call that passes words of the types is a "may": parsed, then not found there.
    assert may_declare(JAVA_OVERLOADS, "src/V.java", "V.visit(NameExpr)")
    assert "V.visit(NameExpr)" not in found


# The tests as the regexes they replaced read them (the search by `find` must agree:
# a false "not" would lose a link, a false "may" costs a parse).
def _regex_word(w: bytes) -> re.Pattern[bytes]:
    return re.compile(rb"(?<![\w$])" + re.escape(w) + rb"(?![\w$])")


def _regex_def(w: bytes) -> re.Pattern[bytes]:
    return re.compile(rb"(?<![\w$])(?:def|class)[\s\\]+" + re.escape(w) + rb"(?![\w$])")


def _regex_target(w: bytes) -> re.Pattern[bytes]:
    return re.compile(
        rb"(?<![\w$.])" + re.escape(w) + rb"(?![\w$])"
        rb"(?:[ \t]*(?:\\\r?\n[ \t]*)*:|(?:[^\n]|(?<=\\)\n)*=)"
    )


PIECES = [b"def", b"class", b" ", b"\t", b"\n", b"\\", b"\\\n", b"\r\n", b"x", b"xx", b"a"]
PIECES += [b"$", b".", b":", b"=", b"_", b"un", b"\xc3\xa9"]


def test_the_search_by_find_agrees_with_the_regexes_on_every_shape() -> None:
    rng = random.Random(28)
    for _ in range(20_000):
        word = rng.choice([b"x", b"xx", b"a", b"xa", b"x\xc3\xa9"])
        blob = b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14)))
        assert (_regex_word(word).search(blob) is not None) == (
            next(_words(blob, word), None) is not None
        ), blob
        assert (_regex_def(word).search(blob) is not None) == _python_def(blob, word), blob
        assert (_regex_target(word).search(blob) is not None) == _python_target(blob, word), blob
    # Shapes a random draw may miss: a name inside a longer one, after `undef`, split
    # over a backslash, an attribute assigned, the file's very start and end.
    assert _python_def(b"class \\\n  xx(A):", b"xx") and not _python_def(b"undef xx", b"xx")
    assert not _python_def(b"def xxy():", b"xx") and _python_def(b"def xx", b"xx")
    assert _python_target(b"xx \\\n  : int", b"xx") and not _python_target(b"self.xx = 1", b"xx")
    assert _python_target(b"xx, y = \\\n f()", b"xx") and not _python_target(b"f(xx)\n=", b"xx")
