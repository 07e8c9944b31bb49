"""The search data as the browser loads it: in pieces, each a script, so a page loads
only what a query needs and nothing at all until someone searches or filters.

Browsers refuse `fetch()` of a `file://` URL but do run a `<script src>` added to the
page, so every piece is a script that hands its data to `CAIRN_SHARD(name, data)`
(cairn/site_assets/site.js), and the site still works opened from the disk, offline:

- `search/meta.js`: per entity, in the list's order, what the filters and the ranking
  need (path, status, due, event count, length in tokens, whereabouts), the BM25
  constants and the coverage; loaded on the first search or filter;
- `search/t-<hex>.js`: an inverted index split by a term's first character (its code
  point in hex): each term's postings (entity number, weighted count) and the stems of
  the word forms that start with that character; a query loads the pieces of its words;
- `search/d-<n>.js`: `DOC_SHARD` entities' pages and shipped event texts, loaded for
  the results shown (their links and snippets).

The numbers are the ones `search.json` holds (`cairn.site.search_data`), so the browser
ranks as `cairn search` does; the field weights are applied here, once, to each count.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

__all__ = ["DOC_SHARD", "search_files", "shard_of"]

DOC_SHARD = 25  # entities a `d-<n>.js` piece holds: a query shows 100, scattered


def shard_of(term: str) -> str:
    """The piece a term or word form is in: its first character's code point, in hex."""
    return f"t-{ord(term[0]):x}"


def _script(name: str, data: object) -> str:
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # `<` escaped so that the data can never close a script element
    return f"CAIRN_SHARD({json.dumps(name)},{text.replace('<', chr(92) + 'u003c')});\n"


def _number(value: float) -> float | int:
    return int(value) if value == int(value) else value


def search_files(index: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every piece of the search data as (file name, script text)."""
    rank, rows = index["rank"], index["entities"]
    weights = rank["weights"]
    postings: dict[str, dict[str, list[float | int]]] = defaultdict(dict)
    for number, entity in enumerate(rows):
        for term, counts in entity["terms"].items():
            weighted = sum(w * c for w, c in zip(weights, counts, strict=True))
            postings[shard_of(term)].setdefault(term, []).extend((number, _number(weighted)))
    stems: dict[str, dict[str, str]] = defaultdict(dict)
    for form, stem in rank["stems"].items():
        stems[shard_of(form)][form] = stem
    shards = sorted(set(postings) | set(stems))
    meta = {
        "coverage": index["coverage"],
        "rank": {k: rank[k] for k in ("k1", "b", "stop", "docs", "avglen")},
        "shards": shards,
        "doc_shard": DOC_SHARD,
        "entities": [_meta_row(e) for e in rows],
    }
    yield "search/meta.js", _script("meta", meta)
    for name in shards:
        terms = postings.get(name, {})
        data = {"stems": stems.get(name, {}), "terms": {t: terms[t] for t in sorted(terms)}}
        yield f"search/{name}.js", _script(name, data)
    for start in range(0, len(rows), DOC_SHARD):
        name = f"d-{start // DOC_SHARD}"
        docs = [
            [e["page"], [[h["type"], h["date"], h["who"], h["text"]] for h in e["events"]]]
            for e in rows[start : start + DOC_SHARD]
        ]
        yield f"search/{name}.js", _script(name, docs)


def _meta_row(entity: dict[str, Any]) -> list[object]:
    row: list[object] = [
        entity["path"],
        entity["status"],
        int(entity["due"]),
        entity["count"],
        entity["len"],
    ]
    if entity["file_removed"] or entity["formerly"]:
        row += [int(entity["file_removed"]), entity["formerly"]]
    return row
