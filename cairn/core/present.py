"""Presentation helpers shared by every surface: who, when, short ids, clipped text.

The CLI, the hover card, diagnostics, `cairn check` and the agent tools all print
events; they do it through these so an id, a date or an author reads the same
everywhere. Inputs are the store's `Event` (or anything with its field names).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cairn.store.model import Event

SHORT_ID = 12  # hex characters: unambiguous at a million events (8 was not, reliably)


class _Authored(Protocol):
    @property
    def author(self) -> str | None: ...
    @property
    def agent(self) -> str | None: ...


class _Dated(Protocol):
    @property
    def occurred_at(self) -> str | None: ...
    @property
    def recorded_at(self) -> str | None: ...


def short_id(event_id: object) -> str:
    """An id shortened for display; full ids live in JSON, `code` and `data`."""
    return str(event_id)[:SHORT_ID]


def who(event: _Authored) -> str:
    """The author's name (without `<email>`), else the agent, else ''."""
    author = (event.author or "").split(" <", 1)[0].strip()
    return author or (event.agent or "")


def by(event: _Authored) -> str:
    """` by alice` (or the agent), or nothing."""
    name = who(event)
    return f" by {name}" if name else ""


def when(event: _Dated) -> str:
    """When it happened (`Event.when`: occurred, else recorded) as YYYY-MM-DD."""
    return day(event.occurred_at or event.recorded_at)


def day(value: object) -> str:
    """A date as YYYY-MM-DD from a datetime, a date or an ISO string; '?' when unknown."""
    if value is None or value == "":
        return "?"
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    text = str(value)
    return text[:10] if len(text) >= 10 and text[4] == "-" else text


def clip(text: str | None, limit: int = 160) -> str:
    """One line, at most `limit` characters, cut at a word boundary with an ellipsis."""
    flat = " ".join(str(text or "").split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + "…"


def annotated_id(event: Event) -> str:
    """The id an `annotate` event explains (its `metadata.annotates`), else ''."""
    if str(event.type) != "annotate":
        return ""
    metadata = event.metadata or {}
    target = metadata.get("annotates") if isinstance(metadata, Mapping) else None
    return target if isinstance(target, str) else ""


def split_notes(events: Sequence[Event]) -> tuple[list[Event], dict[str, list[Event]]]:
    """(events that are not notes on another listed event, notes by the id they explain):
    history and hover show a note with its event, not as a decision of its own."""
    ids = {e.id for e in events}
    plain: list[Event] = []
    notes: dict[str, list[Event]] = {}
    for event in events:
        target = annotated_id(event)
        if target and target in ids:
            notes.setdefault(target, []).append(event)
        else:
            plain.append(event)
    return plain, notes


def found_by(event: Event) -> str:
    """` · found by inverse-patch` (how an imported revert was recognised), or nothing."""
    meta = event.metadata
    how = meta.get("found_by")
    if not how:
        return ""
    share = meta.get("share")
    return f" · found by {how}" + (f" ({share})" if share else "")


def history_markdown(entity: str, events: Sequence[Event]) -> str:
    """The full history of an entity, newest first, as Markdown (the editor's history
    view and the agents' `cairn://entity/...` resource)."""
    lines = [f"# History of `{entity}`", ""]
    if not events:
        lines.append("No decisions recorded.")
    plain, notes = split_notes(events)
    for event in sorted(plain, key=lambda e: e.occurred_at or e.recorded_at, reverse=True):
        head = f"## {when(event)} · {event.type}{by(event)} · `{short_id(event.id)}`"
        lines.append(head + found_by(event))
        if event.entity != entity:
            lines.append(f"*on `{event.entity}`*")
        if event.alternative:
            lines.append(f"**Rejected alternative:** {event.alternative}")
        for target, label in ((event.supersedes, "Re-opens"), (event.reverts, "Undoes")):
            if target:
                lines.append(f"**{label}:** `{short_id(target)}`")
        lines += ["", event.reasoning or "*(no reasoning recorded)*", ""]
        for note in notes.get(event.id, ()):
            lines += [f"> **Note** {when(note)}{by(note)} · `{short_id(note.id)}`  ", ""]
            lines += [f"> {line}" if line else ">" for line in note.reasoning.splitlines()]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"
