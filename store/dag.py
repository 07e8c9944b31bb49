"""Causality in the log's DAG, answered in near-constant time.

Events are decomposed into chains at ingest: an event continues its first parent's
chain when that parent is still the chain's tip, else it starts a new chain. Within a
chain, a lower position is an ancestor of a higher one; across chains, reachability
goes through a chain's start parents and the extra parents of merge events. A log
written by one process is one chain, so most checks are one comparison; a git merge
adds one chain and one merge event, so walks stay short.
"""

from __future__ import annotations

import bisect

__all__ = ["ChainPos", "Dag"]

ChainPos = tuple[int, int]  # (chain, position)


class Dag:
    """Chain starts, merges and tips; enough to answer `is_ancestor` without a walk."""

    def __init__(self) -> None:
        self.starts: dict[int, list[ChainPos]] = {}
        self.merges: dict[int, list[tuple[int, list[ChainPos]]]] = {}
        self.tips: dict[int, int] = {}  # chain -> position of its tip

    def place(self, parents: list[ChainPos]) -> tuple[ChainPos, bool, bool]:
        """Where a new event with these (resolved) parents goes.

        Returns its (chain, pos), whether it started a chain and whether it is a merge.
        """
        if parents:
            first = parents[0]
            if self.tips.get(first[0]) == first[1]:
                chain, pos = first[0], first[1] + 1
                self.tips[chain] = pos
                extra = parents[1:]
                if extra:
                    self.merges.setdefault(chain, []).append((pos, list(extra)))
                return (chain, pos), False, bool(extra)
        chain = len(self.starts)
        self.starts[chain] = list(parents)
        self.tips[chain] = 0
        return (chain, 0), True, False

    def is_ancestor(self, a: ChainPos, v: ChainPos) -> bool:
        """True when the event at `a` is a strict ancestor of the event at `v`."""
        if a[0] == v[0]:
            return a[1] < v[1]
        explored: dict[int, int] = {}
        stack = [v]
        while stack:
            chain, pos = stack.pop()
            before = explored.get(chain, -1)
            if pos <= before:
                continue
            explored[chain] = pos
            if chain == a[0] and a[1] <= pos:
                return True
            if before < 0:
                stack.extend(self.starts.get(chain, ()))
            merges = self.merges.get(chain)
            if merges:
                lo = bisect.bisect_right(merges, before, key=lambda m: m[0])
                for mpos, extra in merges[lo:]:
                    if mpos > pos:
                        break
                    stack.extend(extra)
        return False
