"""Writing events into the index: a stream of the log's lines (a catch-up, a rebuild)
and a batch this process has just appended (`ingest_written`), both flushed to SQLite
in batches of rows."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from cairn.store import index_schema as schema
from cairn.store.dag import ChainPos
from cairn.store.gcpause import gc_paused
from cairn.store.index_lines import Record
from cairn.store.index_rows import (
    BY_KEY_SQL,
    KNOWN_SQL,
    change_code,
    id_key,
    print_code,
)
from cairn.store.index_schema import (
    CODE_OF_TYPE,
    KEY_SHIFT,
    LINK_KEYS,
    MARKED_KEYS,
    PRINT_KEY,
    RENAME_CODE,
    REVERT_CODE,
    TYPE_CODES,
    parsed_path,
)
from cairn.store.index_state import DEFAULT_WAL_PAGES
from cairn.store.index_statuses import StatusRows
from cairn.store.model import Event
from cairn.store.times import to_ms

__all__ = ["FLUSH_EVERY", "Ingest"]

FLUSH_EVERY = 10_000  # rows held in memory before they go to SQLite (bounds a rebuild's RSS)
# A bulk append's batches (`ingest_written` of this many events or more) let the WAL grow
# to _BULK_WAL_PAGES before SQLite copies it into the database: a large batch of random
# keys dirties most leaves of `entity_status`, so with SQLite's default every commit
# would be followed by a checkpoint copying all of them, though the next batch dirties
# the same pages again.
_BULK_EVENTS = 1000
_BULK_WAL_PAGES = 16384  # 64 MB of WAL at most (SQLite deletes it when the last
# connection closes); `DEFAULT_WAL_PAGES`, SQLite's default, for every other write.

# None is never bound in a bulk load: each None goes through the sqlite3 module's adapter
# lookup, which fails with an exception it then clears. `event` rows bind `_NULL` for a
# NULL `target_key` or `occurred_ms` (most rows have neither), an integer no id key
# (>= 0) and no time (ms since 1970; year 1 is -6.2e13) can be; not "" (a text bound is
# copied into memory SQLite allocates). The rows stay in one statement, in seq order:
# two statements' interleaved inserts would split the table's pages.
_NULL = -(1 << 62)
_EVENT_SQL = (
    f"INSERT INTO event VALUES (?, ?, ?, ?, ?, ?, nullif(?, {_NULL}), ?, nullif(?, {_NULL}), ?, ?)"
)
# The span of the damaged line placed in the DAG under an id key.
_PLACED_DAMAGE_SQL = (
    "SELECT line_offset, line_length FROM damage WHERE id_key = ? AND chain IS NOT NULL"
)


class Ingest(StatusRows):
    """Places events in the DAG and writes their rows; callers hold the transaction."""

    def ingest(self, records: Iterable[Record], *, dedupe: bool = True) -> int:
        """Index records (any order: a child waits for its parents). Caller commits."""
        session = self._session(dedupe)
        self._feed(session, records)
        return self._finish(session)

    def catch_up(self, start: int, stop: int) -> int:
        """Ingest the complete lines of the log in [start, stop), streaming it in chunks;
        returns the new offset (also kept as `consumed` for `record_position`). Caller
        holds the transaction."""
        session = self._session(True)
        if self.next_seq == 1:
            # Every entity this rebuild meets is new or met before in it: none to look up.
            self._all_ents_known = self.next_ent == 1
        consumed = start
        with gc_paused():
            for records, at, bad in self._chunks(start, stop):
                self.bad_lines += bad
                self._feed(session, records)
                consumed = at
            self._finish(session)
        self.consumed = consumed
        return consumed

    def ingest_written(self, events: Sequence[Event], offset: int, lengths: Sequence[int]) -> bool:
        """Index events this process has just appended at `offset` (lines of `lengths`
        bytes, newline included), as one batch; False, with nothing done, unless the index
        stands where they were prepared: caught up to `offset`, its heads the first
        event's parents. Caller holds the transaction.

        They are sound by construction (the write path made their ids and lines) and
        linear (each names the one before it; the first, every head), so they are not
        parsed, checked for damage or duplicates, or looked up again as `_ingest_one`
        does for a line of unknown origin; what they add is the same. The first is placed
        in the DAG like any event; the others continue its chain, one position each.
        """
        if not events or self.consumed != offset or set(events[0].parents) != self.heads:
            return False
        self._checkpoint_every(
            _BULK_WAL_PAGES if len(events) >= _BULK_EVENTS else DEFAULT_WAL_PAGES
        )
        batch = _Batch()
        first = self._place_first(events[0], batch)
        if first is None:
            return False
        chain, pos = first
        pos -= 1  # the loop moves each event one on
        self._known_entities({e.entity for e in events})
        ent_ids = self.ent_ids
        touched = self._touched_ents
        full = self._full_ents
        rows, reviews = batch.rows, batch.reviews
        codes = CODE_OF_TYPE
        seq = self.next_seq
        flush_every = FLUSH_EVERY
        flush_at = seq + flush_every  # one row an event
        off = offset
        key = 0
        for e, length in zip(events, lengths, strict=True):
            pos += 1
            entity = e.entity
            ent = ent_ids.get(entity)
            if ent is None:  # new: `_known_entities` found every one the index holds
                ent = ent_ids[entity] = self.next_ent
                self.next_ent += 1
                batch.ents.append((ent, entity))
            ty = codes[e.type]
            rec = to_ms(e.recorded_at)
            size = length - 1
            if entity not in full:
                news = touched.get(entity)
                if news is None:
                    touched[entity] = [(seq, ty, rec, chain, True, off, size, e)]
                else:
                    news.append((seq, ty, rec, chain, True, off, size, e))
            key = int(e.id[:15], 16)
            ref_id = e.supersedes or e.reverts
            rows.append(
                (
                    seq, ent, key, ty, chain, pos, int(ref_id[:15], 16) if ref_id else _NULL,
                    rec, to_ms(e.occurred_at) if e.occurred_at else _NULL, off, size,
                )
            )  # fmt: skip
            if e.revisit_after or e.expires_when:
                reviews.append((seq, e.revisit_after or None, e.expires_when or None))
            if e.metadata:
                _writer_keys(e.metadata, seq, batch)
                if ty == REVERT_CODE and PRINT_KEY in e.metadata:
                    _print_rows(e.metadata[PRINT_KEY], e.commit or e.id, seq, batch)
                elif ty == RENAME_CODE:
                    _link_rows(e.metadata, entity, seq, batch)
            seq += 1
            off += length
            if seq == flush_at:
                self.next_seq = seq
                self._new_tip(chain, pos, key, seq - 1, batch)
                self._flush(batch)  # settles the statuses: a fresh `touched`
                batch = _Batch()
                rows, reviews = batch.rows, batch.reviews
                touched = self._touched_ents
                flush_at = seq + flush_every
        self.next_seq = seq
        self._new_tip(chain, pos, key, seq - 1, batch)
        self.heads = {events[-1].id}
        self._flush(batch)
        self._store_states(keep=True)
        full, self._full_ents = self._full_ents, set()
        self.derive_statuses(full)
        return True

    def _place_first(self, event: Event, batch: _Batch) -> ChainPos | None:
        """Place a written batch's first event in the DAG (its parents are the heads);
        None when one of them is not indexed."""
        parents: list[ChainPos] = []
        for pid in event.parents:
            hit = self._resolve(id_key(pid), batch)
            if hit is None:
                return None
            parents.append(hit[1])
        (chain, pos), started, merged = self.dag.place(parents)
        if started:
            batch.chains.append((chain, json.dumps(parents)))
        if merged:
            batch.merges.append((chain, pos, json.dumps(parents[1:])))
        return chain, pos

    def entity_id(self, path: str, new_ents: list[tuple[int, str]]) -> int:
        """The dictionary id of a canonical path, allocating one when new."""
        ent = self.ent_ids.get(path)
        if ent is None:
            found = (
                None
                if self.next_ent == 1 or self._all_ents_known
                else self.db.execute("SELECT id FROM entity WHERE path = ?", (path,)).fetchone()
            )
            if found:
                ent = int(found[0])
            else:
                ent = self.next_ent
                self.next_ent += 1
                new_ents.append((ent, path))
            self.ent_ids[path] = ent
        return ent

    def _checkpoint_every(self, pages: int) -> None:
        """Let this connection's commits fold the WAL into the database once it holds
        `pages` pages (see `_BULK_WAL_PAGES`)."""
        if pages != self._wal_pages:
            self.db.execute(f"PRAGMA wal_autocheckpoint={pages}")
            self._wal_pages = pages

    def _new_tip(self, chain: int, pos: int, key: int, seq: int, batch: _Batch) -> None:
        """Make the event at (chain, pos) its chain's tip (the previous one no longer is)."""
        self.dag.tips[chain] = pos
        old_tip = self.tip_key.get(chain)
        if old_tip is not None:
            self.tip_by_key.pop(old_tip[0], None)
        self.tip_key[chain] = (key, seq)
        self.tip_by_key[key] = (seq, (chain, pos))
        batch.touched.add(chain)

    def _known_entities(self, paths: Iterable[str]) -> None:
        """Remember the dictionary ids of those of `paths` the index holds (one query for
        a batch, instead of one per entity `entity_id` has not seen)."""
        missing = [p for p in paths if p not in self.ent_ids]
        sql = "SELECT path, id FROM entity WHERE path IN (SELECT value FROM json_each(?))"
        for i in range(0, len(missing), 10_000):
            chunk = json.dumps(missing[i : i + 10_000])
            self.ent_ids.update((p, int(e)) for p, e in self.db.execute(sql, (chunk,)))

    def _session(self, dedupe: bool) -> _Session:
        session = _Session(dedupe)
        # With no event indexed yet (a rebuild), every earlier copy of a line is in
        # the session's own set: no need to ask the database per line.
        session.ask_db = (
            dedupe and self.db.execute("SELECT 1 FROM event LIMIT 1").fetchone() is not None
        )
        return session

    def _feed(self, session: _Session, records: Iterable[Record]) -> None:
        for rec in records:
            session.count += self._ingest_released(rec, session)
            batch = session.batch
            if len(batch.rows) + len(batch.damage) >= FLUSH_EVERY:
                self._flush(session.batch)
                session.batch = _Batch()

    def _finish(self, session: _Session) -> int:
        # Parents that never appeared: the waiting lines are damage (verify calls them
        # forged or orphaned), placed so their own children still find them.
        # Only a parent no waiting line claims is missing: releasing one that is itself
        # waiting (a child read before its parent, whose own parent is gone) would
        # call a sound line orphaned because of the order of the file.
        pending = session.pending
        while pending:
            claimed = {id_key(r.raw["id"]) for recs in pending.values() for r in recs}
            gone = [k for k in pending if k not in claimed] or [next(iter(pending))]
            for key in gone:
                session.missing.add(key)
                for rec in pending.pop(key, ()):
                    if rec.damage is None:
                        rec.damage = "missing-parent"
                    session.count += self._ingest_released(rec, session)
        self._flush(session.batch)
        self._store_states()
        full, self._full_ents = self._full_ents, set()
        self.derive_statuses(full)
        return session.count

    def _ingest_released(self, rec: Record, session: _Session) -> int:
        """Ingest one record, then every record that was waiting for it (iteratively: a
        reversed log releases a whole chain at once, deeper than any recursion limit).
        Returns how many events (not damage) were indexed."""
        count = 0
        stack = [rec]
        pending = session.pending
        while stack:
            one = stack.pop()
            key = self._ingest_one(one, session)
            if key is not None:
                if one.damage is None:
                    count += 1
                waiting = pending.pop(key, None)
                if waiting:
                    stack.extend(reversed(waiting))
        return count

    def _resolve(self, key: int, batch: _Batch) -> tuple[int, ChainPos] | None:
        """(seq, place in the DAG) of the event or placed damaged line with this key."""
        hit = batch.placed.get(key) or self.tip_by_key.get(key)
        if hit is not None:
            return hit
        found = self.db.execute(BY_KEY_SQL, (key,)).fetchone()
        if found is None:
            found = self.db.execute(
                "SELECT seq, chain, pos FROM damage WHERE id_key = ? AND chain IS NOT NULL", (key,)
            ).fetchone()
        if found:
            return found[0], (found[1], found[2])
        return None

    def _ingest_one(self, rec: Record, session: _Session) -> int | None:
        """Index one record; its id key when placed in the DAG, None when skipped or
        waiting for a parent. A damaged record is placed (its children find it) but
        written as a `damage` row: no answer reads it."""
        raw = rec.raw
        batch = session.batch
        fields = _fields(rec)
        if fields is None:
            self.bad_lines += 1
            return None
        eid, key, ty, entity_raw, recorded, occurred, parent_ids, parent_keys = fields
        entity = session.canonical(entity_raw)
        if entity is None and rec.damage is None:
            # A line with an entity the grammar refuses (a garbled path) is damage, placed
            # like any other: verify parses it as an event, so its children stand.
            rec.damage = "malformed"
        damage = rec.damage
        if (session.dedupe and (key in session.good or (session.ask_db and self._known(key)))) or (
            damage is not None and self._damage_placed(key, eid, session)
        ):
            # A duplicate line (e.g. after a union merge) is harmless; a damaged copy of
            # a sound event, or a second copy of a damaged line (placing one key twice
            # would leave two chain tips claiming it), is recorded, not placed.
            if damage is not None:
                batch.damage.append((self._take_seq(), key, None, None, rec.off, rec.len, damage))
            return None
        parents = self._parents(rec, session, parent_ids, parent_keys)
        if parents is None:
            return None
        cp, started, merged = self.dag.place(parents)
        if started:
            batch.chains.append((cp[0], json.dumps(parents)))
        if merged:
            batch.merges.append((cp[0], cp[1], json.dumps(parents[1:])))
        seq = self.next_seq
        self.next_seq = seq + 1
        self._new_tip(cp[0], cp[1], key, seq, batch)
        batch.placed[key] = (seq, cp)
        if damage is not None or entity is None:
            batch.damage.append((seq, key, cp[0], cp[1], rec.off, rec.len, damage))
            session.damaged[key] = eid
            return key
        session.good.add(key)
        heads = self.heads
        # Linear: it descends from every event indexed before it (its parents include
        # every head), so its entity's stored status row can move forward by it.
        linear = not heads or heads.issubset(parent_ids)
        for parent in parent_ids:
            heads.discard(parent)
        heads.add(eid)
        get = raw.get
        ref_id = get("supersedes") or get("reverts")
        ref = id_key(ref_id) if ref_id else None
        ent = self.ent_ids.get(entity) or self.entity_id(entity, batch.ents)
        if entity not in self._full_ents:
            new = (seq, ty, recorded, cp[0], linear, rec.off, rec.len, None)
            self._touched_ents.setdefault(entity, []).append(new)
        batch.rows.append(
            (
                seq, ent, key, ty, cp[0], cp[1], _NULL if ref is None else ref, recorded,
                _NULL if occurred is None else occurred, rec.off, rec.len,
            )
        )  # fmt: skip
        _text_and_keys(raw, entity, seq, batch)
        if ty == RENAME_CODE:
            meta = get("metadata")
            if meta and isinstance(meta, dict):
                _link_rows(meta, entity, seq, batch)
        return key

    def _parents(
        self, rec: Record, session: _Session, parent_ids: Sequence[str], parent_keys: list[int]
    ) -> list[ChainPos] | None:
        """Where a record's parents are in the DAG; None when it waits for one (it is
        queued in `session.pending`). A parent known to be missing is left out."""
        batch = session.batch
        good = session.good
        parents: list[ChainPos] = []
        for pid, pkey in zip(parent_ids, parent_keys, strict=True):
            # Most parents are a chain's tip or in this batch, and sound: asked first.
            hit = batch.placed.get(pkey) or self.tip_by_key.get(pkey) or self._resolve(pkey, batch)
            if hit is not None and pkey not in good and not self._claims(pkey, pid, session):
                hit = None  # a damaged line holds the key under another id: not this parent
            if hit is None:
                if pkey not in session.missing:
                    session.pending.setdefault(pkey, []).append(rec)
                    return None
                continue
            parents.append(hit[1])
        return parents

    def _take_seq(self) -> int:
        seq = self.next_seq
        self.next_seq += 1
        return seq

    def _known(self, key: int) -> bool:
        """True when a sound event with this key is already indexed."""
        return self.db.execute(KNOWN_SQL, (key,)).fetchone() is not None

    def _placed_damage_id(self, key: int) -> object:
        """The id claimed by the damaged line placed in the DAG under `key`, None when
        there is none or it cannot be read."""
        row = self.db.execute(_PLACED_DAMAGE_SQL, (key,)).fetchone()
        if row is None:
            return None
        try:
            return self.line(row[0], row[1]).get("id")
        except (ValueError, OSError):
            return None

    def _claims(self, key: int, parent_id: object, session: _Session) -> bool:
        """False when the line placed under `key` is a damaged one whose claimed id is
        not `parent_id`: a garbled id can keep its 60-bit prefix, and verify, which
        compares whole ids, calls that parent missing. Sound lines always claim it."""
        if key in session.good:
            return True
        claimed = session.damaged.get(key)
        if claimed is None:
            if self._known(key):
                return True
            row = self.db.execute(_PLACED_DAMAGE_SQL, (key,)).fetchone()
            if row is None:
                return True
            try:
                claimed = self.line(row[0], row[1]).get("id")
            except (ValueError, OSError):
                return False
        return claimed == parent_id

    def _damage_placed(self, key: int, eid: object, session: _Session) -> bool:
        """True when a damaged line claiming this same id is already in the DAG (asked
        only for damaged lines, which are rare, so sound ingest pays nothing for it).

        The whole id is compared, not the 60-bit key: a garbled copy can keep the key of
        the line it was copied from, and that line (damaged too, say its parent is gone)
        must still be placed, or its children, which verify vouches for, lose it."""
        claimed = session.damaged.get(key)
        if claimed is None and session.ask_db:
            claimed = self._placed_damage_id(key)
        return claimed is not None and claimed == eid

    def _flush(self, batch: _Batch) -> None:
        """Write a batch's rows, then move its entities' status rows forward."""
        db = self.db
        if batch.ents:
            db.executemany("INSERT INTO entity(id, path) VALUES (?, ?)", batch.ents)
        if batch.rows:
            db.executemany(_EVENT_SQL, batch.rows)
            self._list_keys(batch.rows[0][0])
        # The first event with an idempotency key keeps it (a union merge may bring a
        # second): hence OR IGNORE there.
        for sql, rows in (
            ("INSERT INTO chain(id, start) VALUES (?, ?)", batch.chains),
            ("INSERT INTO merge(chain, pos, parents) VALUES (?, ?, ?)", batch.merges),
            ("INSERT INTO review VALUES (?, ?, ?)", batch.reviews),
            ("INSERT OR IGNORE INTO source_key VALUES (?)", batch.srckeys),
            ("INSERT OR IGNORE INTO idempotency_key VALUES (?, ?)", batch.ikeys),
            ("INSERT OR IGNORE INTO marked_key VALUES (?, ?)", batch.marks),
            ("INSERT OR IGNORE INTO print_line VALUES (?, ?)", batch.prints),
            ("INSERT OR IGNORE INTO print_change VALUES (?, ?)", batch.changes),
            ("INSERT INTO rename_link VALUES (?, ?, ?, ?, ?)", batch.links),
            ("INSERT INTO damage VALUES (?, ?, ?, ?, ?, ?, ?)", batch.damage),
        ):
            if rows:
                db.executemany(sql, rows)
        tips = [
            (seq, self.dag.tips[c], k, c)
            for c, (k, seq) in self.tip_key.items()
            if c in batch.touched
        ]
        if tips:
            db.executemany("UPDATE chain SET tip_seq=?, tip_pos=?, tip_key=? WHERE id=?", tips)
        self._settle_statuses()

    def _list_keys(self, start: int) -> None:
        """List the id keys of the events just written (seq `start` on) in
        `key_events_recent`, read back from `event` (its pages are in memory); fold that
        list into `key_events` (in key order: one pass along its tree) once it lists more
        than `RECENT_MAX` events.

        At each flush, not when the ingest ends: a rebuild looks flushed parents up by
        key (a fork's), before its ingest ends."""
        db = self.db
        db.execute(
            f"INSERT INTO key_events_recent SELECT id_key >> {KEY_SHIFT}, seq FROM event "
            "WHERE seq >= ?",
            (start,),
        )
        if self.next_seq - self._keys_recent_from > schema.RECENT_MAX:
            db.execute("INSERT INTO key_events SELECT bucket, seq FROM key_events_recent")
            db.execute("DELETE FROM key_events_recent")
            db.execute(
                "INSERT OR REPLACE INTO meta(k, v) VALUES ('key_events_recent_from', ?)",
                (self.next_seq,),
            )
            self._keys_recent_from = self.next_seq


Fields = tuple[str, int, int, Any, int, "int | None", Sequence[str], list[int]]


def _fields(rec: Record) -> Fields | None:
    """(id, key, type code, raw entity, recorded ms, occurred ms, parent ids, their keys)
    of a record; None when it cannot be placed at all."""
    raw = rec.raw
    try:
        eid = raw["id"]
        key = int(eid[:15], 16)  # id_key, inline: once per line of a rebuild
        ty = TYPE_CODES[raw["type"]]
        entity_raw = raw["entity"]
        recorded = to_ms(raw["recorded_at"])
        occurred_raw = raw.get("occurred_at")
        occurred = to_ms(occurred_raw) if occurred_raw else None
        parent_ids = raw.get("parents") or ()
        parent_keys = [int(p[:15], 16) for p in parent_ids]
    except (KeyError, ValueError, TypeError, AttributeError):
        placed = _lenient(rec)  # a damaged line verify still parses as an event
        if placed is None:
            return None
        eid, key, parent_ids, parent_keys = placed
        return eid, key, 0, "", 0, None, parent_ids, parent_keys
    return eid, key, ty, entity_raw, recorded, occurred, parent_ids, parent_keys


def _lenient(rec: Record) -> tuple[str, int, list[str], list[int]] | None:
    """(id, key, parents, their keys) of a damaged line whose other fields do not
    parse (a garbled parent id, type or time), when verify still reads it as an event
    (an id, a type, an entity): it is placed as damage, so its children stand."""
    raw = rec.raw
    eid = raw.get("id")
    if rec.damage is None or not isinstance(eid, str) or not raw.get("type"):
        return None
    if not raw.get("entity"):
        return None
    try:
        key = id_key(eid)
    except ValueError:
        return None
    parents = raw.get("parents")
    ids: list[str] = []
    keys: list[int] = []
    for p in parents if isinstance(parents, list) else ():
        with contextlib.suppress(TypeError, ValueError):
            keys.append(int(p[:15], 16))
            ids.append(p)
    return eid, key, ids, keys


def _text_and_keys(raw: dict[str, Any], entity: str, seq: int, batch: _Batch) -> None:
    """The rows of a line's review dates and metadata keys (its searchable text is
    indexed on demand: `search_index`)."""
    get = raw.get
    revisit, expires = get("revisit_after"), get("expires_when")
    if revisit or expires:
        batch.reviews.append((seq, revisit, expires))
    meta = get("metadata")
    if meta and isinstance(meta, dict):
        _writer_keys(meta, seq, batch)
        if PRINT_KEY in meta and get("type") == "revert":
            _print_rows(meta[PRINT_KEY], get("commit") or get("id"), seq, batch)


def _writer_keys(meta: dict[str, Any], seq: int, batch: _Batch) -> None:
    """An importer's source key, a writer's idempotency key and the marked keys
    (`MARKED_KEYS`), from `metadata`."""
    if isinstance(meta.get("source_key"), str):
        batch.srckeys.append((meta["source_key"],))
    idem = meta.get("idempotency")
    if isinstance(idem, dict) and isinstance(idem.get("key"), str):
        batch.ikeys.append((idem["key"], seq))
    if not MARKED_KEYS.isdisjoint(meta):
        batch.marks.extend((k, seq) for k in MARKED_KEYS.intersection(meta))


def _print_rows(fingerprint: object, change: object, seq: int, batch: _Batch) -> None:
    """A revert's `print_line` and `print_change` rows (`index_schema.PRINT_KEY`)."""
    if not isinstance(fingerprint, str) or not isinstance(change, str) or not change:
        return
    code = change_code(change)
    batch.changes.append((code, seq))
    for word in fingerprint.split():
        hashed = print_code(word)
        if hashed is not None:
            batch.prints.append((hashed, code))


def _link_rows(meta: dict[str, Any], entity: str, seq: int, batch: _Batch) -> None:
    """A rename's `rename_link` rows (`index_schema.LINK_KEYS`): a value that is not an
    entity path links nothing. `metadata.members` (what the old path declared, when the
    link is a container's) is kept as JSON: the walk carries only those members."""
    raw_members = meta.get("members")
    members = (
        json.dumps(raw_members, sort_keys=True)
        if isinstance(raw_members, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in raw_members.items())
        else None
    )
    for key, forward in LINK_KEYS:
        raw = meta.get(key)
        if not isinstance(raw, str) or not raw.strip():
            continue
        parsed = parsed_path(raw)
        if parsed is None:
            continue
        old, new = (entity, parsed.path) if forward else (parsed.path, entity)
        batch.links.append((new, old, seq, int(forward), members))


class _Batch:
    """Rows on their way into the database (flushed every FLUSH_EVERY events)."""

    __slots__ = (
        "chains",
        "changes",
        "damage",
        "ents",
        "ikeys",
        "links",
        "marks",
        "merges",
        "placed",
        "prints",
        "reviews",
        "rows",
        "srckeys",
        "touched",
    )

    placed: dict[int, tuple[int, ChainPos]]
    ents: list[tuple[int, str]]
    rows: list[tuple[int, ...]]  # `event` rows, `_NULL` for a NULL (`_EVENT_SQL`)
    chains: list[tuple[int, str]]
    merges: list[tuple[int, int, str]]
    reviews: list[tuple[int, Any, Any]]
    srckeys: list[tuple[str]]
    ikeys: list[tuple[str, int]]
    marks: list[tuple[str, int]]
    prints: list[tuple[int, int]]  # `print_line` rows: (line hash, change)
    changes: list[tuple[int, int]]  # `print_change` rows: (change, seq)
    links: list[tuple[str, str, int, int, str | None]]  # `rename_link` rows
    damage: list[tuple[Any, ...]]
    touched: set[int]  # chains whose tip moved

    def __init__(self) -> None:
        self.placed = {}
        self.ents = []
        self.rows = []
        self.chains = []
        self.merges = []
        self.reviews = []
        self.srckeys = []
        self.ikeys = []
        self.marks = []
        self.prints = []
        self.changes = []
        self.links = []
        self.damage = []
        self.touched = set()


class _Session:
    """One ingest: what outlives a flush (lines waiting for parents, keys seen)."""

    def __init__(self, dedupe: bool) -> None:
        self.dedupe = dedupe
        self.batch = _Batch()
        self.pending: dict[int, list[Record]] = {}
        self.missing: set[int] = set()
        self.good: set[int] = set()
        self.damaged: dict[int, Any] = {}  # damaged lines placed this session: key -> id
        self.canon: dict[str, str | None] = {}
        self.count = 0
        self.ask_db = dedupe

    def canonical(self, raw: object) -> str | None:
        """The canonical path of a line's entity, None for a malformed one (cached)."""
        if not isinstance(raw, str):
            return None
        entity = self.canon.get(raw, "")
        if entity == "":
            parsed = parsed_path(raw)
            entity = self.canon[raw] = parsed.path if parsed is not None else None
        return entity
