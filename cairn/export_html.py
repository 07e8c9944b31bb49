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

import hashlib
import html
import json
import os
import re
import shutil
import stat
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.core.commits import commits_of
from cairn.core.present import decisions_and_notes
from cairn.site.timeline import Decisions, page_name, section
from cairn.site_search import ranking_data
from cairn.store import EntityStatus, Event, EventType, Review, Store
from cairn.store.paths import EntityKind, parse
from cairn.store.verify import VerifyReport

if TYPE_CHECKING:
    from cairn.core.session import Session

ASSETS = Path(__file__).parent / "site_assets"
MARKER = ".cairn-site"  # marks a folder this command wrote, so it may replace it
FILTERS = ("reverted", "rejected", "conflict", "reopened", "removed", "due")

__all__ = [
    "FILTERS",
    "SearchLimits",
    "SiteError",
    "SiteSummary",
    "build_site",
    "entity_page_name",
    "iter_site",
    "search_index",
    "write_site",
]


@dataclass(frozen=True, slots=True)
class SearchLimits:
    """How much decision text the search data may hold.

    A browser loads search.js whole before the search works, and a log of a million
    events holds gigabytes of reasoning, so the text is bounded: each entity's open
    verdicts and newest decisions first, a few per entity, each clipped, and a budget
    for the whole site, spent breadth-first (every entity's most telling event before
    any entity's second) over the entities that deserve attention first. What is left
    out stays on the entity pages; the index page says how much the search covers.
    """

    event_chars: int = 300  # one event's reasoning + alternative, clipped
    events_per_entity: int = 6
    budget_chars: int = 4_000_000  # every indexed event's text and author, together


class SiteError(ValueError):
    """The output folder cannot be used; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class SiteSummary:
    """What `write_site` wrote."""

    out: Path
    entities: int
    events: int
    verified: bool
    remembered: bool = True  # False: the next export will not replace it (see write_site)


@dataclass(slots=True)
class _Entity:
    """What the index and the other pages need of an entity. Its events are loaded
    only while its own page is written (a million events do not fit in memory twice)."""

    path: str
    kind: str
    status: EntityStatus
    events: list[Event]
    due: list[Review] = field(default_factory=list)
    page: str = ""
    count: int = 0  # its decisions: notes (`EventType.is_note`) are counted apart
    notes: int = 0
    newest: str = ""  # when its newest event happened
    hits: list[_Hit] = field(default_factory=list)  # its search candidates, clipped
    searchable: int = 0  # events with text or an author (not redacted)
    formerly: tuple[str, ...] = ()  # former paths whose history this entity holds
    file_removed: bool = False  # its file is gone from the working tree


# (type, date, who, text clipped to SearchLimits.event_chars, whether it was clipped)
_Hit = tuple[str, str, str, str, bool]


@dataclass(slots=True)
class _Links:
    """Cross-entity links, from one pass over every event: which entity holds an event,
    which supersede re-opened a verdict, which redact event erased an event."""

    owner: dict[str, _Entity] = field(default_factory=dict)
    decisions: Decisions = field(default_factory=Decisions)
    reopened_by: dict[str, str] = field(default_factory=dict)
    redactions: dict[str, Event] = field(default_factory=dict)


def esc(value: object) -> str:
    """Text for HTML content or a quoted attribute (quotes escaped too)."""
    return html.escape(str(value), quote=True)


def entity_page_name(entity: str) -> str:
    """`e/users.email-1a2b3c4d5e.html`: readable, unique, safe on case-insensitive disks."""
    readable = re.sub(r"[^a-z0-9._-]+", "-", entity.lower()).strip("-.")[:60] or "entity"
    digest = hashlib.sha256(entity.encode("utf-8")).hexdigest()[:10]
    return f"e/{readable}-{digest}.html"


def _when(event: Event) -> str:
    return event.occurred_at or event.recorded_at


def _instant(text: str) -> datetime | None:
    """A timestamp or date from the log as an aware datetime; None when unreadable."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        try:
            moment = datetime.combine(date.fromisoformat(text.strip()[:10]), datetime.min.time())
        except ValueError:
            return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _who(event: Event) -> str:
    author = event.author.split(" <", 1)[0] if event.author else ""
    return author or event.agent


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


# ---------------------------------------------------------------------------- model


def _history(session: Session, path: str) -> list[Event]:
    # under its former paths too: a moved entity's page holds what was decided before
    return sorted(session.history(path), key=lambda e: (_when(e), e.id))


def _session(store: Store) -> Session:
    from cairn.core.session import Session

    return Session.of_store(store)


def _collect(
    session: Session, today: date | None, limits: SearchLimits
) -> tuple[dict[str, _Entity], _Links]:
    """Every entity with what the index, the search and the links need; the events
    themselves are dropped once summarised (pages load them again one at a time).
    Entities are listed as every surface lists them (`cairn.core.listing`)."""
    from cairn.core.listing import current_name, listing

    store = session.store
    due: dict[str, list[Review]] = defaultdict(list)
    for review in store.due_reviews(today=today):
        due[current_name(session, review.event.entity)].append(review)
    out: dict[str, _Entity] = {}
    links = _Links()
    for row in listing(session):
        path, status = row.entity, row.status
        events = _history(session, path)
        if not events:
            continue
        kind = events[-1].entity_kind or _kind(path)
        entity = _Entity(path, kind, status, events, due.get(path, []), entity_page_name(path))
        entity.formerly, entity.file_removed = row.formerly, row.file_removed
        entity.notes = sum(1 for e in events if e.type.is_note)
        entity.count, entity.newest = len(events) - entity.notes, _when(events[-1])
        entity.hits, entity.searchable = _candidates(entity, limits)
        for event in events:
            links.owner[event.id] = entity
            links.decisions.add(event, path, entity.page, _when(event), _who(event))
            if event.type == EventType.SUPERSEDE and event.supersedes:
                links.reopened_by.setdefault(event.supersedes, event.id)
            if event.type == EventType.REDACT and isinstance(event.metadata, dict):
                target = event.metadata.get("redacts")
                if isinstance(target, str):
                    links.redactions[target] = event
        entity.events = []
        out[path] = entity
    # supersede may name a prefix of the verdict's id: resolve to the full id
    for verdict in [v for v in links.reopened_by if v not in links.owner]:
        matches = [i for i in links.owner if i.startswith(verdict)]
        if len(matches) == 1:
            links.reopened_by[matches[0]] = links.reopened_by.pop(verdict)
    return out, links


def _kind(path: str) -> str:
    try:
        return parse(path).kind.value
    except ValueError:
        return ""


def _parent(path: str, kind: str) -> str | None:
    """The entity one level up in the tree: a column's table, a method's class, a
    function's file; None at the top."""
    if "::" in path:
        file, _, name = path.partition("::")
        return f"{file}::{name.rsplit('.', 1)[0]}" if "." in name else file
    if kind == EntityKind.COLUMN.value and "." in path:
        return path.rsplit(".", 1)[0]
    return None


# ---------------------------------------------------------------------------- pages


_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' file:; \
style-src 'self' file:; img-src 'self' data:; base-uri 'none'; form-action 'none'">
<title>{title}</title>
<link rel="stylesheet" href="{root}assets/site.css">
</head>
<body{body_attrs}>
<header class="top"><a class="brand" href="{root}index.html">Cairn · {project}</a></header>
<main>
{main}
</main>
<footer>Generated by <code>cairn export html</code> from <code>.cairn/decisions.jsonl</code>.
</footer>
{scripts}</body>
</html>
"""


def _page(
    title: str, project: str, main: str, *, root: str, scripts: str = "", body: str = ""
) -> str:
    return _PAGE.format(
        title=esc(title),
        project=esc(project),
        main=main,
        root=root,
        scripts=scripts,
        body_attrs=body,
    )


def _badge(status: str) -> str:
    return f'<span class="badge s-{esc(status)}">{esc(status)}</span>'


def _whereabouts(entity: _Entity) -> str:
    """What a reader must know of where the entity is: its file is gone, it was moved."""
    out = ' <span class="badge s-removed">file removed</span>' if entity.file_removed else ""
    if entity.formerly:
        names = ", ".join(f"<code>{esc(f)}</code>" for f in entity.formerly)
        out += f' <span class="formerly">formerly {names}</span>'
    return out


def _counts(entity: _Entity) -> str:
    """`2 decisions` or `2 decisions, 2 notes`."""
    return decisions_and_notes(entity.count, entity.notes)


def _entity_link(entity: _Entity, root: str) -> str:
    return f'<a href="{esc(root + entity.page)}"><code>{esc(entity.path)}</code></a>'


def _event_href(event_id: str, owner: dict[str, _Entity], root: str, here: str) -> str | None:
    """A link to an event: an anchor on this page, or on the page of its entity."""
    target = owner.get(event_id)
    if target is None:
        matches = [i for i in owner if i.startswith(event_id)] if len(event_id) >= 4 else []
        if len(matches) != 1:
            return None
        event_id, target = matches[0], owner[matches[0]]
    if target.path == here:
        return f"#ev-{event_id}"
    return f"{root}{target.page}#ev-{event_id}"


def _index_page(
    project: str,
    entities: dict[str, _Entity],
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
            f"{_entity_link(entity, '')} {_badge(status)}{_whereabouts(entity)}"
            + (' <span class="badge s-due">due</span>' if due else "")
            + f' <span class="count">{_counts(entity)}'
            + '</span><p class="snippet" hidden></p></li>'
        )
    number, count, first = next(decisions.pages())
    main = f"""<h1>Decisions of {esc(project)}</h1>
<p class="lede">{sum(e.count for e in entities.values())} decisions · {len(entities)} entities ·
{sum(e.notes for e in entities.values())} notes · reviews due as of {today.isoformat()} ·
<a href="#tree">entity tree</a></p>
{_integrity(report)}
{section(first, number, count, "", _clip)}
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
    return _page(f"Decisions · {project}", project, main, root="", scripts=scripts)


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


def _tree(entities: dict[str, _Entity], children: dict[str, list[str]]) -> str:
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


def _group(path: str, entities: dict[str, _Entity]) -> str:
    kind = entities[path].kind if path in entities else _kind(path)
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


def _tree_node(path: str, entities: dict[str, _Entity], children: dict[str, list[str]]) -> str:
    entity = entities.get(path)
    label = (
        f"{_entity_link(entity, '')} {_badge(entity.status.status.value)}"
        if entity is not None
        else f'<code class="plain">{esc(path)}</code>'
    )
    kids = children.get(path, [])
    if not kids:
        return f"<li>{label}</li>"
    inner = "".join(_tree_node(k, entities, children) for k in kids)
    return f"<li>{label}<ul>{inner}</ul></li>"


def _entity_page(
    project: str,
    entity: _Entity,
    entities: dict[str, _Entity],
    owner: dict[str, _Entity],
    reopened_by: dict[str, str],
    redactions: dict[str, Event],
    children: dict[str, list[str]],
) -> str:
    root = "../"
    status = entity.status
    parts = [
        f'<p class="crumbs"><a href="{root}index.html">All decisions</a>'
        + _crumbs(entity, entities, root)
        + "</p>",
        f"<h1><code>{esc(entity.path)}</code></h1>",
        f'<p class="lede">{esc(entity.kind or "entity")} · {_badge(status.status.value)}'
        + _whereabouts(entity)
        + (' <span class="badge s-due">review due</span>' if entity.due else "")
        + f" · {_counts(entity)}</p>",
    ]
    if status.open_verdicts:
        items = "".join(
            f'<li><a href="#ev-{esc(v.id)}">{esc(v.type.value)} {esc(_when(v)[:10])}</a>: '
            f"{esc(_clip(v.reasoning, 160)) if v.reasoning else '<em>no reasoning recorded</em>'}"
            "</li>"
            for v in status.open_verdicts
        )
        parts.append(f'<section class="open"><h2>Open verdicts</h2><ul>{items}</ul></section>')
    for review in entity.due:
        parts.append(
            f'<p class="due">⏰ Review due since {esc(review.due or "now")}: '
            f'<a href="#ev-{esc(review.event.id)}">{esc(review.event.type.value)}</a></p>'
        )
    kids = [k for k in children.get(entity.path, [])]
    if kids:
        items = "".join(
            f"<li>{_entity_link(entities[k], root)} {_badge(entities[k].status.status.value)}</li>"
            if k in entities
            else f'<li><code class="plain">{esc(k)}</code></li>'
            for k in kids
        )
        parts.append(f'<section class="children"><h2>Contains</h2><ul>{items}</ul></section>')
    parts.append('<section class="timeline"><h2>Timeline</h2>')
    parts.append(timeline_svg(entity.events, reopened_by))
    parts.append("</section>")
    parts.append('<section class="events"><h2>Events</h2><ol class="events">')
    commits = commits_of(entity.events)  # a decision's own commit, or the one that landed it
    for event in entity.events:
        parts.append(
            _event_html(
                event, owner, reopened_by, redactions, root, entity.path, commits.get(event.id, "")
            )
        )
    parts.append("</ol></section>")
    return _page(entity.path, project, "\n".join(parts), root=root, body=' class="entity"')


def _crumbs(entity: _Entity, entities: dict[str, _Entity], root: str) -> str:
    chain = []
    parent = _parent(entity.path, entity.kind)
    while parent:
        chain.append(parent)
        parent = _parent(parent, entities[parent].kind if parent in entities else _kind(parent))
    out = ""
    for p in reversed(chain):
        target = entities.get(p)
        out += " › " + (
            _entity_link(target, root) if target is not None else f"<code>{esc(p)}</code>"
        )
    return out


def _event_html(
    event: Event,
    owner: dict[str, _Entity],
    reopened_by: dict[str, str],
    redactions: dict[str, Event],
    root: str,
    here: str,
    commit: str = "",
) -> str:
    kind = _category(event, reopened_by)
    who = _who(event)
    head = (
        f'<span class="etype t-{esc(kind)}">{esc(event.type.value)}</span> '
        f'<time datetime="{esc(_when(event))}">{esc(_when(event)[:10])}</time>'
        + (f" · {esc(who)}" if who else "")
        + (f" via {esc(event.agent)}" if event.agent and event.agent != who else "")
        + f' · <code class="id" title="{esc(event.id)}">{esc(event.id[:12])}</code>'
    )
    body: list[str] = []
    if event.redacted:
        note = redactions.get(event.id)
        detail = ""
        if note is not None:
            by = _who(note)
            detail = (
                f" on {esc(_when(note)[:10])}"
                + (f" by {esc(by)}" if by else "")
                + (f": {esc(note.reasoning)}" if note.reasoning else "")
            )
        body.append(f'<p class="redacted">[redacted] Its content was erased{detail}.</p>')
    else:
        if event.reasoning:
            body.append(f'<p class="why">{esc(event.reasoning)}</p>')
        elif event.type.is_verdict or event.type.is_applied:
            body.append('<p class="why none">No reasoning recorded.</p>')
        if event.alternative:
            body.append(f'<p class="alt">Rejected approach: {esc(event.alternative)}</p>')
    links: list[str] = []
    if event.supersedes:
        links.append("Re-opens " + _id_link(event.supersedes, owner, root, here))
    if event.reverts:
        links.append("Undoes " + _id_link(event.reverts, owner, root, here))
    if event.id in reopened_by:
        links.append("Re-opened by " + _id_link(reopened_by[event.id], owner, root, here))
    metadata = event.metadata if isinstance(event.metadata, dict) else {}
    for key, label in (("redacts", "Erased the content of"), ("annotates", "A reason for")):
        target = metadata.get(key)
        if isinstance(target, str) and event.type.value in ("redact", "annotate"):
            links.append(f"{label} " + _id_link(target, owner, root, here))
    commit = commit or event.commit
    if commit:
        links.append(f"Commit <code>{esc(commit[:12])}</code>")
    if event.revisit_after:
        links.append(f"Revisit after {esc(event.revisit_after)}")
    if event.expires_when:
        links.append(f"Expires when {esc(event.expires_when)}")
    adr = metadata.get("adr")
    if isinstance(adr, str):
        links.append(f"Record <code>{esc(adr)}</code>")
    if links:
        body.append('<p class="links">' + " · ".join(links) + "</p>")
    return (
        f'<li id="ev-{esc(event.id)}" class="event c-{esc(kind)}">'
        f'<p class="head">{head}</p>{"".join(body)}</li>'
    )


def _id_link(event_id: str, owner: dict[str, _Entity], root: str, here: str) -> str:
    href = _event_href(event_id, owner, root, here)
    label = f"<code>{esc(event_id[:12])}</code>"
    return f'<a href="{esc(href)}">{label}</a>' if href else label


def _category(event: Event, reopened_by: dict[str, str]) -> str:
    """The timeline lane and colour: applied, removed, reverted, rejected, superseded
    (a verdict someone re-opened), supersede, redact, note (a reason added later)."""
    if event.type.is_verdict:
        if event.id in reopened_by:
            return "superseded"
        return "reverted" if event.type == EventType.REVERT else "rejected"
    if event.type == EventType.SUPERSEDE:
        return "supersede"
    if event.type.is_removal:
        return "removed"
    if event.type == EventType.REDACT:
        return "redact"
    if event.type == EventType.ANNOTATE:
        return "note"
    return "applied"


# ---------------------------------------------------------------------------- timeline

_LANES = (
    ("applied", "applied"),
    ("removed", "removed"),
    ("verdict", "verdicts"),
    ("supersede", "re-opened"),
    ("note", "notes"),
)
_LANE_OF = {
    "applied": "applied",
    "removed": "removed",
    "reverted": "verdict",
    "rejected": "verdict",
    "superseded": "verdict",
    "supersede": "supersede",
    "redact": "removed",
    "note": "note",
}
_WIDTH, _LEFT, _RIGHT, _TOP, _LANE_H = 760, 96, 24, 16, 30


def timeline_svg(events: Iterable[Event], reopened_by: dict[str, str]) -> str:
    """An SVG of an entity's events on a time axis, one lane per kind of event, each
    mark a link to the event below; a supersede is joined to the verdict it re-opened."""
    dated = [(e, _instant(_when(e))) for e in events]
    known = [t for _, t in dated if t is not None]
    notes = any(_category(e, reopened_by) == "note" for e, _ in dated)
    lanes = [lane for lane in _LANES if notes or lane[0] != "note"]
    height = _TOP + _LANE_H * len(lanes) + 34
    if not dated:
        return ""
    start = min(known) if known else None
    end = max(known) if known else None
    span = (end - start).total_seconds() if start and end else 0.0
    inner = _WIDTH - _LEFT - _RIGHT

    def x_of(moment: datetime | None, order: int) -> float:
        if moment is None or start is None or span <= 0:
            return (
                _LEFT + inner / 2 if len(dated) == 1 else _LEFT + inner * order / (len(dated) - 1)
            )
        return _LEFT + inner * (moment - start).total_seconds() / span

    lane_y = {name: _TOP + _LANE_H * i + _LANE_H / 2 for i, (name, _) in enumerate(lanes)}
    out = [
        f'<svg class="timeline" viewBox="0 0 {_WIDTH} '
        f'{height}" width="{_WIDTH}" height="{height}" role="img" '
        f'aria-label="Timeline of {len(dated)} events">'
    ]
    for name, label in lanes:
        y = lane_y[name]
        out.append(
            f'<line class="lane" x1="{_LEFT}" y1="{y:.1f}" x2="{_WIDTH - _RIGHT}" y2="{y:.1f}"/>'
            f'<text class="lane-label" x="8" y="{y + 4:.1f}">{label}</text>'
        )
    axis_y = _TOP + _LANE_H * len(lanes) + 4
    out.append(
        f'<line class="axis" x1="{_LEFT}" y1="{axis_y}" x2="{_WIDTH - _RIGHT}" y2="{axis_y}"/>'
    )
    ticks = _ticks(start, end, inner)
    for i, (tick_x, tick_label) in enumerate(ticks):
        # the outer labels grow inwards so that none is cut at the edge
        anchor = "start" if i == 0 and len(ticks) > 1 else "middle"
        anchor = "end" if i == len(ticks) - 1 and len(ticks) > 1 else anchor
        out.append(
            f'<line class="tick" x1="{tick_x:.1f}" y1="{axis_y}" x2="{tick_x:.1f}" '
            f'y2="{axis_y + 5}"/><text class="tick-label" x="{tick_x:.1f}" y="{axis_y + 18}" '
            f'text-anchor="{anchor}">{esc(tick_label)}</text>'
        )
    where: dict[str, tuple[float, float]] = {}
    used: dict[tuple[str, int], int] = defaultdict(int)
    marks: list[str] = []
    for order, (event, moment) in enumerate(dated):
        category = _category(event, reopened_by)
        lane = _LANE_OF[category]
        x = x_of(moment, order)
        slot = (lane, round(x / 6))
        x += 7 * used[slot]  # events at the same moment sit side by side
        used[slot] += 1
        y = lane_y[lane]
        where[event.id] = (x, y)
        summary = f"{event.type.value} {_when(event)[:10]}"
        if event.redacted:
            summary += ": [redacted]"
        elif event.reasoning:
            summary += ": " + _clip(event.reasoning, 140)
        marks.append(
            f'<a href="#ev-{esc(event.id)}" class="mark m-{category}">'
            f"<title>{esc(summary)}</title>{_shape(category, x, y)}</a>"
        )
    links = []
    for event, _ in dated:
        if event.supersedes and event.supersedes in where and event.id in where:
            (x1, y1), (x2, y2) = where[event.supersedes], where[event.id]
            links.append(
                f'<path class="reopen" d="M{x1:.1f},{y1:.1f} C{x1:.1f},{y2:.1f} '
                f'{x2:.1f},{y1:.1f} {x2:.1f},{y2:.1f}"/>'
            )
    out.extend(links)
    out.extend(marks)
    out.append("</svg>")
    legend = "".join(
        f'<li><svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">'
        f"{_shape(c, 7, 7)}</svg> {label}</li>"
        for c, label in (
            ("applied", "applied"),
            ("removed", "removed"),
            ("reverted", "reverted"),
            ("rejected", "rejected"),
            ("superseded", "superseded verdict"),
            ("supersede", "re-opening"),
        )
    )
    return f'<figure class="timeline">{"".join(out)}<ul class="legend">{legend}</ul></figure>'


def _shape(category: str, x: float, y: float) -> str:
    cls = f'class="shape m-{category}"'
    if category in ("reverted", "superseded"):
        points = [(x - 6, y - 5), (x + 6, y - 5), (x, y + 6)]
        return f'<path {cls} d="{_polygon(points)}"/>'
    if category == "rejected":
        points = [(x, y - 6), (x + 6, y), (x, y + 6), (x - 6, y)]
        return f'<path {cls} d="{_polygon(points)}"/>'
    if category in ("removed", "redact"):
        return f'<rect {cls} x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10"/>'
    return f'<circle {cls} cx="{x:.1f}" cy="{y:.1f}" r="5.5"/>'


def _polygon(points: Iterable[tuple[float, float]]) -> str:
    return "M" + " L".join(f"{px:.1f},{py:.1f}" for px, py in points) + " Z"


def _ticks(start: datetime | None, end: datetime | None, inner: float) -> list[tuple[float, str]]:
    if start is None or end is None:
        return []
    span = (end - start).total_seconds()
    if span <= 0:
        return [(_LEFT + inner / 2, start.date().isoformat())]
    count = 5
    out = []
    for i in range(count):
        moment = start + (end - start) * (i / (count - 1))
        out.append((_LEFT + inner * i / (count - 1), moment.date().isoformat()))
    return out


# ---------------------------------------------------------------------------- search index


def _candidates(entity: _Entity, limits: SearchLimits) -> tuple[list[_Hit], int]:
    """An entity's most telling searchable events (its open verdicts and conflicts,
    what a reader searches for, then the others, newest first), at most
    `limits.events_per_entity`, clipped; and how many searchable events it has.
    Redacted events contribute nothing."""
    flagged = {v.id for v in entity.status.open_verdicts} | {c.id for c in entity.status.conflicts}
    newest_first = entity.events[::-1]
    ordered = [e for e in newest_first if e.id in flagged]
    ordered += [e for e in newest_first if e.id not in flagged]
    out: list[_Hit] = []
    total = 0
    for event in ordered:
        if event.redacted:
            continue
        text = "\n".join(t for t in (event.reasoning, event.alternative) if t)
        who = _who(event)
        if not (text or who):
            continue
        total += 1
        if len(out) < limits.events_per_entity:
            clipped = len(text) > limits.event_chars
            kept = text[: limits.event_chars - 1] + "…" if clipped else text
            out.append((event.type.value, _when(event)[:10], who, kept, clipped))
    return out, total


def _by_priority(entities: Iterable[_Entity]) -> list[_Entity]:
    """Entities a reader looks for first: a verdict, conflict, removal or due review;
    then the most recently active; then by path (sorts are stable)."""
    order = sorted(entities, key=lambda e: e.path)
    order.sort(key=lambda e: e.newest, reverse=True)
    order.sort(key=lambda e: e.status.status.value == "active" and not e.due)
    return order


def search_index(
    entities: dict[str, _Entity], limits: SearchLimits = SearchLimits()
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
            "notes": entity.notes,
            "page": entity.page,
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


# ---------------------------------------------------------------------------- writing


def iter_site(
    store: Store,
    report: VerifyReport,
    project: str,
    *,
    today: date | None = None,
    limits: SearchLimits = SearchLimits(),
) -> Iterator[tuple[str, str]]:
    """Every file of the site as (relative path, text), one at a time: entity pages are
    rendered as they are written, each loading its entity's events, so the export's
    memory holds one page and the entities' summaries, not the whole site."""
    day = today or datetime.now(timezone.utc).date()
    session = _session(store)
    entities, links = _collect(session, day, limits)
    children = _children(entities)
    index = search_index(entities, limits)
    text = json.dumps(index, ensure_ascii=False, indent=None)
    note = coverage_note(index)
    del index  # the text is what is written; the structure is not needed twice
    yield "index.html", _index_page(project, entities, report, day, children, note, links.decisions)
    for number, count, entries in links.decisions.pages():
        if number > 1:  # the older decisions, a page at a time
            body = '<p class="crumbs"><a href="index.html">All decisions</a></p>' + section(
                entries, number, count, "", _clip
            )
            yield page_name(number), _page(f"Decisions · {project}", project, body, root="")
    yield "search.json", text + "\n"
    # `<` escaped so that the data can never close a script element it is inlined in
    yield "search.js", f"window.CAIRN_INDEX = {text.replace('<', chr(92) + 'u003c')};\n"
    del text
    yield MARKER, "This folder was written by `cairn export html`; it replaces it on re-export.\n"
    for entity in entities.values():
        entity.events = _history(session, entity.path)
        try:
            yield (
                entity.page,
                _entity_page(
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
    limits: SearchLimits = SearchLimits(),
) -> dict[str, str]:
    """Every file of the site, relative path -> text (in memory: for tests and tools;
    `export_site` streams `iter_site` instead)."""
    return dict(iter_site(store, report, project, today=today, limits=limits))


def _children(entities: dict[str, _Entity]) -> dict[str, list[str]]:
    """The entity tree: parent path -> child paths ("" holds the tops), including
    parents that have no events of their own (a file whose functions have history)."""
    tree: dict[str, set[str]] = defaultdict(set)
    for path, entity in entities.items():
        node, kind = path, entity.kind
        while True:
            parent = _parent(node, kind)
            if parent is None:
                tree[""].add(node)
                break
            tree[parent].add(node)
            node, kind = parent, entities[parent].kind if parent in entities else _kind(parent)
    return {k: sorted(v) for k, v in tree.items()}


def _records() -> Path:
    """Where this machine remembers the sites it wrote: the user's state folder, which
    no repository can ship (a marker inside the site can be committed by anyone)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "cairn" / "sites"


def _record_path(place: Path) -> Path:
    return _records() / hashlib.sha256(os.fsencode(place)).hexdigest()[:32]


def _identity(info: os.stat_result) -> str:
    # ctime moves when an entry is added to or removed from the folder's top, so a
    # folder someone put a file in after the export is no longer the one we wrote
    return f"{info.st_dev} {info.st_ino} {info.st_ctime_ns}"


def _remember(place: Path) -> bool:
    """Record that this machine's export wrote the folder now at `place` (False when
    the state folder cannot be written: the next export then refuses to replace it)."""
    try:
        info = os.lstat(place)
        record = _record_path(place)
        record.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".site.", dir=record.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"{_identity(info)}\n{os.fsdecode(place)}\n")
        os.replace(tmp, record)
    except OSError:
        return False
    return True


def _written_here(place: Path, info: os.stat_result) -> bool:
    """Did an export on this machine write the folder at `place`, as it is now?"""
    try:
        marker = os.lstat(place / MARKER)
        first, _, named = _record_path(place).read_text(encoding="utf-8").partition("\n")
    except (OSError, UnicodeDecodeError):
        return False
    return (
        stat.S_ISREG(marker.st_mode)
        and first == _identity(info)
        and named.rstrip("\n") == os.fsdecode(place)
    )


def write_site(
    files: Mapping[str, str] | Iterable[tuple[str, str]],
    out: Path,
    cairn_dir: Path,
    root: Path | None = None,
) -> Path:
    """Write the site to `out` whole or not at all: built in a fresh folder beside it,
    then swapped in.

    `out` may be missing, an empty folder, or a folder an export on this machine wrote
    and nobody changed since (remembered outside the project: a `.cairn-site` marker
    alone proves nothing, a cloned repository can ship one). Anything else is refused,
    and so is a link, or a target that is, holds or lies in the project's root, `.git`
    or `.cairn/`: an export never deletes what it did not write.
    """
    from cairn.export import UnsafeTarget, refuse_project_target

    try:
        resolved = refuse_project_target(out, root or cairn_dir.parent, cairn_dir)
    except UnsafeTarget as exc:
        raise SiteError(str(exc)) from None
    parent = resolved.parent
    if not parent.is_dir():
        raise SiteError(f"{parent} does not exist; create it first")
    try:
        before: os.stat_result | None = os.lstat(resolved)
    except FileNotFoundError:
        before = None
    if before is not None and stat.S_ISLNK(before.st_mode):
        raise SiteError(
            f"{out} is a symbolic link; give the folder itself (an export never follows "
            "a link to a folder it then replaces)"
        )
    if before is not None and not stat.S_ISDIR(before.st_mode):
        raise SiteError(f"{out} is a file; give a folder (it is created if missing)")
    replaces = False
    if before is not None:
        with os.scandir(resolved) as entries:
            replaces = any(entries)
    if replaces and before is not None and not _written_here(resolved, before):
        raise SiteError(
            f"{out} is not empty and was not written by `cairn export html` on this machine "
            "(a .cairn-site marker alone is not proof); give a new or empty folder"
        )
    # every file is written inside a folder this call just created (mode 0700, so
    # nobody else can plant a link in it), by names the site makes itself
    staging = Path(tempfile.mkdtemp(prefix=f".{resolved.name}.", dir=parent))
    try:
        for name, text in files.items() if isinstance(files, Mapping) else files:
            if name.startswith("/") or ".." in name.split("/"):
                raise SiteError(f"refusing a site file name outside the site: {name!r}")
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        os.chmod(staging, 0o755)
        old = None
        if before is not None:
            old = Path(tempfile.mkdtemp(prefix=f".{resolved.name}.old.", dir=parent))
            old.rmdir()
            resolved.rename(old)
            moved = os.lstat(old)
            if (moved.st_dev, moved.st_ino) != (before.st_dev, before.st_ino):
                # something swapped the folder between the check and the rename: put
                # back what was moved and delete nothing
                old.rename(resolved)
                raise SiteError(f"{out} changed while the site was written; run the export again")
        staging.rename(resolved)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return resolved


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
    return SiteSummary(written, pages, report.events, report.ok, _remember(written))
