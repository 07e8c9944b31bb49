"""Overloads get a path each: `Assert.geq(double)` beside `Assert.geq(int)`.

Java and TypeScript declare several methods under one name. Where a file declares a
name more than once in one container, each declaration is named with its parameter
types (`cairn.store.paths.overload_suffix`, the grammar's one rule for them), so a
decision on one overload is not a decision on its siblings. Each such declaration is
also named by its bare path, with the same ranges: a decision on `Assert.geq` is about
every overload and still shows at each (docs/entity-paths.md#overloads). A name
declared once keeps its one bare path, so nothing written before changes meaning.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from cairn.indexer.model import Role, Symbol
from cairn.indexer.text import LineIndex
from cairn.store.paths import EntityPathError, overload_suffix, split_overload

__all__ = ["MAX_PARAMS_BYTES", "OVERLOAD_LANGUAGES", "name_overloads", "overloaded_names"]

OVERLOAD_LANGUAGES = frozenset({"java", "typescript", "tsx"})
_CALLABLE_KINDS = frozenset({"method", "function"})
MAX_PARAMS_BYTES = 4000  # a parameter list longer than this is not one


def name_overloads(
    symbols: list[Symbol], data: bytes, lines: LineIndex, language: str | None
) -> list[Symbol]:
    """`symbols` with each overloaded declaration named by its suffixed path, followed by
    its bare twin. A name whose overloads cannot all be told apart (a parameter type the
    grammar cannot write, two with one erased signature) stays bare: one path for all,
    as before."""
    if language not in OVERLOAD_LANGUAGES:
        return symbols
    counts = Counter(
        s.entity for s in symbols if s.role is Role.INTRODUCE and s.kind in _CALLABLE_KINDS
    )
    overloaded = {e for e, n in counts.items() if n > 1}
    if not overloaded:
        return symbols
    suffixes: dict[int, str] = {}  # id(symbol) -> suffix
    failed: set[str] = set()
    for s in symbols:
        if s.entity in overloaded and s.role is Role.INTRODUCE and s.kind in _CALLABLE_KINDS:
            suffix = _suffix_of(s, data, lines)
            if suffix is None:
                failed.add(s.entity)
            else:
                suffixes[id(s)] = suffix
    for entity in overloaded - failed:
        mine = [suffixes[id(s)] for s in symbols if id(s) in suffixes and s.entity == entity]
        if len(set(mine)) != len(mine):  # erased alike (`f(List<A>)`, `f(List<B>)`)
            failed.add(entity)
    out: list[Symbol] = []
    for s in symbols:
        suffix = suffixes.get(id(s))
        if suffix is None or s.entity in failed:
            out.append(s)
            continue
        out.append(
            Symbol(s.file, s.entity + suffix, s.kind, s.role, s.name_range, s.range, s.version)
        )
        out.append(s)  # the bare twin: decisions on every overload
    return out


def overloaded_names(entities: set[str]) -> set[str]:
    """The bare paths among a file's `entities` that have an overload named beside them
    (their bare twins): importers match declarations by their own paths, so they skip
    these. One pass over the file's paths, not one per symbol."""
    return {bare for bare, suffix in map(split_overload, entities) if suffix}


def _suffix_of(symbol: Symbol, data: bytes, lines: LineIndex) -> str | None:
    """The canonical parameter suffix of the declaration whose name `symbol` marks: the
    balanced parentheses after its name (and type parameters, `f<T>(`)."""
    r = symbol.name_range
    start, _ = lines.byte_offset(r.end_line, r.end_character)
    open_at = data.find(b"(", start, start + MAX_PARAMS_BYTES)
    if open_at < 0:
        return None
    depth = 0
    for i in range(open_at, min(len(data), open_at + MAX_PARAMS_BYTES)):
        ch = data[i]
        if ch == 0x28:  # (
            depth += 1
        elif ch == 0x29:  # )
            depth -= 1
            if depth == 0:
                return _canonical(data[open_at : i + 1].decode("utf-8", "replace"))
    return None


@lru_cache(maxsize=1 << 14)
def _canonical(params: str) -> str | None:
    """`overload_suffix` of a parameter list as written, None when it is refused. A
    history import indexes many versions of the same files, whose parameter lists
    repeat: without the cache this was ~10% of a Java import (javaparser's visitors)."""
    try:
        return overload_suffix(params)
    except EntityPathError:
        return None
