"""Symbols plus statuses -> findings: the one place that decides what deserves a warning.

The language server publishes findings as diagnostics and `cairn check` reports them,
so both say the same thing about the same code. This module also owns the one
severity map (`Severities`): what a finding's severity is, given the symbol's role
(does the code *introduce* the entity or merely *reference* it) and the kind of
finding (an open verdict, a re-application without supersede, a due review).

A finding's `verdict_id` is the full id of the event it is about (the LSP diagnostic
`code`), and `data` carries everything a quick fix needs, so code actions are pure
functions of the diagnostic:

    {"entity": "users.email_verified",
     "kind": "verdict" | "conflict" | "review" | "removed",
     "role": "introduce" | "reference" | "remove",
     "verdict_ids": ["<full id>"], "verdict_types": ["revert" | "reject" | ...]}

It also owns the one gate rule (`Finding.blocking`): what makes `cairn check` (and
the agent tools' check) fail. Inputs are the indexer's `Symbol`s and the store's
`EntityStatus`es (with their due reviews, as `Session.statuses` gives them); this
module stays a pure function, easy to test.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from typing import TYPE_CHECKING, Any

import msgspec

from cairn.core.present import by, clip, day, sentence, when
from cairn.significance import quiet

if TYPE_CHECKING:
    from cairn.indexer.model import Range, Symbol
    from cairn.store.model import EntityStatus, Event, Reapplied

__all__ = [
    "Finding",
    "FindingKind",
    "Severities",
    "Severity",
    "findings_for",
]


class Severity(str, Enum):
    """How loudly a finding is reported; OFF drops it."""

    ERROR = "error"
    WARNING = "warning"
    INFORMATION = "information"
    HINT = "hint"
    OFF = "off"

    @property
    def rank(self) -> int:
        """Higher is louder; used to pick the louder of two severities."""
        return _RANK[self]

    @classmethod
    def parse(cls, value: object) -> Severity:
        """Accept `warning`, `Warning`, `warn`, `info`; raise ValueError naming valid values."""
        text = str(value.value if isinstance(value, Severity) else value).strip().lower()
        text = {"warn": "warning", "info": "information", "none": "off"}.get(text, text)
        try:
            return cls(text)
        except ValueError:
            valid = ", ".join(s.value for s in cls)
            raise ValueError(f"invalid severity {value!r}; expected one of {valid}") from None


_RANK = {
    Severity.OFF: 0,
    Severity.HINT: 1,
    Severity.INFORMATION: 2,
    Severity.WARNING: 3,
    Severity.ERROR: 4,
}


class FindingKind(str, Enum):
    """What a finding is about."""

    VERDICT = "verdict"  # an open revert or reject on the entity
    CONFLICT = "conflict"  # the entity was re-applied after a verdict without a supersede
    REVIEW = "review"  # a decision asked to be revisited and the date has passed
    REMOVED = "removed"  # code re-introduces an entity whose status is `removed`
    FINGERPRINT = "fingerprint"  # code brings back most of the lines a revert took out


class Severities(msgspec.Struct, frozen=True):
    """The one severity map. Field names are the setting keys (`cairn.severity.*`)."""

    introduce: Severity = Severity.WARNING  # code introduces an entity with an open verdict
    reference: Severity = Severity.INFORMATION  # code references (or removes) such an entity
    conflict: Severity = Severity.WARNING  # re-applied without supersede
    review: Severity = Severity.INFORMATION  # a review is due
    # code re-introduces a removed entity: a notice (a removal is no verdict), unless a
    # team raises it (`cairn.removed`, `cairn check --strict-removed`)
    removed: Severity = Severity.INFORMATION

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> Severities:
        """Build from settings; unknown keys or values raise ValueError with a clear message."""
        if not values:
            return cls()
        known = set(cls.__struct_fields__)
        unknown = sorted(set(values) - known)
        if unknown:
            expected = ", ".join(sorted(known))
            raise ValueError(f"unknown severity setting {', '.join(unknown)}; expected {expected}")
        return cls(**{k: Severity.parse(v) for k, v in values.items()})

    def for_role(self, role: str) -> Severity:
        """Severity of an open verdict seen at a symbol with this role."""
        return self.introduce if role == "introduce" else self.reference


class Finding(msgspec.Struct, frozen=True):
    """One thing worth telling the person (or agent) editing this code."""

    entity: str
    verdict_id: str
    severity: Severity
    message: str
    name_range: Range  # the symbol's name range (LSP, 0-based, UTF-16), as the indexer gave it
    role: str
    data: dict[str, Any] = msgspec.field(default_factory=dict)

    @property
    def kind(self) -> FindingKind:
        """What the finding is about (from `data`)."""
        return FindingKind(self.data["kind"])

    @property
    def blocking(self) -> bool:
        """The gate rule: code that *introduces* an entity against an open verdict (or a
        re-application without supersede) fails `cairn check`; references and due
        reviews inform (see `blocks`)."""
        return blocks(self)


def blocks(finding: Finding, *, strict_removed: bool = False) -> bool:
    """The one gate rule. Introducing an entity against an open verdict (or re-applying
    it without supersede) blocks; references, due reviews and (unless `strict_removed`,
    `cairn check --strict-removed`) bringing back a removed entity only inform."""
    if finding.role != "introduce" or finding.kind is FindingKind.REVIEW:
        return False
    return strict_removed or finding.kind is not FindingKind.REMOVED


def findings_for(
    symbols: Iterable[Symbol],
    statuses: Mapping[str, EntityStatus],
    settings: Severities | None = None,
    removals: Mapping[str, Event | None] | None = None,
) -> list[Finding]:
    """Findings for the symbols of one file, given `status_many` of their entities.

    One finding per (symbol, verdict): two rejected approaches on one dependency are
    two findings. Findings whose severity is OFF are dropped. Order follows the symbols.
    `removals` maps a `removed` entity to the event that removed it (see `removed`),
    which the notice quotes.
    """
    severities = settings or Severities()
    out: list[Finding] = []
    for symbol in symbols:
        status = statuses.get(symbol.entity)
        if status is None:
            continue
        out.extend(_for_symbol(symbol, status, severities))
        if (
            status.status._value_ == "removed"  # `_value_`: `.value` is a slow property
            and symbol.role._value_ == "introduce"
            and severities.removed is not Severity.OFF
        ):
            removal = (removals or {}).get(symbol.entity)
            message = _removed_message(symbol.entity, removal)
            out.append(_finding(symbol, removal, severities.removed, message, FindingKind.REMOVED))
    return out


def removed(statuses: Mapping[str, EntityStatus]) -> list[str]:
    """The entities among `statuses` whose status is `removed` (their removal is looked up
    by the caller, which holds the store, and passed back as `removals`)."""
    # `_value_`: `.value` is a slow property, and a file asks this of ~500 statuses
    return sorted(e for e, st in statuses.items() if st.status._value_ == "removed")


def latest_removal(events: Iterable[Event | None]) -> Event | None:
    """The newest removal (`remove`, `delete`, `index_remove`) among an entity's events."""
    found = [e for e in events if e is not None and e.type.is_removal]
    return max(found, key=lambda e: (e.occurred_at or e.recorded_at, e.recorded_at), default=None)


def _removed_message(entity: str, removal: Event | None) -> str:
    if removal is None:
        return f"{entity} was removed before; re-adding it brings it back."
    # A commit message's subject and body read as one sentence: "Drop x: because …".
    subject, _, rest = (removal.reasoning or "").partition("\n\n")
    why = clip(f"{subject.strip().rstrip(':.')}: {rest}" if rest.strip() else subject)
    head = f"{entity} was removed on {when(removal)}{by(removal)}" + (f": {why}" if why else "")
    head = sentence(head)
    return f"{head} Re-adding it is allowed; check that the reason no longer holds."


def _for_symbol(symbol: Symbol, status: EntityStatus, severities: Severities) -> list[Finding]:
    role = symbol.role._value_  # `.value`, without the enum property's cost
    entity = symbol.entity
    out: list[Finding] = []
    conflicted = _conflicted_verdicts(status)
    symbol_role = role
    for verdict in status.open_verdicts:
        if quiet(verdict):
            continue  # cosmetic history (`cairn.significance`): shown in history only
        # A revert that took lines out of an entity that stayed: the name is no
        # re-introduction (the fingerprint rule catches the lines coming back).
        role = "reference" if _body_only(verdict) else symbol_role
        reapplied = conflicted.get(verdict.id)
        if reapplied is not None:
            kind = FindingKind.CONFLICT
            introduces = role == "introduce"
            severity = severities.conflict if introduces else severities.for_role(role)
            message = _verdict_message(entity, verdict, role) + " " + _conflict_note(reapplied)
        else:
            kind = FindingKind.VERDICT
            severity = severities.for_role(role)
            message = _verdict_message(entity, verdict, role)
        if severity is Severity.OFF:
            continue
        out.append(_finding(symbol, verdict, severity, message, kind, role))
    for review in status.due_reviews:
        if severities.review is Severity.OFF:
            break
        event = review.event
        due = review.due or event.revisit_after
        why = clip(review.detail or event.reasoning)
        since = f" since {day(due)}" if due else ""
        message = f"A review of {entity} is due{since}" + (f": {why}" if why else ".")
        out.append(_finding(symbol, event, severities.review, message, FindingKind.REVIEW))
    return out


def _body_only(verdict: Event) -> bool:
    """An imported revert of lines inside an entity that itself stayed (`part: body`)."""
    return verdict.metadata.get("part") == "body"


def _finding(
    symbol: Symbol,
    event: Event | None,
    severity: Severity,
    message: str,
    kind: FindingKind,
    role: str | None = None,
) -> Finding:
    event_id = "" if event is None else event.id
    role = role or symbol.role._value_
    return Finding(
        entity=symbol.entity,
        verdict_id=event_id,
        severity=severity,
        message=message,
        name_range=symbol.name_range,
        role=role,
        data={
            "entity": symbol.entity,
            "kind": kind.value,
            "role": role,
            "verdict_ids": [event_id],
            "verdict_types": ["" if event is None else str(event.type)],
        },
    )


_MESSAGES: dict[tuple[str, str, str, str, str], str] = {}
_MESSAGES_MAX = 65536


def _verdict_message(entity: str, verdict: Event, role: str) -> str:
    """The message for one verdict, remembered: an editor asks again on every keystroke,
    and an event's id pins everything the message quotes except the text a redaction
    erases (so the text is part of the key)."""
    key = (entity, role, verdict.id, verdict.reasoning, verdict.alternative)
    message = _MESSAGES.get(key)
    if message is None:
        if len(_MESSAGES) >= _MESSAGES_MAX:
            _MESSAGES.clear()
        message = _MESSAGES[key] = _compose_verdict_message(entity, verdict, role)
    return message


def _compose_verdict_message(entity: str, verdict: Event, role: str) -> str:
    vtype = str(verdict.type)
    decided_on = verdict.entity
    if decided_on != entity:  # decided under a former name (`cairn.core.aliases`)
        entity = f"{entity} (formerly `{decided_on}`)"
    because = f": {clip(verdict.reasoning)}" if verdict.reasoning else "."
    if vtype == "reject":
        alternative = clip(verdict.alternative, 60)
        what = f"rejected ({alternative})" if alternative else "rejected"
        head = f"{entity} was {what} on {when(verdict)}{by(verdict)}{because}"
        tail = "Supersede the rejection before re-adding it." if role == "introduce" else ""
    else:
        head = f"{entity} was reverted on {when(verdict)}{by(verdict)}{because}"
        tail = "Supersede the revert before re-adding it." if role == "introduce" else ""
    head = sentence(head)
    return f"{head} {tail}".strip()


def _conflict_note(reapplied: Event | Reapplied) -> str:
    """The note for a verdict re-applied without a supersede, remembered by what it
    quotes (a file's columns share a few re-applying events)."""
    key = (reapplied.occurred_at, reapplied.recorded_at, reapplied.author, reapplied.agent)
    note = _NOTES.get(key)
    if note is None:
        if len(_NOTES) >= _MESSAGES_MAX:
            _NOTES.clear()
        note = _NOTES[key] = (
            f"It was re-applied on {when(reapplied)}{by(reapplied)} without a supersede."
        )
    return note


_NOTES: dict[tuple[object, object, str | None, str | None], str] = {}


def _conflicted_verdicts(status: EntityStatus) -> dict[str, Event | Reapplied]:
    """Map verdict id -> the event that re-applied the entity after it.

    A re-applying event conflicts with every open verdict it follows; the store lists
    the re-applying events (`status_many`: only the newest, as a `Reapplied`).
    """
    out: dict[str, Event | Reapplied] = {}
    for event in status.conflicts:
        for verdict in status.open_verdicts:
            out.setdefault(verdict.id, event)
    return out
