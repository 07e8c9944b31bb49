"""The index's schema: its tables, the codes its integer columns hold, and opening the
file (a file with another schema version, or none, is rebuilt from the log).

The history of the schema's versions, and the measurements behind its layout, are in
docs/log.md ("Choices") and docs/performance.md.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cairn.store.errors import StoreError
from cairn.store.log import write_lock
from cairn.store.model import EventType, Status
from cairn.store.paths import EntityKind, EntityPath, parsed_or_none

__all__ = [
    "INDEX_NAME",
    "KINDS",
    "MARKED_KEYS",
    "SCHEMA_VERSION",
    "STATUSES",
    "TYPES",
    "TYPE_CODES",
    "IndexUnreadable",
    "connect",
    "in_memory",
    "index_files",
    "kind_code",
    "new_generation",
    "read_meta",
    "remove_index",
    "write_meta",
]

# Any change to the tables, to what a column holds, or to what the entity-path grammar
# makes of a path (canonical form, inferred kind) bumps this: every index whose version
# differs is rebuilt from the log when it is opened.
SCHEMA_VERSION = "22"
INDEX_NAME = "index.db"

# The codes the integer columns hold: an event's `type`, a status row's `status` and
# `kind` are positions in these tuples.
TYPES: tuple[EventType, ...] = tuple(EventType)
TYPE_CODES: dict[str, int] = {t.value: i for i, t in enumerate(TYPES)}
CODE_OF_TYPE: dict[EventType, int] = {t: i for i, t in enumerate(TYPES)}
APPLIED_CODES = frozenset(i for i, t in enumerate(TYPES) if t.is_applied)
NOTE_CODES = frozenset(i for i, t in enumerate(TYPES) if t.is_note)
STATUSES: tuple[Status, ...] = tuple(Status)
STATUS_CODES: dict[Status, int] = {s: i for i, s in enumerate(STATUSES)}
KINDS: tuple[str, ...] = tuple(k.value for k in EntityKind)
_KIND_CODES = {k: i for i, k in enumerate(KINDS)}
RENAME_CODE = TYPE_CODES["rename"]
REVERT_CODE = TYPE_CODES["revert"]
REJECT_CODE = TYPE_CODES["reject"]
SUPERSEDE_CODE = TYPE_CODES["supersede"]
CONFLICT_CODE = STATUS_CODES[Status.CONFLICT]

# `key_events` lists an event under its id key's top 31 bits (the bucket), not all 60:
# 4 bytes a row instead of 8, and still about one event a bucket in a log of millions
# (a bucket holds 2^29 keys of 2^60). A lookup names the bucket, then compares the key in `event`.
KEY_SHIFT = 29
# The `*_recent` lists hold the latest events' rows, about this many at most; then
# they are folded into the full lists (`Ingest._list_keys`, `StatusRows._list_entities`).
RECENT_MAX = 1 << 17

# Metadata keys whose few events a reader asks for among many: rename links (the
# aliases every status follows) and reverts that carry a change fingerprint (the
# bring-back check). Marked at ingest (`marked_key`), so finding them reads no line of
# the log: most renames and reverts carry none, and reading them all to learn that
# would cost the server's first statuses more than anything else.
MARKED_KEYS = frozenset({"renamed_to", "renamed_from", "fingerprint"})

# A revert's change fingerprint (`metadata.fingerprint`: words of 8 hex digits, `+` before
# the hash of a line the revert put back) is also listed by line hash: `print_line` maps
# each hash to the change (the revert's commit, else its own id) whose events carry it,
# `print_change` a change to those events. The gate looks up the hashes of the lines a
# diff adds or removes, so its cost is the diff's lines and the reverts they match, not
# the open reverts of the whole log. A put-back line's hash is listed with this bit set.
PRINT_KEY = "fingerprint"
RESTORED_BIT = 1 << 32

# A `rename` event's link (`metadata.renamed_to` on the old path, `renamed_from` on the
# new; canonical paths) is listed in `rename_link` by both ends, so a command asking
# about a few entities reads the links that name them, not every rename of the log.
LINK_KEYS = (("renamed_to", True), ("renamed_from", False))

# No decision text is stored: an event is a row of integers, and its text is read back
# from the log at (line_offset, line_length). Full-text search is not here: it has a
# file of its own, built on demand (`search_index`), which names the index it was built
# from by `meta.generation` (`new_generation`: a fresh one whenever the index is emptied).
#
# An entity's events, and the event of an id key, are listed in two tables each (the
# full list and the recent one) rather than found through an index of `event`: an index
# takes a random-key insert per event into a tree of every event, while inserts into the
# small recent list stay in the CPU's caches and are folded into the full list in key
# order, one pass along its tree (docs/log.md, "Choices").
#
# `meta` keeps its (k, v) shape in every version: the version itself is read from it,
# and verify and doctor read it without knowing which version the file holds.
_SCHEMA = f"""
CREATE TABLE meta(k TEXT PRIMARY KEY, v) WITHOUT ROWID;
CREATE TABLE entity(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE TABLE event(
  seq INTEGER PRIMARY KEY,
  entity INTEGER NOT NULL,
  id_key INTEGER NOT NULL,
  type INTEGER NOT NULL,
  chain INTEGER NOT NULL,
  pos INTEGER NOT NULL,
  target_key INTEGER,
  recorded_ms INTEGER NOT NULL,
  occurred_ms INTEGER,
  line_offset INTEGER NOT NULL,
  line_length INTEGER NOT NULL);
CREATE TABLE chain(id INTEGER PRIMARY KEY, start TEXT NOT NULL, tip_seq, tip_pos, tip_key);
CREATE TABLE merge(chain INTEGER NOT NULL, pos INTEGER NOT NULL, parents TEXT NOT NULL);
CREATE TABLE review(seq INTEGER PRIMARY KEY, revisit_after TEXT, expires_when TEXT);
CREATE TABLE source_key(key TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE idempotency_key(key TEXT PRIMARY KEY, seq INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE marked_key(key TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY(key, seq))
  WITHOUT ROWID;
CREATE TABLE entity_status(
  path TEXT PRIMARY KEY,
  status INTEGER NOT NULL,
  event_count INTEGER NOT NULL,
  note_count INTEGER NOT NULL,
  kind INTEGER,
  detail TEXT) WITHOUT ROWID;
CREATE TABLE damage(
  seq INTEGER PRIMARY KEY,
  id_key INTEGER,
  chain INTEGER,
  pos INTEGER,
  line_offset INTEGER NOT NULL,
  line_length INTEGER NOT NULL,
  code TEXT NOT NULL);
CREATE INDEX damage_by_key ON damage(id_key);
CREATE INDEX event_renames ON event(seq) WHERE type = {RENAME_CODE};
CREATE INDEX event_reverts ON event(entity, seq) WHERE type = {REVERT_CODE};
CREATE INDEX event_supersedes ON event(target_key) WHERE type = {SUPERSEDE_CODE};
CREATE TABLE entity_events(entity INTEGER NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY(entity, seq)) WITHOUT ROWID;
CREATE TABLE entity_events_recent(entity INTEGER NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY(entity, seq)) WITHOUT ROWID;
CREATE TABLE key_events(bucket INTEGER NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY(bucket, seq)) WITHOUT ROWID;
CREATE TABLE key_events_recent(bucket INTEGER NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY(bucket, seq)) WITHOUT ROWID;
CREATE TABLE print_line(hash INTEGER NOT NULL, change INTEGER NOT NULL,
  PRIMARY KEY(hash, change)) WITHOUT ROWID;
CREATE TABLE print_change(change INTEGER NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY(change, seq)) WITHOUT ROWID;
CREATE TABLE rename_link(new TEXT NOT NULL, old TEXT NOT NULL, seq INTEGER NOT NULL,
  forward INTEGER NOT NULL, members TEXT);
CREATE INDEX rename_link_by_new ON rename_link(new);
CREATE INDEX rename_link_by_old ON rename_link(old);
"""
# The tables a rebuild empties.
DERIVED_TABLES = (
    "event", "entity", "chain", "merge", "review", "source_key", "idempotency_key",
    "entity_status", "damage", "marked_key", "entity_events", "entity_events_recent",
    "key_events", "key_events_recent", "print_line", "print_change", "rename_link",
)  # fmt: skip


def kind_code(path: str) -> int | None:
    """The stored code of the kind the grammar infers for a canonical path (what
    `model.event_from_bytes` fills in for a line that leaves `entity_kind` out), None
    when it infers none. A rebuild parsed the path already (a cache hit)."""
    parsed = parsed_path(path)
    return _KIND_CODES[parsed.kind.value] if parsed is not None else None


def parsed_path(raw: str) -> EntityPath | None:
    """The parsed path, or None for a malformed one (cached: `paths.parsed_or_none`)."""
    return parsed_or_none(raw) if isinstance(raw, str) else None


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
        new_generation(db)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def new_generation(db: sqlite3.Connection) -> None:
    """Give the index a new `generation`: the rows now numbered by its seqs are not the
    ones before (a new file, a rebuild). The search index built from other ones starts
    over. Caller holds the transaction."""
    db.execute("INSERT OR REPLACE INTO meta(k, v) VALUES('generation', ?)", (os.urandom(8).hex(),))


def _schema_of(db: sqlite3.Connection) -> str | None:
    found = db.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
    return None if found is None else str(found[0])


def _open_checked(path: Path) -> tuple[sqlite3.Connection, bool]:
    """Connect; True when the file holds the current schema."""
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    version = None
    # A garbled file fails on the first statement: it is derived, so rebuild it.
    with contextlib.suppress(sqlite3.Error):
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=10000")
        # Random-key B-tree inserts (id keys, status rows) thrash SQLite's default 2 MB
        # page cache.
        db.execute("PRAGMA cache_size=-32768")
        version = _schema_of(db)
    return db, version == SCHEMA_VERSION


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the index file at `path`, with the current schema: a file with
    another version, or no file, gets an empty index (the caller ingests the log)."""
    db, current = _open_checked(path)
    if current:
        return db
    db.close()
    # Several processes may find no index at once: only one may create it (or it
    # deletes the file another is filling), so create under the write lock, after
    # looking again.
    with write_lock(path.parent):
        db, current = _open_checked(path)
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
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=10000")
        _create_schema(db)
    return db


def in_memory(path: Path) -> sqlite3.Connection:
    """An index in memory: a copy of the file's at `path` when it can be read and has
    the current schema (caught up from there like the file would be), else empty."""
    db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    if path.is_file():
        with contextlib.suppress(sqlite3.Error, OSError, ValueError):
            # immutable: no lock, no -shm, nothing written beside it (the folder may be
            # read-only); a stale copy is caught up from the log like any index.
            uri = path.resolve().as_uri() + "?immutable=1"
            source = sqlite3.connect(uri, uri=True)
            try:
                if _schema_of(source) == SCHEMA_VERSION:
                    source.backup(db)
            finally:
                source.close()
    try:
        current = _schema_of(db)
    except sqlite3.Error:
        current = None
    if current is None:
        _create_schema(db)
    return db


def unusable(path: Path, exc: BaseException) -> str:
    """Why the index file cannot be used, for a warning and a refused write."""
    if path.is_dir():
        return f"{path} is a directory, not the index; delete it (the index is rebuilt)"
    what = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return f"{path} cannot be written ({what}); make .cairn/ and its files writable"


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
