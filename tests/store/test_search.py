"""Full-text search: a question's meaningful words, ranked by BM25 over weighted fields.

What is held here: the question's scaffolding is dropped and its words are stemmed; the
event holding more of the rarer words ranks first and the score says so; the entity's
path counts as words (snake and camel case split); a phrase must be held whole; one
decision's events on many entities are one hit; a redacted event is found by its path
alone; the bounded ways of answering a query whose words are everywhere; and an index
written event by event answers as one rebuilt from the log.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cairn.store import EventDraft, Store, ValidationError, index_queries, init_store
from cairn.store.fulltext import parse_query, path_words, search_fields
from cairn.store.index import remove_index
from cairn.store.redact import redact


def put(store: Store, type_: str, entity: str, reasoning: str, when: str, **kw: object):
    draft = EventDraft(type=type_, entity=entity, reasoning=reasoning, recorded_at=when, **kw)  # type: ignore[arg-type]
    return store.append(draft).event


def ids(store: Store, query: str, limit: int = 20) -> list[str]:
    return [h.event.id for h in store.search(query, limit=limit)]


def test_a_question_finds_the_decision_its_words_name(store: Store) -> None:
    cache = put(
        store, "revert", "app/session.py::cache", "Session cache served stale carts", "2026-01-01"
    )
    put(store, "add", "app/views.py::index", "why did we add this? we tried before", "2026-01-02")
    put(store, "add", "app/queue.py::push", "background jobs go to one queue", "2026-01-03")
    # Every word of the question but "session" and "cache" is scaffolding: the event
    # made of such words is not an answer, and the stemmer joins "caches" to "cache".
    assert ids(store, "why did we revert the session caches?") == [cache.id]
    assert ids(store, "what happened to the session cache") == [cache.id]


def test_more_of_the_rarer_words_rank_first_and_the_score_says_so(store: Store) -> None:
    common = [
        put(store, "add", f"t{i}.c", f"retry budget tuned {i}", f"2026-01-{i + 1:02d}")
        for i in range(6)
    ]
    both = put(store, "revert", "jobs.webhook", "webhook retry storms", "2026-02-01")
    only = put(store, "add", "jobs.mail", "webhook for mail", "2026-02-02")
    hits = store.search("webhook retries", limit=10)
    assert [h.event.id for h in hits[:2]] == [both.id, only.id]
    assert {h.event.id for h in hits[2:]} == {e.id for e in common}
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True) and scores[0] > scores[1] > scores[2] > 0


def test_the_path_is_words_snake_and_camel_case_apart(store: Store) -> None:
    token = put(store, "add", "billing.card_token", "kept for refunds", "2026-01-01")
    fs = put(store, "reject", "shop/filters.py::OrderLineFilterSet", "too slow", "2026-01-02",
             alternative="a join per line")  # fmt: skip
    put(store, "add", "billing.amount", "the card is charged once", "2026-01-03")
    assert ids(store, "why was the card token kept")[0] == token.id
    assert ids(store, "order line filter set") == [fs.id]
    assert ids(store, "OrderLineFilterSet") == [fs.id]
    assert path_words("a/b.py::HTTPServer.get_x") == "a/b.py::HTTPServer.get_x HTTP Server"


def test_a_phrase_or_a_word_of_several_tokens_must_be_held_whole(store: Store) -> None:
    near = put(store, "add", "t.a", "the card token is kept", "2026-01-01")
    put(store, "add", "t.b", "a token for the card", "2026-01-02")  # both words, apart
    joined = put(store, "add", "t.c", "card_token rotation", "2026-01-03")
    alt = put(store, "reject", "t.d", "too slow", "2026-01-04", alternative="cache card-tokens")
    assert set(ids(store, "card_token")) == {joined.id, near.id, alt.id}  # stemmed: tokens
    assert set(ids(store, '"card token" rotation')) == {joined.id, near.id, alt.id}
    assert ids(store, '"card token" rotation')[0] == joined.id
    assert len(ids(store, "card_tok*")) == 3
    assert ids(store, "token_card") == []


def test_one_revert_on_many_entities_is_one_hit_that_lists_them(store: Store) -> None:
    drafts = [
        EventDraft(
            type="revert",
            entity=f"src/pay.py::f{i}",
            reasoning="Revert the payment retry",
            commit="ab" * 20,
            recorded_at="2026-01-01",
        )
        for i in range(4)
    ]
    events = store.append_many(drafts)
    other = put(store, "add", "src/pay.py::g", "payment retry again", "2026-01-02")
    hits = store.search("payment retry")
    assert len(hits) == 2
    (decision,) = [h for h in hits if h.event.id != other.id]
    assert {e.id for e in decision.events} == {e.id for e in events}
    data = decision.to_dict()
    assert sorted(data["ids"]) == sorted(e.id for e in events)
    assert sorted(data["entities"]) == [f"src/pay.py::f{i}" for i in range(4)]
    assert len(store.search("payment retry", limit=1)) == 1


def test_a_redacted_event_is_found_by_its_path_only(cairn_dir: Path) -> None:
    with Store.open(cairn_dir) as store:
        secret = put(store, "add", "secrets.vault", "use the zebra passphrase", "2026-01-01")
        assert ids(store, "zebra vault") == [secret.id]
    redact(cairn_dir, secret.id, "pasted a passphrase")
    with Store.open(cairn_dir) as store:
        assert store.search("zebra") == []
        found = {(h.event.id, h.event.redacted) for h in store.search("secrets vault")}
        assert (secret.id, True) in found


def test_words_in_every_event_fall_back_to_the_rarer_ones_then_to_the_newest(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index_queries, "RARE", 3)
    plain = [put(store, "add", f"t.c{i}", "alpha beta", f"2026-01-{i + 1:02d}") for i in range(5)]
    rare = put(store, "add", "t.r", "alpha gamma", "2026-02-01")
    # "alpha" is in 6 events (common), "gamma" in one: gamma decides.
    assert ids(store, "alpha gamma")[0] == rare.id
    assert ids(store, "alpha gamma") == [rare.id]
    # Both words common: every event holding both, the newest first, scored by how
    # many terms they hold; then those holding one.
    hits = store.search("alpha beta", limit=10)
    assert [h.event.id for h in hits] == [e.id for e in reversed(plain)] + [rare.id]
    assert [h.score for h in hits] == [2.0] * 5 + [1.0]
    # A common phrase with a rare word: the rare word's events that hold the phrase.
    assert ids(store, '"alpha beta" gamma') == []
    both = put(store, "add", "t.b", "gamma, alpha beta", "2026-03-01")
    assert ids(store, '"alpha beta" gamma') == [both.id]


def test_a_query_of_only_stop_words_keeps_them_and_one_without_words_is_refused(
    store: Store,
) -> None:
    event = put(store, "add", "t.x", "what was done", "2026-01-01")
    assert ids(store, "what was") == [event.id]
    with pytest.raises(ValidationError):
        store.search("?? !")


def test_query_terms() -> None:
    terms = parse_query('why did we revert "session cache" card_token* naïve _ card_token the')
    assert [(t.tokens, t.prefix) for t in terms] == [
        (("session", "cache"), False),
        (("revert",), False),
        (("card", "token"), True),
        (("naïve",), False),
        (("card", "token"), False),
    ]
    assert terms[2].match() == '"card token"*'
    assert search_fields("why", None, {"original_subject": "Add X", "x": 1}, "a.b") == (
        "why", "", "Add X", "a.b",
    )  # fmt: skip


_VOCAB = ["alpha", "beta", "gamma", "delta", "al", "alp", "card", "token", "the", "why"]
_word = st.sampled_from(_VOCAB)
_text = st.lists(st.tuples(_word, st.sampled_from([" ", "_", ", "])), max_size=6).map(
    lambda parts: "".join(w + sep for w, sep in parts).strip(" ,_") or "x"
)
_path = st.lists(_word, min_size=2, max_size=3).map(".".join)
_query_word = st.one_of(
    _word, st.tuples(_word, _word).map("_".join), st.sampled_from(["al*", "ga*", "card_to*"])
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    events=st.lists(
        st.tuples(_path, _text, st.one_of(st.just(""), _text)), min_size=1, max_size=25
    ),
    queries=st.lists(st.lists(_query_word, min_size=1, max_size=3).map(" ".join), max_size=6),
    limit=st.integers(1, 30),
    rare=st.sampled_from([2, 1000]),
)
def test_a_written_and_a_rebuilt_index_answer_alike(
    monkeypatch: pytest.MonkeyPatch,
    events: list[tuple[str, str, str]],
    queries: list[str],
    limit: int,
    rare: int,
) -> None:
    monkeypatch.setenv("CAIRN_AUTHOR", "Ada Lovelace <ada@example.org>")
    monkeypatch.setattr(index_queries, "RARE", rare)
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
            store.append_many(drafts)  # indexed as written (`ingest_written`)
            answers = {
                q: [(h.event.id, h.score) for h in store.search(q, limit=limit)] for q in queries
            }
        remove_index(cairn_dir)
        with Store.open(cairn_dir) as store:  # rebuilt from the log (`catch_up`)
            for query, found in answers.items():
                again = [(h.event.id, h.score) for h in store.search(query, limit=limit)]
                assert again == found, query
                assert len(found) <= limit
                scores = [s for _, s in found]
                assert scores == sorted(scores, reverse=True), query
