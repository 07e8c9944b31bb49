"""The indexer's records: equal, hashed, ordered, pickled and frozen as one would expect
of values (they are shared between documents, versions and threads)."""

from __future__ import annotations

import pickle

import pytest
from msgspec.structs import replace

from cairn.indexer.model import Range, Role, Symbol


def test_range_is_a_value() -> None:
    r = Range(3, 4, 5, 6)
    assert r == Range(3, 4, 5, 6) and hash(r) == hash(Range(3, 4, 5, 6))
    assert r != Range(3, 4, 5, 7)
    assert (r.start_line, r.start_character, r.end_line, r.end_character) == (3, 4, 5, 6)
    assert Range(3, 4, 5, 5) < r < Range(3, 4, 5, 7) < Range(4, 0, 0, 0)  # field by field
    assert sorted([Range(2, 0, 2, 1), Range(1, 5, 1, 6), Range(1, 2, 9, 9)]) == [
        Range(1, 2, 9, 9),
        Range(1, 5, 1, 6),
        Range(2, 0, 2, 1),
    ]
    assert r.contains(4, 0) and r.contains(3, 4) and r.contains(5, 6) and not r.contains(5, 7)
    assert r.as_json() == {"start": {"line": 3, "character": 4}, "end": {"line": 5, "character": 6}}
    assert repr(r) == "Range(start_line=3, start_character=4, end_line=5, end_character=6)"
    assert pickle.loads(pickle.dumps(r)) == r


def test_symbol_is_a_value() -> None:
    name, whole = Range(1, 4, 1, 9), Range(1, 0, 3, 0)
    s = Symbol("a.py", "a.py::login", "function", Role.INTRODUCE, name, whole)
    same = Symbol("a.py", "a.py::login", "function", Role.INTRODUCE, Range(1, 4, 1, 9), whole, "")
    assert s == same and hash(s) == hash(same) and s.version == ""
    assert s != replace(s, role=Role.REFERENCE)
    assert replace(s, kind="method").kind == "method" and s.kind == "function"
    assert {s, same} == {s}
    assert s.as_json() == {
        "file": "a.py",
        "entity": "a.py::login",
        "kind": "function",
        "role": "introduce",
        "name_range": name.as_json(),
        "range": whole.as_json(),
    }
    assert replace(s, version="==1.0").as_json()["version"] == "==1.0"
    assert pickle.loads(pickle.dumps(s)) == s


def test_records_are_frozen() -> None:
    r = Range(0, 0, 0, 1)
    s = Symbol("a.py", "a.py::x", "constant", Role.INTRODUCE, r, r)
    with pytest.raises(AttributeError):
        r.start_line = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.entity = "b"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.extra = 1  # type: ignore[attr-defined]
    assert r == Range(0, 0, 0, 1) and s.entity == "a.py::x"
