"""The search index (`.cairn/index.db-search`): full-text search's FTS5 table, built on demand.

Indexing an event writes no full-text row: that cost (bytes in `index.db`, CPU in
every bulk load) is paid only by a project that searches. Each search first catches
the search index up (`SearchIndex.caught_up`): in one write transaction on its file,
every event the index holds past the search index's watermark is read back from the
log and indexed (`fulltext.line_fields`), then the search is answered from it.

The file records the index it was built from (`index.db`'s `generation`, which
changes whenever the index is emptied and rebuilt: a schema bump, a log rewritten by
`redact`, a merge that re-orders the log). When they differ, it is emptied and built
again: seqs, and what is searchable, may have changed. It is derived like the index,
git-ignored like it, and may be deleted at any time (the next search rebuilds it).

A `.cairn/` the process cannot write to still answers: the catch-up is done on a copy
in memory (of the file when it can be read), kept for the next search of the process.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

from cairn.store.errors import StoreError
from cairn.store.fulltext import FIELDS
from cairn.store.index_trace import TracedConnection, Tracer

__all__ = ["SEARCH_NAME", "SearchIndex", "SearchRows", "remove_search", "search_files"]

# Named as a companion of index.db: the `index.db-*` rule every `.cairn/.gitignore` has
# carried since the first release keeps it (and its -wal and -shm) out of git, so a
# project made before the search index existed does not show a large untracked file.
SEARCH_NAME = "index.db-search"
# Bumped with any change to the table or to what its rows hold (`fulltext`): a file of
# another version is emptied and built again.
SEARCH_SCHEMA = "1"
_SIDE = ("", "-wal", "-shm", "-journal")

# The rows to index: given the last seq indexed and the last to index, batches of
# (seq, *fulltext.FIELDS), in seq order.
SearchRows = Callable[[int, int], Iterable[list[tuple[int, str, str, str, str]]]]

# Contentless (the text stays in the log), porter-stemmed; `detail=full`: FTS5's bm25
# scores 0 in a contentless table with less detail, and positions answer phrases.
_FTS = (
    f"CREATE VIRTUAL TABLE event_fts USING fts5({', '.join(FIELDS)}, content='', "
    "tokenize='porter unicode61')"
)
_INSERT = f"INSERT INTO event_fts(rowid, {', '.join(FIELDS)}) VALUES (?, ?, ?, ?, ?)"
# A first search of a large log indexes it all, in one transaction another process's
# search waits for.
_BUSY_MS = 600_000


def search_files(cairn_dir: Path) -> list[Path]:
    """The search index and its SQLite side files (the ones that exist)."""
    base = cairn_dir / SEARCH_NAME
    return [p for p in (Path(f"{base}{s}") for s in _SIDE) if p.exists()]


def remove_search(cairn_dir: Path) -> None:
    """Delete the search index and its side files (the next search builds it again)."""
    for path in search_files(cairn_dir):
        path.unlink(missing_ok=True)


class SearchIndex:
    """The search index of one `.cairn/`: a connection opened on the first search."""

    def __init__(self, cairn_dir: Path, *, in_memory: bool = False) -> None:
        self.path = cairn_dir / SEARCH_NAME
        self.in_memory = in_memory  # the file cannot be written: a copy in memory
        self.tracer: Tracer | None = None  # `Index.tracer` reports this connection too
        self._db: sqlite3.Connection | None = None
        self._opened: tuple[int, int] | None = None  # the file's (device, inode) when opened

    @property
    def db(self) -> sqlite3.Connection:
        db = self._db
        if db is None:
            db = self._db = self._open()
        if self.tracer is not None:
            return TracedConnection(db, self.tracer)  # type: ignore[return-value]
        return db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def caught_up(self, identity: str, upto: int, rows: SearchRows) -> sqlite3.Connection:
        """The connection, its table holding every event up to seq `upto` of the index
        whose generation is `identity` (see the module's docstring)."""
        if self._db is not None and not self.in_memory and _file_id(self.path) != self._opened:
            self.close()  # deleted or replaced since it was opened: open the new one
        try:
            if self._current(identity, upto):
                return self.db
            self._catch_up(identity, upto, rows)
        except sqlite3.OperationalError as exc:
            if self.in_memory or not _unwritable(exc):
                raise StoreError(f"cannot update the search index {self.path}: {exc}") from None
            self.close()  # read-only after all: catch up a copy in memory
            self.in_memory = True
            self._catch_up(identity, upto, rows)
        return self.db

    def scrub(self) -> None:
        """Empty the file so no page, segment or WAL frame keeps old text (`redact`);
        deleted when SQLite cannot empty it."""
        self.close()
        if not self.path.exists():
            return
        try:
            db = _connect(self.path)
            try:
                db.execute("PRAGMA secure_delete=ON")
                db.execute("BEGIN IMMEDIATE")
                _create(db, drop=True)
                db.execute("COMMIT")
                db.execute("VACUUM")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                db.close()
        except sqlite3.Error:
            remove_search(self.path.parent)

    # --- internals ----------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        if not self.in_memory:
            writable = os.access(self.path.parent, os.W_OK) and (
                not self.path.exists() or os.access(self.path, os.W_OK)
            )
            if writable:
                with contextlib.suppress(sqlite3.Error, OSError):
                    db = _connect(self.path)
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("PRAGMA journal_mode=WAL")
                    if _schema_of(db) != SEARCH_SCHEMA:
                        db.execute("BEGIN IMMEDIATE")
                        try:
                            if _schema_of(db) != SEARCH_SCHEMA:
                                _create(db, drop=True)
                            db.execute("COMMIT")
                        except BaseException:
                            db.execute("ROLLBACK")
                            raise
                    self._opened = _file_id(self.path)
                    return db
            self.in_memory = True
        return _copy_in_memory(self.path)

    def _current(self, identity: str, upto: int) -> bool:
        meta = dict(self.db.execute("SELECT k, v FROM meta"))
        return meta.get("index") == identity and int(meta.get("upto", -1)) == upto

    def _catch_up(self, identity: str, upto: int, rows: SearchRows) -> None:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the write lock: another process may have caught it up.
            meta = dict(db.execute("SELECT k, v FROM meta"))
            after = int(meta.get("upto", 0))
            if meta.get("index") != identity or after > upto:
                # Built from another index (or none): its seqs and text may be stale.
                db.execute("PRAGMA secure_delete=ON")
                _create(db, drop=True)
                db.execute("PRAGMA secure_delete=OFF")
                after = 0
            for batch in rows(after, upto) if after < upto else ():
                db.executemany(_INSERT, batch)
            db.executemany(
                "INSERT OR REPLACE INTO meta(k, v) VALUES (?, ?)",
                [("index", identity), ("upto", upto)],
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def _connect(path: Path | str) -> sqlite3.Connection:
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    db.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
    return db


def _schema_of(db: sqlite3.Connection) -> str | None:
    try:
        found = db.execute("SELECT v FROM meta WHERE k = 'schema'").fetchone()
    except sqlite3.Error:
        return None
    return None if found is None else str(found[0])


def _create(db: sqlite3.Connection, *, drop: bool) -> None:
    """The tables, empty (the caller holds the transaction)."""
    if drop:
        db.execute("DROP TABLE IF EXISTS event_fts")
        db.execute("DROP TABLE IF EXISTS meta")
    db.execute("CREATE TABLE meta(k TEXT PRIMARY KEY, v) WITHOUT ROWID")
    db.execute(_FTS)
    db.execute("INSERT INTO meta VALUES('schema', ?)", (SEARCH_SCHEMA,))


def _copy_in_memory(path: Path) -> sqlite3.Connection:
    """A search index in memory: a copy of the file's when it can be read and has the
    current schema (caught up from there), else empty."""
    db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    if path.is_file():
        with contextlib.suppress(sqlite3.Error, OSError, ValueError):
            # immutable: no lock, no -shm, nothing written beside it (read-only folder).
            source = sqlite3.connect(path.resolve().as_uri() + "?immutable=1", uri=True)
            try:
                if _schema_of(source) == SEARCH_SCHEMA:
                    source.backup(db)
            finally:
                source.close()
    if _schema_of(db) != SEARCH_SCHEMA:
        _create(db, drop=True)
    return db


def _file_id(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _unwritable(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text
