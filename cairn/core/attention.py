"""What deserves attention: the one rule behind code lenses, hover prominence and the
editor's status bar.

On a real project with imported history nearly every column and function has a
decision: its creation by a migration. A lens on each of them is noise, and a memory
that speaks on every line stops being read. So an entity earns a lens and a full hover
card only when its history matters:

- an open verdict (reverted or rejected and not re-opened),
- a conflict (re-applied without a supersede),
- a review that is due,
- a re-opened verdict (someone decided the old "no" no longer holds),
- a removal: the entity was dropped (code that still names it is stale or re-adds it),
  or it was dropped and later re-added,
- more than `busy_after` decisions,
- for a table (or any parent), a child whose status is not plain: a column that was
  reverted, rejected, removed, re-opened or is in conflict.

Everything else is quiet: no lens, and a one-line hover. `quiet=False` (a setting in
every editor) gives every entity with history its lens, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

__all__ = [
    "DEFAULT_BUSY_AFTER",
    "Attention",
    "AttentionPolicy",
    "Reason",
    "attention",
    "needs_history",
    "readded_after_removal",
]

DEFAULT_BUSY_AFTER = 3


class Reason(str, Enum):
    """Why an entity deserves attention, in the order a reader should care."""

    OPEN_VERDICT = "open verdict"
    CONFLICT = "conflict"
    REVIEW_DUE = "review due"
    REOPENED = "re-opened"
    REMOVED = "removed"
    READDED = "re-added after removal"
    BUSY = "many decisions"
    CHILDREN = "children with verdicts or removals"
    HISTORY = "has history"  # only when the quiet rule is off

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class AttentionPolicy:
    """The rule's two settings: whether to be quiet at all, and how many decisions make
    an entity worth a look on their own."""

    quiet: bool = True
    busy_after: int = DEFAULT_BUSY_AFTER  # more than this many decisions deserves a lens


@dataclass(frozen=True, slots=True)
class Attention:
    """The verdict of the rule for one entity."""

    reasons: tuple[Reason, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.reasons)

    @property
    def label(self) -> str:
        """`open verdict, re-opened` (for tooltips and logs)."""
        return ", ".join(r.value for r in self.reasons)


def _type(event: Any) -> str:
    return str(getattr(getattr(event, "type", ""), "value", getattr(event, "type", "")))


_APPLIED = {"add", "create", "modify", "retype", "rename", "migrate", "index_add"}
_REMOVAL = {"remove", "delete", "index_remove"}
_NOT_PLAIN = {"reverted", "rejected", "conflict", "reopened", "removed"}


def readded_after_removal(events: Iterable[Any]) -> bool:
    """True when an applied change follows a removal of the same entity.

    `events` in the order the log wrote them (`Store.history`'s order): the same causal
    order the status derivation uses, so this never disagrees with `removed`."""
    removed = False
    for event in events:
        kind = _type(event)
        if kind in _REMOVAL:
            removed = True
        elif kind in _APPLIED and removed:
            return True
    return False


def needs_history(status: Any, policy: AttentionPolicy = AttentionPolicy()) -> bool:
    """Whether `attention` can only decide with the entity's events (a removal later
    re-added is visible in the history, not in the status). False when the status
    alone already decides, so callers fetch history for few entities."""
    if not policy.quiet:
        return False
    count = int(getattr(status, "event_count", 0) or 0)
    if count < 2 or count > policy.busy_after:
        return False
    return not _status_reasons(status)


def attention(
    status: Any,
    events: Sequence[Any] | None = None,
    policy: AttentionPolicy = AttentionPolicy(),
    children: Iterable[Any] = (),
) -> Attention:
    """Whether (and why) an entity with this status and history deserves attention.

    `status` is an `EntityStatus` (or anything shaped like it); `events` its history,
    needed only when `needs_history` says so (otherwise it may be None); `children`
    the statuses of the entities it contains (a table's columns), or a status's
    `rollup` values.
    """
    count = int(getattr(status, "event_count", 0) or 0)
    reasons = _status_reasons(status)
    if events and readded_after_removal(events):
        reasons.append(Reason.READDED)
    if count > policy.busy_after:
        reasons.append(Reason.BUSY)
    rollup = [str(getattr(c, "status", c)) for c in children]
    rollup += [str(v) for v in (getattr(status, "rollup", None) or {}).values()]
    if any(state in _NOT_PLAIN for state in rollup):
        reasons.append(Reason.CHILDREN)
    if not policy.quiet and not reasons and count:
        reasons.append(Reason.HISTORY)
    return Attention(tuple(reasons))


def _status_reasons(status: Any) -> list[Reason]:
    state = str(getattr(status, "status", "") or "")
    out: list[Reason] = []
    if getattr(status, "open_verdicts", None) or state in ("reverted", "rejected"):
        out.append(Reason.OPEN_VERDICT)
    if getattr(status, "conflicts", None) or state == "conflict":
        out.append(Reason.CONFLICT)
    if getattr(status, "due_reviews", None):
        out.append(Reason.REVIEW_DUE)
    if getattr(status, "reopened", None) or state == "reopened":
        out.append(Reason.REOPENED)
    if state == "removed":
        out.append(Reason.REMOVED)
    return out
