"""`cairn export html OUT/`: the log as a static site that opens from the file system.

No server, no network: every page is a plain HTML file, and the search runs in the
browser over data the export writes in pieces (`cairn.site.search_files`: scripts,
because browsers refuse `fetch()` of a `file://` URL but do run a `<script src>`),
loaded only when someone searches, and bounded by `SearchLimits`; `search.json` holds
the same data whole, for tools. The front page, the entity list and the tree are paged,
so no page grows with the number of entities. The script and style sheet are
hand-written and copied from `cairn/site_assets/`.

Decision text is untrusted (anyone with write access to the log, or an imported commit
message, wrote it): every string reaches HTML through `esc`, and the browser script
only ever assigns `textContent`, never markup.

Pages are deterministic functions of the log (and of which reviews are due today):
exporting twice writes the same bytes, so a committed site diffs cleanly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path

from cairn.site import entity_list
from cairn.site.entity_page import entity_page
from cairn.site.index_page import index_page
from cairn.site.markup import page_html
from cairn.site.model import Entity, children_of, clip, collect, history_of, session_of
from cairn.site.search_data import DEFAULT_LIMITS, SearchLimits, coverage_note, search_index
from cairn.site.search_files import search_files
from cairn.site.timeline import page_name, section, touched_pages
from cairn.site.tree import tree_pages
from cairn.site.write import MARKER, remember, write_site
from cairn.store import Store
from cairn.store.verify import VerifyReport

__all__ = ["SiteSummary", "export_site", "iter_site"]

ASSETS = Path(__file__).parent.parent / "site_assets"
_CRUMBS = '<p class="crumbs"><a href="index.html">All decisions</a></p>'


@dataclass(frozen=True, slots=True)
class SiteSummary:
    """What `write_site` wrote."""

    out: Path
    entities: int
    events: int
    verified: bool
    remembered: bool = True  # False: the next export will not replace it (see write_site)


def iter_site(
    store: Store,
    report: VerifyReport,
    project: str,
    *,
    today: date | None = None,
    limits: SearchLimits = DEFAULT_LIMITS,
) -> Iterator[tuple[str, str]]:
    """Every file of the site as (relative path, text), one at a time: entity pages are
    rendered as they are written, each loading its entity's events, so the export's
    memory holds one page and the entities' summaries, not the whole site."""
    day = today or datetime.now(timezone.utc).date()
    session = session_of(store)
    entities, links = collect(session, day, limits)
    children = children_of(entities)
    index = search_index(entities, limits)
    text = json.dumps(index, ensure_ascii=False, indent=None)
    note = coverage_note(index)
    listed = [*entities.values()]
    for number, count, page in entity_list.pages(listed):
        if number == 1:
            yield (
                "index.html",
                index_page(project, entities, report, day, (count, page), note, links.decisions),
            )
        else:  # the other entities, a page at a time
            yield entity_list.list_page_name(number), _list_page(project, number, count, page)
    for name, tree in tree_pages(entities, children):
        body = f'{_CRUMBS}<section class="tree" id="tree"><h1>Entity tree</h1>\n{tree}</section>'
        yield name, page_html(f"Entity tree · {project}", project, body, root="")
    for number, count, entries in links.decisions.pages():
        if number > 1:  # the older decisions, a page at a time
            body = _CRUMBS + section(entries, number, count, "", clip)
            yield page_name(number), page_html(f"Decisions · {project}", project, body, root="")
    for name, title, body in touched_pages(links.decisions, clip):
        yield name, page_html(f"{title} · {project}", project, body, root="../")
    yield "search.json", text + "\n"
    del text
    yield from search_files(index)
    del index  # the pieces are written; the structure is not needed any more
    yield MARKER, "This folder was written by `cairn export html`; it replaces it on re-export.\n"
    for entity in entities.values():
        entity.events = history_of(session, entity.path)
        try:
            yield (
                entity.page,
                entity_page(
                    project,
                    entity,
                    entities,
                    links.owner,
                    links.reopened_by,
                    links.redactions,
                    children,
                ),
            )
        finally:
            entity.events = []
    for asset in sorted(ASSETS.iterdir()):
        if asset.suffix in (".css", ".js"):
            yield f"assets/{asset.name}", asset.read_text(encoding="utf-8")


def _list_page(project: str, number: int, count: int, page: list[Entity]) -> str:
    rows = "\n".join(entity_list.row(e) for e in page)
    body = (
        f'{_CRUMBS}<section class="entities"><h1>Entities</h1>'
        f'<p class="summary">Search and filter every entity on '
        f'<a href="index.html#results">the front page</a>.</p>'
        f'<ul class="results">\n{rows}\n</ul>{entity_list.pager_html(number, count)}</section>'
    )
    return page_html(f"Entities · {project}", project, body, root="")


def export_site(
    store: Store,
    report: VerifyReport,
    out: Path,
    cairn_dir: Path,
    project: str,
    *,
    today: date | None = None,
    root: Path | None = None,
) -> SiteSummary:
    """Build and write the site; `SiteError` when `out` cannot be used."""
    pages = 0

    def counted() -> Iterator[tuple[str, str]]:
        nonlocal pages
        for name, text in iter_site(store, report, project, today=today):
            pages += name.startswith("e/")
            yield name, text

    written = write_site(counted(), out, cairn_dir, root)
    return SiteSummary(written, pages, report.events, report.ok, remember(written))
