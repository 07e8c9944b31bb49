"""Stored status rows moved forward by new events, without reading an entity's old rows.

`derive` (cairn.store.status) is the rule: status is a function of the set of an
entity's events. Applying it again to every row of every touched entity at each ingest
grew with the log (the slowest part of a bulk load at 1M events). Most new events are
*linear*: their parents include every head of the log, so they descend from every event
indexed before them (one writer appending; a rebuild of such a log). For those, the
entity's stored row (status, count, open verdicts, newest conflict, re-opened verdicts)
is enough to apply the rule:

- an applied change descends from nothing older, so with open verdicts it re-applies
  without a supersede (`conflict`; no older revert can name it, as its id was not known
  yet), and without them the entity is `active` (or `reopened`): no older removal can
  descend from it. This holds for a non-linear change too (ingest places a child after
  its parents), so only with open verdicts must that one be derived in full;
- a linear verdict has every older change as an ancestor, so it adds no conflict;
- a linear removal descends from every change: `removed` when no verdict is open;
- redactions and annotations only count.

What the row cannot settle, `advance` refuses (None) and the caller derives from all the
entity's rows: a supersede (closing a verdict may clear conflicts), or a non-linear verdict
or removal. tests/store/test_status_rows.py compares the rows with a full derivation.
"""

from __future__ import annotations

import json

from cairn.store.model import EventType, Status

__all__ = ["NewEvent", "StoredRow", "advance"]

_TYPES = tuple(EventType)
_STATUSES = tuple(Status)
_APPLIED = frozenset(i for i, t in enumerate(_TYPES) if t.is_applied)
_VERDICT = frozenset(i for i, t in enumerate(_TYPES) if t.is_verdict)
_REMOVAL = frozenset(i for i, t in enumerate(_TYPES) if t.is_removal)
_SUPERSEDE = _TYPES.index(EventType.SUPERSEDE)
_REVERT = _TYPES.index(EventType.REVERT)
_ACTIVE = _STATUSES.index(Status.ACTIVE)
_REOPENED = _STATUSES.index(Status.REOPENED)
_REMOVED = _STATUSES.index(Status.REMOVED)
_REVERTED = _STATUSES.index(Status.REVERTED)
_REJECTED = _STATUSES.index(Status.REJECTED)
_CONFLICT = _STATUSES.index(Status.CONFLICT)
_UNKNOWN = _STATUSES.index(Status.UNKNOWN)

# (seq, type code, recorded_at in ms, DAG chain, linear) of an event new to the index.
NewEvent = tuple[int, int, int, int, bool]
# (status code, event count, detail JSON or None): an `est` row without its entity.
StoredRow = tuple[int, int, str | None]


def conflict_of(detail: str | None) -> int:
    """The newest conflict's seq in a stored detail (0 when none)."""
    return int(json.loads(detail)[1]) if detail else 0


def advance(
    row: StoredRow | None, events: list[NewEvent], conflict_at: tuple[int, int] = (0, -1)
) -> StoredRow | None:
    """The row after `events` (in ingest order), or None when it must be derived in full.

    `row` is the stored row (None for an entity without events); `conflict_at` is the
    (recorded time, chain) of its stored conflict. The full derivation keeps of each
    chain's changes only the latest (`index._summarise`) and shows the newest of those
    that conflict by `(rec, seq)`: a new change replaces its chain's, so when it is
    older than the stored conflict of its own chain, other chains' may now be newest.
    """
    if row is None:
        st, count = _UNKNOWN, 0
        open_v: list[int] = []
        conflict = 0
        reopened: list[list[int]] = []
    else:
        st, count, detail = row
        if detail:
            open_v, conflict, reopened = json.loads(detail)
        else:
            open_v, conflict, reopened = [], 0, []
    crec, cch = conflict_at
    for seq, ty, rec, ch, linear in events:
        count += 1
        if ty in _APPLIED:
            if open_v:
                if not linear:
                    return None
                if not conflict or (rec, seq) > (crec, conflict):
                    conflict, crec, cch = seq, rec, ch
                elif ch == cch:
                    return None
                st = _CONFLICT
            else:
                st = _REOPENED if reopened else _ACTIVE
        elif ty in _VERDICT:
            if not linear:
                return None
            if st != _CONFLICT:
                st = _REVERTED if ty == _REVERT or (open_v and st == _REVERTED) else _REJECTED
            open_v.append(seq)
        elif ty in _REMOVAL:
            if not open_v:
                if not linear:
                    return None
                st = _REMOVED
        elif ty == _SUPERSEDE:
            return None
    detail_out = (
        json.dumps([open_v, conflict, reopened]) if open_v or conflict or reopened else None
    )
    return st, count, detail_out
