"""The entity list, paged as the timeline is: the front page holds the first `PAGE`
entities under the search box, `entities-2.html`, `entities-3.html`... the rest, so the
front page stays small however many entities the log holds. The search and the status
filters run over every entity (`search/meta.js`), not over the page's rows."""

from __future__ import annotations

from collections.abc import Iterator

from cairn.core.present import plural
from cairn.site.markup import badge, entity_link, esc, pager, whereabouts
from cairn.site.model import Entity

__all__ = ["PAGE", "list_page_name", "pager_html", "pages", "row"]

PAGE = 100  # entities a list page shows


def list_page_name(number: int) -> str:
    """The file of entity-list page `number` (1 is the front page's own)."""
    return "index.html" if number == 1 else f"entities-{number}.html"


def row(entity: Entity) -> str:
    """One entity as a list row: a link, its status, where it went, its decision count
    (the browser script builds the same row for a search result; notes are counted on
    the entity's page)."""
    status = entity.status.status.value
    return (
        f'<li class="row" data-path="{esc(entity.path)}" data-status="{esc(status)}"'
        f' data-due="{"1" if entity.due else "0"}">'
        f"{entity_link(entity, '')} {badge(status)}"
        + whereabouts(entity)
        + (' <span class="badge s-due">due</span>' if entity.due else "")
        + f' <span class="count">{plural(entity.count, "decision")}'
        + '</span><p class="snippet" hidden></p></li>'
    )


def pages(entities: list[Entity]) -> Iterator[tuple[int, int, list[Entity]]]:
    """(page number, page count, entities) for every page, the front page first."""
    count = max(1, -(-len(entities) // PAGE))
    for number in range(1, count + 1):
        yield number, count, entities[(number - 1) * PAGE : number * PAGE]


def pager_html(number: int, count: int) -> str:
    return pager(number, count, "", list_page_name, ("previous", "next"), ' id="entity-pager"')
