"""Overloads named by their parameter types (`cairn.indexer.overloads`): only where a
name is declared more than once in its container, each with its bare twin; the same
names after an incremental edit as after a fresh parse."""

from __future__ import annotations

from cairn.indexer import index_text
from cairn.indexer.document import Document

JAVA = """\
package a;
class Assert {
    static void geq(double actual, double floor) { }
    static <T extends Comparable<T>> void geq(java.util.List<T> xs, T... floor) { }
    void once(String s) { }
    class Inner { void once(int x) { } }
}
"""


def _methods(symbols: list) -> list[tuple[str, int]]:
    return [
        (s.entity.split("::")[1], s.name_range.start_line)
        for s in symbols
        if s.kind in ("method", "function")
    ]


def test_only_overloaded_names_get_suffixes_each_beside_its_bare_twin() -> None:
    assert _methods(index_text(JAVA, "src/a/Assert.java")) == [
        ("Assert.geq(double,double)", 2),
        ("Assert.geq", 2),
        ("Assert.geq(List,T[])", 3),
        ("Assert.geq", 3),
        ("Assert.once", 4),  # one `once` per container: no suffix
        ("Assert.Inner.once", 5),
    ]


def test_typescript_overload_signatures_are_named_and_unwritable_ones_stay_bare() -> None:
    ts = (
        "function f(a: string): void;\n"
        "function f(a: number): void;\n"
        "function f(a: any) { return a; }\n"
        "function g(cb: (x: number) => void): void;\n"
        "function g(cb: string): void;\n"
        "function g(cb: any) { }\n"
    )
    names = [n for n, _ in _methods(index_text(ts, "src/a.ts"))]
    assert names == ["f(string)", "f", "f(number)", "f", "f(any)", "f", "g", "g", "g"]


def test_an_edit_names_overloads_as_a_fresh_parse_does() -> None:
    doc = Document("src/a/Assert.java", JAVA)
    assert doc.symbols  # parsed once: the edit splices into these
    # `once` gets a sibling in Assert: both are now overloads.
    doc.edit(4, 27, 4, 27, "\n    void once(int x) { }")
    fresh = index_text(doc.text, "src/a/Assert.java")
    assert _methods(doc.symbols) == _methods(fresh)
    assert ("Assert.once(String)", 4) in _methods(doc.symbols)
    assert ("Assert.once(int)", 5) in _methods(doc.symbols)
    # and the second `geq` goes: the first is alone under its name again
    doc.edit(3, 0, 4, 0, "")
    fresh = index_text(doc.text, "src/a/Assert.java")
    assert _methods(doc.symbols) == _methods(fresh)
    assert ("Assert.geq", 2) in _methods(doc.symbols)
    assert not any("geq(" in n for n, _ in _methods(doc.symbols))
