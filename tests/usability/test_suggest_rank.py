"""`rank` scores candidates in order of an upper bound and stops early: the suggestions
must be exactly those of scoring every candidate."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.core.suggest import _leaf, _norm, _score, rank


def rank_by_scoring_everything(query: str, candidates: list[str], limit: int = 5) -> list[str]:
    q, q_leaf = _norm(query), _leaf(query)
    scored = [
        (score, candidate)
        for candidate in set(candidates)
        if _norm(candidate) != q
        and (score := _score(q, q_leaf, candidate, _norm(candidate))) >= 0.6
    ]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [candidate for _, candidate in scored[:limit]]


# Entity-shaped text from a small alphabet, so that near misses are common.
_part = st.text(alphabet="abcdeiloprstu_-AE0", min_size=1, max_size=9)
_sep = st.sampled_from([".", "/", "::", " ", "/{", "}", "-"])
_path = st.lists(st.tuples(_part, _sep), min_size=1, max_size=4).map(
    lambda pairs: "".join(p + s for p, s in pairs)[: -len(pairs[-1][1])] or pairs[0][0]
)


@settings(max_examples=400, deadline=None)
@given(query=_path, candidates=st.lists(_path, max_size=40), limit=st.sampled_from([1, 2, 5]))
def test_rank_suggests_what_scoring_every_candidate_suggests(
    query: str, candidates: list[str], limit: int
) -> None:
    expected = rank_by_scoring_everything(query, candidates, limit)
    assert rank(query, candidates, limit) == expected


def test_the_bound_keeps_near_misses_and_drops_the_rest() -> None:
    logged = [f"tbl{i:05d}.col_{i % 7}" for i in range(2000)] + [
        "deps/stripe-python", "deps/strip", "billing.stripe_id", "deps/stripe_sdk",
    ]  # fmt: skip
    expected = rank_by_scoring_everything("deps/stripe", logged)
    assert expected and rank("deps/stripe", logged) == expected
    for typo in ("tbl00012.col5", "tbl0012.col_5", "tb00012.col_3"):
        assert rank(typo, logged) == rank_by_scoring_everything(typo, logged)
    assert rank("tbl00012.col5", logged)[0] == "tbl00012.col_5"
