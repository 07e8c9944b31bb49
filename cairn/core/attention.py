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
- more than `busy_after` decisions (notes: later reasons and commit links, are not
  decisions: `EventType.is_note`),
- for a table (or any parent), a child whose status is not plain: a column that was
  reverted, rejected, removed, re-opened or is in conflict.

A dependency (`deps/NAME`) is quieter still: its version bumps are history, not
attention, so only an open verdict, a conflict or a due review earn it a lens (on a
15-line requirements.txt every line had "many decisions").

Everything else is quiet: no lens, and a one-line hover. `quiet=False` (a setting in
every editor) gives every entity with history its lens, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import Enum
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from cairn.store.model import EntityStatus, Event

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


class AttentionPolicy(msgspec.Struct, frozen=True):
    """The rule's two settings: whether to be quiet at all, and how many decisions make
    an entity worth a look on their own."""

    quiet: bool = True
    busy_after: int = DEFAULT_BUSY_AFTER  # more than this many decisions deserves a lens


DEFAULT_POLICY = AttentionPolicy()  # a frozen record, so one instance serves every call


class Attention(msgspec.Struct, frozen=True):
    """The verdict of the rule for one entity."""

    reasons: tuple[Reason, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.reasons)

    @property
    def label(self) -> str:
        """`open verdict, re-opened` (for tooltips and logs)."""
        return ", ".join(r.value for r in self.reasons)


_NOT_PLAIN = {"reverted", "rejected", "conflict", "reopened", "removed"}


def readded_after_removal(events: Iterable[Event]) -> bool:
    """True when an applied change follows a removal of the same entity.

    `events` in the order the log wrote them (`Store.history`'s order): the same causal
    order the status derivation uses, so this never disagrees with `removed`."""
    removed = False
    for event in events:
        if event.type.is_removal:
            removed = True
        elif event.type.is_applied and removed:
            return True
    return False


def needs_history(status: EntityStatus, policy: AttentionPolicy = DEFAULT_POLICY) -> bool:
    """Whether `attention` can only decide with the entity's events (a removal later
    re-added is visible in the history, not in the status). False when the status
    alone already decides, so callers fetch history for few entities."""
    if not policy.quiet:
        return False
    count = status.decision_count  # notes (commit links) never make an entity busy
    if count < 2 or count > policy.busy_after or _is_dependency(status.entity):
        return False  # a dependency's events can add nothing it keeps (`_DEPENDENCY_REASONS`)
    return not _status_reasons(status)


def attention(
    status: EntityStatus,
    events: Sequence[Event] | None = None,
    policy: AttentionPolicy = DEFAULT_POLICY,
    children: Iterable[EntityStatus] = (),
) -> Attention:
    """Whether (and why) an entity with this status and history deserves attention.

    `status` is an `EntityStatus`; `events` its history, needed only when
    `needs_history` says so (otherwise it may be None); `children` the statuses of the
    entities it contains (a table's columns), besides the status's own `rollup`.
    """
    count = status.decision_count
    reasons = _status_reasons(status)
    if events and readded_after_removal(events):
        reasons.append(Reason.READDED)
    if count > policy.busy_after:
        reasons.append(Reason.BUSY)
    rollup = [c.status.value for c in children]
    rollup += [v.value for v in status.rollup.values()]
    if any(state in _NOT_PLAIN for state in rollup):
        reasons.append(Reason.CHILDREN)
    if policy.quiet and _is_dependency(status.entity):
        reasons = [r for r in reasons if r in _DEPENDENCY_REASONS]
    if not policy.quiet and not reasons and status.event_count:
        reasons.append(Reason.HISTORY)
    return Attention(tuple(reasons))


# What earns a dependency attention: a verdict or a conflict someone must act on, or a
# review someone asked for; never its bumps, its removal or how busy it is.
_DEPENDENCY_REASONS = frozenset({Reason.OPEN_VERDICT, Reason.CONFLICT, Reason.REVIEW_DUE})


def _is_dependency(entity: str) -> bool:
    from cairn.store.paths import DEPS_PREFIX

    return entity.startswith(DEPS_PREFIX)


def _status_reasons(status: EntityStatus) -> list[Reason]:
    state = status.status.value
    out: list[Reason] = []
    if status.open_verdicts or state in ("reverted", "rejected"):
        out.append(Reason.OPEN_VERDICT)
    if status.conflicts or state == "conflict":
        out.append(Reason.CONFLICT)
    if status.due_reviews:
        out.append(Reason.REVIEW_DUE)
    if status.reopened or state == "reopened":
        out.append(Reason.REOPENED)
    if state == "removed":
        out.append(Reason.REMOVED)
    return out
