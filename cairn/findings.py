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

The inputs are duck-typed against the store's and indexer's contracts
(docs/architecture.md) so this module stays a pure function, easy to test.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import Enum
from typing import Any

__all__ = [
    "Finding",
    "FindingKind",
    "Severities",
    "Severity",
    "annotated_id",
    "clip",
    "day",
    "findings_for",
    "short_id",
    "split_notes",
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


@dataclass(frozen=True, slots=True)
class Severities:
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
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(values) - known)
        if unknown:
            expected = ", ".join(sorted(known))
            raise ValueError(f"unknown severity setting {', '.join(unknown)}; expected {expected}")
        return cls(**{k: Severity.parse(v) for k, v in values.items()})

    def for_role(self, role: str) -> Severity:
        """Severity of an open verdict seen at a symbol with this role."""
        return self.introduce if role == "introduce" else self.reference


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing worth telling the person (or agent) editing this code."""

    entity: str
    verdict_id: str
    severity: Severity
    message: str
    name_range: Any  # the symbol's name range (LSP, 0-based, UTF-16), as the indexer gave it
    role: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> FindingKind:
        """What the finding is about (from `data`)."""
        return FindingKind(self.data["kind"])


def findings_for(
    symbols: Iterable[Any],
    statuses: Mapping[str, Any],
    settings: Severities | None = None,
    removals: Mapping[str, Any] | None = None,
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
            str(getattr(status, "status", "")) == "removed"
            and str(getattr(symbol, "role", "")) == "introduce"
            and severities.removed is not Severity.OFF
        ):
            removal = (removals or {}).get(symbol.entity)
            message = _removed_message(symbol.entity, removal)
            out.append(_finding(symbol, removal, severities.removed, message, FindingKind.REMOVED))
    return out


def removed(statuses: Mapping[str, Any]) -> list[str]:
    """The entities among `statuses` whose status is `removed` (their removal is looked up
    by the caller, which holds the store, and passed back as `removals`)."""
    return sorted(e for e, st in statuses.items() if str(getattr(st, "status", "")) == "removed")


def latest_removal(events: Iterable[Any]) -> Any:
    """The newest removal (`remove`, `delete`, `index_remove`) among an entity's events."""
    found = [e for e in events if e is not None and str(getattr(e, "type", "")) in _REMOVAL_TYPES]
    return max(found, key=lambda e: (e.occurred_at or e.recorded_at, e.recorded_at), default=None)


_REMOVAL_TYPES = frozenset({"remove", "delete", "index_remove"})


def _removed_message(entity: str, removal: Any) -> str:
    if removal is None:
        return f"{entity} was removed before; re-adding it brings it back."
    when = day(getattr(removal, "occurred_at", None) or getattr(removal, "recorded_at", None))
    # A commit message's subject and body read as one sentence: "Drop x: because …".
    subject, _, rest = (getattr(removal, "reasoning", "") or "").partition("\n\n")
    why = clip(f"{subject.strip().rstrip(':.')}: {rest}" if rest.strip() else subject)
    head = f"{entity} was removed on {when}{_who(removal)}" + (f": {why}" if why else "")
    head = head if head.endswith((".", "!", "?")) else head + "."
    return f"{head} Re-adding it is allowed; check that the reason no longer holds."


def _for_symbol(symbol: Any, status: Any, severities: Severities) -> list[Finding]:
    role = str(getattr(symbol, "role", "reference"))
    entity = symbol.entity
    out: list[Finding] = []
    conflicted = _conflicted_verdicts(status)
    symbol_role = role
    for verdict in getattr(status, "open_verdicts", None) or ():
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
    for review in getattr(status, "due_reviews", None) or ():
        if severities.review is Severity.OFF:
            break
        event = getattr(review, "event", review)
        due = getattr(review, "due", None) or getattr(event, "revisit_after", None)
        why = clip(getattr(review, "detail", "") or getattr(event, "reasoning", "") or "")
        when = f" since {day(due)}" if due else ""
        message = f"A review of {entity} is due{when}" + (f": {why}" if why else ".")
        out.append(_finding(symbol, event, severities.review, message, FindingKind.REVIEW))
    return out


def _body_only(verdict: Any) -> bool:
    """An imported revert of lines inside an entity that itself stayed (`part: body`)."""
    meta = getattr(verdict, "metadata", None) or {}
    return isinstance(meta, dict) and meta.get("part") == "body"


def _finding(
    symbol: Any,
    event: Any,
    severity: Severity,
    message: str,
    kind: FindingKind,
    role: str | None = None,
) -> Finding:
    event_id = _event_id(event)
    role = role or str(getattr(symbol, "role", "reference"))
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
            "verdict_types": [str(getattr(event, "type", ""))],
        },
    )


def _verdict_message(entity: str, verdict: Any, role: str) -> str:
    vtype = str(getattr(verdict, "type", ""))
    when = day(getattr(verdict, "occurred_at", None) or getattr(verdict, "recorded_at", None))
    who = _who(verdict)
    why = clip(getattr(verdict, "reasoning", "") or "")
    because = f": {why}" if why else "."
    if vtype == "reject":
        alternative = clip(getattr(verdict, "alternative", "") or "", 60)
        what = f"rejected ({alternative})" if alternative else "rejected"
        head = f"{entity} was {what} on {when}{who}{because}"
        tail = "Supersede the rejection before re-adding it." if role == "introduce" else ""
    else:
        head = f"{entity} was reverted on {when}{who}{because}"
        tail = "Supersede the revert before re-adding it." if role == "introduce" else ""
    head = head if head.endswith((".", "!", "?")) else head + "."
    return f"{head} {tail}".strip()


def _conflict_note(reapplied: Any) -> str:
    when = day(getattr(reapplied, "occurred_at", None) or getattr(reapplied, "recorded_at", None))
    return f"It was re-applied on {when}{_who(reapplied)} without a supersede."


def _conflicted_verdicts(status: Any) -> dict[str, Any]:
    """Map verdict id -> the event that re-applied the entity after it, when known."""
    conflicts = getattr(status, "conflicts", None) or ()
    if isinstance(conflicts, Mapping):
        return {str(k): v for k, v in conflicts.items()}
    out: dict[str, Any] = {}
    verdicts = list(getattr(status, "open_verdicts", None) or ())
    for item in conflicts:
        if isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 2:
            verdict, event = item
            out[_event_id(verdict)] = event
        else:
            # A bare re-applying event: it conflicts with every open verdict it follows.
            for verdict in verdicts:
                out.setdefault(verdict.id, item)
    return out


def _event_id(event: Any) -> str:
    return "" if event is None else str(getattr(event, "id", event))


def _who(event: Any) -> str:
    author = getattr(event, "author", None) or getattr(event, "agent", None)
    return f" by {author}" if author else ""


# --- display helpers shared by hover, diagnostics and `cairn check` ---------------------


def annotated_id(event: Any) -> str:
    """The id an `annotate` event explains (its `metadata.annotates`), else ''."""
    if str(getattr(event, "type", "")) != "annotate":
        return ""
    metadata = getattr(event, "metadata", None) or {}
    target = metadata.get("annotates") if isinstance(metadata, Mapping) else None
    return target if isinstance(target, str) else ""


def split_notes(events: Sequence[Any]) -> tuple[list[Any], dict[str, list[Any]]]:
    """(events that are not notes on another listed event, notes by the id they explain):
    history and hover show a note with its event, not as a decision of its own."""
    ids = {getattr(e, "id", "") for e in events}
    plain: list[Any] = []
    notes: dict[str, list[Any]] = {}
    for event in events:
        target = annotated_id(event)
        if target and target in ids:
            notes.setdefault(target, []).append(event)
        else:
            plain.append(event)
    return plain, notes


def short_id(event_id: str) -> str:
    """An id shortened for display (8 characters); full ids live in `code` and `data`."""
    return str(event_id)[:8]


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


def clip(text: str, limit: int = 160) -> str:
    """One line, at most `limit` characters, cut at a word boundary with an ellipsis."""
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + "…"
