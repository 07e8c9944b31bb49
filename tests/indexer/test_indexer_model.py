"""The indexer's fast constructors build exactly what the classes' own __init__ builds."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from cairn.indexer.model import Range, Role, Symbol, make_range, make_symbol


def test_make_range_is_range() -> None:
    fast = make_range(3, 4, 5, 6)
    slow = Range(3, 4, 5, 6)
    assert type(fast) is Range
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert (fast.start_line, fast.start_character, fast.end_line, fast.end_character) == (
        3,
        4,
        5,
        6,
    )
    assert make_range(3, 4, 5, 5) < fast < make_range(3, 4, 5, 7)  # order=True still applies
    assert fast.contains(4, 0) and fast.as_json() == slow.as_json()
    assert pickle.loads(pickle.dumps(fast)) == slow


def test_make_symbol_is_symbol() -> None:
    name, whole = make_range(1, 4, 1, 9), Range(1, 0, 3, 0)
    fast = make_symbol("a.py", "a.py::login", "function", Role.INTRODUCE, name, whole, "")
    slow = Symbol("a.py", "a.py::login", "function", Role.INTRODUCE, Range(1, 4, 1, 9), whole)
    assert type(fast) is Symbol
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert fast.as_json() == slow.as_json()
    assert dataclasses.replace(fast, kind="method") == dataclasses.replace(slow, kind="method")


def test_fast_built_objects_stay_frozen() -> None:
    r = make_range(0, 0, 0, 1)
    s = make_symbol("a.py", "a.py::x", "constant", Role.INTRODUCE, r, r, "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.start_line = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.entity = "b"  # type: ignore[misc]
