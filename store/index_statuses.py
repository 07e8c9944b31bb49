"""The index's status rows (`entity_status`): one row an entity, moved forward by the
events an ingest adds (`status_rows.advance`), or derived again from all the entity's
events when it cannot be; and the lists of each entity's events they are derived from."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from cairn.store import index_schema as schema
from cairn.store.index_queries import Queries
from cairn.store.index_rows import (
    BY_PATHS_IN_ORDER_SQL,
    STATUS_ROWS_SQL,
    Row,
    names_a_summarised_change,
    summarise,
)
from cairn.store.index_schema import CODE_OF_TYPE, CONFLICT_CODE, STATUS_CODES, kind_code
from cairn.store.status import Derived, derive
from cairn.store.status_rows import State, advance, encode_detail, reapplied_of

__all__ = ["StatusRows"]

_KEEP_STATES = 1 << 18  # status rows kept between a load's batches (~100 MB at most)
# Where each conflict a status row names stands: a new change must beat it to be shown.
_RECORDED_SQL = (
    "SELECT seq, recorded_ms, chain FROM event WHERE seq IN (SELECT value FROM json_each(?))"
)
_WRITE_SQL = "INSERT OR REPLACE INTO entity_status VALUES (?, ?, ?, ?, ?, ?)"
# A status row that names no event (no kind, no detail) leaves those columns out: no
# None is bound (each costs the sqlite3 module a failed adapter lookup).
_WRITE_BARE_SQL = (
    "INSERT OR REPLACE INTO entity_status(path, status, event_count, note_count) "
    "VALUES (?, ?, ?, ?)"
)

# path, its status, event count, note count, rows
Summary = tuple[str, Derived, int, int, list[Row]]


class StatusRows(Queries):
    """Keeps `entity_status` and the entity lists (`entity_events*`) up to date."""

    def _settle_statuses(self) -> None:
        """Move the status rows of the entities touched since the last flush forward
        by their new events (`status_rows.advance`), in memory until the ingest ends
        (`_store_states`); the ones it cannot settle wait for a full derivation then.
        Caller holds the transaction and has flushed the events' rows."""
        touched, self._touched_ents = self._touched_ents, {}
        states = self._states
        kept = self._kept
        fresh = []  # neither moved forward in this ingest nor kept: read from the table
        for path in touched:
            if path not in states:
                state = kept.pop(path, None) if kept else None
                if state is None:
                    fresh.append(path)
                else:
                    states[path] = state
        # In key order: the rows are looked up (and later written) along the B-tree.
        fresh.sort()
        for i in range(0, len(fresh), 10_000):
            self._read_states(fresh[i : i + 10_000])
        for path, news in touched.items():
            state = states[path]
            if advance(state, news):
                state.settle()  # holds no event of this flush past it
            else:
                self._full_ents.add(path)
                del states[path]

    def _read_states(self, paths: list[str]) -> None:
        """Load the stored status rows of `paths` into `_states`."""
        stored = {t[0]: t[1:] for t in self.db.execute(STATUS_ROWS_SQL, (json.dumps(paths),))}
        # Where each stored conflict stands (recorded time, chain): a new change must
        # beat it to be shown instead. Each detail is parsed once, by its `State`.
        conflicted: list[State] = []
        for path in paths:
            row = stored.get(path)
            self._states[path] = state = State(row)
            if row is not None and row[0] == CONFLICT_CODE and state.conflict:
                conflicted.append(state)
        if conflicted:
            wanted = json.dumps([state.conflict for state in conflicted])
            at = {seq: (rec, ch) for seq, rec, ch in self.db.execute(_RECORDED_SQL, (wanted,))}
            for state in conflicted:
                state.crec, state.cch = at.get(state.conflict, (0, -1))

    def _store_states(self, *, keep: bool = False) -> None:
        """Write the status rows moved forward in this ingest; with `keep` (a bulk
        append, whose next batch touches most of them again), keep them in memory.

        In chunks, in key order, each state let go once written (unless kept): a rebuild
        ends with a state for every entity, and reads the lines of the conflicts it did
        not keep (`State.unread`); all rows and summaries at once would be its peak of
        memory."""
        states, self._states = self._states, {}
        if keep:
            if len(self._kept) + len(states) > _KEEP_STATES:
                self._kept = {}
            self._kept.update(states)
        todo = sorted(states, reverse=True)  # the paths, taken from the end: in key order
        let_go = states.pop
        while todo:
            chunk = [(path, let_go(path)) for path in reversed(todo[-4096:])]
            del todo[-4096:]
            unread = [(state, at) for _, state in chunk if (at := state.unread())]
            if unread:
                events = self.events_at([at for _, at in unread])
                for (state, _), event in zip(unread, events, strict=True):
                    state.summary = reapplied_of(CODE_OF_TYPE[event.type], event)
                del events
            rows = []
            bare = []  # rows that name no event (`_WRITE_BARE_SQL`)
            for path, state in chunk:
                st, cnt, notes, kd, detail = state.row()
                if detail is None:
                    if kd is None:
                        bare.append((path, st, cnt, notes))
                        continue
                elif kd is None:
                    # Kept on the state: a detail, once there, stays (only a full
                    # derivation, which makes a new row, clears it).
                    kd = state.kd = kind_code(path)
                rows.append((path, st, cnt, notes, kd, detail))
            self.db.executemany(_WRITE_SQL, rows)
            self.db.executemany(_WRITE_BARE_SQL, bare)

    def derive_statuses(self, paths: Iterable[str]) -> None:
        """Recompute the stored status row of these entities (canonical paths the index
        holds; caller holds the transaction).

        Status is a function of an entity's own events, so only entities that got events
        change; `status_many` then reads one row per entity instead of all their events.
        Every ingest ends here: its events are listed under their entities first.
        """
        self._list_entities()
        wanted = sorted(paths)
        for path in wanted:
            self._kept.pop(path, None)  # its row is derived anew below
        out = []
        for i in range(0, len(wanted), 10_000):
            chunk = wanted[i : i + 10_000]
            found = self.db.execute(BY_PATHS_IN_ORDER_SQL, (json.dumps(chunk),))
            derived = [
                self._derived(path, rows, count, notes)
                for path, (rows, count, notes) in summarise(found, chunk)
                if count
            ]
            out += self._status_rows(derived)
        self.db.executemany(_WRITE_SQL, [r for r in out if r[4] is not None or r[5] is not None])
        bare = [r[:4] for r in out if r[4] is None and r[5] is None]
        self.db.executemany(_WRITE_BARE_SQL, bare)

    def _list_entities(self) -> None:
        """List the events indexed since the last call under their entities (in
        `entity_events_recent`, or in `entity_events` for many), read back from `event`
        (their rows were just written: the pages are in memory). Caller holds the
        transaction."""
        start, stop = self._entities_listed_upto, self.next_seq
        if stop <= start:
            return
        recent_max = schema.RECENT_MAX
        if stop - start >= recent_max:
            # Fold first: the recent list holds only events later than the full one's.
            self._fold_recent_entities(stop)
            # Sorted in pieces: SQLite's sorter keeps up to the page cache's size in
            # memory, on top of the cache, so one sort of a large rebuild would raise
            # its peak of memory by that much.
            sql = (
                "INSERT INTO entity_events SELECT entity, seq FROM event "
                "WHERE seq >= ? AND seq < ? ORDER BY entity, seq"
            )
            for lo in range(start, stop, recent_max):
                self.db.execute(sql, (lo, lo + recent_max))
        else:
            self.db.execute(
                "INSERT INTO entity_events_recent SELECT entity, seq FROM event WHERE seq >= ?",
                (start,),
            )
            if stop - self._entities_recent_from > recent_max:
                self._fold_recent_entities(stop)
        self._entities_listed_upto = stop

    def _fold_recent_entities(self, stop: int) -> None:
        """Move what `entity_events_recent` lists into `entity_events` (in key order:
        one pass along its tree)."""
        self.db.execute("INSERT INTO entity_events SELECT entity, seq FROM entity_events_recent")
        self.db.execute("DELETE FROM entity_events_recent")
        self.db.execute(
            "INSERT OR REPLACE INTO meta(k, v) VALUES ('entity_events_recent_from', ?)", (stop,)
        )
        self._entities_recent_from = stop

    def _derived(self, path: str, rows: list[Row], count: int, notes: int) -> Summary:
        """(path, its derived status, event count, note count, the rows derived over)."""
        if count > len(rows) and names_a_summarised_change(rows):
            # A revert names a change the summary folded away.
            rows = self.rows_for(rows[0].entity)
        return path, derive(rows, self.dag.is_ancestor), count, notes, rows

    def _status_rows(
        self, derived: list[Summary]
    ) -> list[tuple[str, int, int, int, int | None, str | None]]:
        """The `entity_status` rows of derived statuses; the lines of their newest
        conflicts and re-opened pairs are read (together) for what the detail keeps."""
        wanted: list[Row] = []  # each status's newest conflict, then its pairs' events
        newest: list[int] = []  # each status's newest conflict's seq (0: none)
        for _, d, _, _, rows in derived:
            conflict = 0
            if d.conflicts or d.reopened:
                by_seq = {r.seq: r for r in rows}
                if d.conflicts:
                    # The editor's batch shows the newest re-applying change (`status`
                    # gives all).
                    row = max((by_seq[s] for s in d.conflicts), key=_recorded_order)
                    conflict = row.seq
                    wanted.append(row)
                wanted += (by_seq[s] for pair in d.reopened for s in pair)
            newest.append(conflict)
        events = iter(self.events_at([(r.off, r.len) for r in wanted]) if wanted else ())
        out = []
        for (path, d, count, notes, rows), conflict in zip(derived, newest, strict=True):
            summary: list[Any] | int = 0
            if conflict:
                event = next(events)
                summary = reapplied_of(CODE_OF_TYPE[event.type], event)
            pair_ids = [next(events).id for pair in d.reopened for _ in pair]
            opened = set(d.open_verdicts)
            spans = {r.seq: (r.off, r.len) for r in rows if r.seq in opened}
            detail = encode_detail(d.open_verdicts, conflict, d.reopened, spans, summary, pair_ids)
            kd = kind_code(path) if detail is not None else None
            out.append((path, STATUS_CODES[d.status], count, notes, kd, detail))
        return out


def _recorded_order(row: Row) -> tuple[int, int]:
    """Newest recorded last (then logged last): which conflict a status row keeps."""
    return row.recorded_ms, row.seq
