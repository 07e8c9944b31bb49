"""The SQLite index (`.cairn/index.db`): derived from the JSONL, lean, rebuildable.

It holds no decision text: events are rows of integers (entity, type, place in the DAG,
a 60-bit id key, times, and the byte span of the line in the JSONL), the text is read
back from the log by offset; full-text search is in a file of its own, built on the
first search and caught up on each (`search_index`).

`Index` is built in layers, one module each, each knowing only those before it:
`index_state` (the connection and what is kept in memory), `index_lines` (reading the
log), `index_queries`, `index_statuses` (status rows), `index_ingest`, and this module:
where the index stands against the log. The tables are in `index_schema`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os

from cairn.store.index_ingest import FLUSH_EVERY, Ingest
from cairn.store.index_lines import Record
from cairn.store.index_queries import (
    COUNT_MASK,
    COUNT_SHIFT,
    KIND_SHIFT,
    NO_KIND,
    NOTE_SHIFT,
    STATUS_MASK,
    status_code,
)
from cairn.store.index_rows import Row, id_key, names_a_summarised_change
from cairn.store.index_schema import (
    DERIVED_TABLES,
    INDEX_NAME,
    KINDS,
    MARKED_KEYS,
    PRINT_KEY,
    SCHEMA_VERSION,
    STATUSES,
    TYPE_CODES,
    TYPES,
    IndexUnreadable,
    index_files,
    kind_code,
    new_generation,
    read_meta,
    remove_index,
    write_meta,
)
from cairn.store.index_trace import Tracer
from cairn.store.prefix import starts_with_ingested

__all__ = [
    "COUNT_MASK",
    "COUNT_SHIFT",
    "FLUSH_EVERY",
    "INDEX_NAME",
    "KINDS",
    "KIND_SHIFT",
    "MARKED_KEYS",
    "NOTE_SHIFT",
    "NO_KIND",
    "PRINT_KEY",
    "SCHEMA_VERSION",
    "STATUSES",
    "STATUS_MASK",
    "TAIL_BYTES",
    "TYPES",
    "TYPE_CODES",
    "Index",
    "IndexUnreadable",
    "Record",
    "Row",
    "Tracer",
    "id_key",
    "index_files",
    "kind_code",
    "names_a_summarised_change",
    "read_meta",
    "remove_index",
    "status_code",
    "write_meta",
]

TAIL_BYTES = 4096  # the log's last bytes before the ingested offset, hashed (`tail_hash`)


class Index(Ingest):
    """Ingests the log's lines and answers row-level queries. Not thread-safe by itself."""

    def close(self) -> None:
        """Close the log's read handle and the database connections."""
        self.close_log()
        self.search_index.close()
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
        for table in DERIVED_TABLES:
            self.db.execute(f"DELETE FROM {table}")
        # `verified*` is verify's anchor: what it proved must outlive a rebuild, or a
        # truncated log re-indexed by any process would erase the evidence.
        self.db.execute("DELETE FROM meta WHERE k != 'schema' AND k NOT LIKE 'verified%'")
        new_generation(self.db)  # seqs and text may change: the search index starts over
        self.load_state()

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
