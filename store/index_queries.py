"""The index's queries: an entity's events, stored statuses, events by type, by id key
and by sequence, full-text search, and the maintenance of the file."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Collection, Iterator, Sequence
from typing import Any

import orjson

from cairn.store.errors import StoreError
from cairn.store.fastid import loads as parse_line
from cairn.store.fulltext import FIELD_WEIGHTS, SearchTerm, line_fields
from cairn.store.index_lines import LogLines
from cairn.store.index_rows import (
    BY_KEY_RANGE_SQL,
    BY_PATHS_SQL,
    ROWS_OF_ENTITY_SQL,
    SELECT_EVENTS,
    STATUS_ROWS_SQL,
    Row,
    by_seq,
    print_code,
    row_of,
)
from cairn.store.index_schema import (
    KINDS,
    MARKED_KEYS,
    REJECT_CODE,
    RENAME_CODE,
    REVERT_CODE,
    STATUSES,
    SUPERSEDE_CODE,
)

__all__ = [
    "COUNT_MASK",
    "COUNT_SHIFT",
    "KIND_SHIFT",
    "NOTE_SHIFT",
    "NO_KIND",
    "STATUS_MASK",
    "Queries",
    "status_code",
]

# A query word held by at most this many events is rare: BM25 scores every event it
# is given (about 20 µs each), so these bound a search's cost (docs/search.md).
RARE = 1000

# `status_table`: a row's status, kind, event count and note count in one number
# (`status_code`), `NO_KIND` for a row without a kind (it names no event); three lists
# in the order SQLite reads the rows (every aggregate of one query sees them in the
# same order). 28 bits of event count and 27 of notes: SQLite's integers are 64-bit.
STATUS_MASK = 15
KIND_SHIFT = 4
COUNT_SHIFT = 8
NOTE_SHIFT = 36
COUNT_MASK = (1 << (NOTE_SHIFT - COUNT_SHIFT)) - 1
NO_KIND = 15
assert len(STATUSES) <= STATUS_MASK + 1 and len(KINDS) < NO_KIND
# The events a search's catch-up reads, with their entity's path, a batch at a time.
_SEARCH_ROWS_SQL = (
    "SELECT e.seq, e.line_offset, e.line_length, n.path FROM event e "
    "JOIN entity n ON n.id = e.entity WHERE e.seq > ? AND e.seq <= ? ORDER BY e.seq LIMIT ?"
)
_SEARCH_BATCH = 10_000
_STATUS_LISTS_SQL = (
    "SELECT group_concat(j.key), "
    f"group_concat((s.note_count << {NOTE_SHIFT}) | (s.event_count << {COUNT_SHIFT}) "
    f"| (ifnull(s.kind, {NO_KIND}) << {KIND_SHIFT}) | s.status), "
    "group_concat(ifnull(s.detail, 0)) "
    "FROM json_each(?) j CROSS JOIN entity_status s ON s.path = j.value"
)


def status_code(code: int) -> tuple[int, int | None, int, int]:
    """(status code, kind code or None, event count, note count) of one `status_table`
    number."""
    kind = (code >> KIND_SHIFT) & NO_KIND
    status = code & STATUS_MASK
    return (
        status,
        None if kind == NO_KIND else kind,
        (code >> COUNT_SHIFT) & COUNT_MASK,
        (code >> NOTE_SHIFT),
    )


class Queries(LogLines):
    """Row-level answers from the index (the `Reader` turns them into the store's)."""

    def rows_for(self, ent: int) -> list[Row]:
        """Every event on one entity, in ingest order."""
        rows = [row_of(t) for t in self.db.execute(ROWS_OF_ENTITY_SQL, (ent,))]
        rows.sort(key=by_seq)
        return rows

    def rows_for_paths(self, paths: list[str]) -> dict[str, list[Row]]:
        """Events for many entities in ONE query (what the editor asks for a whole file)."""
        out: dict[str, list[Row]] = {p: [] for p in paths}
        for t in self.db.execute(BY_PATHS_SQL, (json.dumps(paths),)):
            out[t[0]].append(row_of(t[1:]))
        for rows in out.values():
            rows.sort(key=by_seq)
        return out

    def status_rows(self, paths: list[str]) -> Iterator[tuple[str, int, int, int, int | None, Any]]:
        """The stored (path, status code (`STATUSES`), event count, note count, kind code
        (`KINDS`), detail JSON) of the entities that have events, among `paths` (distinct; sorted is
        fastest), as SQLite gives them. The kind code is there when the detail is.

        One lookup a path, in their given order: `IN (SELECT ...)` first built a
        temporary index of them.
        """
        rows: Iterator[tuple[str, int, int, int, int | None, Any]] = self.db.execute(
            STATUS_ROWS_SQL, (_json_list(paths),)
        )
        return rows

    def status_table(self, paths: list[str]) -> tuple[list[int], list[int], list[Any]]:
        """`status_rows` as three lists in one order: the index of each row's path in
        `paths`, its `status_code` (status, kind, counts in one number) and its detail
        parsed (`detail_parts`' form, or 0 when it names no event). Paths without events
        are left out.

        SQLite joins the rows into three JSON lists (the stored detail is JSON already),
        parsed in three calls: a row tuple and a detail parse for each of a batch's
        hundreds of paths, each a Python step, cost more than SQLite's writing of the
        strings.
        """
        keys, codes, details = self.db.execute(_STATUS_LISTS_SQL, (_json_list(paths),)).fetchone()
        if keys is None:
            return [], [], []
        loads = orjson.loads
        return loads(f"[{keys}]"), loads(f"[{codes}]"), loads(f"[{details}]")

    def open_verdict_seqs(self, ent: int) -> set[int]:
        """Sequence numbers of an entity's open verdicts, from its stored status row."""
        sql = "SELECT s.detail FROM entity e JOIN entity_status s ON s.path = e.path WHERE e.id = ?"
        found = self.db.execute(sql, (ent,)).fetchone()
        if not found or found[0] is None:
            return set()
        return {int(s) for s in json.loads(found[0])[0]}

    def verdict_rows_newest_first(self) -> Iterator[Row]:
        """Revert and reject events, the newest recorded first (digests, "what was refused")."""
        sql = SELECT_EVENTS + " WHERE type IN (?, ?) ORDER BY recorded_ms DESC, seq DESC"
        for t in self.db.execute(sql, (REVERT_CODE, REJECT_CODE)):
            yield row_of(t)

    def rename_rows(self, marked: Collection[str] = ()) -> list[Row]:
        """Every `rename` event, in ingest order: the links between an entity's names;
        with `marked` (keys of `MARKED_KEYS`), only those whose metadata has one.

        A partial index holds only these rows, so the cost is the renames, not the log
        (the code is a literal, not a parameter, so SQLite can see that index applies).
        """
        return self._typed_rows(RENAME_CODE, "seq", marked)

    def revert_rows(self, marked: Collection[str] = ()) -> list[Row]:
        """Every `revert` event, grouped by entity: what change fingerprints are read from;
        with `marked` (keys of `MARKED_KEYS`), only those whose metadata has one.

        A partial index holds only these rows, so `cairn check` pays for the reverts, not
        for the log.
        """
        return self._typed_rows(REVERT_CODE, "entity, seq", marked)

    def rename_links(
        self, paths: Collection[str], *, by_new: bool
    ) -> list[tuple[str, str, int, str | None]]:
        """(old path, new path, when in ms, members as JSON or None) of the rename links
        whose new path (or, without `by_new`, old path) is one of `paths`, in the order
        `rename_rows` gives their events (an event's `renamed_to` link before its
        `renamed_from`)."""
        if not paths:
            return []
        end = "new" if by_new else "old"
        sql = (
            "SELECT l.old, l.new, ifnull(e.occurred_ms, e.recorded_ms), l.members "
            "FROM rename_link l "
            f"JOIN event e ON e.seq = l.seq WHERE l.{end} IN (SELECT value FROM json_each(?)) "
            "ORDER BY l.seq, l.forward DESC"
        )
        return list(self.db.execute(sql, (json.dumps(sorted(paths)),)))

    def has_rename_links(self) -> bool:
        """Whether any rename links two paths."""
        return self.db.execute("SELECT 1 FROM rename_link LIMIT 1").fetchone() is not None

    def printed_revert_rows(self, words: Collection[str]) -> list[Row]:
        """The reverts whose change fingerprint holds one of `words` (`print_code`), with
        every other fingerprinted revert of their changes, grouped by entity as
        `revert_rows` orders them: a lookup per word, never a pass over the reverts."""
        codes = sorted({c for w in words if (c := print_code(w)) is not None})
        if not codes:
            return []
        sql = (
            SELECT_EVENTS + " WHERE seq IN (SELECT c.seq FROM print_change c WHERE c.change IN "
            "(SELECT l.change FROM print_line l WHERE l.hash IN (SELECT value FROM json_each(?))))"
            f" AND type = {REVERT_CODE} ORDER BY entity, seq"
        )
        return [row_of(t) for t in self.db.execute(sql, (json.dumps(codes),))]

    def _typed_rows(self, code: int, order: str, marked: Collection[str]) -> list[Row]:
        if not marked:
            sql = SELECT_EVENTS + f" WHERE type = {code} ORDER BY {order}"
            return [row_of(t) for t in self.db.execute(sql)]
        unknown = set(marked) - MARKED_KEYS
        if unknown:
            raise ValueError(f"the index marks no metadata key {sorted(unknown)}")
        keys = sorted(marked)
        sql = (
            SELECT_EVENTS + " WHERE seq IN (SELECT seq FROM marked_key WHERE key IN "
            f"({','.join('?' * len(keys))})) AND type = {code} ORDER BY {order}"
        )
        return [row_of(t) for t in self.db.execute(sql, keys)]

    def superseded_keys(self, among: Collection[int]) -> set[int]:
        """The id keys in `among` that some supersede names."""
        # The type as a literal: only then can SQLite prove the partial index covers it
        # (without it, a scan of every event).
        sql = (
            f"SELECT target_key FROM event WHERE type = {SUPERSEDE_CODE} "
            "AND target_key IN (SELECT value FROM json_each(?))"
        )
        return {t[0] for t in self.db.execute(sql, (json.dumps(list(among)),))}

    def names_key(self, key: int) -> bool:
        """Whether some supersede names an event whose 60-bit id key is `key`: one probe
        of the partial index, without `superseded_keys`'s JSON list."""
        sql = f"SELECT 1 FROM event WHERE type = {SUPERSEDE_CODE} AND target_key = ? LIMIT 1"
        return self.db.execute(sql, (key,)).fetchone() is not None

    def ent_of(self, path: str) -> int | None:
        """The dictionary id of a canonical path, or None when nothing was logged on it."""
        found = self.db.execute("SELECT id FROM entity WHERE path = ?", (path,)).fetchone()
        return int(found[0]) if found else None

    def paths_in_range(self, lo: str, hi: str) -> list[tuple[int, str]]:
        """Entities whose path sorts in [lo, hi) (a prefix scan; callers filter with covers)."""
        sql = "SELECT id, path FROM entity WHERE path >= ? AND path < ? ORDER BY path"
        return [(int(i), p) for i, p in self.db.execute(sql, (lo, hi))]

    def entity_paths(self) -> list[str]:
        """Every entity path with at least one event, sorted."""
        return [p for (p,) in self.db.execute("SELECT path FROM entity ORDER BY path")]

    def rows_by_key_range(self, lo: int, hi: int, limit: int = 50) -> list[Row]:
        """Events whose 60-bit id key lies in [lo, hi] (id-prefix lookups)."""
        return [row_of(t) for t in self.db.execute(BY_KEY_RANGE_SQL, (lo, hi, limit))]

    def rows_by_seq(self, seqs: list[int]) -> dict[int, Row]:
        """Rows for a list of sequence numbers."""
        sql = SELECT_EVENTS + " WHERE seq IN (SELECT value FROM json_each(?))"
        return {t[0]: row_of(t) for t in self.db.execute(sql, (json.dumps(seqs),))}

    def keyed_row(self, key: str) -> Row | None:
        """The event a writer's idempotency key names (`metadata.idempotency.key`)."""
        found = self.db.execute("SELECT seq FROM idempotency_key WHERE key = ?", (key,))
        seq = found.fetchone()
        if seq is None:
            return None
        return self.rows_by_seq([int(seq[0])]).get(int(seq[0]))

    def source_keys(self, prefix: str) -> set[str]:
        """Importers' idempotency keys starting with `prefix`."""
        sql = "SELECT key FROM source_key WHERE key >= ? AND key < ?"
        return {k for (k,) in self.db.execute(sql, (prefix, prefix + "\U0010ffff"))}

    def review_rows(self) -> list[tuple[int, str | None, str | None]]:
        """(seq, revisit_after, expires_when) of every event that asks for a review."""
        sql = "SELECT seq, revisit_after, expires_when FROM review ORDER BY seq"
        return self.db.execute(sql).fetchall()

    def event_count(self) -> int:
        """How many events are indexed."""
        return int(self.db.execute("SELECT count(*) FROM event").fetchone()[0])

    def event_keys(self) -> list[int]:
        """The id key of every indexed event (verify compares them with the log)."""
        return [int(k) for (k,) in self.db.execute("SELECT id_key FROM event")]

    def damage_counts(self) -> dict[str, int]:
        """Lines the index keeps out because verification rejects them, by problem code."""
        sql = "SELECT code, count(*) FROM damage GROUP BY code ORDER BY code"
        found = {str(c): int(n) for c, n in self.db.execute(sql)}
        if self.bad_lines:
            found["malformed"] = found.get("malformed", 0) + self.bad_lines
        return found

    # --- full-text search ---------------------------------------------------------------

    def search(self, terms: Sequence[SearchTerm], limit: int) -> list[tuple[int, float]]:
        """(seq, score) of up to `limit` events that hold some of the terms, the best
        first: the score is BM25 over the weighted fields (`fulltext.FIELD_WEIGHTS`;
        higher is better); an event must hold every phrase (`fulltext`). ValueError for a
        query FTS5 refuses.

        BM25 scores every event it is given, so the events scored are bounded
        (`RARE`): all that match when there are few; else those holding the query's
        rarer words, which decide the rank anyway (a word in thousands of events weighs
        next to nothing); else, when every word is that common, the newest events
        holding every term, then the newest holding some, scored by how many terms
        they hold (docs/search.md).
        """
        if not terms or limit <= 0:
            return []
        fts = self.search_db()
        try:
            return list(itertools.islice(self._candidates(fts, terms), limit))
        except sqlite3.OperationalError as exc:
            raise ValueError(str(exc)) from None

    def search_db(self) -> sqlite3.Connection:
        """The search index (`search_index`), caught up with this index first: the
        generation and the rows it indexes are read in one snapshot of the index.

        A `redact` that ran during the catch-up gave the index a new generation before
        it emptied the search index; if this catch-up committed after that emptying,
        it wrote text read from the old log, so the generation is read again once the
        snapshot is let go, and a search index built from a gone generation is emptied
        then and there rather than at the next search."""
        generation, fts = self._caught_up_search()
        if self._generation() != generation:
            self.search_index.scrub()
            generation, fts = self._caught_up_search()
        return fts

    def _generation(self) -> str:
        found = self.db.execute("SELECT v FROM meta WHERE k = 'generation'").fetchone()
        return str(found and found[0])

    def _caught_up_search(self) -> tuple[str, sqlite3.Connection]:
        db = self.db
        db.execute("BEGIN")
        try:
            generation = self._generation()
            upto = int(db.execute("SELECT max(seq) FROM event").fetchone()[0] or 0)
            return generation, self.search_index.caught_up(generation, upto, self._search_rows)
        except (OSError, ValueError) as exc:  # the log changed under the catch-up
            raise StoreError(f"cannot update the search index: {exc}") from None
        finally:
            db.execute("COMMIT")

    def _search_rows(self, after: int, upto: int) -> Iterator[list[tuple[int, str, str, str, str]]]:
        """(seq, *fulltext.FIELDS) of the events after seq `after` up to `upto`, in
        batches, their text read back from the log."""
        while after < upto:
            found = self.db.execute(_SEARCH_ROWS_SQL, (after, upto, _SEARCH_BATCH)).fetchall()
            if not found:
                return
            lines = self._lines_of([(int(r[1]), int(r[2])) for r in found])
            batch: list[tuple[int, str, str, str, str]] = []
            for (seq, _, _, path), line in zip(found, lines, strict=True):
                try:
                    raw = parse_line(line)
                except ValueError:  # indexed as sound: the log was replaced meanwhile
                    raw = None
                batch.append((seq, *line_fields(raw if isinstance(raw, dict) else {}, path)))
            yield batch
            after = int(found[-1][0])

    def _lines_of(self, spans: list[tuple[int, int]]) -> list[bytes]:
        """The lines at `spans`: one read of the stretch of log they lie in (a batch's
        lines are most of it), else one read each."""
        lo = min(off for off, _ in spans)
        hi = max(off + length for off, length in spans)
        if hi - lo > 2 * sum(length for _, length in spans) + 65536:
            return [bytes(line) for line in self.lines_at(spans)]
        data = self.raw(lo, hi - lo)
        return [data[off - lo : off - lo + length] for off, length in spans]

    def _candidates(
        self, fts: sqlite3.Connection, terms: Sequence[SearchTerm]
    ) -> Iterator[tuple[int, float]]:
        phrases = [t for t in terms if t.is_phrase]
        words = [t for t in terms if not t.is_phrase]
        must = " AND ".join(t.match() for t in phrases)

        def match(some: Sequence[SearchTerm], need_one: bool) -> str:
            """Every phrase and, when `need_one`, one of `some`; else `some` only rank
            (an OR with the phrases themselves keeps them in bm25's sight)."""
            any_of = " OR ".join(t.match() for t in some)
            if not must or not any_of:
                return must or any_of
            return f"{must} AND ({any_of}{'' if need_one else f' OR ({must})'})"

        full = match(words, need_one=False)
        if self._at_most(fts, full, RARE):
            return self._bm25(fts, full)
        rare = [t for t in words if self._at_most(fts, t.match(), RARE)]
        if not rare:
            return self._newest(fts, terms, full)
        ranked = self._bm25(fts, " OR ".join(t.match() for t in rare))
        if not must:
            return ranked
        # bm25 would count a common phrase's events (a scan of them all); which of the
        # few events ranked hold it is a lookup (FTS5 skips through its list to each).
        sql = "SELECT rowid FROM event_fts WHERE event_fts MATCH ?"
        holding = {s for (s,) in fts.execute(sql, (match(rare, need_one=True),))}
        return (hit for hit in ranked if hit[0] in holding)

    def _at_most(self, fts: sqlite3.Connection, match: str, n: int) -> bool:
        """Whether at most `n` events match (reads no more than n + 1 of them)."""
        sql = "SELECT count(*) FROM (SELECT rowid FROM event_fts WHERE event_fts MATCH ? LIMIT ?)"
        return int(fts.execute(sql, (match, n + 1)).fetchone()[0]) <= n

    def _bm25(self, fts: sqlite3.Connection, match: str) -> Iterator[tuple[int, float]]:
        rank = f"bm25(event_fts, {', '.join(map(str, FIELD_WEIGHTS))})"
        sql = f"SELECT rowid, -{rank} FROM event_fts WHERE event_fts MATCH ? ORDER BY {rank}"
        return fts.execute(sql, (match,))

    def _newest(
        self, fts: sqlite3.Connection, terms: Sequence[SearchTerm], some: str
    ) -> Iterator[tuple[int, float]]:
        every = " AND ".join(t.match() for t in terms)
        sql = "SELECT rowid FROM event_fts WHERE event_fts MATCH ? ORDER BY rowid DESC"
        seen: set[int] = set()
        for (seq,) in fts.execute(sql, (every,)):
            seen.add(seq)
            yield seq, float(len(terms))
        for (seq,) in fts.execute(sql, (some,)):
            if seq not in seen:
                yield seq, 1.0

    # --- maintenance --------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the database file."""
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def scrub(self) -> None:
        """Rewrite every page so no freed page, segment or WAL frame keeps old text."""
        self.db.execute("PRAGMA secure_delete=ON")
        self.db.execute("VACUUM")
        self.checkpoint()
        self.search_index.scrub()

    def size_breakdown(self) -> dict[str, int]:
        """Bytes per table and index (benchmarks report where the index's size goes)."""
        sql = "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"
        return {str(k): int(v) for k, v in self.db.execute(sql)}


def _json_list(strings: list[str]) -> str:
    """A JSON array of strings for `json_each` (orjson, faster than the standard
    library's encoder, which is kept for the lone surrogates orjson refuses)."""
    try:
        return orjson.dumps(strings).decode()
    except orjson.JSONEncodeError:
        return json.dumps(strings)
