"""What an open index holds: its connection, and what it keeps in memory between
ingests (the DAG's shape, the heads, counters, entity ids), reloaded from the
database whenever another connection may have changed it.

`Index` is built in layers, each a module: this state, reading the log's lines
(`index_lines`), queries (`index_queries`), status rows (`index_statuses`), ingest
(`index_ingest`), and the index itself (`index`), where it stands against the log.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from cairn.store.dag import ChainPos, Dag
from cairn.store.index_schema import INDEX_NAME, connect, in_memory, unusable
from cairn.store.index_trace import TracedConnection, Tracer, log_statement
from cairn.store.prefix import PrefixDigest
from cairn.store.search_index import SearchIndex
from cairn.store.status_rows import NewEvent, State

__all__ = ["DEFAULT_WAL_PAGES", "IndexState"]

DEFAULT_WAL_PAGES = 1000  # SQLite's default wal_autocheckpoint (see `Ingest._checkpoint_every`)


class IndexState:
    """The connection and the index's state in memory. Not thread-safe by itself."""

    def __init__(self, cairn_dir: Path, log_path: Path) -> None:
        self.path = cairn_dir / INDEX_NAME
        self.log_path = log_path
        # Why the index lives in memory, "" when it is the file. A read-only `.cairn/`
        # (a read-only mount, a checkout without write permission), an index that is
        # not writable or not a file: reads still answer, from a copy in memory caught
        # up with the log; writes are refused (`Store`) with this reason.
        self.fallback = ""
        try:
            self.db = connect(self.path)
        except (OSError, sqlite3.Error) as exc:
            self.fallback = unusable(self.path, exc)
            self.db = in_memory(self.path)
        else:
            if not os.access(self.path, os.W_OK):
                self.db.close()
                self.fallback = unusable(self.path, PermissionError("it is not writable"))
                self.db = in_memory(self.path)
        # Full-text search's own file, caught up on each search (`search_index`).
        self.search_index = SearchIndex(cairn_dir, in_memory=bool(self.fallback))
        self.dag = Dag()
        self.heads: set[str] = set()
        self.consumed = 0  # the log's bytes ingested
        self.next_seq = 1
        self.loaded_version = -1  # PRAGMA data_version when load_state last ran
        self.bad_lines = 0
        self.tip_by_key: dict[int, tuple[int, ChainPos]] = {}  # chain tip's key -> (seq, cp)
        # chain -> (key, seq) of its tip. Its own record, not read back through
        # tip_by_key: a damaged line and a sound copy of it can both be chain tips under
        # one key.
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
        self._all_ents_known = False  # ent_ids holds every row of `entity` (a rebuild's)
        self._wal_pages = DEFAULT_WAL_PAGES  # this connection's wal_autocheckpoint
        self._fd: int | None = None  # the log, opened for `pread` of known byte spans
        self._prefix = PrefixDigest()  # digests of the ingested bytes (a replaced log)
        # The first seq `entity_events_recent` may list (older ones are in
        # `entity_events`), and the first seq neither lists yet (`_list_entities`).
        self._entities_recent_from = 1
        self._entities_listed_upto = 1
        self._keys_recent_from = 1  # the same for `key_events_recent`
        self.load_state()

    def meta(self) -> dict[str, Any]:
        """The meta table as a dict."""
        return dict(self.db.execute("SELECT k, v FROM meta").fetchall())

    @contextlib.contextmanager
    def tracer(self, fn: Tracer = log_statement) -> Iterator[None]:
        """Within the block, call `fn(sql, params, seconds)` for each statement this
        index runs (default: a DEBUG line on the `cairn.store.sql` logger)."""
        before = plain = self.db
        if isinstance(plain, TracedConnection):
            plain = plain.wrapped  # a tracer inside another: the inner one reports
        # The traced connection stands in for the real one: every method reads
        # `self.db` when it runs, so nothing else changes while tracing is off.
        self.db = cast(sqlite3.Connection, TracedConnection(plain, fn))
        search_before, self.search_index.tracer = self.search_index.tracer, fn
        try:
            yield
        finally:
            self.db = before
            self.search_index.tracer = search_before

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
        db = self.db
        self.loaded_version = db.execute("PRAGMA data_version").fetchone()[0]
        self._prefix.clear()  # another process may have recorded other digests
        meta = self.meta()
        self.heads = set(json.loads(meta.get("heads", "[]")))
        self.consumed = int(meta.get("consumed", 0))
        self.bad_lines = int(meta.get("bad_lines", 0))
        top = (
            "SELECT max(m) FROM "
            "(SELECT max(seq) m FROM event UNION ALL SELECT max(seq) FROM damage)"
        )
        self.next_seq = (db.execute(top).fetchone()[0] or 0) + 1
        self._entities_recent_from = int(meta.get("entity_events_recent_from", 1))
        self._entities_listed_upto = self.next_seq  # a committed ingest listed all its events
        self._keys_recent_from = int(meta.get("key_events_recent_from", 1))
        dag = Dag()
        for chain, start in db.execute("SELECT id, start FROM chain ORDER BY id"):
            dag.starts[chain] = [(int(p[0]), int(p[1])) for p in json.loads(start)]
        for chain, pos, parents in db.execute("SELECT chain, pos, parents FROM merge ORDER BY pos"):
            extra = [(int(p[0]), int(p[1])) for p in json.loads(parents)]
            dag.merges.setdefault(chain, []).append((pos, extra))
        self.tip_by_key = {}
        self.tip_key = {}
        self.next_ent = (db.execute("SELECT max(id) FROM entity").fetchone()[0] or 0) + 1
        for chain, pos, seq, key in db.execute("SELECT id, tip_pos, tip_seq, tip_key FROM chain"):
            dag.tips[chain] = pos
            self.tip_by_key[key] = (seq, (chain, pos))
            self.tip_key[chain] = (key, seq)
        self.dag = dag
        self.ent_ids = {}
        self._touched_ents = {}  # a rolled-back ingest's counts must not carry over
        self._full_ents = set()
        self._states = {}
        self._kept = {}
        self._all_ents_known = False

    def reload_state(self) -> None:
        """`load_state` inside a read transaction (another process committed rows)."""
        self.db.execute("BEGIN")
        try:
            self.load_state()
        finally:
            self.db.execute("COMMIT")
