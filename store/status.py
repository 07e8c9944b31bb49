"""Derived status: a function of the set of events on one entity, never of their order.

The rule (docs/status.md): an entity's open verdicts are its revert/reject events that
no supersede names. With open verdicts, an applied event that is not a causal ancestor
of some open verdict (written after it, or without knowing of it) and is not the change
that verdict reverts makes the status `conflict` (re-applied without supersede; a
`rename` moves what was decided and re-applies nothing);
otherwise an open revert gives `reverted`, an open reject `rejected`. Without open
verdicts: a removal that descends from every applied event gives `removed`; else a
superseded verdict gives `reopened`; else applied events give `active`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import msgspec

from cairn.store.dag import ChainPos
from cairn.store.model import EventType, Status

__all__ = ["Derived", "derive"]


class Derived(msgspec.Struct):
    """The outcome of `derive`, in terms of the rows' sequence numbers."""

    status: Status
    open_verdicts: list[int] = msgspec.field(default_factory=list)
    conflicts: list[int] = msgspec.field(default_factory=list)
    reopened: list[tuple[int, int]] = msgspec.field(default_factory=list)  # (verdict, supersede)


class _RowLike(Protocol):
    """What `derive` reads of a row (`index_rows.Row`)."""

    @property
    def seq(self) -> int: ...
    @property
    def key(self) -> int: ...
    @property
    def type(self) -> EventType: ...
    @property
    def chain_pos(self) -> ChainPos: ...
    @property
    def target_key(self) -> int | None: ...


def derive(rows: Sequence[_RowLike], is_ancestor: Callable[[ChainPos, ChainPos], bool]) -> Derived:
    """Status of one entity from its rows (order-independent)."""
    if not rows:
        return Derived(Status.UNKNOWN)
    supersedes: dict[int, tuple[int, int]] = {}  # verdict key -> (supersede key, seq)
    verdicts = []
    applied = []
    removals = []
    for r in rows:
        ty = r.type
        if ty is EventType.SUPERSEDE:
            if r.target_key is not None:
                # Several supersedes of one verdict: report the one with the smallest id.
                prior = supersedes.get(r.target_key)
                if prior is None or r.key < prior[0]:
                    supersedes[r.target_key] = (r.key, r.seq)
        elif ty.is_verdict:
            verdicts.append(r)
        elif ty.is_applied:
            applied.append(r)
        elif ty.is_removal:
            removals.append(r)
    open_v = [v for v in verdicts if v.key not in supersedes]
    reopened = [(v.seq, supersedes[v.key][1]) for v in verdicts if v.key in supersedes]
    if open_v:
        conflicts = [
            a.seq
            for a in applied
            # A rename moves what was decided (`cairn.core.aliases`); it re-applies nothing.
            if a.type is not EventType.RENAME
            and any(
                not is_ancestor(a.chain_pos, v.chain_pos)
                and not (v.type is EventType.REVERT and v.target_key == a.key)
                for v in open_v
            )
        ]
        if conflicts:
            status = Status.CONFLICT
        elif any(v.type is EventType.REVERT for v in open_v):
            status = Status.REVERTED
        else:
            status = Status.REJECTED
        return Derived(status, [v.seq for v in open_v], conflicts, reopened)
    if any(all(is_ancestor(a.chain_pos, rm.chain_pos) for a in applied) for rm in removals):
        status = Status.REMOVED
    elif reopened:
        status = Status.REOPENED
    elif applied:
        status = Status.ACTIVE
    else:
        status = Status.UNKNOWN
    return Derived(status, [], [], reopened)
