"""The search index (`.cairn/index.db-search`, `cairn.store.search_index`): no full-text row
is written with an event; each search catches the file up from the log first, starts
it over when the index it was built from is not the current one (a rebuild, a redact),
and two processes catching it up at once index each event once."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.store import EventDraft, Store
from cairn.store.redact import redact
from cairn.store.search_index import SEARCH_NAME, SearchIndex, SearchRows


def _search_meta(cairn_dir: Path) -> dict[str, object]:
    with sqlite3.connect(cairn_dir / SEARCH_NAME) as db:
        return dict(db.execute("SELECT k, v FROM meta"))


def _fts_rows(cairn_dir: Path) -> list[int]:
    """The seqs the search index holds a row for (its docsize table: one row each)."""
    with sqlite3.connect(cairn_dir / SEARCH_NAME) as db:
        return [s for (s,) in db.execute("SELECT id FROM event_fts_docsize ORDER BY id")]


def _found(store: Store, query: str) -> list[str]:
    return [h.event.reasoning for h in store.search(query)]


def test_the_index_holds_no_full_text_table(store: Store, cairn_dir: Path) -> None:
    store.append(EventDraft(type="add", entity="db.users.email", reasoning="login needs it"))
    with sqlite3.connect(cairn_dir / "index.db") as db:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master")]
    assert names and not [n for n in names if "fts" in n]
    assert not (cairn_dir / SEARCH_NAME).exists()  # no search yet: no search index
    assert _found(store, "login") == ["login needs it"]
    assert (cairn_dir / SEARCH_NAME).is_file()


def test_a_search_catches_up_with_events_appended_since_the_last_one(
    store: Store, cairn_dir: Path
) -> None:
    store.append(EventDraft(type="add", entity="db.users.email", reasoning="session cache"))
    assert _found(store, "session cache") == ["session cache"]
    assert _search_meta(cairn_dir)["upto"] == 1
    # Another process appends: this store catches its index up, then the search index.
    with Store.open(cairn_dir) as other:
        other.append(EventDraft(type="revert", entity="db.orders", reasoning="retry storm"))
        other.append(EventDraft(type="add", entity="db.orders.total", reasoning="a new cache"))
    assert _found(store, "retries") == ["retry storm"]
    assert _search_meta(cairn_dir)["upto"] == 3
    assert sorted(_found(store, "cache")) == ["a new cache", "session cache"]
    assert _fts_rows(cairn_dir) == [1, 2, 3]  # each event once


def test_a_rebuilt_index_starts_the_search_index_over(store: Store, cairn_dir: Path) -> None:
    for i in range(3):
        store.append(EventDraft(type="add", entity=f"db.t{i}", reasoning=f"step {i} cache"))
    assert len(_found(store, "cache")) == 3
    before = _search_meta(cairn_dir)["index"]
    store.close()
    Store.rebuild(cairn_dir)
    with Store.open(cairn_dir) as again:
        assert len(_found(again, "cache")) == 3
    assert _search_meta(cairn_dir)["index"] != before
    assert _fts_rows(cairn_dir) == [1, 2, 3]


def test_a_redacted_event_is_not_found_by_the_search_index_built_before(
    store: Store, cairn_dir: Path
) -> None:
    secret = store.append(
        EventDraft(type="add", entity="db.users.email", reasoning="zanzibar quokka credential")
    ).event
    store.append(EventDraft(type="add", entity="db.orders", reasoning="quokka orders kept"))
    assert len(_found(store, "zanzibar")) == 1  # the search index is built and holds it
    store.close()
    redact(cairn_dir, secret.id, "leaked a credential")
    with Store.open(cairn_dir) as after:
        assert _found(after, "zanzibar") == []
        assert _found(after, "quokka") == ["quokka orders kept"]
        # Found by its entity's path alone, as any redacted event is.
        assert any(h.event.id == secret.id for h in after.search("email"))
    for path in cairn_dir.glob(f"{SEARCH_NAME}*"):
        assert b"zanzibar" not in path.read_bytes(), path


def test_a_redacted_log_resets_a_search_index_redact_did_not_scrub(
    store: Store, cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The search index names the index it was built from: one built before the rewrite
    is emptied by the next search even when redact's own scrub of it did not happen."""
    secret = store.append(
        EventDraft(type="add", entity="db.users.email", reasoning="zanzibar credential")
    ).event
    assert len(_found(store, "zanzibar")) == 1
    store.close()
    monkeypatch.setattr("cairn.store.search_index.SearchIndex.scrub", lambda self: None)
    redact(cairn_dir, secret.id, "leaked a credential")
    with Store.open(cairn_dir) as after:
        assert _found(after, "zanzibar") == []
    assert len(_fts_rows(cairn_dir)) == 2  # the event (path words) and the redact record


def test_a_catch_up_that_a_redact_overtook_is_emptied_before_the_search_answers(
    store: Store, cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: a search reads the index's snapshot, a redact rewrites the log, gives
    the index a new generation and empties the search index, then the search's
    catch-up commits text it read before. The search reads the generation again once
    its snapshot is let go, and empties what it wrote there, not at the next search."""
    store.append(EventDraft(type="add", entity="db.users.email", reasoning="zanzibar token"))
    assert len(_found(store, "zanzibar")) == 1
    store.append(EventDraft(type="add", entity="db.orders", reasoning="orders kept"))
    real = SearchIndex.caught_up

    def overtaken(self: SearchIndex, identity: str, upto: int, rows: SearchRows) -> object:
        done = real(self, identity, upto, rows)
        with sqlite3.connect(cairn_dir / "index.db") as other:  # what redact's rebuild does
            other.execute("UPDATE meta SET v = 'after-redact' WHERE k = 'generation'")
        monkeypatch.setattr(SearchIndex, "caught_up", real)
        return done

    monkeypatch.setattr(SearchIndex, "caught_up", overtaken)
    assert _found(store, "orders") == ["orders kept"]
    assert _search_meta(cairn_dir)["index"] == "after-redact"  # built again, from the new one
    assert _fts_rows(cairn_dir) == [1, 2]


def test_a_failed_catch_up_leaves_the_search_index_as_it_was(
    store: Store, cairn_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.append(EventDraft(type="add", entity="db.users.email", reasoning="first cache"))
    assert _found(store, "cache") == ["first cache"]
    store.append_many(
        [EventDraft(type="add", entity=f"db.t{i}", reasoning=f"more cache {i}") for i in range(5)]
    )
    real = type(store.index)._search_rows

    def broken(self: object, after: int, upto: int) -> object:
        for batch in real(self, after, upto):  # type: ignore[arg-type]
            yield batch
            raise KeyboardInterrupt  # killed halfway through the catch-up

    monkeypatch.setattr(type(store.index), "_search_rows", broken)
    with pytest.raises(KeyboardInterrupt):
        store.search("cache")
    assert _search_meta(cairn_dir)["upto"] == 1 and _fts_rows(cairn_dir) == [1]
    monkeypatch.undo()
    assert len(_found(store, "cache")) == 6
    assert _fts_rows(cairn_dir) == list(range(1, 7))


_SEARCHER = """
import json, sys
from cairn.store import Store
with Store.open(sys.argv[1]) as store:
    print(json.dumps([[h.event.id, h.score] for h in store.search("cache retry", limit=30)]))
"""


def test_two_processes_catching_up_at_once_agree_and_index_each_event_once(
    store: Store, cairn_dir: Path
) -> None:
    store.append_many(
        [
            EventDraft(type="add", entity=f"db.t{i % 97}.c{i}", reasoning=f"cache {i} retry")
            for i in range(20_000)
        ]
    )
    assert not (cairn_dir / SEARCH_NAME).exists()
    procs = [
        subprocess.Popen(
            [sys.executable, "-P", "-c", _SEARCHER, str(cairn_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        answers.append(json.loads(out))
    assert answers[0] == answers[1] and len(answers[0]) == 30
    assert _fts_rows(cairn_dir) == list(range(1, 20_001))
    assert [[h.event.id, h.score] for h in store.search("cache retry", limit=30)] == answers[0]


def test_a_deleted_search_index_is_built_again_by_the_next_search(
    store: Store, cairn_dir: Path
) -> None:
    """Deleting `index.db-search` is always safe, even under a process that keeps its store
    open (the language server): its next search opens and builds the new file."""
    store.append(EventDraft(type="add", entity="db.users.email", reasoning="session cache"))
    assert _found(store, "cache") == ["session cache"]
    for path in cairn_dir.glob(f"{SEARCH_NAME}*"):
        path.unlink()
    store.append(EventDraft(type="add", entity="db.orders", reasoning="order cache"))
    assert sorted(_found(store, "cache")) == ["order cache", "session cache"]
    assert _fts_rows(cairn_dir) == [1, 2]
