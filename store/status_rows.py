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
- notes (annotations, commit links, redactions) only count, apart from the decisions
  (`EventType.is_note`).

What the row cannot settle, `advance` refuses (None) and the caller derives from all the
entity's rows: a supersede (closing a verdict may clear conflicts), or a non-linear verdict
or removal. tests/store/test_status_rows.py compares the rows with a full derivation.

A row's detail also holds what the editor's batch shows without reading the log: where
the open verdicts' lines are (their byte spans: the batch shows them whole), what the
newest re-applying change says of itself (`Reapplied`: its id, type, times, author and
agent) and the ids of the re-opened (verdict, supersede) pairs. So a batch of statuses is
one query on these rows plus the open verdicts' lines (`encode_detail`, `detail_parts`:
the one format, written by both the full derivation and `advance`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from cairn.store.model import Event, EventType, Status

__all__ = [
    "Detail",
    "NewEvent",
    "State",
    "StoredRow",
    "advance",
    "conflict_of",
    "detail_parts",
    "encode_detail",
    "reapplied_of",
]

_TYPES = tuple(EventType)
_STATUSES = tuple(Status)
_APPLIED = frozenset(i for i, t in enumerate(_TYPES) if t.is_applied)
_VERDICT = frozenset(i for i, t in enumerate(_TYPES) if t.is_verdict)
_REMOVAL = frozenset(i for i, t in enumerate(_TYPES) if t.is_removal)
_SUPERSEDE = _TYPES.index(EventType.SUPERSEDE)
_REVERT = _TYPES.index(EventType.REVERT)
_RENAME = _TYPES.index(EventType.RENAME)
_NOTE = frozenset(i for i, t in enumerate(_TYPES) if t.is_note)
_ACTIVE = _STATUSES.index(Status.ACTIVE)
_REOPENED = _STATUSES.index(Status.REOPENED)
_REMOVED = _STATUSES.index(Status.REMOVED)
_REVERTED = _STATUSES.index(Status.REVERTED)
_REJECTED = _STATUSES.index(Status.REJECTED)
_CONFLICT = _STATUSES.index(Status.CONFLICT)
_UNKNOWN = _STATUSES.index(Status.UNKNOWN)

# (seq, type code, recorded_at in ms, DAG chain, linear, line offset, line length, the
# `Event` when the ingest has one (the write path's), else None: a rebuild's parsed
# lines are not kept, a conflict's line is read again when its row is stored) of an
# event new to the index.
NewEvent = tuple[int, int, int, int, bool, int, int, Any]
# (status code, event count, note count, kind code or None, detail JSON or None): an
# `entity_status` row without its entity's path (the kind code is `index.kind_code`).
StoredRow = tuple[int, int, int, int | None, str | None]
# What a detail keeps of the newest re-applying change, `Reapplied`'s fields in order
# (its type as a code of `EventType`), or 0 when there is none.
Summary = list[Any] | int
# A stored detail's parts: open verdicts' seqs, the newest conflict's seq (0: none),
# re-opened (verdict, supersede) seq pairs, the flat (offset, length) of each open
# verdict's line, the newest conflict's `Summary`, and the flat (verdict id, supersede
# id) of each re-opened pair.
Detail = tuple[list[int], int, list[list[int]], list[int], Summary, list[str]]


def reapplied_of(ty: int, event: Event) -> list[Any]:
    """The `Summary` of a re-applying change of type code `ty`."""
    return [event.id, ty, event.recorded_at, event.occurred_at, event.author, event.agent]


def encode_detail(
    open_v: list[int],
    conflict: int,
    reopened: list[Any],
    spans: Mapping[int, tuple[int, int]],
    summary: Summary,
    pair_ids: list[str],
) -> str | None:
    """The stored detail of a status row (None when it names no event): compact JSON
    `[open, conflict, reopened, where, summary, pair ids]`, `where` the flat (offset,
    length) of each open verdict's line (`spans` holds at least theirs)."""
    if not (open_v or conflict or reopened):
        return None
    where = [n for seq in open_v for n in spans[seq]]
    return orjson.dumps([open_v, conflict, reopened, where, summary, pair_ids]).decode()


def detail_parts(detail: str | bytes) -> Detail:
    """A stored detail's parts (see `encode_detail`)."""
    # Unpacked and packed again so the value is the tuple `Detail` says it is (orjson
    # gives a list), and a detail of the wrong shape fails here, by name.
    open_v, conflict, reopened, where, summary, pair_ids = orjson.loads(detail)
    return open_v, conflict, reopened, where, summary, pair_ids


def conflict_of(detail: str | None) -> int:
    """The newest conflict's seq in a stored detail (0 when none)."""
    return int(orjson.loads(detail)[1]) if detail else 0


class State:
    """A stored row being moved forward (kept in memory for the rest of an ingest, so
    an entity touched in every flush of a rebuild is parsed and written once)."""

    # `where` is the stored flat list of the open verdicts' spans (a rebuild holds a
    # State per entity: no dict of spans each). `summary` is the newest conflict's
    # `Summary`, or, once `advance` set it, (type code, its `Event` or None, its line's
    # offset and length): `settle` makes that a `Summary` when there is an event (not at
    # every re-application: most are replaced by a newer one before the row is written);
    # else its line is read when the row is stored (`unread`, `Index._store_states`: a
    # rebuild keeps 100k states, and a summary each in memory was ~30 MB at 1M events).
    __slots__ = (
        "cch", "conflict", "count", "crec", "kd", "notes", "open", "pair_ids", "reopened",
        "status", "summary", "where",
    )  # fmt: skip

    def __init__(self, row: StoredRow | None, conflict_at: tuple[int, int] = (0, -1)) -> None:
        self.crec, self.cch = conflict_at
        if row is None:
            self.status, self.count, self.notes, self.kd = _UNKNOWN, 0, 0, None
            self.open: list[int] = []
            self.conflict = 0
            self.reopened: list[list[int]] = []
            self.where: list[int] = []
            self.summary: Any = 0
            self.pair_ids: list[str] = []
            return
        self.status, self.count, self.notes, self.kd, detail = row
        if detail:
            parts = detail_parts(detail)
            self.open, self.conflict, self.reopened, self.where, self.summary, self.pair_ids = parts
        else:
            self.open, self.conflict, self.reopened, self.where = [], 0, [], []
            self.summary, self.pair_ids = 0, []

    def settle(self) -> None:
        """Make the conflict `advance` set a stored `Summary` when its event is at hand
        (it holds no event then)."""
        summary = self.summary
        if type(summary) is tuple and summary[1] is not None:
            self.summary = reapplied_of(summary[0], summary[1])

    def unread(self) -> tuple[int, int] | None:
        """The (offset, length) of the line whose `Summary` the row still needs."""
        summary = self.summary
        return (summary[2], summary[3]) if type(summary) is tuple else None

    def row(self) -> StoredRow:
        """The row to store (the detail as `Index.derive_statuses` writes it; the kind
        code as it was read, which the index fills in when a detail is new); the
        conflict's line read first if `unread`."""
        detail = None
        if self.open or self.conflict or self.reopened:
            self.settle()
            parts = [self.open, self.conflict, self.reopened, self.where, self.summary]
            detail = orjson.dumps([*parts, self.pair_ids]).decode()
        return self.status, self.count, self.notes, self.kd, detail


def advance(state: State, events: list[NewEvent]) -> bool:
    """Move `state` forward by `events` (in ingest order); False when the entity must be
    derived in full (`state` is then of no use).

    The full derivation keeps of each chain's changes only the latest
    (`index_rows.summarise`) and shows the newest of those that conflict by `(rec, seq)`: a
    new change replaces its chain's, so when it is older than the stored conflict of its
    own chain, another chain's may now be the newest.
    """
    st = state.status
    open_v = state.open
    notes = 0
    for seq, ty, rec, ch, linear, off, length, event in events:
        if ty == _RENAME and open_v:
            pass  # a move re-applies nothing: the verdicts stand, no conflict (`derive`)
        elif ty in _APPLIED:
            if open_v:
                if not linear:
                    return False
                # Newer by (rec, seq) than the shown conflict (no tuples built).
                conflict, crec = state.conflict, state.crec
                if not conflict or rec > crec or (rec == crec and seq > conflict):
                    state.conflict, state.crec, state.cch = seq, rec, ch
                    state.summary = (ty, event, off, length)
                elif ch == state.cch:
                    return False
                st = _CONFLICT
            else:
                st = _REOPENED if state.reopened else _ACTIVE
        elif ty in _VERDICT:
            if not linear:
                return False
            if st != _CONFLICT:
                st = _REVERTED if ty == _REVERT or (open_v and st == _REVERTED) else _REJECTED
            state.where += (off, length)
            open_v.append(seq)
        elif ty in _REMOVAL:
            if not open_v:
                if not linear:
                    return False
                st = _REMOVED
        elif ty == _SUPERSEDE:
            return False
        elif ty in _NOTE:
            notes += 1
    # Once, not per event: on False the caller drops `state`, half moved or not.
    state.status = st
    state.count += len(events)
    state.notes += notes
    return True
