"""Presentation shared by every surface: who, when, short ids, clipped text, and the
cards (hover, code lens, history) the editor shows and `cairn show` prints.

The CLI, the hover card, diagnostics, `cairn check` and the agent tools all print
events; they do it through these so an id, a date or an author reads the same
everywhere. Inputs are the store's `Event` (or anything with its field names).

Cards stay short (at most `MAX_LINES` lines): the open verdicts first, because they
are what the reader must not miss, then re-openings, due reviews, a table's column
rollup, the newest decisions, and a link to the full history.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import quote

from cairn.core.commits import commits_of, linked_commit

if TYPE_CHECKING:
    from cairn.store.model import EntityStatus, Event, SearchHit, Status

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


def logged(event: Event, replayed: bool, *, sep: str = " ") -> tuple[str, str]:
    """A write's one-line report, around the new event's own words: what was done
    ("logged", or "already logged" for a retry its key answered) and what follows its
    id (the verdict it re-opens, the change it reverts; `sep` before each)."""
    links = f"{sep}(re-opens {short_id(event.supersedes)})" if event.supersedes else ""
    if event.reverts:
        links += f"{sep}(reverts {short_id(event.reverts)})"
    return ("already logged" if replayed else "logged"), links


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


def more_entities(hit: SearchHit) -> str:
    """What a search hit on one decision's several entities adds to its first entity."""
    more = len(hit.others)
    return f" (+{plural(more, 'more entity', 'more entities')})" if more else ""


def plural(count: int, noun: str, many: str = "") -> str:
    """`1 decision`, `2 decisions`, `0 entities` (with `many` for irregular nouns)."""
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def count_label(status: EntityStatus) -> str:
    """`2 decisions`, or `2 decisions, 2 notes` when notes (`EventType.is_note`: later
    reasons, commit links, redactions) were written on them: what `status`, `ls` and the
    agents' tools say. The hover card and the lens show the decisions alone; the quiet
    rule counts them alone too (`cairn.core.attention`)."""
    return decisions_and_notes(status.decision_count, status.note_count)


def decisions_and_notes(decisions: int, notes: int) -> str:
    """`count_label` of two counts (the site counts an entity's events itself)."""
    return plural(decisions, "decision") + (f", {plural(notes, 'note')}" if notes else "")


def sentence(text: str) -> str:
    """`text` ending in one full stop: none added after `.`, `!`, `?` or a clipped `…`
    (which read `the….` before)."""
    return text if text.endswith((".", "!", "?", "…")) else text + "."


_COMMAND_LINK = re.compile(r"(?<!\\)\[([^\]]*)\]\(command:[^)]*\)")
_MD_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain_links(markdown: str) -> str:
    """Markdown with each editor command link (`[Full history](command:…)`) reduced to
    its label and stored text unescaped, for a terminal, where nothing is rendered."""
    return _MD_ESCAPED.sub(r"\1", _COMMAND_LINK.sub(r"\1", markdown))


# --- stored text inside Markdown ----------------------------------------------------------
# Reasons, authors, alternatives and imported names are written by anyone who can
# commit to the log (or a migration file, an ADR, a commit message). Rendered raw, a
# reason can plant `[Full history](command:cairn.supersede?…)` beside Cairn's own link,
# an `<img onerror>` or a heading. Every stored string goes into Markdown through these
# two, so links and markup appear only where Cairn makes them.

# Characters that open or close an inline construct, plus the `:` of `https://` and
# the `.` of `www.` (GFM autolinks). Backslash escapes work for any ASCII punctuation.
# `_` between two letters or digits cannot start or end emphasis (CommonMark), so
# `email_verified` stays as it is written.
_MD_INLINE = re.compile(
    r"[\\`*\[\]()<>#!|~&]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|:(?=//)|(?<=www)\."
)
# Block markers a line can start with: lists (`-`, `+`, `1.`) and setext underlines (`=`).
_MD_LINE_START = re.compile(r"^([ \t]*)([-+=]|\d+(?=\.))", re.MULTILINE)


def md_text(value: object) -> str:
    """`value` as inert Markdown text: it renders as the characters it holds."""
    text = _MD_INLINE.sub(lambda m: "\\" + m.group(), str(value))

    def line_start(m: re.Match[str]) -> str:
        marker = m.group(2)
        # `1.` stays a number: its full stop is what would make the list
        return m.group(1) + (marker + "\\" if marker[0].isdigit() else "\\" + marker)

    return _MD_LINE_START.sub(line_start, text)


def md_code(value: object) -> str:
    """`value` as one inline code span whose fence no backtick inside it can close."""
    text = " ".join(str(value).splitlines())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


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


# --- cards: hover, code lens, history ----------------------------------------------------

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
    count = status.decision_count
    if count:
        lines = [f"**{md_code(entity)}** · {state} · {plural(count, 'decision')}"]
    else:  # a table known only through its columns' decisions
        lines = [f"**{md_code(entity)}** · no decisions of its own"]
    lines[0] += formerly_note(status)
    verdicts = status.open_verdicts
    conflicts = status.conflicts
    notes: dict[str, list[Event]] = {}  # notes (`cairn annotate`) shown with their event
    commits = commits_of(newest)  # commit links are shown as the commit, not as a note
    for event in newest:
        if annotated_id(event) and not linked_commit(event):
            notes.setdefault(annotated_id(event), []).append(event)
    newest = [e for e in newest if not annotated_id(e)]
    for verdict in verdicts[:MAX_VERDICTS]:
        lines.extend(_verdict_lines(verdict, entity, commits.get(verdict.id, "")))
        lines.extend(
            f"> *Note{_md_by(n)}:* {md_text(clip(n.reasoning, 160))}"
            for n in notes.get(verdict.id, ())
        )
    if len(verdicts) > MAX_VERDICTS:
        lines.append(f"*…and {len(verdicts) - MAX_VERDICTS} more open verdicts*")
    for change in conflicts[:1]:
        lines.append(
            f"⚠ **Re-applied without supersede** {_md_when(change)}{_md_by(change)} · "
            f"{_md_id(change.id)}"
        )
    reopened = status.reopened
    history = {"entity": entity}
    for verdict_id, reopener in list(reopened.items())[:2]:
        lines.append(
            f"↺ {_md_id(verdict_id)} re-opened by "
            + command_link(_md_id(reopener), "cairn.history", history)
        )
    for review in status.due_reviews[:1]:
        event = review.event
        due = review.due or event.revisit_after
        since = f" since {md_text(day(due))}" if due else ""
        reason = md_text(clip(review.detail or event.reasoning, 100))
        lines.append(f"⏰ **Review due**{since}: {reason}")
    rollup = status.rollup
    if rollup:
        lines.append(rollup_line(entity, rollup))
    shown = {v.id for v in verdicts} | {c.id for c in conflicts}
    for event in [e for e in newest if e.id not in shown][:MAX_NEWEST]:
        reason = md_text(clip(event.reasoning, 90)) if event.reasoning else ""
        for n in notes.get(event.id, ())[-1:]:
            reason += f" · *note:* {md_text(clip(n.reasoning, 90))}"
        commit = commit_note(commits.get(event.id))
        lines.append(
            f"- {_md_when(event)} **{event.type}**{_md_by(event)}{commit}"
            + (f": {reason}" if reason else "")
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
    count = status.decision_count
    line = f"**{md_code(entity)}** · {status.status.value} · {plural(count, 'decision')}"
    line += formerly_note(status)
    # A commit link is written after every commit: it is the newest event, not a decision.
    decisions = [e for e in newest if not linked_commit(e)]
    if decisions:
        event = decisions[0]
        reason = f": {md_text(clip(event.reasoning, 80))}" if event.reasoning else ""
        commit = commit_note(commits_of(newest).get(event.id))
        line += f" · {_md_when(event)} {event.type}{_md_by(event)}{commit}{reason}"
    return line + " · " + command_link("history", "cairn.history", {"entity": entity})


def formerly_note(status: EntityStatus) -> str:
    """` · formerly `src/auth.py::login`` when the history came with a rename, else ""."""
    formerly = status.formerly
    if not formerly:
        return ""
    more = f" (+{len(formerly) - 2} more)" if len(formerly) > 2 else ""
    return " · formerly " + ", ".join(md_code(f) for f in formerly[:2]) + more


def no_decisions_markdown(entity: str) -> str:
    """The card for an entity without history (only when the setting asks for it)."""
    log = command_link("Log one", "cairn.log", {"entity": entity, "type": "modify"})
    return f"**{md_code(entity)}** · no decisions yet · {log}"


def rollup_line(entity: str, rollup: dict[str, Status]) -> str:
    """`Columns: 1 reverted (email_verified) · 4 active` for a table; `Members: …` for a
    class (its methods and constants are no columns), `Symbols: …` for a file."""
    label, prefix = _children_of(entity)
    counts = Counter(s.value for s in rollup.values())
    parts = []
    for state in ("reverted", "rejected", "conflict", "reopened", "removed", "active"):
        if not counts.get(state):
            continue
        names = [md_text(k.removeprefix(prefix)) for k, s in rollup.items() if s.value == state]
        detail = f" ({', '.join(names[:3])}{'…' if len(names) > 3 else ''})"
        parts.append(f"{counts[state]} {state}" + (detail if state != "active" else ""))
    return f"{label}: " + (" · ".join(parts) if parts else "no decisions")


def _children_of(entity: str) -> tuple[str, str]:
    """What an entity's rollup lists, in words, and the prefix its children's names drop."""
    from cairn.store.paths import EntityKind, parse

    try:
        kind = parse(entity).kind
    except ValueError:
        return "Inside", ""
    if kind is EntityKind.TABLE:
        return "Columns", entity + "."
    if kind is EntityKind.FILE:
        return "Symbols", entity + "::"
    if kind is EntityKind.DIRECTORY:
        return "Inside", entity
    if kind.coarse is EntityKind.SYMBOL:
        return "Members", entity + "."
    return "Inside", ""


def lens_title(status: EntityStatus) -> str:
    """`3 decisions · reverted 2026-04-02` (the newest open verdict, else the status)."""
    count = status.decision_count
    title = plural(count, "decision")
    verdicts = status.open_verdicts
    if verdicts:
        newest = max(verdicts, key=lambda e: e.occurred_at or e.recorded_at)
        label = "reverted" if str(newest.type) == "revert" else "rejected"
        title += f" · {label} {when(newest)}"
    elif status.status.value not in ("active", "unknown"):
        title += f" · {status.status.value}"
    return title


def history_markdown(entity: str, events: Sequence[Event]) -> str:
    """The full history of an entity, newest first, for the history view."""
    lines = [f"# History of {md_code(entity)}", ""]
    if not events:
        lines.append("No decisions recorded.")
    plain, notes = split_notes(events)
    for event in sorted(plain, key=lambda e: e.occurred_at or e.recorded_at, reverse=True):
        head = f"## {_md_when(event)} · {event.type}{_md_by(event)} · {_md_id(event.id)}"
        lines.append(head + found_by(event))
        if event.entity != entity:
            lines.append(f"*on {md_code(event.entity)}*")
        if event.alternative:
            lines.append(f"**Rejected alternative:** {md_text(event.alternative)}")
        for target, label in ((event.supersedes, "Re-opens"), (event.reverts, "Undoes")):
            if target:
                lines.append(f"**{label}:** {_md_id(target)}")
        reasoning = md_text(event.reasoning) if event.reasoning else "*(no reasoning recorded)*"
        lines += ["", reasoning, ""]
        for note in notes.get(event.id, ()):
            lines += [f"> **Note** {_md_when(note)}{_md_by(note)} · {_md_id(note.id)}  ", ""]
            lines += [f"> {md_text(line)}" if line else ">" for line in note.reasoning.splitlines()]
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def commit_note(commit: str | None) -> str:
    """` · commit `862741c8792d`` (the commit that landed an event), or nothing."""
    return f" · commit {_md_id(commit)}" if commit else ""


def _verdict_lines(verdict: Event, entity: str = "", commit: str = "") -> list[str]:
    label = VERDICT_LABEL.get(str(verdict.type), str(verdict.type))
    if str(verdict.type) == "reject" and entity:
        # The entity is what was rejected (and what the gate blocks): say so in words.
        label = f"{md_text(entity)} was rejected"
    alternative = f" *{md_text(clip(verdict.alternative, 60))}*" if verdict.alternative else ""
    head = f"⛔ **{label}**{alternative} {_md_when(verdict)}{_md_by(verdict)}"
    head += f" · {_md_id(verdict.id)}" + found_by(verdict) + commit_note(commit or verdict.commit)
    reason = (
        md_text(clip(verdict.reasoning, 200)) if verdict.reasoning else "*(no reasoning recorded)*"
    )
    return [head, f"> {reason}"]


def found_by(event: Event) -> str:
    """` · found by inverse-patch` (how an imported revert was recognised), or nothing."""
    meta = event.metadata
    how = meta.get("found_by")
    if not how:
        return ""
    share = meta.get("share")
    return f" · found by {md_text(how)}" + (f" ({md_text(share)})" if share else "")


def _md_by(event: _Authored) -> str:
    """` by alice` for Markdown, or nothing."""
    name = who(event)
    return f" by {md_text(name)}" if name else ""


def _md_when(event: _Dated) -> str:
    return md_text(when(event))


def _md_id(event_id: object) -> str:
    # an id is a hash in a valid log, but a forged line's id is any string
    return md_code(short_id(event_id))


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


# --- findings and the gate: the same words on every surface -----------------------------
# The CLI, the Claude Code hook (through `cairn check --json`'s `explanation`) and MCP's
# `cairn_check` word a blocked change with these; only the next step differs, because
# each surface names its own way to record a decision.

# surface -> (re-open a verdict, re-add a removed entity, read the history); {name}: entity
_REMEDY = {
    "cli": (
        '`cairn supersede {name} --reason "..."`',
        '`cairn log {name} add --reason "..."`',
        "`cairn history {name}`",
    ),
    "mcp": (
        "cairn_record type=supersede entity={name}",
        "cairn_record type=add entity={name}",
        'cairn_why entities=["{name}"]',
    ),
}


def finding_kinds(finding: Mapping[str, Any]) -> str:
    """`revert`, `reject`, `revert/reject`, or the finding's kind when it names no verdict."""
    return "/".join(t for t in finding.get("verdict_types", ()) if t) or str(finding["kind"])


def finding_line(finding: Mapping[str, Any], *, column: bool = True) -> str:
    """`db/003.sql:2:5: error: <message> [revert 3cb5f069a1b2]`, compiler style."""
    where = f"{finding['file']}:{finding['line']}" + (f":{finding['column']}" if column else "")
    return (
        f"{where}: {finding['severity']}: {finding['message']} "
        f"[{finding_kinds(finding)} {short_id(finding['verdict_id'])}]"
    )


def blocked_explanation(findings: Sequence[Mapping[str, Any]], surface: str = "cli") -> str:
    """Why a change is blocked, for an agent or a person: each blocking finding with the
    verdict's reason (a revert found by content quotes its reason too), then what to do."""
    blocking = [f for f in findings if f.get("blocking")]
    if not blocking:
        return ""
    lines = ["Cairn blocked this edit: it re-introduces an entity the team decided against."]
    for f in blocking:
        lines.append(
            f"- {f['file']}:{f['line']}: {f['entity']} "
            f"({finding_kinds(f)} {short_id(f['verdict_id'])})"
        )
        if f.get("alternative"):
            lines.append(f"  rejected approach: {clip(f['alternative'], 300)}")
        lines.append(f"  reasoning: {reason_text(f.get('reasoning'))}")
    # An agent reads this: it asks the user before it goes against the team's verdict.
    lines.append("Do not re-add it unless the user confirms it is needed.")
    lines.append(next_step(blocking, surface))
    return "\n".join(lines)


def reason_text(reasoning: object) -> str:
    """A verdict's reason quoted, or says plainly that none was recorded."""
    text = clip(str(reasoning or ""), 400)
    return f'"{text}"' if text else "(no reasoning recorded)"


def next_step(blocking: Sequence[Mapping[str, Any]], surface: str = "cli") -> str:
    """What to do about blocking findings, in the words of `surface` ("cli" or "mcp")."""
    entities = sorted({str(f["entity"]) for f in blocking})
    name = entities[0] if len(entities) == 1 else "ENTITY"
    supersede, add, history = _REMEDY.get(surface, _REMEDY["cli"])
    how = add if all(f["kind"] == "removed" for f in blocking) else supersede
    return (
        f"If that is intended, record why: {how.format(name=name)}; "
        f"see the history with {history.format(name=name)}."
    )


def no_decisions_hint(entity: str, suggestions: Sequence[str], surface: str = "cli") -> str:
    """`no decisions recorded on requests; did you mean deps/requests?` (CLI and MCP)."""
    if suggestions:
        hint = "did you mean " + ", ".join(suggestions) + "?"
    elif surface == "mcp":
        hint = "cairn_search finds decisions by their words"
    else:
        hint = "`cairn ls` lists the entities that have decisions"
    return f"no decisions recorded on {entity}; {hint}"


# The store's messages name the CLI's flags (its main surface); MCP names arguments.
_MCP_ARGUMENTS = (
    ("-r/--reason", "reasoning"),
    ("--of/--supersedes", "of"),
    ("--supersedes", "of"),
    ("--reverts", "reverts"),
    ("--alternative", "alternative"),
    ("--reason", "reasoning"),
    ("--of", "of"),
    ("--key", "key"),
)


def in_mcp_terms(message: str) -> str:
    """An error message with each CLI flag replaced by the MCP argument that sets it."""
    for flag, argument in _MCP_ARGUMENTS:
        pattern = rf"(?<![\w-]){re.escape(flag)}(?![\w-])"
        message = re.sub(pattern, f"the '{argument}' argument", message)
    return message
