"""Chain decomposition answers ancestry exactly, checked against a plain graph walk."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.store.dag import ChainPos, Dag


def test_linear_history_is_one_chain() -> None:
    dag = Dag()
    cps = [dag.place([])[0]]
    for _ in range(5):
        cps.append(dag.place([cps[-1]])[0])
    assert {c for c, _ in cps} == {0}
    assert dag.is_ancestor(cps[0], cps[5]) and not dag.is_ancestor(cps[5], cps[0])


def test_fork_and_merge() -> None:
    dag = Dag()
    root = dag.place([])[0]
    a = dag.place([root])[0]  # continues chain 0
    b, started, _ = dag.place([root])  # root is no longer a tip: a new chain
    assert started and b[0] != a[0]
    merge, _, merged = dag.place([a, b])
    assert merged
    assert dag.is_ancestor(b, merge) and dag.is_ancestor(a, merge)
    assert not dag.is_ancestor(a, b) and not dag.is_ancestor(b, a)
    assert dag.is_ancestor(root, b)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 40), st.randoms(use_true_random=False))
def test_matches_a_graph_walk(n: int, rnd: random.Random) -> None:
    dag = Dag()
    parents: list[list[int]] = []
    cps: list[ChainPos] = []
    for i in range(n):
        ps = sorted(rnd.sample(range(i), min(i, rnd.choice([0, 1, 1, 1, 2])))) if i else []
        parents.append(ps)
        cps.append(dag.place([cps[p] for p in ps])[0])

    def ancestors(i: int) -> set[int]:
        seen: set[int] = set()
        stack = list(parents[i])
        while stack:
            j = stack.pop()
            if j not in seen:
                seen.add(j)
                stack.extend(parents[j])
        return seen

    for v in range(n):
        truth = ancestors(v)
        for a in range(n):
            assert dag.is_ancestor(cps[a], cps[v]) == (a in truth), (a, v)
