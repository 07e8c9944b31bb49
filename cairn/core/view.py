"""What the editor shows for one file: diagnostics, code lenses and hover cards.

The language server gathers its inputs asynchronously (`cairn.lsp`), `cairn show`
gathers them from a `Session` (`file_view`); both then ask these functions, so the
terminal prints what the editor shows:

- findings (`cairn.core.findings.findings_for` and the bring-backs of
  `cairn.fingerprints`) are the diagnostics;
- `lens_attention` + `lenses`: which entities get a lens (the quiet rule,
  `cairn.core.attention`) and its title;
- `card_markdown`: an entity's hover card, full or one line by the same rule; the
  entities at a position are ordered by `cairn.core.position`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from cairn.core.attention import Attention, AttentionPolicy, Reason, attention, needs_history
from cairn.core.position import has_history, history_from, rank
from cairn.core.present import hover_markdown, lens_title, quiet_hover_markdown
from cairn.store.paths import EntityKind, covers, parse

if TYPE_CHECKING:
    from cairn.core.findings import Finding, Severities
    from cairn.core.session import Card, Session
    from cairn.indexer.model import Range, Symbol
    from cairn.store.model import EntityStatus, Event

NEWEST = 6  # events a hover card is given (it shows the newest two besides the verdicts)


class Lens(msgspec.Struct, frozen=True):
    """A code lens: its place, its entity and its title (it runs `cairn.history`)."""

    entity: str
    name_range: Range
    title: str


class HoverCard(msgspec.Struct, frozen=True):
    """The hover card of one entity with history, where its name first appears."""

    entity: str
    name_range: Range
    markdown: str


class FileView(msgspec.Struct):
    """Everything the editor shows for one file."""

    file: str
    findings: list[Finding] = msgspec.field(default_factory=list)
    lenses: list[Lens] = msgspec.field(default_factory=list)
    cards: list[HoverCard] = msgspec.field(default_factory=list)


def history_wanted(statuses: Mapping[str, EntityStatus], policy: AttentionPolicy) -> list[str]:
    """The entities whose lens the rule can only decide with their events."""
    return sorted(e for e, s in statuses.items() if s.event_count and needs_history(s, policy))


def lens_attention(
    statuses: Mapping[str, EntityStatus],
    histories: Mapping[str, Sequence[Event]],
    policy: AttentionPolicy,
) -> dict[str, Attention]:
    """The rule's verdict for every entity with history among a file's `statuses`
    (`histories` as `history_wanted` asked); a table's verdict counts its columns named
    in the file (`tables_needing_rollup` asks for the others)."""
    out: dict[str, Attention] = {}
    for entity, status in statuses.items():
        if not status.event_count:
            continue
        children = [s for e, s in statuses.items() if e != entity and covers(entity, e)]
        out[entity] = attention(status, histories.get(entity), policy, children)
    return out


def tables_needing_rollup(found: Mapping[str, Attention], policy: AttentionPolicy) -> list[str]:
    """Tables the rule found quiet: a column not named in this file (a dropped field is
    gone from the model) may still deserve a lens, so their whole rollup decides."""
    if not policy.quiet:
        return []
    return [e for e, a in found.items() if not a and _is_table(e)]


def with_rollups(
    found: dict[str, Attention],
    statuses: Mapping[str, EntityStatus],
    histories: Mapping[str, Sequence[Event]],
    rollups: Mapping[str, Mapping[str, object]],
    policy: AttentionPolicy,
) -> dict[str, Attention]:
    """`found` with the tables of `tables_needing_rollup` judged on their full rollup."""
    from msgspec.structs import replace as struct_replace

    for entity, rollup in rollups.items():
        status = struct_replace(statuses[entity], rollup=rollup)
        found[entity] = attention(status, histories.get(entity), policy)
    return found


def lenses(
    symbols: Iterable[Symbol],
    statuses: Mapping[str, EntityStatus],
    deserving: Mapping[str, Attention],
) -> list[Lens]:
    """One lens per entity and line for the entities the rule keeps; at one place, in
    the order of `cairn.core.position` (the first lens is the hover's first card)."""
    groups: dict[Range, list[Symbol]] = {}
    for symbol in symbols:
        groups.setdefault(symbol.name_range, []).append(symbol)
    history = history_from(statuses)
    out: list[Lens] = []
    seen: set[tuple[str, int]] = set()
    for group in groups.values():
        for symbol in rank(group, history):
            status = statuses.get(symbol.entity)
            key = (symbol.entity, symbol.name_range.start_line)
            verdict = deserving.get(symbol.entity)
            if status is None or not verdict or key in seen:
                continue
            seen.add(key)
            title = lens_title(status)
            if Reason.READDED in verdict.reasons:
                title += " · re-added after removal"
            out.append(Lens(symbol.entity, symbol.name_range, title))
    return out


def card_markdown(
    entity: str, card: Card, events: Sequence[Event] | None, policy: AttentionPolicy
) -> str:
    """An entity's hover card: full when its history deserves attention, else one line.
    `events` is its history when `needs_history(card.status, policy)` asked for it and
    the card's newest events may not hold it all (else None: the newest suffice)."""
    newest = list(card.newest)
    verdict = attention(card.status, events if events is not None else newest, policy)
    if verdict:
        return hover_markdown(entity, card.status, newest)
    return quiet_hover_markdown(entity, card.status, newest)


def needs_events(card: Card, policy: AttentionPolicy) -> bool:
    """Whether `card_markdown` needs the entity's full history (see its docstring)."""
    return needs_history(card.status, policy) and len(card.newest) < card.status.event_count


def file_view(
    session: Session,
    file: str,
    text: str,
    *,
    severities: Severities | None = None,
    policy: AttentionPolicy | None = None,
    user_queries_dir: Path | None = None,
    model_tables: Mapping[str, str] | None = None,
) -> FileView:
    """What the editor shows for `file` (repository-relative) holding `text`
    (`model_tables`: what its Django app states of its tables, `app_model_tables`)."""
    from cairn.core.findings import Severities, findings_for
    from cairn.fingerprints import document_bring_backs
    from cairn.indexer import Document

    severities = severities or Severities()
    policy = policy or AttentionPolicy()
    doc = Document(file, text, user_queries_dir, model_tables=model_tables)
    symbols = doc.symbols
    statuses = session.statuses(sorted({s.entity for s in symbols})) if symbols else {}
    removals = session.removals(statuses)
    found = findings_for(symbols, statuses, severities, removals)
    found += document_bring_backs(file, doc.text, symbols, session.revert_prints(), severities)
    histories = {e: session.history(e) for e in history_wanted(statuses, policy)}
    deserving = lens_attention(statuses, histories, policy)
    tables = tables_needing_rollup(deserving, policy)
    if tables:
        rollups = {e: session.status(e).rollup for e in tables}
        deserving = with_rollups(deserving, statuses, histories, rollups, policy)
    view = FileView(file, found, lenses(symbols, statuses, deserving))
    shown: set[str] = set()
    for symbol in symbols:
        if symbol.entity in shown:
            continue
        shown.add(symbol.entity)
        card = session.card(symbol.entity, NEWEST)
        if not has_history(card.status):
            continue
        events = session.history(symbol.entity) if needs_events(card, policy) else None
        markdown = card_markdown(symbol.entity, card, events, policy)
        view.cards.append(HoverCard(symbol.entity, symbol.name_range, markdown))
    return view


def _is_table(entity: str) -> bool:
    try:
        return parse(entity).kind is EntityKind.TABLE
    except ValueError:
        return False
