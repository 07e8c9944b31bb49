"""One page per entity: its status, open verdicts, due reviews, children, the chart of
its events, and every event (oldest first) with an anchor and its links to others."""

from __future__ import annotations

from cairn.core.commits import commits_of
from cairn.core.present import decisions_and_notes
from cairn.site.chart import category_of, timeline_svg
from cairn.site.markup import badge, entity_link, esc, page_html, whereabouts
from cairn.site.model import Entity, clip, kind_of, parent_of, when_of, who_of
from cairn.store import Event

__all__ = ["entity_page"]


def _event_href(event_id: str, owner: dict[str, Entity], root: str, here: str) -> str | None:
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


def entity_page(
    project: str,
    entity: Entity,
    entities: dict[str, Entity],
    owner: dict[str, Entity],
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
        f'<p class="lede">{esc(entity.kind or "entity")} · {badge(status.status.value)}'
        + whereabouts(entity)
        + (' <span class="badge s-due">review due</span>' if entity.due else "")
        + f" · {decisions_and_notes(entity.count, entity.notes)}</p>",
    ]
    if status.open_verdicts:
        items = "".join(
            f'<li><a href="#ev-{esc(v.id)}">{esc(v.type.value)} {esc(when_of(v)[:10])}</a>: '
            f"{esc(clip(v.reasoning, 160)) if v.reasoning else '<em>no reasoning recorded</em>'}"
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
            f"<li>{entity_link(entities[k], root)} {badge(entities[k].status.status.value)}</li>"
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
    return page_html(entity.path, project, "\n".join(parts), root=root, body=' class="entity"')


def _crumbs(entity: Entity, entities: dict[str, Entity], root: str) -> str:
    chain = []
    parent = parent_of(entity.path, entity.kind)
    while parent:
        chain.append(parent)
        parent = parent_of(parent, entities[parent].kind if parent in entities else kind_of(parent))
    out = ""
    for p in reversed(chain):
        target = entities.get(p)
        out += " › " + (
            entity_link(target, root) if target is not None else f"<code>{esc(p)}</code>"
        )
    return out


def _event_html(
    event: Event,
    owner: dict[str, Entity],
    reopened_by: dict[str, str],
    redactions: dict[str, Event],
    root: str,
    here: str,
    commit: str = "",
) -> str:
    kind = category_of(event, reopened_by)
    who = who_of(event)
    head = (
        f'<span class="etype t-{esc(kind)}">{esc(event.type.value)}</span> '
        f'<time datetime="{esc(when_of(event))}">{esc(when_of(event)[:10])}</time>'
        + (f" · {esc(who)}" if who else "")
        + (f" via {esc(event.agent)}" if event.agent and event.agent != who else "")
        + f' · <code class="id" title="{esc(event.id)}">{esc(event.id[:12])}</code>'
    )
    body: list[str] = []
    if event.redacted:
        note = redactions.get(event.id)
        detail = ""
        if note is not None:
            by = who_of(note)
            detail = (
                f" on {esc(when_of(note)[:10])}"
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


def _id_link(event_id: str, owner: dict[str, Entity], root: str, here: str) -> str:
    href = _event_href(event_id, owner, root, here)
    label = f"<code>{esc(event_id[:12])}</code>"
    return f'<a href="{esc(href)}">{label}</a>' if href else label
