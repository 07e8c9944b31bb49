"""Markdown for hovers and code lenses: pure functions of store data (the history view's
is `cairn.core.present.history_markdown`, shared with the agents).

Cards stay short (at most `MAX_LINES` lines): the open verdicts first, because they
are what the reader must not miss, then re-openings, due reviews, a table's column
rollup, the newest decisions, and a link to the full history.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from cairn.core.present import annotated_id, by, clip, day, found_by, short_id, when

if TYPE_CHECKING:
    from cairn.store.model import EntityStatus, Event, Status

MAX_LINES = 15
MAX_VERDICTS = 3
MAX_NEWEST = 2
VERDICT_LABEL = {"revert": "Reverted", "reject": "Rejected"}


def command_link(label: str, command: str, arguments: dict[str, Any]) -> str:
    """A markdown link that runs a command in editors that trust the server's markdown."""
    payload = quote(json.dumps([arguments], separators=(",", ":")))
    return f"[{label}](command:{command}?{payload})"


def hover_markdown(entity: str, status: EntityStatus, newest: Sequence[Event] = ()) -> str:
    """The hover card for one entity."""
    state = status.status.value
    count = status.event_count
    noun = "decision" if count == 1 else "decisions"
    if count:
        lines = [f"**`{entity}`** · {state} · {count} {noun}"]
    else:  # a table known only through its columns' decisions
        lines = [f"**`{entity}`** · no decisions of its own"]
    lines[0] += formerly_note(status)
    verdicts = status.open_verdicts
    conflicts = status.conflicts
    notes: dict[str, list[Event]] = {}  # notes (`cairn annotate`) shown with their event
    for event in newest:
        if annotated_id(event):
            notes.setdefault(annotated_id(event), []).append(event)
    newest = [e for e in newest if not annotated_id(e)]
    for verdict in verdicts[:MAX_VERDICTS]:
        lines.extend(_verdict_lines(verdict, entity))
        lines.extend(
            f"> *Note{by(n)}:* {clip(n.reasoning, 160)}" for n in notes.get(verdict.id, ())
        )
    if len(verdicts) > MAX_VERDICTS:
        lines.append(f"*…and {len(verdicts) - MAX_VERDICTS} more open verdicts*")
    for change in conflicts[:1]:
        lines.append(
            f"⚠ **Re-applied without supersede** {when(change)}{by(change)} · "
            f"`{short_id(change.id)}`"
        )
    reopened = status.reopened
    history = {"entity": entity}
    for verdict_id, reopener in list(reopened.items())[:2]:
        lines.append(
            f"↺ `{short_id(verdict_id)}` re-opened by "
            + command_link(f"`{short_id(reopener)}`", "cairn.history", history)
        )
    for review in status.due_reviews[:1]:
        event = review.event
        due = review.due or event.revisit_after
        since = f" since {day(due)}" if due else ""
        reason = clip(review.detail or event.reasoning, 100)
        lines.append(f"⏰ **Review due**{since}: {reason}")
    rollup = status.rollup
    if rollup:
        lines.append(rollup_line(entity, rollup))
    shown = {v.id for v in verdicts} | {c.id for c in conflicts}
    for event in [e for e in newest if e.id not in shown][:MAX_NEWEST]:
        reason = clip(event.reasoning, 90) if event.reasoning else ""
        for n in notes.get(event.id, ())[-1:]:
            reason += f" · *note:* {clip(n.reasoning, 90)}"
        lines.append(
            f"- {when(event)} **{event.type}**{by(event)}" + (f": {reason}" if reason else "")
        )
    blocks = _paragraphs(lines)
    link = command_link("Full history", "cairn.history", history)
    # The budget counts what the editor shows, blank lines between blocks included;
    # the least important blocks (newest decisions, then rollup, reviews…) go first.
    while len(blocks) > 1 and _height([*blocks, link]) > MAX_LINES:
        blocks.pop()
    return "\n\n".join([*blocks, link])


def quiet_hover_markdown(entity: str, status: EntityStatus, newest: Sequence[Event] = ()) -> str:
    """The one-line card of an entity whose history deserves no attention (the quiet
    rule, `cairn.core.attention`): what it is and its newest decision, nothing more."""
    count = status.event_count
    noun = "decision" if count == 1 else "decisions"
    line = f"**`{entity}`** · {status.status.value} · {count} {noun}"
    line += formerly_note(status)
    if newest:
        event = newest[0]
        reason = f": {clip(event.reasoning, 80)}" if event.reasoning else ""
        line += f" · {when(event)} {event.type}{by(event)}{reason}"
    return line + " · " + command_link("history", "cairn.history", {"entity": entity})


def formerly_note(status: EntityStatus) -> str:
    """` · formerly `src/auth.py::login`` when the history came with a rename, else ""."""
    formerly = status.formerly
    if not formerly:
        return ""
    more = f" (+{len(formerly) - 2} more)" if len(formerly) > 2 else ""
    return " · formerly " + ", ".join(f"`{f}`" for f in formerly[:2]) + more


def no_decisions_markdown(entity: str) -> str:
    """The card for an entity without history (only when the setting asks for it)."""
    log = command_link("Log one", "cairn.log", {"entity": entity, "type": "modify"})
    return f"**`{entity}`** · no decisions yet · {log}"


def rollup_line(entity: str, rollup: dict[str, Status]) -> str:
    """`Columns: 1 reverted (email_verified) · 4 active` for a table."""
    counts = Counter(s.value for s in rollup.values())
    parts = []
    for state in ("reverted", "rejected", "conflict", "reopened", "removed", "active"):
        if not counts.get(state):
            continue
        names = [k.removeprefix(entity + ".") for k, s in rollup.items() if s.value == state]
        detail = f" ({', '.join(names[:3])}{'…' if len(names) > 3 else ''})"
        parts.append(f"{counts[state]} {state}" + (detail if state != "active" else ""))
    return "Columns: " + (" · ".join(parts) if parts else "no decisions")


def lens_title(status: EntityStatus) -> str:
    """`3 decisions · reverted 2026-04-02` (the newest open verdict, else the status)."""
    count = status.event_count
    title = f"{count} decision" + ("" if count == 1 else "s")
    verdicts = status.open_verdicts
    if verdicts:
        newest = max(verdicts, key=lambda e: e.occurred_at or e.recorded_at)
        label = "reverted" if str(newest.type) == "revert" else "rejected"
        title += f" · {label} {when(newest)}"
    elif status.status.value not in ("active", "unknown"):
        title += f" · {status.status.value}"
    return title


def _verdict_lines(verdict: Event, entity: str = "") -> list[str]:
    label = VERDICT_LABEL.get(str(verdict.type), str(verdict.type))
    if str(verdict.type) == "reject" and entity:
        # The entity is what was rejected (and what the gate blocks): say so in words.
        label = f"{entity} was rejected"
    alternative = f" *{clip(verdict.alternative, 60)}*" if verdict.alternative else ""
    head = f"⛔ **{label}**{alternative} {when(verdict)}{by(verdict)} · `{short_id(verdict.id)}`"
    head += found_by(verdict)
    reason = clip(verdict.reasoning, 200) if verdict.reasoning else "*(no reasoning recorded)*"
    return [head, f"> {reason}"]


def _height(blocks: list[str]) -> int:
    """Lines of markdown the blocks take, joined by blank lines."""
    return sum(b.count("\n") + 1 for b in blocks) + len(blocks) - 1


def _paragraphs(lines: list[str]) -> list[str]:
    """Join a verdict's quote to its heading so the card reads as one block each."""
    out: list[str] = []
    for line in lines:
        if line.startswith("> ") and out:
            out[-1] = out[-1] + "  \n" + line[2:]
        else:
            out.append(line)
    return out
