"""`cairn export html OUT/`: the log as a static site that opens from the file system.

No server, no network: every page is a plain HTML file, the search runs in the browser
over an index the export writes (`search.json`, and the same data as `search.js`,
because browsers refuse `fetch()` of a `file://` URL but do load a `<script src>`),
bounded by `SearchLimits` so a large log still makes a file a browser can load.
The script and style sheet are hand-written and copied from `cairn/site_assets/`.

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

from cairn.site.entity_page import entity_page
from cairn.site.index_page import index_page
from cairn.site.markup import page_html
from cairn.site.model import children_of, clip, collect, history_of, session_of
from cairn.site.search_data import DEFAULT_LIMITS, SearchLimits, coverage_note, search_index
from cairn.site.timeline import page_name, section
from cairn.site.write import MARKER, remember, write_site
from cairn.store import Store
from cairn.store.verify import VerifyReport

__all__ = ["SiteSummary", "build_site", "export_site", "iter_site"]

ASSETS = Path(__file__).parent.parent / "site_assets"


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
    del index  # the text is what is written; the structure is not needed twice
    yield "index.html", index_page(project, entities, report, day, children, note, links.decisions)
    for number, count, entries in links.decisions.pages():
        if number > 1:  # the older decisions, a page at a time
            body = '<p class="crumbs"><a href="index.html">All decisions</a></p>' + section(
                entries, number, count, "", clip
            )
            yield page_name(number), page_html(f"Decisions · {project}", project, body, root="")
    yield "search.json", text + "\n"
    # `<` escaped so that the data can never close a script element it is inlined in
    yield "search.js", f"window.CAIRN_INDEX = {text.replace('<', chr(92) + 'u003c')};\n"
    del text
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


def build_site(
    store: Store,
    report: VerifyReport,
    project: str,
    *,
    today: date | None = None,
    limits: SearchLimits = DEFAULT_LIMITS,
) -> dict[str, str]:
    """Every file of the site, relative path -> text (in memory: for tests and tools;
    `export_site` streams `iter_site` instead)."""
    return dict(iter_site(store, report, project, today=today, limits=limits))


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
