"""Full-text search: every query word in the event's own text OR its entity's path.

The index keeps an entity's path once (`ent_fts`), not in every event's row, and event
text without positions (`fts`, `detail=none`): these tests hold what matches, and the
order, equal to a plain reading of that rule, whichever way the index answers it.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, Store, init_store
from cairn.store import index_queries as index_module
from cairn.store.fulltext import holds, parse_query, text_tokens
from cairn.store.index import remove_index
from cairn.store.redact import redact


def put(store: Store, type_: str, entity: str, reasoning: str, when: str, **kw: str):
    return store.append(
        EventDraft(type=type_, entity=entity, reasoning=reasoning, recorded_at=when, **kw)
    ).event


def test_path_words_and_why_words_together(store: Store) -> None:
    revert = put(store, "revert", "users.email", "reverted: it broke signup", "2026-01-02")
    put(store, "add", "users.name", "reverted nothing here", "2026-01-03")
    put(store, "add", "orders.email", "reverted too", "2026-01-04")
    put(store, "add", "users.email", "first version", "2026-01-01")
    assert [h.event.id for h in store.search("users email reverted")] == [revert.id]
    # Every word in the path alone: all of the entity's events, the newest first.
    assert [h.event.reasoning for h in store.search("users email")] == [
        "first version",
        "reverted: it broke signup",
    ]
    assert store.search("users orders") == []  # no one path or text holds both


def test_own_text_ranks_before_the_path_then_newest_first(store: Store) -> None:
    a = put(store, "add", "billing.stripe", "move to the sdk", "2026-01-01")
    b = put(store, "add", "deps.other", "stripe sdk everywhere", "2026-01-02")
    c = put(store, "modify", "billing.stripe", "sdk pinned", "2026-01-03")
    d = put(store, "add", "deps.more", "the sdk for stripe", "2026-01-04")
    hits = store.search("stripe sdk")
    assert [h.event.id for h in hits] == [d.id, b.id, c.id, a.id]
    assert [h.score for h in hits] == [0.0, 0.0, 1.0, 1.0]
    assert [h.event.id for h in store.search("stripe sdk", limit=3)] == [d.id, b.id, c.id]


def test_a_word_of_several_tokens_is_a_phrase(store: Store) -> None:
    near = put(store, "add", "t.a", "the card token is kept", "2026-01-01")
    put(store, "add", "t.b", "a token for the card", "2026-01-02")  # both words, apart
    joined = put(store, "add", "t.c", "card_token rotation", "2026-01-03")
    put(store, "reject", "t.d", "too slow", "2026-01-04", alternative="cache card-tokens")
    assert [h.event.id for h in store.search("card_token")] == [joined.id, near.id]
    assert len(store.search("card_tok*")) == 3  # the alternative's "card tokens" too
    on_path = put(store, "add", "billing.card_token", "unrelated words", "2026-01-05")
    assert [h.event.id for h in store.search("card_token")] == [joined.id, near.id, on_path.id]
    assert store.search("token_card") == []


def test_a_redacted_event_is_found_by_its_path_only(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        secret = put(store, "add", "secrets.vault", "use the zebra passphrase", "2026-01-01")
        assert [h.event.id for h in store.search("zebra vault")] == [secret.id]
    redact(cairn_dir, secret.id, "pasted a passphrase")
    with Store.open(cairn_dir) as store:
        assert store.search("zebra") == []
        hits = store.search("secrets vault")  # the redaction record, then the erased event
        assert [(h.event.id, h.event.redacted) for h in hits][1] == (secret.id, True)


_VOCAB = ["alpha", "beta", "gamma", "delta", "al", "alp", "card", "token"]
_word = st.sampled_from(_VOCAB)
_text = st.lists(st.tuples(_word, st.sampled_from([" ", "_", ", "])), max_size=6).map(
    lambda parts: "".join(w + sep for w, sep in parts).strip(" ,_") or "x"
)
_path = st.lists(_word, min_size=2, max_size=3).map(".".join)
_query_word = st.one_of(
    _word,
    st.tuples(_word, _word).map("_".join),
    st.sampled_from(["al*", "ga*", "card_to*", "tok*"]),
)


def _expected(events: list[tuple[str, str, str]], query: str, limit: int) -> list[int]:
    """Indices of `events` (entity, reasoning, alternative) a search returns, in order:
    the rule read plainly, every event checked against every word."""
    terms = parse_query(query)
    ranked = []
    for i, (entity, reasoning, alternative) in enumerate(events):
        own = text_tokens(f"{reasoning} {alternative}")
        path = text_tokens(entity)
        in_text = [holds(own, t) for t in terms]
        if all(t or holds(path, term) for t, term in zip(in_text, terms, strict=True)):
            ranked.append((0 if all(in_text) else 1, -i))
    return [-i for _, i in sorted(ranked)[:limit]]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    events=st.lists(
        st.tuples(_path, _text, st.one_of(st.just(""), _text)), min_size=1, max_size=25
    ),
    queries=st.lists(st.lists(_query_word, min_size=1, max_size=3).map(" ".join), max_size=6),
    limit=st.integers(1, 30),
)
def test_search_answers_the_rule_on_a_written_and_a_rebuilt_index(
    monkeypatch: pytest.MonkeyPatch,
    events: list[tuple[str, str, str]],
    queries: list[str],
    limit: int,
) -> None:
    monkeypatch.setenv("CAIRN_AUTHOR", "Ada Lovelace <ada@example.org>")
    with tempfile.TemporaryDirectory() as tmp:
        cairn_dir = init_store(Path(tmp))
        drafts = [
            EventDraft(
                type="reject" if alternative else "add",
                entity=entity,
                reasoning=reasoning,
                alternative=alternative,
                recorded_at=f"2026-01-01T00:00:{i:02d}Z",
            )
            for i, (entity, reasoning, alternative) in enumerate(events)
        ]
        with Store.open(cairn_dir) as store:
            written = store.append_many(drafts)  # indexed as written (`ingest_written`)
            answers = {q: [h.event.id for h in store.search(q, limit=limit)] for q in queries}
        remove_index(cairn_dir)
        with Store.open(cairn_dir) as store:  # rebuilt from the log (`catch_up`)
            for query, ids in answers.items():
                canonical = [(e.entity, e.reasoning, e.alternative) for e in written]
                expected = [written[i].id for i in _expected(canonical, query, limit)]
                assert ids == expected, query
                # Both ways of checking an entity's events against the text agree.
                for few in (0, 10**9):
                    monkeypatch.setattr(index_module, "_FEW_EVENTS", few)
                    got = [h.event.id for h in store.search(query, limit=limit)]
                    assert got == expected, (query, few)


def test_query_words_split_as_the_index_splits_them() -> None:
    terms = parse_query("users.email card_token* naïve _ card_token")
    assert [(t.tokens, t.prefix) for t in terms] == [
        (("users",), False),
        (("email",), False),
        (("card", "token"), True),
        (("naïve",), False),
        (("card", "token"), False),
    ]
    assert terms[2].phrase() == '"card token"*'
    assert terms[2].each_token() == '"card" "token"*'
    assert text_tokens("Naïve CARD-token") == ["naive", "card", "token"]
    assert re.fullmatch(r"[a-z]+", text_tokens("Ünïcode")[0])
