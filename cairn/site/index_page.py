"""The front page: the log's integrity, the newest decisions, and the search and status
filters over the entities, above the first page of the entity list; the entity tree is
one click away (`tree.html`). Nothing on it grows with the number of entities beyond
one list page (`cairn.site.entity_list`) and one timeline page."""

from __future__ import annotations

from datetime import date

from cairn.site.entity_list import pager_html, row
from cairn.site.markup import esc, page_html
from cairn.site.model import Entity, clip
from cairn.site.timeline import Decisions, section
from cairn.store.verify import VerifyReport

__all__ = ["FILTERS", "index_page"]

FILTERS = ("reverted", "rejected", "conflict", "reopened", "removed", "due")


def index_page(
    project: str,
    entities: dict[str, Entity],
    report: VerifyReport,
    today: date,
    first_page: tuple[int, list[Entity]],
    note: str = "",
    decisions: Decisions | None = None,
) -> str:
    decisions = decisions if decisions is not None else Decisions()
    counts = {name: 0 for name in FILTERS}
    for entity in entities.values():
        if entity.status.status.value in counts:
            counts[entity.status.status.value] += 1
        if entity.due:
            counts["due"] += 1
    chips = [
        '<button type="button" class="chip" data-filter="" aria-pressed="true">all '
        f"<span>{len(entities)}</span></button>"
    ]
    for name in FILTERS:
        chips.append(
            f'<button type="button" class="chip" data-filter="{name}" aria-pressed="false">'
            f"{name} <span>{counts[name]}</span></button>"
        )
    pages, listed = first_page
    number, count, first = next(decisions.pages())
    main = f"""<h1>Decisions of {esc(project)}</h1>
<p class="lede">{sum(e.count for e in entities.values())} decisions · {len(entities)} entities ·
{sum(e.notes for e in entities.values())} notes · reviews due as of {today.isoformat()} ·
<a href="tree.html">entity tree</a></p>
{_integrity(report)}
{section(first, number, count, "", clip)}
<section class="finder" aria-label="Search and filter">
<label for="q">Search decisions</label>
<input id="q" type="search" autocomplete="off" spellcheck="false"
 placeholder="a reason, an entity, an author…">
<div class="chips" role="group" aria-label="Filter by status">{"".join(chips)}</div>
{f'<p id="coverage" class="summary">{esc(note)}</p>' if note else ""}
<p id="summary" class="summary" aria-live="polite">{len(entities)} entities</p>
<ul id="results" class="results">
{chr(10).join(row(e) for e in listed)}
</ul>
<button type="button" id="more" class="more" hidden>show more</button>
{pager_html(1, pages)}
</section>"""
    scripts = '<script src="assets/site.js"></script>\n'
    return page_html(f"Decisions · {project}", project, main, root="", scripts=scripts)


def _integrity(report: VerifyReport) -> str:
    if report.ok:
        verdict = (
            f'<p class="ok">✓ The log verifies: {report.events} events, every id recomputes '
            "and every parent is present.</p>"
        )
    else:
        items = "".join(f"<li>{esc(str(p))}</li>" for p in report.problems[:50])
        verdict = (
            f'<p class="bad">✗ The log does not verify: {len(report.problems)} problem(s). '
            f"Run <code>cairn verify</code>.</p><ul>{items}</ul>"
        )
    notices = "".join(f"<li>{esc(str(n))}</li>" for n in report.notices[:20])
    heads = "".join(f"<li><code>{esc(h)}</code></li>" for h in report.heads)
    return f"""<section class="integrity" aria-label="Integrity">
<h2>Integrity</h2>
{verdict}
{f'<ul class="notices">{notices}</ul>' if notices else ""}
<p>Heads of the log (the ids every later event will name as parents):</p>
<ul class="heads">{heads or "<li>none (the log is empty)</li>"}</ul>
</section>"""
