"""What the browser searches, bounded (`SearchLimits`): every entity's path, kind and
status, and the text of its most telling events, with the ranking data that lets the
browser rank as `cairn search` does (`cairn.site_search`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cairn.site_search import ranking_data

if TYPE_CHECKING:
    from cairn.site.model import Entity

__all__ = ["DEFAULT_LIMITS", "SearchLimits", "coverage_note", "search_index"]


@dataclass(frozen=True, slots=True)
class SearchLimits:
    """How much decision text the search data may hold.

    A search loads every entity's record and the pieces of its words (`search_files`),
    and a log of a million events holds gigabytes of reasoning, so the text is bounded:
    each entity's open verdicts and newest decisions first, a few per entity, each
    clipped, and a budget for the whole site, spent breadth-first (every entity's most
    telling event before any entity's second) over the entities that deserve attention
    first. What is left out stays on the entity pages; the index page says how much
    the search covers.
    """

    event_chars: int = 300  # one event's reasoning + alternative, clipped
    events_per_entity: int = 6
    budget_chars: int = 4_000_000  # every indexed event's text and author, together


DEFAULT_LIMITS = SearchLimits()


def _by_priority(entities: Iterable[Entity]) -> list[Entity]:
    """Entities a reader looks for first: a verdict, conflict, removal or due review;
    then the most recently active; then by path (sorts are stable)."""
    order = sorted(entities, key=lambda e: e.path)
    order.sort(key=lambda e: e.newest, reverse=True)
    order.sort(key=lambda e: e.status.status.value == "active" and not e.due)
    return order


def search_index(
    entities: dict[str, Entity], limits: SearchLimits = DEFAULT_LIMITS
) -> dict[str, Any]:
    """What the browser searches: every entity's path, kind and status, and the text of
    its most telling events within `limits` (see `SearchLimits`)."""
    chosen: dict[str, list[dict[str, str]]] = {path: [] for path in entities}
    order = _by_priority(entities.values())
    spent, clipped, full = 0, 0, False
    for rank in range(limits.events_per_entity):
        for entity in order:
            if rank >= len(entity.hits):
                continue
            kind, day, who, text, cut = entity.hits[rank]
            cost = len(text) + len(who)
            if spent + cost > limits.budget_chars:
                full = True
                break
            spent += cost
            clipped += cut
            chosen[entity.path].append({"type": kind, "date": day, "who": who, "text": text})
        if full:
            break
    rows = [
        {
            "path": entity.path,
            "kind": entity.kind,
            "status": entity.status.status.value,
            "due": bool(entity.due),
            "count": entity.count,
            "page": entity.page,
            "file_removed": entity.file_removed,
            "formerly": list(entity.formerly),
            "events": chosen[entity.path],
        }
        for entity in entities.values()
    ]
    # Ranked in the browser as `cairn search` ranks (`cairn.site_search`), over the
    # text shipped here.
    shared, per_doc = ranking_data([(p, "\n".join(e["text"] for e in chosen[p])) for p in entities])
    for row, doc in zip(rows, per_doc, strict=True):
        row.update(doc)
    searchable = sum(e.searchable for e in entities.values())
    indexed = sum(len(c) for c in chosen.values())
    coverage = {"events": searchable, "indexed": indexed, "clipped": clipped, "chars": spent}
    return {
        "version": 3,
        "limits": _limits_json(limits),
        "coverage": coverage,
        "rank": shared,
        "entities": rows,
    }


def _limits_json(limits: SearchLimits) -> dict[str, int]:
    return {
        "event_chars": limits.event_chars,
        "events_per_entity": limits.events_per_entity,
        "budget_chars": limits.budget_chars,
    }


def coverage_note(index: dict[str, Any]) -> str:
    """The index page's sentence on what the search leaves out ("" when nothing)."""
    cov, lim = index["coverage"], index["limits"]
    if cov["indexed"] == cov["events"] and not cov["clipped"]:
        return ""
    parts = [
        f"Search covers the reasons of {cov['indexed']:,} of {cov['events']:,} events: each "
        f"entity's open verdicts and newest decisions first, at most "
        f"{lim['events_per_entity']} per entity and {lim['event_chars']:,} characters each"
    ]
    if cov["indexed"] < cov["events"]:
        parts.append(
            f", entities with verdicts, removals or due reviews first, within "
            f"{lim['budget_chars']:,} characters for the whole site"
        )
    parts.append(
        ", so that the search data stays small enough for a browser to load. Entity "
        "paths are all searchable, and every decision is on its entity's page."
    )
    return "".join(parts)
