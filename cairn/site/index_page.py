"""The front page: the log's integrity, the newest decisions, the search and status
filters over the entity list, and the entity tree."""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from cairn.site.markup import badge, entity_link, esc, page_html, whereabouts
from cairn.site.model import Entity, clip, kind_of
from cairn.site.timeline import Decisions, section
from cairn.store.paths import EntityKind
from cairn.store.verify import VerifyReport

__all__ = ["FILTERS", "index_page"]

FILTERS = ("reverted", "rejected", "conflict", "reopened", "removed", "due")


def index_page(
    project: str,
    entities: dict[str, Entity],
    report: VerifyReport,
    today: date,
    children: dict[str, list[str]],
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
    rows = []
    for entity in entities.values():
        status = entity.status.status.value
        due = " due" if entity.due else ""
        rows.append(
            f'<li class="row" data-path="{esc(entity.path)}" data-status="{esc(status)}"'
            f' data-due="{"1" if entity.due else "0"}">'
            f"{entity_link(entity, '')} {badge(status)}{whereabouts(entity)}"
            + (' <span class="badge s-due">due</span>' if due else "")
            + f' <span class="count">{entity.count} event'
            + ("" if entity.count == 1 else "s")
            + '</span><p class="snippet" hidden></p></li>'
        )
    number, count, first = next(decisions.pages())
    main = f"""<h1>Decisions of {esc(project)}</h1>
<p class="lede">{len(decisions)} decisions · {len(entities)} entities ·
{sum(e.count for e in entities.values())} events · reviews due as of {today.isoformat()} ·
<a href="#tree">entity tree</a></p>
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
{chr(10).join(rows)}
</ul>
</section>
<section class="tree" id="tree" aria-label="Entity tree">
<h2>Entity tree</h2>
{_tree(entities, children)}
</section>"""
    scripts = '<script src="search.js"></script>\n<script src="assets/site.js"></script>\n'
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


def _tree(entities: dict[str, Entity], children: dict[str, list[str]]) -> str:
    """Tables with their columns, files with their functions, then the rest, nested."""
    groups: dict[str, list[str]] = defaultdict(list)
    for top in children.get("", []):
        groups[_group(top, entities)].append(top)
    parts = []
    for title in ("Tables", "Files", "Routes", "Dependencies", "Environment", "Other"):
        if groups.get(title):
            items = "".join(_tree_node(p, entities, children) for p in groups[title])
            parts.append(f"<h3>{title}</h3><ul>{items}</ul>")
    return "\n".join(parts) or "<p>No entities.</p>"


def _group(path: str, entities: dict[str, Entity]) -> str:
    kind = entities[path].kind if path in entities else kind_of(path)
    if kind in (EntityKind.TABLE.value, EntityKind.COLUMN.value):
        return "Tables"
    if kind == EntityKind.ROUTE.value:
        return "Routes"
    if kind == EntityKind.DEPENDENCY.value:
        return "Dependencies"
    if kind == EntityKind.ENV.value:
        return "Environment"
    if kind == EntityKind.FILE.value or "::" in path:
        return "Files"
    return "Other"


def _tree_node(path: str, entities: dict[str, Entity], children: dict[str, list[str]]) -> str:
    entity = entities.get(path)
    label = (
        f"{entity_link(entity, '')} {badge(entity.status.status.value)}"
        if entity is not None
        else f'<code class="plain">{esc(path)}</code>'
    )
    kids = children.get(path, [])
    if not kids:
        return f"<li>{label}</li>"
    inner = "".join(_tree_node(k, entities, children) for k in kids)
    return f"<li>{label}<ul>{inner}</ul></li>"
