"""`_settle` (dedupe, drop decided references, sort) against its plain definition."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cairn.indexer.extract import _settle
from cairn.indexer.model import Range, Role, Symbol


def reference_settle(symbols: list[Symbol]) -> list[Symbol]:
    """The rule in its plainest form, on the Range and Role objects themselves."""
    unique: dict[tuple[Range, str, Role], Symbol] = {}
    for s in symbols:
        key = (s.name_range, s.entity, s.role)
        seen = unique.get(key)
        if seen is None or s.version or not seen.version:
            unique[key] = s
    decided = {(s.name_range, s.entity) for s in unique.values() if s.role is not Role.REFERENCE}
    kept = [
        s
        for s in unique.values()
        if s.role is not Role.REFERENCE or (s.name_range, s.entity) not in decided
    ]
    kept.sort(key=lambda s: (s.name_range, s.range, s.entity, s.role.value))
    return kept


# few distinct values, so that duplicates, shared positions and ties are common
small = st.integers(min_value=0, max_value=2)
ranges = st.builds(Range, small, small, small, small)
symbols = st.builds(
    Symbol,
    file=st.just("a.sql"),
    entity=st.sampled_from(["users", "users.email", "orders"]),
    kind=st.sampled_from(["table", "column"]),
    role=st.sampled_from(list(Role)),
    name_range=ranges,
    range=ranges,
    version=st.sampled_from(["", "1.0"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(symbols, max_size=12))
def test_settle_is_the_plain_rule(found: list[Symbol]) -> None:
    assert _settle(list(found)) == reference_settle(list(found))


def test_roles_sort_by_their_names() -> None:
    at = Range(0, 0, 0, 5)
    made = [Symbol("a.sql", "users", "table", role, at, at) for role in reversed(list(Role))]
    assert [s.role for s in _settle(made)] == [Role.INTRODUCE, Role.REMOVE]  # reference decided
