"""The SQLite index (`.cairn/index.db`): derived from the JSONL, lean, rebuildable.

It holds no decision text: events are rows of integers (entity, type, chain position,
a 60-bit id prefix, times, and the byte span of the line in the JSONL), the text is
read back from the log by offset, and full-text search is a contentless FTS5 table.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from cairn.store.dag import ChainPos, Dag
from cairn.store.errors import StoreError
from cairn.store.fastid import line_damage
from cairn.store.fastid import loads as parse_line
from cairn.store.fulltext import SearchTerm, holds, text_tokens
from cairn.store.gcpause import gc_paused
from cairn.store.log import write_lock
from cairn.store.model import Event, EventType, Status, event_from_bytes, events_from_bytes
from cairn.store.paths import EntityKind, EntityPath, parsed_or_none
from cairn.store.prefix import PrefixDigest, starts_with_ingested
from cairn.store.status import Derived, derive
from cairn.store.status_rows import NewEvent, State, advance, encode_detail, reapplied_of
from cairn.store.times import to_ms

__all__ = [
    "INDEX_NAME",
    "TYPES",
    "TYPE_CODES",
    "Index",
    "IndexUnreadable",
    "Row",
    "id_key",
    "index_files",
    "read_meta",
    "remove_index",
    "write_meta",
]

# 5: ev_rename, the rename links alias resolution reads; 6: ikey, idempotency keys;
# 7: ev_revert, the open reverts change fingerprints are read from; 8: mark;
# 9: ev_supersede, what due reviews leave out (a scan of every event before);
# 10: ev_h holds the id key's top 31 bits (`_KEY_SHIFT`); 11: a status row's detail
# holds the line spans of the events it names (`status_rows.encode_detail`), so a
# batch of statuses reads no event row; 12: status rows keyed by entity path (one lookup
# a path, not two) with the kind the grammar infers for it (`kd`, when it names events);
# 13: `fts` holds an event's own text only, with `detail=none` and no column sizes, and
# `ent_fts` each entity's path once (`cairn.store.fulltext`): 62 bytes an event fewer;
# 14: a status row's detail keeps what the editor's batch shows of the newest conflict
# (`Reapplied`) and the re-opened pairs' ids, so the batch reads only open verdicts' lines;
# 15: an entity's events are listed in `es` and `es_new` (`_index_entities`), not in an
# index of `ev` by entity; 16: an event's id key is listed in `eh` and `eh_new`
# (`_list_keys`), not in an index of `ev` (`ev_h`)
SCHEMA_VERSION = "16"
INDEX_NAME = "index.db"
TAIL_BYTES = 4096
FLUSH_EVERY = 10_000  # rows held in memory before they go to SQLite (bounds a rebuild's RSS)
READ_CHUNK = 2 << 20  # a rebuild streams the log in pieces this big (bounded memory)

TYPES: tuple[EventType, ...] = tuple(EventType)
TYPE_CODES: dict[str, int] = {t.value: i for i, t in enumerate(TYPES)}
_APPLIED_SET = frozenset(i for i, t in enumerate(TYPES) if t.is_applied)
STATUSES: tuple[Status, ...] = tuple(Status)
_STATUS_CODES = {s: i for i, s in enumerate(STATUSES)}
_CODE_OF: dict[EventType, int] = {t: i for i, t in enumerate(TYPES)}
_RENAME_CODE = TYPE_CODES["rename"]
_REVERT_CODE = TYPE_CODES["revert"]
_SUPERSEDE_CODE = TYPE_CODES["supersede"]
_CONFLICT_CODE = _STATUS_CODES[Status.CONFLICT]
# A bulk append's batches (`ingest_written` of this many events or more) let the WAL grow
# to this many pages before SQLite folds it into the database: at 1M events a 10k batch
# of random keys dirtied ~7,500 pages (most leaves of `ev_h`, `ev_ent`, `est`), so with
# SQLite's default (1,000) every commit was followed by a checkpoint copying all of them,
# though the next batch dirties the same pages again. Four batches' worth is copied once.
_BULK_EVENTS = 1000
_BULK_WAL_PAGES = 16384  # 64 MB of WAL at most (SQLite deletes it when the last
_WAL_PAGES = 1000  # connection closes); SQLite's default, for every other write
_KEEP_STATES = 1 << 18  # status rows kept between a load's batches (~100 MB at most)
_FEW_EVENTS = 2000  # fewer events than this are checked one by one against `fts`
# Which events are an entity's: `es` lists (entity, seq) for all but the latest events,
# `es_new` for the latest (seq `es_from` on, a meta key), about _RECENT_MAX at most. An
# index of `ev` by entity took, for each event, a random-key insert into a tree of every
# event: at 1M events ~9.5k of a 10k batch's events are on distinct entities, so rows
# per entity per batch are no fewer, and each insert's descent into that 13 MB tree cost
# 6-9 us (SQLite alone). Inserts into the small `es_new` stay in the CPU's caches; it is
# folded into `es` in key order (one pass along the tree) every _RECENT_MAX events, and a
# batch of that many or more (a rebuild) goes into `es` sorted (`_index_entities`).
_RECENT_MAX = 1 << 17
_REC_SQL = "SELECT seq, rec, ch FROM ev WHERE seq IN (SELECT value FROM json_each(?))"
# Which event has an id key: `eh` and `eh_new` list (bucket, seq), the bucket being the
# key's top 31 bits, not all 60: 4 bytes a row instead of 8, and still one row per
# lookup at 1M events (a bucket holds 2^29 keys of 2^60). A lookup names the bucket in
# both lists, then the key in `ev`. Two lists, for the reason `es` and `es_new` are
# two: an index of `ev` by key (`ev_h`, schema 15) took a random-key insert per event
# into a tree of every event; at 1M events a 10k batch dirtied ~3,300 of its ~3,500
# leaves, and with `est` the page cache (32 MB) no longer held what a batch touches.
# `eh_new` holds the keys of the latest events, seq `eh_from` (a meta key) on, and is
# folded into `eh` in key order every _RECENT_MAX events (`_list_keys`).
_KEY_SHIFT = 29

_SCHEMA = f"""
CREATE TABLE meta(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE ent(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE ev(
  seq INTEGER PRIMARY KEY, ent INTEGER NOT NULL, h INTEGER NOT NULL, ty INTEGER NOT NULL,
  ch INTEGER NOT NULL, pos INTEGER NOT NULL, ref INTEGER, rec INTEGER NOT NULL,
  occ INTEGER, off INTEGER NOT NULL, len INTEGER NOT NULL);
CREATE TABLE chain(ch INTEGER PRIMARY KEY, start TEXT NOT NULL, tip_seq, tip_pos, tip_h);
CREATE TABLE merge(ch INTEGER NOT NULL, pos INTEGER NOT NULL, parents TEXT NOT NULL);
CREATE TABLE review(seq INTEGER PRIMARY KEY, revisit TEXT, expires TEXT);
CREATE TABLE srckey(k TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE ikey(k TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
CREATE VIRTUAL TABLE fts USING fts5(body, content='', detail=none, columnsize=0);
CREATE VIRTUAL TABLE ent_fts USING fts5(path, content='', columnsize=0);
CREATE TABLE est(path TEXT PRIMARY KEY, st INTEGER NOT NULL, cnt INTEGER NOT NULL, kd INTEGER,
  detail TEXT) WITHOUT ROWID;
CREATE TABLE damage(seq INTEGER PRIMARY KEY, h INTEGER, ch INTEGER, pos INTEGER,
  off INTEGER NOT NULL, len INTEGER NOT NULL, code TEXT NOT NULL);
CREATE INDEX damage_h ON damage(h);
CREATE INDEX ev_rename ON ev(seq) WHERE ty = {_RENAME_CODE};
CREATE INDEX ev_revert ON ev(ent, seq) WHERE ty = {_REVERT_CODE};
CREATE INDEX ev_supersede ON ev(ref) WHERE ty = {_SUPERSEDE_CODE};
CREATE TABLE mark(k TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(k, seq)) WITHOUT ROWID;
CREATE TABLE es(ent INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(ent, seq)) WITHOUT ROWID;
CREATE TABLE es_new(ent INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(ent, seq))
  WITHOUT ROWID;
CREATE TABLE eh(k INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(k, seq)) WITHOUT ROWID;
CREATE TABLE eh_new(k INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(k, seq))
  WITHOUT ROWID;
"""
# Metadata keys whose few events a reader asks for among many: rename links (the
# aliases every status follows) and reverts that carry a change fingerprint (the
# bring-back check). Marked at ingest, so finding them reads no line of the log: at 1M
# events the workload's 26k renames and 36k reverts carry none, and reading them to
# learn that was most of the server's first statuses.
MARKED_KEYS = frozenset({"renamed_to", "renamed_from", "fingerprint"})


def _unusable(path: Path, exc: BaseException) -> str:
    """Why the index file cannot be used, for a warning and a refused write."""
    if path.is_dir():
        return f"{path} is a directory, not the index; delete it (the index is rebuilt)"
    what = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"{path} cannot be written ({what}); make .cairn/ and its files writable"


def _parsed_or_none(raw: str) -> EntityPath | None:
    """The parsed path, or None for a malformed one (cached: `paths.parsed_or_none`)."""
    return parsed_or_none(raw) if isinstance(raw, str) else None


def _canonical_or_none(raw: str) -> str | None:
    """The canonical path, or None for a malformed one."""
    parsed = _parsed_or_none(raw)
    return parsed.path if parsed is not None else None


KINDS: tuple[str, ...] = tuple(k.value for k in EntityKind)
_KIND_CODES = {k: i for i, k in enumerate(KINDS)}


def kind_code(path: str) -> int | None:
    """The stored code of the kind the grammar infers for a canonical path (what
    `model.event_from_bytes` fills in for a line that leaves `entity_kind` out), None
    when it infers none. A rebuild parsed the path already (a cache hit); a change to
    what the grammar infers must bump SCHEMA_VERSION, like a change to canonical paths.
    """
    parsed = _parsed_or_none(path)
    return _KIND_CODES[parsed.kind.value] if parsed is not None else None


def _create_schema(db: sqlite3.Connection) -> None:
    """Replace whatever tables the file holds with the current schema, in one transaction."""
    db.execute("BEGIN IMMEDIATE")
    try:
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for name in names:
            if not name.startswith("sqlite_"):
                db.execute(f'DROP TABLE IF EXISTS "{name}"')
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute("INSERT INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _is_key_of(event_id: str, key: int) -> bool:
    try:
        return id_key(event_id) == key
    except ValueError:
        return False


def id_key(event_id: str) -> int:
    """The 60-bit integer an id (or a 15+ char prefix) is indexed under."""
    return int(event_id[:15], 16)


class Row(NamedTuple):
    """One event as the index knows it (no text). A tuple: thousands per editor batch."""

    seq: int
    ent: int
    h: int
    ty: EventType
    cp: ChainPos
    ref: int | None
    rec: int
    occ: int | None
    off: int
    len: int


_ROW_SQL = "SELECT seq, ent, h, ty, ch, pos, ref, rec, occ, off, len FROM ev"


def _row(t: tuple[Any, ...]) -> Row:
    return Row(t[0], t[1], t[2], TYPES[t[3]], (t[4], t[5]), t[6], t[7], t[8], t[9], t[10])


def _recorded_order(row: Row) -> tuple[int, int]:
    """Newest recorded last (then logged last): which conflict a status row keeps."""
    return row.rec, row.seq


@dataclass(slots=True)
class Record:
    """A parsed line on its way into the index; `damage` says why it cannot be trusted."""

    off: int
    len: int
    raw: dict[str, Any]
    damage: str | None = None


class Index:
    """Ingests JSONL records and answers row-level queries. Not thread-safe by itself."""

    def __init__(self, cairn_dir: Path, log_path: Path) -> None:
        self.path = cairn_dir / INDEX_NAME
        self.log_path = log_path
        # Why the index lives in memory, "" when it is the file. A read-only `.cairn/`
        # (a read-only mount, a checkout without write permission), an index that is
        # not writable or not a file: reads still answer, from a copy in memory caught
        # up with the log; writes are refused (`Store`) with this reason.
        self.fallback = ""
        try:
            self.db = self._connect()
        except (OSError, sqlite3.Error) as exc:
            self.fallback = _unusable(self.path, exc)
            self.db = self._in_memory()
        else:
            if not os.access(self.path, os.W_OK):
                self.db.close()
                self.fallback = _unusable(self.path, PermissionError("it is not writable"))
                self.db = self._in_memory()
        self.dag = Dag()
        self.heads: set[str] = set()
        self.consumed = 0
        self.next_seq = 1
        self.loaded_version = -1  # PRAGMA data_version when load_state last ran
        self.bad_lines = 0
        self.tip_by_key: dict[int, tuple[int, ChainPos]] = {}  # chain tip h -> (seq, cp)
        # chain -> (h, seq) of its tip. Its own record, not read back through tip_by_key:
        # a damaged line and a sound copy of it can both be chain tips under one h.
        self.tip_key: dict[int, tuple[int, int]] = {}
        self.next_ent = 1
        self.ent_ids: dict[str, int] = {}
        # Entities (by path) that got events since the last flush -> those events, for
        # their status rows to move forward (`cairn.store.status_rows`); entities whose
        # rows must be derived from all their events when the ingest finishes.
        self._touched_ents: dict[str, list[NewEvent]] = {}
        self._full_ents: set[str] = set()
        self._states: dict[str, State] = {}  # rows moved forward, stored when it ends
        # The stored rows as this connection last wrote them in a bulk append, kept for
        # the next batch of the same load (most of its entities are touched again):
        # no SELECT and no parse of their rows then. Valid while no other connection
        # commits: `load_state`, which runs then and after a rollback, drops them.
        self._kept: dict[str, State] = {}
        self._all_ents_known = False  # ent_ids holds every row of `ent` (a rebuild's)
        self._wal_pages = _WAL_PAGES  # this connection's wal_autocheckpoint
        self._fd: int | None = None  # the log, opened for `pread` of known byte spans
        self._prefix = PrefixDigest()  # digests of the ingested bytes (a replaced log)
        self._es_from = 1  # the first seq `es_new` may list (what `es` lists is older)
        self._es_upto = 1  # the first seq neither lists yet (`_index_entities`)
        self._eh_from = 1  # the first seq `eh_new` may list (what `eh` lists is older)
        self.load_state()

    # --- connection and state -----------------------------------------------------

    def _open_checked(self) -> tuple[sqlite3.Connection, bool]:
        """Connect; True when the file holds the current schema."""
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        version = None
        # A garbled file fails on the first statement: it is derived, so rebuild it.
        with contextlib.suppress(sqlite3.Error):
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=10000")
            # Random-key B-tree inserts (id prefixes) thrash SQLite's default 2 MB cache.
            db.execute("PRAGMA cache_size=-32768")
            version = db.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
        return db, version is not None and version[0] == SCHEMA_VERSION

    def _connect(self) -> sqlite3.Connection:
        db, current = self._open_checked()
        if current:
            return db
        db.close()
        # Several processes may find no index at once: only one may create it (or it
        # deletes the file another is filling), so create under the write lock, after
        # looking again.
        with write_lock(self.path.parent):
            db, current = self._open_checked()
            if current:
                return db
            try:
                # Rebuild in place: unlinking the file (and its -wal) while a process
                # still held the old one let that process's close delete the new WAL.
                _create_schema(db)
                return db
            except sqlite3.DatabaseError:
                db.close()  # not a database at all: only then replace the file
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=10000")
            _create_schema(db)
        return db

    def _in_memory(self) -> sqlite3.Connection:
        """An index in memory: a copy of the file's when it can be read (caught up from
        there like the file would be), else empty (built from the log)."""
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        if self.path.is_file():
            with contextlib.suppress(sqlite3.Error, OSError, ValueError):
                # immutable: no lock, no -shm, nothing written beside it (the folder may be
                # read-only); a stale copy is caught up from the log like any index.
                uri = self.path.resolve().as_uri() + "?immutable=1"
                source = sqlite3.connect(uri, uri=True)
                try:
                    schema = source.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
                    if schema is not None and schema[0] == SCHEMA_VERSION:
                        source.backup(db)
                finally:
                    source.close()
        try:
            current = db.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
        except sqlite3.Error:
            current = None
        if current is None:
            _create_schema(db)
        return db

    def meta(self) -> dict[str, Any]:
        """The meta table as a dict."""
        return dict(self.db.execute("SELECT k, v FROM meta").fetchall())

    @contextlib.contextmanager
    def write_transaction(self) -> Iterator[None]:
        """An IMMEDIATE transaction: SQLite's write lock serialises indexers across
        processes. On failure the rows roll back and memory is reloaded to match them."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            self.load_state()
            raise

    def changed_elsewhere(self) -> bool:
        """True when another connection committed since this one last loaded its state.

        SQLite's `data_version` changes exactly then. The JSONL's recorded stat is not
        enough: two processes can leave the same stat behind over different rows.
        """
        return bool(self.db.execute("PRAGMA data_version").fetchone()[0] != self.loaded_version)

    def load_state(self) -> None:
        """Reload what lives in memory (DAG shape, heads, counters) from the database."""
        self.loaded_version = self.db.execute("PRAGMA data_version").fetchone()[0]
        self._prefix.clear()  # another process may have recorded other digests
        meta = self.meta()
        self.heads = set(json.loads(meta.get("heads", "[]")))
        self.consumed = int(meta.get("consumed", 0))
        self.bad_lines = int(meta.get("bad_lines", 0))
        top = "SELECT max(m) FROM (SELECT max(seq) m FROM ev UNION ALL SELECT max(seq) FROM damage)"
        self.next_seq = (self.db.execute(top).fetchone()[0] or 0) + 1
        self._es_from = int(meta.get("es_from", 1))
        self._es_upto = self.next_seq  # a committed ingest listed all its events
        self._eh_from = int(meta.get("eh_from", 1))
        dag = Dag()
        for ch, start in self.db.execute("SELECT ch, start FROM chain ORDER BY ch"):
            dag.starts[ch] = [(int(p[0]), int(p[1])) for p in json.loads(start)]
        for ch, pos, parents in self.db.execute("SELECT ch, pos, parents FROM merge ORDER BY pos"):
            extra = [(int(p[0]), int(p[1])) for p in json.loads(parents)]
            dag.merges.setdefault(ch, []).append((pos, extra))
        self.tip_by_key = {}
        self.tip_key = {}
        self.next_ent = (self.db.execute("SELECT max(id) FROM ent").fetchone()[0] or 0) + 1
        for ch, pos, seq, h in self.db.execute("SELECT ch, tip_pos, tip_seq, tip_h FROM chain"):
            dag.tips[ch] = pos
            self.tip_by_key[h] = (seq, (ch, pos))
            self.tip_key[ch] = (h, seq)
        self.dag = dag
        self.ent_ids = {}
        self._touched_ents = {}  # a rolled-back ingest's counts must not carry over
        self._full_ents = set()
        self._states = {}
        self._kept = {}
        self._all_ents_known = False  # ent_ids holds every row of `ent`

    def reload_state(self) -> None:
        """`load_state` inside a read transaction (another process committed rows)."""
        self.db.execute("BEGIN")
        try:
            self.load_state()
        finally:
            self.db.execute("COMMIT")

    def close(self) -> None:
        """Close the log's read handle and the database connection."""
        self.close_log()
        self.db.close()

    def recorded_stat(self) -> tuple[int, int, int] | None:
        """(size, mtime_ns, inode) of the JSONL when the index last caught up."""
        meta = self.meta()
        if "stat" not in meta:
            return None
        size, mtime, ino = json.loads(meta["stat"])
        return int(size), int(mtime), int(ino)

    def tail_hash(self, upto: int) -> str:
        """SHA-256 of the last bytes before `upto`: detects a rewrite of the ingested part."""
        if upto <= 0:
            return ""
        with open(self.log_path, "rb") as fh:
            start = max(0, upto - TAIL_BYTES)
            fh.seek(start)
            return hashlib.sha256(fh.read(upto - start)).hexdigest()

    def is_append_of_ingested(self, st: os.stat_result) -> bool:
        """True when the file begins with the bytes the index ingested: it only grew
        (same inode, same tail), or it was replaced by one that starts with the same
        bytes (git's checkout, pull and merge write a new file; `cairn.store.prefix`)."""
        recorded = self.recorded_stat()
        if recorded is None:
            return self.consumed == 0
        if st.st_size < self.consumed:
            return False
        if st.st_ino == recorded[2]:
            return self.tail_hash(self.consumed) == self.meta().get("tail", "")
        try:
            fd = os.open(self.log_path, os.O_RDONLY)
        except OSError:
            return False
        try:
            return starts_with_ingested(fd, self.meta(), self.consumed)
        finally:
            os.close(fd)

    def reset(self) -> None:
        """Drop every derived row (a rebuild follows). Callers hold the transaction."""
        self.close_log()
        for table in (
            "ev", "ent", "chain", "merge", "review", "srckey", "ikey", "est", "damage", "mark",
            "es", "es_new", "eh", "eh_new",
        ):  # fmt: skip
            self.db.execute(f"DELETE FROM {table}")
        # A contentless FTS5 table refuses DELETE; 'delete-all' is its way to empty it.
        self.db.execute("INSERT INTO fts(fts) VALUES('delete-all')")
        self.db.execute("INSERT INTO ent_fts(ent_fts) VALUES('delete-all')")
        # `verified*` is verify's anchor: what it proved must outlive a rebuild, or a
        # truncated log re-indexed by any process would erase the evidence.
        self.db.execute("DELETE FROM meta WHERE k != 'schema' AND k NOT LIKE 'verified%'")
        self.load_state()

    # --- reading the log --------------------------------------------------------------

    def read_records(self, start: int, stop: int) -> tuple[list[Record], int, int]:
        """Parse complete lines in [start, stop); returns records, new offset, bad lines."""
        records: list[Record] = []
        bad = 0
        consumed = start
        for chunk, at, n_bad in self._chunks(start, stop):
            records.extend(chunk)
            bad += n_bad
            consumed = at
        return records, consumed, bad

    def _chunks(self, start: int, stop: int) -> Iterator[tuple[list[Record], int, int]]:
        """(records, offset after them, malformed lines) for the complete lines in
        [start, stop), a few megabytes at a time.

        A writer may be mid-line at the end: only bytes up to the last newline count.
        Every line's id is checked here (`line_damage`): a line verification rejects
        is kept as damage, never as an event.
        """
        loads = parse_line
        with open(self.log_path, "rb") as fh:
            fh.seek(start)
            at = start
            carry = b""
            while at < stop:
                piece = fh.read(min(READ_CHUNK, stop - at))
                if not piece:
                    break
                base = at - len(carry)
                data = carry + piece if carry else piece
                at += len(piece)
                end = data.rfind(b"\n") + 1
                carry = data[end:]
                records: list[Record] = []
                bad = 0
                pos = 0
                while pos < end:
                    nl = data.index(b"\n", pos)
                    line = data[pos:nl]
                    if line.strip():
                        try:
                            raw = loads(line)
                            if not isinstance(raw, dict):
                                raise ValueError
                        except ValueError:
                            bad += 1
                        else:
                            rec = Record(base + pos, nl - pos, raw)
                            rec.damage = line_damage(raw)
                            records.append(rec)
                    pos = nl + 1
                yield records, base + end, bad

    def _read(self, off: int, length: int) -> bytes:
        """The bytes of a known span of the log.

        `pread` rather than a memory map: mapping a 500 MB log put its pages into the
        language server's RSS; a hover reads a few lines.
        """
        if self._fd is None:
            self._fd = os.open(self.log_path, os.O_RDONLY)
        data = os.pread(self._fd, length, off)
        if len(data) < length:
            raise ValueError("the log is shorter than the index says")
        return data

    def raw(self, off: int, length: int) -> bytes:
        """The unparsed line at a byte span of the log."""
        return self._read(off, length)

    def line(self, off: int, length: int) -> dict[str, Any]:
        """The parsed line at a byte span of the log."""
        result: dict[str, Any] = parse_line(self._read(off, length))
        return result

    def event_at(self, off: int, length: int) -> Event:
        """The event whose line is at this span, decoded straight from its bytes."""
        return event_from_bytes(self._read(off, length), parse_line)

    def events_at(self, spans: list[tuple[int, int]]) -> list[Event]:
        """The events at many spans (in that order), from their lines (`lines_at`)
        decoded together (`events_from_bytes`)."""
        return events_from_bytes(self.lines_at(spans), parse_line, {})

    def lines_at(self, spans: list[tuple[int, int]]) -> list[bytes | memoryview]:
        """The lines at many spans (in that order).

        Lines in the page cache are taken without blocking (`RWF_NOWAIT`: one system
        call each); the kernel is then told about all the others at once
        (`POSIX_FADV_WILLNEED`), so lines not in memory are read from the disk together
        rather than one blocking read after another: on a machine that pages cold file
        pages out (a VM), an editor's batch at 1M events waited on ~600 such reads in a
        row. Telling it about every line, the cached ones too, was a system call each.
        """
        global _nowait
        out: list[bytes | memoryview] = [b""] * len(spans)
        missed: list[int] = []
        if _nowait and len(spans) > 1:
            if self._fd is None:
                self._fd = os.open(self.log_path, os.O_RDONLY)
            fd = self._fd
            buf = memoryview(bytearray(sum(length for _, length in spans)))
            at = 0
            preadv, nowait = os.preadv, _nowait
            for i, (off, length) in enumerate(spans):
                out[i] = line = buf[at : at + length]
                at += length
                try:
                    if preadv(fd, (line,), off, nowait) != length:
                        missed.append(i)  # partly in memory, or past the end
                except BlockingIOError:
                    missed.append(i)
                except OSError:  # the file system cannot: advise and read, as before
                    _nowait = 0
                    missed += range(i, len(spans))
                    break
        else:
            missed = list(range(len(spans)))
        self.will_read([spans[i] for i in missed])
        for i in missed:
            out[i] = self._read(*spans[i])
        return out

    def will_read(self, spans: list[tuple[int, int]]) -> None:
        """Tell the kernel these spans of the log are about to be read (see `events_at`)."""
        if len(spans) > 1 and _advise is not None:
            if self._fd is None:
                self._fd = os.open(self.log_path, os.O_RDONLY)
            fd = self._fd
            for off, length in sorted(spans):
                _advise(fd, off, length, _WILLNEED)

    def event_id_at(self, row: Row) -> str:
        """The full id of a row's event, read from its line without parsing all of it."""
        return self.id_at(row.h, row.off, row.len)

    def id_at(self, key: int, off: int, length: int) -> str:
        """The full id of the event whose id key is `key` and line is at this span.

        In a canonical line every key before `id` holds a string, in which a quote is
        escaped, so the first `"id":"` is the event's own; anything else is parsed.
        """
        data = self._read(off, length)
        start = data.find(b'"id":"')
        if start >= 0:
            found = data[start + 6 : start + 70].decode("ascii", "replace")
            if len(found) == 64 and _is_key_of(found, key):
                return found
        return str(json.loads(data)["id"])

    def close_log(self) -> None:
        """Close the log's read handle (the file may have been replaced or truncated)."""
        if self._fd is not None:
            os.close(self._fd)
        self._fd = None

    # --- ingest -----------------------------------------------------------------------

    def entity_id(self, path: str, new_ents: list[tuple[int, str]]) -> int:
        """The dictionary id of a canonical path, allocating one when new."""
        ent = self.ent_ids.get(path)
        if ent is None:
            found = (
                None
                if self.next_ent == 1 or self._all_ents_known
                else self.db.execute("SELECT id FROM ent WHERE path = ?", (path,)).fetchone()
            )
            if found:
                ent = int(found[0])
            else:
                ent = self.next_ent
                self.next_ent += 1
                new_ents.append((ent, path))
            self.ent_ids[path] = ent
        return ent

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
        self._checkpoint_every(_BULK_WAL_PAGES if len(events) >= _BULK_EVENTS else _WAL_PAGES)
        batch = _Batch()
        parents: list[ChainPos] = []
        for pid in events[0].parents:
            hit = self._resolve(id_key(pid), batch)
            if hit is None:
                return False
            parents.append(hit[1])
        (chain, pos), started, merged = self.dag.place(parents)
        if started:
            batch.chains.append((chain, json.dumps(parents)))
        if merged:
            batch.merges.append((chain, pos, json.dumps(parents[1:])))
        pos -= 1  # the loop moves each event one on
        self._known_entities({e.entity for e in events})
        ent_ids = self.ent_ids
        touched = self._touched_ents
        full = self._full_ents
        rows, fts, reviews = batch.rows, batch.fts, batch.reviews
        codes = _CODE_OF
        seq = self.next_seq
        flush_at = seq + FLUSH_EVERY  # one row an event
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
            # `fts_body`, inline: an event's text fields are strings ("" when absent).
            reasoning, alternative = e.reasoning, e.alternative
            if reasoning:
                fts.append((seq, f"{reasoning} {alternative}" if alternative else reasoning))
            elif alternative:
                fts.append((seq, alternative))
            if e.revisit_after or e.expires_when:
                reviews.append((seq, e.revisit_after or None, e.expires_when or None))
            if e.metadata:
                _writer_keys(e.metadata, seq, batch)
            seq += 1
            off += length
            if seq == flush_at:
                self.next_seq = seq
                self._new_tip(chain, pos, key, seq - 1, batch)
                self._flush(batch)  # settles the statuses: a fresh `touched`
                batch = _Batch()
                rows, fts, reviews = batch.rows, batch.fts, batch.reviews
                touched = self._touched_ents
                flush_at = seq + FLUSH_EVERY
        self.next_seq = seq
        self._new_tip(chain, pos, key, seq - 1, batch)
        self.heads = {events[-1].id}
        self._flush(batch)
        self._store_states(keep=True)
        full, self._full_ents = self._full_ents, set()
        self.derive_statuses(full)
        return True

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
        sql = "SELECT path, id FROM ent WHERE path IN (SELECT value FROM json_each(?))"
        for i in range(0, len(missing), 10_000):
            chunk = json.dumps(missing[i : i + 10_000])
            self.ent_ids.update((p, int(e)) for p, e in self.db.execute(sql, (chunk,)))

    def _session(self, dedupe: bool) -> _Session:
        session = _Session(dedupe)
        # With no event indexed yet (a rebuild), every earlier copy of a line is in
        # the session's own set: no need to ask the database per line.
        session.ask_db = (
            dedupe and self.db.execute("SELECT 1 FROM ev LIMIT 1").fetchone() is not None
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

    def _settle_statuses(self) -> None:
        """Move the status rows of the entities touched since the last flush forward
        by their new events (`status_rows.advance`), in memory until the ingest ends
        (`_store_states`); the ones it cannot settle wait for a full derivation then.
        Caller holds the transaction and has flushed the events' rows."""
        touched, self._touched_ents = self._touched_ents, {}
        states = self._states
        full = self._full_ents
        kept = self._kept
        fresh = []  # neither moved forward in this ingest nor kept: read from `est`
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
            chunk = fresh[i : i + 10_000]
            stored = {t[0]: t[1:] for t in self.db.execute(_EST_SQL, (json.dumps(chunk),))}
            # Where each stored conflict stands (recorded time, chain): a new change must
            # beat it to be shown instead. Each detail is parsed once, by its `State`.
            conflicted: list[State] = []
            for path in chunk:
                row = stored.get(path)
                states[path] = state = State(row)
                if row is not None and row[0] == _CONFLICT_CODE and state.conflict:
                    conflicted.append(state)
            if conflicted:
                wanted = json.dumps([state.conflict for state in conflicted])
                at = {seq: (rec, ch) for seq, rec, ch in self.db.execute(_REC_SQL, (wanted,))}
                for state in conflicted:
                    state.crec, state.cch = at.get(state.conflict, (0, -1))
        for path, news in touched.items():
            state = states[path]
            if advance(state, news):
                state.settle()  # holds no event of this flush past it
            else:
                full.add(path)
                del states[path]

    def _store_states(self, *, keep: bool = False) -> None:
        """Write the status rows moved forward in this ingest; with `keep` (a bulk
        append, whose next batch touches most of them again), keep them in memory.

        In chunks, in key order, each state let go once written (unless kept): a rebuild
        ends with a state for every entity, and reads the lines of the conflicts it did
        not keep (`State.unread`), ~50k at 1M events; all rows and summaries at once
        were its peak of memory."""
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
                    state.summary = reapplied_of(_CODE_OF[event.type], event)
                del events
            rows = []
            bare = []  # rows that name no event (`_EST_BARE_SQL`)
            for path, state in chunk:
                st, cnt, kd, detail = state.row()
                if detail is None:
                    if kd is None:
                        bare.append((path, st, cnt))
                        continue
                elif kd is None:
                    # Kept on the state: a detail, once there, stays (only a full
                    # derivation, which makes a new row, clears it).
                    kd = state.kd = kind_code(path)
                rows.append((path, st, cnt, kd, detail))
            self.db.executemany(_EST_SQL_W, rows)
            self.db.executemany(_EST_BARE_SQL, bare)

    def derive_statuses(self, paths: Iterable[str]) -> None:
        """Recompute the stored status row of these entities (canonical paths the index
        holds; caller holds the transaction).

        Status is a function of an entity's own events, so only entities that got events
        change; `status_many` then reads one row per entity instead of all their events.
        Every ingest ends here: its events are listed under their entities first.
        """
        self._index_entities()
        wanted = sorted(paths)
        for path in wanted:
            self._kept.pop(path, None)  # its row is derived anew below
        out = []
        for i in range(0, len(wanted), 10_000):
            chunk = wanted[i : i + 10_000]
            found = self.db.execute(_SUMMARY_BY_PATH_SQL, (json.dumps(chunk),))
            derived = [
                self._derived(path, rows, count)
                for path, (rows, count) in _summarise(found, chunk)
                if count
            ]
            out += self._status_rows(derived)
        self.db.executemany(_EST_SQL_W, [r for r in out if r[3] is not None or r[4] is not None])
        bare = [r[:3] for r in out if r[3] is None and r[4] is None]
        self.db.executemany(_EST_BARE_SQL, bare)

    def _index_entities(self) -> None:
        """List the events indexed since the last call under their entities (`es_new`,
        or `es` for many: see `_RECENT_MAX`), read back from `ev` (their rows were just
        written: the pages are in memory). Caller holds the transaction."""
        start, stop = self._es_upto, self.next_seq
        if stop <= start:
            return
        db = self.db
        if stop - start >= _RECENT_MAX:
            self._fold_recent(stop)  # first: `es_new` holds only events later than `es`'s
            # Sorted in pieces: SQLite's sorter keeps up to the page cache's size (32 MB)
            # in memory, on top of the cache; one sort of a 1M-event rebuild took the
            # rebuild's peak RSS past 300 MB.
            sql = (
                "INSERT INTO es SELECT ent, seq FROM ev WHERE seq >= ? AND seq < ? "
                "ORDER BY ent, seq"
            )
            for lo in range(start, stop, _RECENT_MAX):
                db.execute(sql, (lo, lo + _RECENT_MAX))
        else:
            db.execute("INSERT INTO es_new SELECT ent, seq FROM ev WHERE seq >= ?", (start,))
            if stop - self._es_from > _RECENT_MAX:
                self._fold_recent(stop)
        self._es_upto = stop

    def _fold_recent(self, stop: int) -> None:
        """Move what `es_new` lists into `es` (in key order: one pass along its tree)."""
        self.db.execute("INSERT INTO es SELECT ent, seq FROM es_new")
        self.db.execute("DELETE FROM es_new")
        self.db.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('es_from', ?)", (stop,))
        self._es_from = stop

    def _list_keys(self, start: int) -> None:
        """List the id keys of the events just written (seq `start` on) in `eh_new`,
        read back from `ev` (its pages are in memory); fold `eh_new` into `eh` (in key
        order: one pass along its tree) once it lists more than _RECENT_MAX events.

        At each flush, not when the ingest ends: a rebuild looks flushed parents up by
        key (a fork's), before its ingest ends."""
        db = self.db
        db.execute(
            f"INSERT INTO eh_new SELECT h >> {_KEY_SHIFT}, seq FROM ev WHERE seq >= ?", (start,)
        )
        if self.next_seq - self._eh_from > _RECENT_MAX:
            db.execute("INSERT INTO eh SELECT k, seq FROM eh_new")
            db.execute("DELETE FROM eh_new")
            db.execute("INSERT OR REPLACE INTO meta(k, v) VALUES ('eh_from', ?)", (self.next_seq,))
            self._eh_from = self.next_seq

    def _derived(
        self, path: str, rows: list[Row], count: int
    ) -> tuple[str, Derived, int, list[Row]]:
        """(path, its derived status, event count, the rows derived over)."""
        if count > len(rows) and names_a_summarised_change(rows):
            # A revert names a change the summary folded away.
            rows = self.rows_for(rows[0].ent)
        return path, derive(rows, self.dag.is_ancestor), count, rows  # type: ignore[arg-type]

    def _status_rows(
        self, derived: list[tuple[str, Derived, int, list[Row]]]
    ) -> list[tuple[str, int, int, int | None, str | None]]:
        """The `est` rows of derived statuses; the lines of their newest conflicts and
        re-opened pairs are read (together) for what the detail keeps of them."""
        wanted: list[Row] = []  # each status's newest conflict, then its pairs' events
        newest: list[int] = []  # each status's newest conflict's seq (0: none)
        for _, d, _, rows in derived:
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
        for (path, d, count, rows), conflict in zip(derived, newest, strict=True):
            summary: list[Any] | int = 0
            if conflict:
                event = next(events)
                summary = reapplied_of(_CODE_OF[event.type], event)
            pair_ids = [next(events).id for pair in d.reopened for _ in pair]
            opened = set(d.open_verdicts)
            spans = {r.seq: (r.off, r.len) for r in rows if r.seq in opened}
            detail = encode_detail(d.open_verdicts, conflict, d.reopened, spans, summary, pair_ids)
            kd = kind_code(path) if detail is not None else None
            out.append((path, _STATUS_CODES[d.status], count, kd, detail))
        return out

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
        hit = batch.placed.get(key) or self.tip_by_key.get(key)
        if hit is not None:
            return hit
        found = self.db.execute(_BY_KEY_SQL, (key,)).fetchone()
        if found is None:
            found = self.db.execute(
                "SELECT seq, ch, pos FROM damage WHERE h = ? AND ch IS NOT NULL", (key,)
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
            placed = self._lenient(rec)  # a damaged line verify still parses as an event
            if placed is None:
                self.bad_lines += 1
                return None
            eid, key, parent_ids, parent_keys = placed
            ty, entity_raw, recorded, occurred = 0, "", 0, None
        if not isinstance(entity_raw, str):
            entity: str | None = None
        else:
            entity = session.canon.get(entity_raw, "")
            if entity == "":
                entity = _canonical_or_none(entity_raw)
                session.canon[entity_raw] = entity
        if entity is None and rec.damage is None:
            rec.damage = "malformed"
        # A line with an entity the grammar refuses (a garbled path) is damage, placed like
        # any other: verify parses it as an event, so its children stand (fuzz finding).
        damage = rec.damage
        if session.dedupe and (key in session.good or (session.ask_db and self._known(key))):
            # A duplicate line (e.g. after a union merge) is harmless; a damaged copy of
            # a sound event is recorded, not placed.
            if damage is not None:
                batch.damage.append((self._take_seq(), key, None, None, rec.off, rec.len, damage))
            return None
        if damage is not None and self._damage_placed(key, eid, session):
            # A second copy of a damaged line: placing one key twice would leave two chain
            # tips claiming it, and the next child would take the key from one of them.
            batch.damage.append((self._take_seq(), key, None, None, rec.off, rec.len, damage))
            return None
        parents: list[ChainPos] = []
        good = session.good
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
        cp, started, merged = self.dag.place(parents)
        if started:
            batch.chains.append((cp[0], json.dumps(parents)))
        if merged:
            batch.merges.append((cp[0], cp[1], json.dumps(parents[1:])))
        seq = self.next_seq
        self.next_seq = seq + 1
        # The chain's previous tip is no longer one.
        old_tip = self.tip_key.get(cp[0])
        if old_tip is not None:
            self.tip_by_key.pop(old_tip[0], None)
        self.tip_key[cp[0]] = (key, seq)
        self.tip_by_key[key] = (seq, cp)
        batch.placed[key] = (seq, cp)
        batch.touched.add(cp[0])
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
            news = self._touched_ents.get(entity)
            if news is None:
                self._touched_ents[entity] = [
                    (seq, ty, recorded, cp[0], linear, rec.off, rec.len, None)
                ]
            else:
                news.append((seq, ty, recorded, cp[0], linear, rec.off, rec.len, None))
        batch.rows.append(
            (
                seq, ent, key, ty, cp[0], cp[1], _NULL if ref is None else ref, recorded,
                _NULL if occurred is None else occurred, rec.off, rec.len,
            )
        )  # fmt: skip
        if not get("redacted"):
            body = fts_body(get("reasoning"), get("alternative"))
            if body:
                batch.fts.append((seq, body))
        revisit, expires = get("revisit_after"), get("expires_when")
        if revisit or expires:
            batch.reviews.append((seq, revisit, expires))
        meta = get("metadata")
        if meta and isinstance(meta, dict):
            _writer_keys(meta, seq, batch)
        return key

    def _take_seq(self) -> int:
        seq = self.next_seq
        self.next_seq += 1
        return seq

    def _known(self, key: int) -> bool:
        """True when a sound event with this key is already indexed."""
        return self.db.execute(_KNOWN_SQL, (key,)).fetchone() is not None

    @staticmethod
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
            row = self.db.execute(
                "SELECT off, len FROM damage WHERE h = ? AND ch IS NOT NULL", (key,)
            ).fetchone()
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
            row = self.db.execute(
                "SELECT off, len FROM damage WHERE h = ? AND ch IS NOT NULL", (key,)
            ).fetchone()
            if row is not None:
                try:
                    claimed = self.line(row[0], row[1]).get("id")
                except (ValueError, OSError):
                    claimed = None
        return claimed is not None and claimed == eid

    def _flush(self, batch: _Batch) -> None:
        db = self.db
        if batch.ents:
            db.executemany("INSERT INTO ent(id, path) VALUES (?, ?)", batch.ents)
            db.executemany("INSERT INTO ent_fts(rowid, path) VALUES (?, ?)", batch.ents)
        if batch.rows:
            db.executemany(_EV_SQL, batch.rows)
            self._list_keys(batch.rows[0][0])
        if batch.fts:
            db.executemany("INSERT INTO fts(rowid, body) VALUES (?, ?)", batch.fts)
        if batch.chains:
            db.executemany("INSERT INTO chain(ch, start) VALUES (?, ?)", batch.chains)
        if batch.merges:
            db.executemany("INSERT INTO merge(ch, pos, parents) VALUES (?, ?, ?)", batch.merges)
        if batch.reviews:
            db.executemany("INSERT INTO review VALUES (?, ?, ?)", batch.reviews)
        if batch.srckeys:
            db.executemany("INSERT OR IGNORE INTO srckey VALUES (?)", batch.srckeys)
        if batch.ikeys:
            # The first event with a key keeps it (a union merge may bring a second).
            db.executemany("INSERT OR IGNORE INTO ikey VALUES (?, ?)", batch.ikeys)
        if batch.marks:
            db.executemany("INSERT OR IGNORE INTO mark VALUES (?, ?)", batch.marks)
        if batch.damage:
            db.executemany("INSERT INTO damage VALUES (?, ?, ?, ?, ?, ?, ?)", batch.damage)
        tips = [
            (seq, self.dag.tips[c], k, c)
            for c, (k, seq) in self.tip_key.items()
            if c in batch.touched
        ]
        if tips:
            db.executemany("UPDATE chain SET tip_seq=?, tip_pos=?, tip_h=? WHERE ch=?", tips)
        self._settle_statuses()

    def record_position(
        self, consumed: int, st: os.stat_result, written: tuple[int, bytes] | None = None
    ) -> None:
        """Remember how far the log was ingested, its stat, tail hash and heads; `written`
        is (offset, bytes) this process has just appended there (not read back)."""
        self.consumed = consumed
        rows = [
            ("consumed", consumed),
            ("stat", json.dumps([st.st_size, st.st_mtime_ns, st.st_ino])),
            ("tail", self.tail_hash(consumed)),
            ("heads", json.dumps(sorted(self.heads))),
            ("bad_lines", self.bad_lines),
        ]
        digests: list[tuple[str, str]] = []
        with contextlib.suppress(OSError):
            fd = os.open(self.log_path, os.O_RDONLY)
            try:
                digests = self._prefix.advance(fd, self.meta(), consumed, written)
            finally:
                os.close(fd)
        if not digests:  # unreadable: a replaced log must then be rebuilt, not trusted
            self._prefix.clear()
            self.db.execute("DELETE FROM meta WHERE k IN ('blocks', 'rest')")
        self.db.executemany("INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", [*rows, *digests])

    # --- queries ------------------------------------------------------------------------

    def rows_for(self, ent: int) -> list[Row]:
        """Every event on one entity, in ingest order."""
        rows = [_row(t) for t in self.db.execute(_ROWS_OF_ENT_SQL, (ent,))]
        rows.sort(key=_by_seq)
        return rows

    def rows_for_paths(self, paths: list[str]) -> dict[str, list[Row]]:
        """Events for many entities in ONE query (what the editor asks for a whole file)."""
        out: dict[str, list[Row]] = {p: [] for p in paths}
        sql = _BY_PATH_SQL.format(
            "SELECT path, id FROM ent WHERE path IN (SELECT value FROM json_each(?))"
        )
        for t in self.db.execute(sql, (json.dumps(paths),)):
            out[t[0]].append(_row(t[1:]))
        for rows in out.values():
            rows.sort(key=_by_seq)
        return out

    def summary_rows_for_paths(self, paths: list[str]) -> dict[str, tuple[list[Row], int]]:
        """What status needs for many entities, in ONE query (see `_summarise`)."""
        sql = _BY_PATH_SQL.format(
            "SELECT path, id FROM ent WHERE path IN (SELECT value FROM json_each(?))"
        )
        return dict(_summarise(self.db.execute(sql, (json.dumps(paths),)), paths))

    def status_rows(self, paths: list[str]) -> Iterator[tuple[str, int, int, int | None, Any]]:
        """The stored (path, status code (`STATUSES`), event count, kind code (`KINDS`),
        detail JSON) of the entities that have events, among `paths` (distinct; sorted is
        fastest), as SQLite gives them. The kind code is there when the detail is.

        One lookup a path, in their given order: `IN (SELECT ...)` first built a
        temporary index of them, and rows keyed by entity id took a second lookup.
        """
        rows: Iterator[tuple[str, int, int, int | None, Any]] = self.db.execute(
            _EST_SQL, (_json_list(paths),)
        )
        return rows

    def status_table(self, paths: list[str]) -> tuple[list[int], list[int], list[Any]]:
        """`status_rows` as three lists in one order: the index of each row's path in
        `paths`, its `status_code` (status, kind, count in one number) and its detail
        parsed (`detail_parts`' form, or 0 when it names no event). Paths without events
        are left out.

        SQLite joins the rows into three JSON lists (the stored detail is JSON already),
        parsed in three calls: at 1M events a cold batch's 500 row tuples and ~280 detail
        parses, each a Python step, cost more than SQLite's writing of the strings, and
        one string a row (the path quoted, each column joined) cost twice these lists.
        """
        keys, codes, details = self.db.execute(_EST_LISTS_SQL, (_json_list(paths),)).fetchone()
        if keys is None:
            return [], [], []
        loads = orjson.loads
        return loads(f"[{keys}]"), loads(f"[{codes}]"), loads(f"[{details}]")

    def verdict_rows_newest_first(self) -> Iterator[Row]:
        """Revert and reject events, the newest recorded first (digests, "what was refused")."""
        codes = (TYPE_CODES["revert"], TYPE_CODES["reject"])
        sql = _ROW_SQL + " WHERE ty IN (?, ?) ORDER BY rec DESC, seq DESC"
        for t in self.db.execute(sql, codes):
            yield _row(t)

    def rename_rows(self, marked: Collection[str] = ()) -> list[Row]:
        """Every `rename` event, in ingest order: the links between an entity's names;
        with `marked` (keys of `MARKED_KEYS`), only those whose metadata has one.

        A partial index holds only these rows, so the cost is the renames, not the log
        (the code is a literal, not a parameter, so SQLite can see that index applies).
        """
        return self._typed_rows(_RENAME_CODE, "seq", marked)

    def revert_rows(self, marked: Collection[str] = ()) -> list[Row]:
        """Every `revert` event, grouped by entity: what change fingerprints are read from;
        with `marked` (keys of `MARKED_KEYS`), only those whose metadata has one.

        A partial index holds only these rows, so `cairn check` pays for the reverts, not
        for the log (it used to derive every entity's status to find them).
        """
        return self._typed_rows(_REVERT_CODE, "ent, seq", marked)

    def _typed_rows(self, code: int, order: str, marked: Collection[str]) -> list[Row]:
        if not marked:
            sql = _ROW_SQL + f" WHERE ty = {code} ORDER BY {order}"
            return [_row(t) for t in self.db.execute(sql)]
        unknown = set(marked) - MARKED_KEYS
        if unknown:
            raise ValueError(f"the index marks no metadata key {sorted(unknown)}")
        keys = sorted(marked)
        sql = (
            _ROW_SQL + " WHERE seq IN (SELECT seq FROM mark WHERE k IN "
            f"({','.join('?' * len(keys))})) AND ty = {code} ORDER BY {order}"
        )
        return [_row(t) for t in self.db.execute(sql, keys)]

    def open_verdict_seqs(self, ent: int) -> set[int]:
        """Sequence numbers of an entity's open verdicts, from its stored status row."""
        sql = "SELECT s.detail FROM ent e JOIN est s ON s.path = e.path WHERE e.id = ?"
        found = self.db.execute(sql, (ent,)).fetchone()
        if not found or found[0] is None:
            return set()
        return {int(s) for s in json.loads(found[0])[0]}

    def ent_of(self, path: str) -> int | None:
        """The dictionary id of a canonical path, or None when nothing was logged on it."""
        found = self.db.execute("SELECT id FROM ent WHERE path = ?", (path,)).fetchone()
        return int(found[0]) if found else None

    def paths_in_range(self, lo: str, hi: str) -> list[tuple[int, str]]:
        """Entities whose path sorts in [lo, hi) (a prefix scan; callers filter with covers)."""
        return [
            (int(i), p)
            for i, p in self.db.execute(
                "SELECT id, path FROM ent WHERE path >= ? AND path < ? ORDER BY path", (lo, hi)
            )
        ]

    def rows_by_key_range(self, lo: int, hi: int, limit: int = 50) -> list[Row]:
        """Events whose 60-bit id key lies in [lo, hi] (id-prefix lookups)."""
        return [_row(t) for t in self.db.execute(_BY_KEY_RANGE_SQL, (lo, hi, limit))]

    def rows_by_seq(self, seqs: list[int]) -> dict[int, Row]:
        """Rows for a list of sequence numbers."""
        sql = _ROW_SQL + " WHERE seq IN (SELECT value FROM json_each(?))"
        return {t[0]: _row(t) for t in self.db.execute(sql, (json.dumps(seqs),))}

    def path_of(self, ent: int) -> str:
        """The canonical path for a dictionary id."""
        return str(self.db.execute("SELECT path FROM ent WHERE id = ?", (ent,)).fetchone()[0])

    def iter_rows(self) -> Iterator[Row]:
        """Every row, in ingest order."""
        for t in self.db.execute(_ROW_SQL + " ORDER BY seq"):
            yield _row(t)

    def search(self, terms: Sequence[SearchTerm], limit: int) -> list[tuple[int, float]]:
        """(seq, rank) of up to `limit` events matching every term in their own text
        (why, alternative) or in their entity's path (`cairn.store.fulltext`), best
        first: rank 0 for those whose own text holds every term, then rank 1 for those
        that needed their entity's path; the newest logged first within a rank.
        ValueError for a query FTS5 refuses."""
        if not terms or limit <= 0:
            return []
        try:
            found = list(self._text_hits(terms, None, limit, set()))
            if len(found) < limit:
                ranked = set(found)
                later = self._path_hits(terms, limit - len(found), ranked)
                return [(s, 0.0) for s in found] + [(s, 1.0) for s in later]
        except sqlite3.OperationalError as exc:
            raise ValueError(str(exc)) from None
        return [(s, 0.0) for s in found]

    def _path_hits(self, terms: Sequence[SearchTerm], want: int, skip: set[int]) -> list[int]:
        """The newest `want` events not in `skip` that need their entity's path for some
        terms: for each set of terms an entity's path holds, its events whose own text
        holds the others."""
        covers: dict[int, list[int]] = {}  # entity -> the terms its path holds
        sql = "SELECT rowid FROM ent_fts WHERE ent_fts MATCH ?"
        # A term no event's own text holds can only be in the path: only entities whose
        # path holds every such term can match (`src pkg011 ...` would otherwise group
        # every entity under `src/`).
        some = "SELECT 1 FROM fts WHERE fts MATCH ? LIMIT 1"
        must = [
            t.phrase() for t in terms if not self.db.execute(some, (t.each_token(),)).fetchone()
        ]
        for i, term in enumerate(terms):
            for (ent,) in self.db.execute(sql, (" ".join([term.phrase(), *must]),)):
                covers.setdefault(ent, []).append(i)
        groups: dict[tuple[int, ...], list[int]] = {}
        for ent, held in covers.items():
            groups.setdefault(tuple(held), []).append(ent)
        hits: list[int] = []
        for key, ents in groups.items():
            rest = [t for i, t in enumerate(terms) if i not in key]
            hits.extend(self._text_hits(rest, sorted(ents), want, skip))
        return sorted(set(hits), reverse=True)[:want]

    def _text_hits(
        self, terms: Sequence[SearchTerm], ents: list[int] | None, want: int, skip: set[int]
    ) -> Iterator[int]:
        """The newest `want` events, not in `skip`, of `ents` (None: any entity) whose
        own text holds every term (none: all their events). A term of several tokens is
        looked up token by token (`fts` keeps no positions) and checked against the
        event's text read back from the log (`fulltext.holds`)."""
        phrases = [t for t in terms if len(t.tokens) > 1]
        match = " ".join(t.each_token() for t in terms)
        if not terms:
            assert ents is not None
            sql = f"SELECT seq, off, len FROM ev WHERE seq IN ({_SEQS_OF_ENTS}) ORDER BY seq DESC"
            cursor = self.db.execute(sql, (json.dumps(ents),))
        elif ents is None:
            sql = (
                "SELECT f.rowid, v.off, v.len FROM fts f JOIN ev v ON v.seq = f.rowid "
                "WHERE fts MATCH ?1 ORDER BY f.rowid DESC"
            )
            cursor = self.db.execute(sql, (match,))
        elif self._event_count_of(ents) <= _FEW_EVENTS:
            # Few events: each is looked up in the full-text index by its seq.
            sql = (
                f"SELECT seq, off, len FROM ev v WHERE seq IN ({_SEQS_OF_ENTS}) "
                "AND EXISTS (SELECT 1 FROM fts WHERE fts MATCH ?2 AND rowid = v.seq) "
                "ORDER BY seq DESC"
            )
            cursor = self.db.execute(sql, (json.dumps(ents), match))
        else:
            sql = (
                "SELECT f.rowid, v.off, v.len FROM fts f JOIN ev v ON v.seq = f.rowid "
                "WHERE fts MATCH ?1 AND v.ent IN (SELECT value FROM json_each(?2)) "
                "ORDER BY f.rowid DESC"
            )
            cursor = self.db.execute(sql, (match, json.dumps(ents)))
        n = 0
        for seq, off, length in cursor:
            if seq in skip:
                continue
            if phrases:
                try:
                    line = self.line(off, length)
                except (ValueError, OSError):
                    continue
                tokens = text_tokens(fts_body(line.get("reasoning"), line.get("alternative")))
                if not all(holds(tokens, t) for t in phrases):
                    continue
            yield seq
            n += 1
            if n >= want:
                return

    def _event_count_of(self, ents: list[int]) -> int:
        """How many events `ents` have, counted up to just past `_FEW_EVENTS`."""
        if len(ents) > _FEW_EVENTS:
            return len(ents)
        sql = f"SELECT count(*) FROM ({_SEQS_OF_ENTS} LIMIT ?2)"
        return int(self.db.execute(sql, (json.dumps(ents), _FEW_EVENTS + 1)).fetchone()[0])

    def review_rows(self) -> list[tuple[int, str | None, str | None]]:
        """(seq, revisit_after, expires_when) of every event that asks for a review."""
        return self.db.execute("SELECT seq, revisit, expires FROM review ORDER BY seq").fetchall()

    def superseded_keys(self, among: Collection[int]) -> set[int]:
        """The id keys in `among` that some supersede names."""
        # The type as a literal: only then can SQLite prove the partial index covers it
        # (without it, a scan of every event: 280 ms at 1M).
        sql = (
            f"SELECT ref FROM ev WHERE ty = {_SUPERSEDE_CODE} "
            "AND ref IN (SELECT value FROM json_each(?))"
        )
        return {t[0] for t in self.db.execute(sql, (json.dumps(list(among)),))}

    def names_key(self, key: int) -> bool:
        """Whether some supersede names an event whose 60-bit id key is `key`: one probe
        of the partial index (`superseded_keys`'s JSON list was ~25 us more a call)."""
        sql = f"SELECT 1 FROM ev WHERE ty = {_SUPERSEDE_CODE} AND ref = ? LIMIT 1"
        return self.db.execute(sql, (key,)).fetchone() is not None

    def source_keys(self, prefix: str) -> set[str]:
        """Importers' idempotency keys starting with `prefix`."""
        sql = "SELECT k FROM srckey WHERE k >= ? AND k < ?"
        return {k for (k,) in self.db.execute(sql, (prefix, prefix + "\U0010ffff"))}

    def keyed_row(self, key: str) -> Row | None:
        """The event a writer's idempotency key names (`metadata.idempotency.key`)."""
        found = self.db.execute("SELECT seq FROM ikey WHERE k = ?", (key,)).fetchone()
        if found is None:
            return None
        return self.rows_by_seq([int(found[0])]).get(int(found[0]))

    def entity_paths(self) -> list[str]:
        """Every entity path with at least one event, sorted."""
        return [p for (p,) in self.db.execute("SELECT path FROM ent ORDER BY path")]

    def event_count(self) -> int:
        """How many events are indexed."""
        return int(self.db.execute("SELECT count(*) FROM ev").fetchone()[0])

    def damage_counts(self) -> dict[str, int]:
        """Lines the index keeps out because verification rejects them, by problem code."""
        found = {
            str(c): int(n)
            for c, n in self.db.execute(
                "SELECT code, count(*) FROM damage GROUP BY code ORDER BY code"
            )
        }
        if self.bad_lines:
            found["malformed"] = found.get("malformed", 0) + self.bad_lines
        return found

    def event_keys(self) -> list[int]:
        """The id key of every indexed event (verify compares them with the log)."""
        return [int(h) for (h,) in self.db.execute("SELECT h FROM ev")]

    # --- maintenance --------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def scrub(self) -> None:
        """Rewrite every page so no freed page, segment or WAL frame keeps old text."""
        self.db.execute("PRAGMA secure_delete=ON")
        # Merge full-text segments so deleted terms are dropped, not just marked deleted.
        self.db.execute("INSERT INTO fts(fts) VALUES('optimize')")
        self.db.execute("VACUUM")
        self.checkpoint()

    def size_breakdown(self) -> dict[str, int]:
        """Bytes per table and index (benchmarks report where the index's size goes)."""
        sql = "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
        return {str(k): int(v) for k, v in self.db.execute(sql)}


# Not on every platform (macOS has no posix_fadvise): there, lines are read one by one.
_advise = getattr(os, "posix_fadvise", None)
_WILLNEED = getattr(os, "POSIX_FADV_WILLNEED", 0)
# Linux: a read that takes only what the page cache holds (0: not here, or refused once).
_nowait: int = getattr(os, "RWF_NOWAIT", 0) if hasattr(os, "preadv") else 0

# None is never bound: each None goes through the sqlite3 module's adapter lookup, which
# fails with an exception it then clears (~0.4 us a None). `ev` rows bind `_NULL` for a
# NULL `ref` or `occ` (most rows have neither: ~1 us an event of a bulk load less), an
# integer no id key (>= 0) and no time (ms since 1970; year 1 is -6.2e13) can be; not ""
# (a text bound is copied into memory SQLite allocates). The rows stay in one statement,
# in seq order: two statements' interleaved inserts split the table's pages (14% bigger).
_NULL = -(1 << 62)
_EV_SQL = (
    f"INSERT INTO ev VALUES (?, ?, ?, ?, ?, ?, nullif(?, {_NULL}), ?, nullif(?, {_NULL}), ?, ?)"
)
# A status row that names no event (no kind, no detail) leaves those columns out (no None
# bound; the rows are looked up by key, replaced in place, order does not matter).
_EST_BARE_SQL = "INSERT OR REPLACE INTO est(path, st, cnt) VALUES (?, ?, ?)"
_EST_SQL_W = "INSERT OR REPLACE INTO est VALUES (?, ?, ?, ?, ?)"
_EV_COLS = "v.seq, v.ent, v.h, v.ty, v.ch, v.pos, v.ref, v.rec, v.occ, v.off, v.len"


def _by_key(cols: str, where: str) -> str:
    """Columns of `ev v` for the events whose key's bucket and key match `where` (of `k`
    and `v.h`), from both key lists: a join per list, not `seq IN` the lists (which
    built a temporary table a lookup: 7-9 -> 9-11 us a key at 1M, 5,000 keys)."""
    one = f"SELECT {cols} FROM {{}} l CROSS JOIN ev v ON v.seq = l.seq WHERE {where}"
    return f"{one.format('eh')} UNION ALL {one.format('eh_new')}"


# The event with id key ?1; the events with keys in [?1, ?2], in key order, ?3 at most.
_BY_KEY_SQL = _by_key("v.seq, v.ch, v.pos", f"l.k = ?1 >> {_KEY_SHIFT} AND v.h = ?1")
_KNOWN_SQL = _by_key("1", f"l.k = ?1 >> {_KEY_SHIFT} AND v.h = ?1")
_BY_KEY_RANGE_SQL = (
    "SELECT * FROM ("
    + _by_key(
        _EV_COLS,
        f"l.k BETWEEN ?1 >> {_KEY_SHIFT} AND ?2 >> {_KEY_SHIFT} AND v.h BETWEEN ?1 AND ?2",
    )
    + ") ORDER BY h, seq LIMIT ?3"
)
_by_seq = itemgetter(0)
# One entity's event rows (?1), per list in key order, not sorted: an ORDER BY (or
# `seq IN` the lists) cost 11-21% more instructions a call than the old index's scan did,
# sorting in Python none that counts (callgrind, 1M events; the callers sort).
_ROWS_OF_ENT_SQL = (
    f"SELECT {_EV_COLS} FROM es s CROSS JOIN ev v ON v.seq = s.seq WHERE s.ent = ?1 UNION ALL "
    f"SELECT {_EV_COLS} FROM es_new s CROSS JOIN ev v ON v.seq = s.seq WHERE s.ent = ?1"
)
# The seqs of several entities' events (?1: a JSON list of ids).
_SEQS_OF_ENTS = (
    "SELECT seq FROM es WHERE ent IN (SELECT value FROM json_each(?1)) "
    "UNION ALL SELECT seq FROM es_new WHERE ent IN (SELECT value FROM json_each(?1))"
)
# (path, event row) for each event of the entities the query in {} names (path, id):
# per path `es`'s rows (older than any of `es_new`'s) first, each list read along its
# key (seq order), not sorted (see `_ROWS_OF_ENT_SQL`); the entities are looked up once.
_BY_PATH_SQL = (
    "WITH t(path, id) AS ({}) "
    f"SELECT t.path, {_EV_COLS} FROM t CROSS JOIN es s ON s.ent = t.id "
    "CROSS JOIN ev v ON v.seq = s.seq UNION ALL "
    f"SELECT t.path, {_EV_COLS} FROM t CROSS JOIN es_new s ON s.ent = t.id "
    "CROSS JOIN ev v ON v.seq = s.seq"
)
_SUMMARY_BY_PATH_SQL = _BY_PATH_SQL.format(
    "SELECT e.path, e.id FROM json_each(?) j CROSS JOIN ent e ON e.path = j.value"
)
# The stored status rows of many paths (`State` and `status_rows` read them).
_EST_SQL = (
    "SELECT s.path, s.st, s.cnt, s.kd, s.detail FROM json_each(?) j "
    "CROSS JOIN est s ON s.path = j.value"
)

# `status_table`: a row's status, kind and event count in one number (`status_code`),
# `NO_KIND` for a row without a kind (it names no event); three lists in the order
# SQLite reads the rows (every aggregate of one query sees them in the same order).
STATUS_MASK = 15
KIND_SHIFT = 4
COUNT_SHIFT = 8
NO_KIND = 15
assert len(STATUSES) <= STATUS_MASK + 1 and len(KINDS) < NO_KIND
_EST_LISTS_SQL = (
    "SELECT group_concat(j.key), "
    f"group_concat((s.cnt << {COUNT_SHIFT}) | (ifnull(s.kd, {NO_KIND}) << {KIND_SHIFT}) | s.st), "
    "group_concat(ifnull(s.detail, 0)) "
    "FROM json_each(?) j CROSS JOIN est s ON s.path = j.value"
)


def status_code(code: int) -> tuple[int, int | None, int]:
    """(status code, kind code or None, event count) of one `status_table` number."""
    kind = (code >> KIND_SHIFT) & NO_KIND
    return code & STATUS_MASK, None if kind == NO_KIND else kind, code >> COUNT_SHIFT


def _json_list(strings: list[str]) -> str:
    """A JSON array of strings for `json_each` (orjson: the stdlib's took ~0.1 ms for an
    editor's 500 paths; it refuses lone surrogates, which the stdlib escapes)."""
    try:
        return orjson.dumps(strings).decode()
    except orjson.JSONEncodeError:
        return json.dumps(strings)


def _summarise(
    cursor: Iterable[tuple[Any, ...]], keys: list[Any]
) -> Iterator[tuple[Any, tuple[list[Row], int]]]:
    """Per key (the first column): every verdict, supersede and removal, but of the
    applied events only the latest of each DAG chain (within a chain a later position
    descends from every earlier one, so it alone decides ancestry), and the event count."""
    rows: dict[Any, list[Row]] = {k: [] for k in keys}
    counts: dict[Any, int] = dict.fromkeys(keys, 0)
    latest: dict[tuple[Any, int], tuple[Any, ...]] = {}  # (key, chain) -> applied row
    # One pass in SQLite's order; a GROUP BY in SQL cost more than this loop.
    for t in cursor:
        k = t[0]
        counts[k] += 1
        if t[4] in _APPLIED_SET:
            lk = (k, t[5])
            best = latest.get(lk)
            if best is None or t[6] > best[6]:
                latest[lk] = t
        else:
            rows[k].append(_row(t[1:]))
    for (k, _), t in latest.items():
        rows[k].append(_row(t[1:]))
    for k in keys:
        yield k, (rows[k], counts[k])


def names_a_summarised_change(rows: list[Row]) -> bool:
    """True when a revert's `reverts` points at an applied event of the entity that is
    the latest of its chain: earlier ones in that chain were folded away."""
    refs = {r.ref for r in rows if r.ty is EventType.REVERT and r.ref is not None}
    return any(r.h in refs for r in rows if r.ty.is_applied)


def fts_body(reasoning: object, alternative: object) -> str:
    """What full-text search indexes of an event's own text: its why and the approach
    (its entity's path is indexed once, in `ent_fts`)."""
    parts = [t for t in (reasoning, alternative) if t and isinstance(t, str)]
    return " ".join(parts)


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


@dataclass(slots=True)
class _Batch:
    """Rows on their way into the database (flushed every FLUSH_EVERY events)."""

    placed: dict[int, tuple[int, ChainPos]]
    ents: list[tuple[int, str]]
    rows: list[tuple[int, ...]]  # `ev` rows, `_NULL` for a NULL `ref` or `occ` (`_EV_SQL`)
    fts: list[tuple[int, str]]
    chains: list[tuple[int, str]]
    merges: list[tuple[int, int, str]]
    reviews: list[tuple[int, Any, Any]]
    srckeys: list[tuple[str]]
    ikeys: list[tuple[str, int]]
    marks: list[tuple[str, int]]
    damage: list[tuple[Any, ...]]
    touched: set[int]

    def __init__(self) -> None:
        self.placed = {}
        self.ents = []
        self.rows = []
        self.fts = []
        self.chains = []
        self.merges = []
        self.reviews = []
        self.srckeys = []
        self.ikeys = []
        self.marks = []
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


# --- the index file, for tools that must not catch it up (verify, doctor) -------------


class IndexUnreadable(StoreError):
    """`index.db` exists but SQLite cannot read it (it is derived: rebuild it)."""


def index_files(cairn_dir: Path) -> list[Path]:
    """The index and its SQLite side files (the ones that exist)."""
    base = cairn_dir / INDEX_NAME
    return [p for p in (Path(f"{base}{s}") for s in ("", "-wal", "-shm")) if p.exists()]


def read_meta(cairn_dir: Path, keys: Iterable[str] | None = None) -> dict[str, Any] | None:
    """The index's meta table (or only `keys`), read-only and without catching it up.

    None when there is no index; `IndexUnreadable` when SQLite cannot read it.
    """
    path = cairn_dir / INDEX_NAME
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
        try:
            if keys is None:
                rows = conn.execute("SELECT k, v FROM meta").fetchall()
            else:
                wanted = list(keys)
                marks = ",".join("?" * len(wanted))
                sql = f"SELECT k, v FROM meta WHERE k IN ({marks})"
                rows = conn.execute(sql, wanted).fetchall()
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise IndexUnreadable(f"{INDEX_NAME} is unreadable ({exc})") from None
    return dict(rows)


def write_meta(cairn_dir: Path, values: dict[str, Any]) -> bool:
    """Set meta keys of an existing index without opening the store; False on failure."""
    try:
        conn = sqlite3.connect(cairn_dir / INDEX_NAME, timeout=10.0, isolation_level=None)
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)", list(values.items())
            )
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return True


def remove_index(cairn_dir: Path) -> None:
    """Delete the index and its side files (the next open rebuilds it). Callers hold
    the write lock or know no other process is using it."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{cairn_dir / INDEX_NAME}{suffix}").unlink(missing_ok=True)
