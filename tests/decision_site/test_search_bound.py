"""The decision site's search data is bounded: a log of a million long reasons must not
make search data a browser cannot load. Each entity's open verdicts and newest
decisions come first, each clipped; the whole site has a budget spent breadth-first,
entities with verdicts first; the index page says what the search leaves out.

Built on a real store (append_many) and the real verify; small limits stand in for the
defaults so the test stays quick while still exceeding them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from site_fixtures import read_piece

from cairn.site import SearchLimits, coverage_note, iter_site
from cairn.site.search_files import DOC_SHARD
from cairn.store import EventDraft, Store, init_store
from cairn.store.verify import verify

LONG = "The reasoning runs on for a while because imported commit messages do. " * 30
LIMITS = SearchLimits(event_chars=120, events_per_entity=2, budget_chars=4_000)


def day(n: int) -> str:
    return f"2024-{1 + n // 28:02d}-{1 + n % 28:02d}T10:00:00Z"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """60 plain columns with 4 long decisions each, and one column whose old revert is
    followed by three newer notes-like modifications (it stays reverted)."""
    root = tmp_path_factory.mktemp("bound")
    cairn_dir = init_store(root)
    drafts = []
    for i in range(60):
        for j in range(4):
            drafts.append(
                EventDraft(
                    type="add" if j == 0 else "modify",
                    entity=f"t{i:02d}.c",
                    reasoning=f"plain {i} {j} {LONG}",
                    author="Ann",
                    occurred_at=day(j * 10 + i % 10),
                )
            )
    drafts.append(EventDraft(type="add", entity="users.flag", reasoning="added", author="Bo"))
    drafts.append(
        EventDraft(
            type="revert",
            entity="users.flag",
            reasoning="OLDVERDICT mails bounced",
            author="Bo",
            occurred_at=day(1),
        )
    )
    with Store.open(cairn_dir) as store:
        store.append_many(drafts)
    return root


@pytest.fixture(scope="module")
def files(project: Path) -> dict[str, str]:
    cairn_dir = project / ".cairn"
    report = verify(cairn_dir)
    with Store.open(cairn_dir) as store:
        return dict(iter_site(store, report, "bound", limits=LIMITS))


def indexed(files: dict[str, str]) -> list[dict[str, object]]:
    data = json.loads(files["search.json"])
    return list(data["entities"])


def test_search_text_stays_within_the_budget_and_the_per_event_and_entity_caps(
    files: dict[str, str],
) -> None:
    rows = indexed(files)
    events = [e for r in rows for e in r["events"]]  # type: ignore[union-attr]
    assert sum(len(e["text"]) + len(e["who"]) for e in events) <= LIMITS.budget_chars
    assert all(len(e["text"]) <= LIMITS.event_chars for e in events)
    assert all(len(r["events"]) <= LIMITS.events_per_entity for r in rows)  # type: ignore[arg-type]
    # Unbounded, this log's text is about 500,000 characters, 125 times the budget.
    pieces = [text for name, text in files.items() if name.startswith("search/")]
    assert sum(len(text) for text in pieces) < 12 * LIMITS.budget_chars
    # Every entity stays searchable by its path, even without any text indexed.
    assert len(rows) == 61


def test_an_old_open_verdict_is_indexed_before_newer_decisions(files: dict[str, str]) -> None:
    (row,) = [r for r in indexed(files) if r["path"] == "users.flag"]
    assert row["status"] == "reverted"
    assert row["events"][0]["type"] == "revert"  # type: ignore[index]
    assert "OLDVERDICT" in row["events"][0]["text"]  # type: ignore[index]


def test_budget_is_spent_breadth_first_verdicts_first(files: dict[str, str]) -> None:
    rows = indexed(files)
    counts = [len(r["events"]) for r in rows]  # type: ignore[arg-type]
    # The budget holds about 30 of the 61 entities' first events: no entity gets a
    # second one while others have none, and the reverted entity is among those served.
    assert 0 in counts and max(counts) == 1
    served = {r["path"] for r in rows if r["events"]}
    assert "users.flag" in served


def test_the_index_page_says_what_the_search_leaves_out(files: dict[str, str]) -> None:
    data = json.loads(files["search.json"])
    cov = data["coverage"]
    assert cov["events"] == 242 and 0 < cov["indexed"] < cov["events"]
    note = coverage_note(data)
    assert f"{cov['indexed']:,} of 242 events" in note and "entity's page" in note
    assert 'id="coverage"' in files["index.html"] and "of 242 events" in files["index.html"]


def test_the_search_pieces_hold_what_search_json_holds(files: dict[str, str]) -> None:
    """The browser's pieces are search.json cut up: every entity in the list's order
    with its status and length, each term's weighted count per entity, every stem,
    and each entity's page and shipped texts, so the browser ranks over the same data."""
    data = json.loads(files["search.json"])
    pieces = dict(read_piece(t) for n, t in sorted(files.items()) if n.startswith("search/"))
    meta: Any = pieces.pop("meta")
    rows = data["entities"]
    assert [e[:5] for e in meta["entities"]] == [
        [r["path"], r["status"], int(r["due"]), r["count"], r["len"]] for r in rows
    ]
    assert meta["rank"]["docs"] == len(rows) == 61
    terms = {n: p for n, p in pieces.items() if n.startswith("t-")}
    assert sorted(terms) == meta["shards"]
    weights = data["rank"]["weights"]
    expected = {
        (term, n): sum(w * c for w, c in zip(weights, counts, strict=True))
        for n, r in enumerate(rows)
        for term, counts in r["terms"].items()
    }
    found: dict[tuple[str, int], float] = {}
    stems: dict[str, str] = {}
    for name, piece in terms.items():
        stems.update(piece["stems"])  # type: ignore[index]
        for term, postings in piece["terms"].items():  # type: ignore[index]
            assert name == f"t-{ord(term[0]):x}"
            for k in range(0, len(postings), 2):
                found[(term, postings[k])] = postings[k + 1]
    assert found == expected and stems == data["rank"]["stems"]
    docs = [doc for n, p in sorted(pieces.items()) if n.startswith("d-") for doc in p]  # type: ignore[attr-defined]
    assert len(pieces) == len(terms) + -(-61 // DOC_SHARD)  # the pieces of pages and texts
    assert docs == [
        [r["page"], [[e["type"], e["date"], e["who"], e["text"]] for e in r["events"]]]
        for r in rows
    ]


def test_nothing_left_out_means_no_note(project: Path) -> None:
    cairn_dir = project / ".cairn"
    with Store.open(cairn_dir) as store:
        roomy = SearchLimits(event_chars=10_000, events_per_entity=10, budget_chars=10**7)
        site = dict(iter_site(store, verify(cairn_dir), "bound", limits=roomy))
    data = json.loads(site["search.json"])
    assert data["coverage"]["indexed"] == data["coverage"]["events"] == 242
    assert coverage_note(data) == "" and 'id="coverage"' not in site["index.html"]


def test_pages_stream_one_entity_at_a_time(project: Path) -> None:
    """The export writes page by page: while a page is handed out, no other entity holds
    its events in memory (a million events must not be loaded at once), and the files
    are the ones the in-memory build makes."""
    from cairn.site import build

    cairn_dir = project / ".cairn"
    seen: dict[str, str] = {}
    loaded_elsewhere = []
    real = build.entity_page

    def spy(project_name: str, entity: Any, entities: Any, *rest: Any) -> str:
        loaded_elsewhere.extend(
            e.path for e in entities.values() if e.events and e.path != entity.path
        )
        return real(project_name, entity, entities, *rest)

    with Store.open(cairn_dir) as store:
        report = verify(cairn_dir)
        build.entity_page = spy
        try:
            for name, text in build.iter_site(store, report, "bound", limits=LIMITS):
                seen[name] = text
        finally:
            build.entity_page = real
        assert seen == dict(iter_site(store, report, "bound", limits=LIMITS))
    assert sum(name.startswith("e/") for name in seen) == 61
    assert loaded_elsewhere == []
