"""The one rule for "the entity at a position", shared by every surface.

Hover, `cairn which`, code actions, code lenses, diagnostics and `cairn show` all ask
the same question: which entity does this place in the code mean? Several symbols can
share one place (a model field is its column; a `__tablename__` string is its table;
a decorated function holds its route), and the surfaces must not answer differently.

The indexer says which symbols are there (`cairn.indexer.symbols_at`: the innermost
names, else the innermost enclosing construct). This module orders them:

1. a framework entity (table, column, route, dependency, environment variable) before
   a generic one (function, class, method, constant, symbol): it is what a decision is
   about and what survives a refactor of the code around it;
2. then an entity with history before one without;
3. then the document's order.

The first is *the* entity (what `which` prints first, what "Log a decision…" targets,
what a hover's range covers); every one with history is shown by the hover.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cairn.indexer.model import Symbol
    from cairn.store.model import EntityStatus

__all__ = ["FRAMEWORK_KINDS", "at_position", "has_history", "history_from", "rank"]

FRAMEWORK_KINDS = frozenset({"table", "column", "route", "dependency", "env"})


def has_history(status: EntityStatus | None) -> bool:
    """True when the entity has decisions of its own, or (a table) its columns do."""
    return status is not None and bool(status.event_count or status.rollup)


def history_from(statuses: Mapping[str, EntityStatus]) -> Callable[[str], bool]:
    """`has_history` over a mapping of statuses (an entity missing from it has none)."""
    return lambda entity: has_history(statuses.get(entity))


def rank(symbols: Iterable[Symbol], history: Callable[[str], bool] | None = None) -> list[Symbol]:
    """`symbols` (all at one place) in the rule's order, one per entity."""
    seen: set[str] = set()
    unique: list[Symbol] = []
    for symbol in symbols:
        if symbol.entity not in seen:
            seen.add(symbol.entity)
            unique.append(symbol)
    known = history or (lambda _entity: False)
    # sorted() is stable: the document's order breaks ties
    return sorted(unique, key=lambda s: (s.kind not in FRAMEWORK_KINDS, not known(s.entity)))


def at_position(
    symbols: Iterable[Symbol],
    line: int,
    character: int,
    history: Callable[[str], bool] | None = None,
) -> list[Symbol]:
    """The entities at a 0-based (line, UTF-16 character) position, best first."""
    from cairn.indexer.document import symbols_at

    return rank(symbols_at(symbols, line, character), history)
