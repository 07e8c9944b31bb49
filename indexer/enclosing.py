"""The innermost named entity that contains a line: where a change inside a body belongs.

An edit inside a method body is history of that method (DESIGN §3), so the importer,
`cairn check` and the language server all ask this one function which entity a changed
line belongs to.
"""

from __future__ import annotations

from collections.abc import Iterable

from cairn.indexer.model import Role, Symbol

__all__ = ["innermost_symbol"]

# A file is not a symbol the indexer reports; everything else it defines can enclose code.
_NOT_ENCLOSING = frozenset({"file", "directory"})


def innermost_symbol(symbols: Iterable[Symbol], line: int) -> Symbol | None:
    """The innermost *defining* symbol whose full `range` contains the 0-based `line`.

    Only symbols the code introduces count (a `def`, a class, a constant, a model field,
    a declared dependency): a reference or a removal encloses nothing. Ties between equal
    ranges go to the first symbol seen, so the answer does not depend on set order.
    """
    best: Symbol | None = None
    for sym in symbols:
        if sym.role is not Role.INTRODUCE or str(sym.kind) in _NOT_ENCLOSING:
            continue
        rng = sym.range
        if not rng.start_line <= line <= rng.end_line:
            continue
        if best is None or (rng.start_line, -rng.end_line) > (
            best.range.start_line,
            -best.range.end_line,
        ):
            best = sym
    return best
