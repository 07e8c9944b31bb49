"""What the decision site's browser script needs to rank as `cairn search` ranks.

`cairn search` ranks events with FTS5's `bm25` over stemmed words (`cairn.store.
fulltext`). The site has no SQLite, so the export does the tokenizing: SQLite's own
porter tokenizer, run here over an in-memory FTS5 table of the site's documents, gives
each document's stemmed terms with their counts per field, and the stem of every word
the site's text holds. The browser then computes FTS5's BM25 formula with the same
field weights and stop words (cairn/site_assets/site.js, `rank`).

The differences, on purpose (docs/search.md): a site document is an entity (its path
and the text of the events the site ships, `SearchLimits`), not an event; a phrase is
read as words that must all be in the document (no positions are shipped); and a query
word whose form appears nowhere in the site's text is not stemmed (its stem is looked
up, not computed), so it matches only where it is itself a stem.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from cairn.store.fulltext import FIELD_WEIGHTS, FIELDS, STOP_WORDS, search_fields

__all__ = ["ranking_data"]

# FTS5's bm25 constants (fts5_aux.c); the browser uses these, not its own.
K1 = 1.2
B = 0.75


def ranking_data(docs: Sequence[tuple[str, str]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """For documents given as (entity path, its shipped text): the shared ranking data
    (weights, constants, stop words, stems, document count and average length) and,
    per document, its terms' counts per field and its length in tokens."""
    db = sqlite3.connect(":memory:")
    try:
        return _ranking(db, docs)
    finally:
        db.close()


def _ranking(
    db: sqlite3.Connection, docs: Sequence[tuple[str, str]]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    columns = ", ".join(FIELDS)
    db.execute(f"CREATE VIRTUAL TABLE d USING fts5({columns}, tokenize='porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE d_terms USING fts5vocab(d, 'instance')")
    db.executemany(
        f"INSERT INTO d(rowid, {columns}) VALUES (?, ?, ?, ?, ?)",
        ((i, *search_fields(text, None, None, path)) for i, (path, text) in enumerate(docs)),
    )
    field_of = {name: i for i, name in enumerate(FIELDS)}
    counts: list[dict[str, list[int]]] = [{} for _ in docs]
    lengths = [0] * len(docs)
    for term, doc, col in db.execute("SELECT term, doc, col FROM d_terms"):
        tf = counts[doc].setdefault(term, [0] * len(FIELDS))
        tf[field_of[col]] += 1
        lengths[doc] += 1
    shared = {
        "fields": list(FIELDS),
        "weights": list(FIELD_WEIGHTS),
        "k1": K1,
        "b": B,
        "stop": sorted(STOP_WORDS),
        "stems": _stems(db, docs),
        "docs": len(docs),
        "avglen": (sum(lengths) / len(docs)) if docs else 0.0,
    }
    per_doc = [{"terms": terms, "len": n} for terms, n in zip(counts, lengths, strict=True)]
    return shared, per_doc


def _stems(db: sqlite3.Connection, docs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each word form of the documents (folded as unicode61 folds it) whose porter stem
    differs from it -> the stem: how the browser stems a query's words."""
    db.execute("CREATE VIRTUAL TABLE w USING fts5(word, tokenize='unicode61')")
    db.execute("CREATE VIRTUAL TABLE w_terms USING fts5vocab(w, 'row')")
    db.execute("CREATE VIRTUAL TABLE s USING fts5(word, tokenize='porter unicode61')")
    db.execute("CREATE VIRTUAL TABLE s_terms USING fts5vocab(s, 'instance')")
    db.executemany(
        "INSERT INTO w(word) VALUES (?)",
        ((" ".join(search_fields(text, None, None, path)),) for path, text in docs),
    )
    forms = [t for (t,) in db.execute("SELECT term FROM w_terms")]
    db.executemany("INSERT INTO s(rowid, word) VALUES (?, ?)", enumerate(forms))
    out: dict[str, str] = {}
    for stem, doc in db.execute("SELECT term, doc FROM s_terms"):
        if forms[doc] != stem:
            out[forms[doc]] = stem
    return out
