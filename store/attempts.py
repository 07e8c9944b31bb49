"""Prior attempts: what was tried on an entity and what closed it.

Each applied change is paired with the verdict or removal that closed it: a revert
closes the change its `reverts` names, or else the nearest preceding applied change
not already closed (confidence `exact`); a plain removal closes the nearest preceding
open change when it followed within 7 days (confidence `proximity`). Each reject is
its own `rejected` row with its alternative: nothing was written, so it closes
nothing. Supersedes are not attempts; they turn the verdict they name into
`reopened`.
"""

from __future__ import annotations

from datetime import timedelta

from cairn.store.model import Attempt, Event, EventType
from cairn.store.times import to_ms

__all__ = ["PROXIMITY", "pair_attempts"]

PROXIMITY = timedelta(days=7)
_PROXIMITY_MS = int(PROXIMITY.total_seconds() * 1000)


def _order(event: Event) -> tuple[int, int, str]:
    return (to_ms(event.when), to_ms(event.recorded_at), event.id)


def pair_attempts(events: list[Event], *, include_active: bool = False) -> list[Attempt]:
    """Attempts on ONE entity, oldest first; `include_active` keeps changes nothing closed."""
    ordered = sorted(events, key=_order)
    reopened_by: dict[str, str] = {}
    for e in ordered:
        if e.type is EventType.SUPERSEDE and e.supersedes:
            reopened_by.setdefault(e.supersedes, e.id)
    closed: dict[str, tuple[Event, str]] = {}
    applied: list[Event] = []
    by_id: dict[str, Event] = {}
    rejects: list[Event] = []
    orphans: list[Event] = []  # reverts of a change that was never logged here
    for e in ordered:
        if e.type.is_applied:
            applied.append(e)
            by_id[e.id] = e
        elif e.type is EventType.REVERT:
            target = by_id.get(e.reverts) if e.reverts else None
            if target is None or target.id in closed:
                target = next((a for a in reversed(applied) if a.id not in closed), None)
            if target is not None:
                closed[target.id] = (e, "exact")
            else:
                orphans.append(e)
        elif e.type.is_removal:
            target = next((a for a in reversed(applied) if a.id not in closed), None)
            if target is not None and to_ms(e.when) - to_ms(target.when) <= _PROXIMITY_MS:
                closed[target.id] = (e, "proximity")
        elif e.type is EventType.REJECT:
            rejects.append(e)
    rows: list[tuple[tuple[int, int, str], Attempt]] = []
    for a in applied:
        if a.id in closed:
            closer, confidence = closed[a.id]
            if closer.type is EventType.REVERT:
                again = reopened_by.get(closer.id, "")
                outcome = "reopened" if again else "reverted"
            else:
                again, outcome = "", "removed"
            rows.append(
                (_order(a), Attempt(a.entity, outcome, confidence, a, closer, reopened_by=again))
            )
        elif include_active:
            rows.append((_order(a), Attempt(a.entity, "active", "", a, None)))
    for r in orphans:
        again = reopened_by.get(r.id, "")
        outcome = "reopened" if again else "reverted"
        rows.append((_order(r), Attempt(r.entity, outcome, "", None, r, reopened_by=again)))
    for r in rejects:
        again = reopened_by.get(r.id, "")
        outcome = "reopened" if again else "rejected"
        rows.append(
            (
                _order(r),
                Attempt(
                    r.entity,
                    outcome,
                    "exact",
                    None,
                    r,
                    reopened_by=again,
                    alternative=r.alternative,
                ),
            )
        )
    rows.sort(key=lambda pair: pair[0])
    return [attempt for _, attempt in rows]
