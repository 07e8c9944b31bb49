"""`Store`: the decision log's one entry point (append, status, history, search...).

It owns the thread lock and freshness (the index caught up with the JSONL before every
answer) and hands the work to the write path (`cairn.store.write`), the read path
(`cairn.store.read`) and the index (`cairn.store.index`, the only owner of SQL).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterable, Sequence
from datetime import date
from pathlib import Path

from cairn.store.author import AuthorLookup
from cairn.store.confine import check_confined
from cairn.store.errors import StoreError, ValidationError
from cairn.store.fulltext import parse_query
from cairn.store.gcpause import gc_paused
from cairn.store.idempotency import check_key, replay
from cairn.store.index import Index, id_key, remove_index
from cairn.store.log import LogFile, write_lock
from cairn.store.model import (
    AppendResult,
    Attempt,
    Damage,
    EntityStatus,
    Event,
    EventDraft,
    EventType,
    Reapplied,
    Review,
    SearchHit,
)
from cairn.store.paths import confusable_warnings
from cairn.store.read import Reader, as_of_limit, canonical
from cairn.store.write import (
    MIN_PREFIX,
    BatchContext,
    DraftValidator,
    Pending,
    Preparer,
    write_prepared,
)

__all__ = ["MIN_PREFIX", "Store"]

_Stat = tuple[int, int, int]
# Events sharing one 60-bit id key past which `_verdicts_logged` lets the full lookup
# decide (a sound log has one).
_SAME_KEY = 8


class Store:
    """The decision log in one `.cairn/` folder. Thread-safe (one lock per store)."""

    def __init__(self, cairn_dir: Path, author: AuthorLookup | None = None) -> None:
        self.cairn_dir = cairn_dir
        self.root = cairn_dir.parent
        self.log = LogFile(cairn_dir)
        self.index = Index(cairn_dir, self.log.path)
        self._lock = threading.RLock()
        self._seen: _Stat | str | None = "unset"
        self._seen_db: _Stat | None = self.index.recorded_stat()
        self._reader = Reader(self.index)
        self._preparer = Preparer(self.root, self._events_of_types, author, self._verdicts_logged)
        self.write_warnings: list[str] = []  # from the last write (an index left behind)

    @classmethod
    def open(cls, cairn_dir: Path | str, *, author: AuthorLookup | None = None) -> Store:
        """Open the store in `cairn_dir` and catch its index up with the JSONL.

        `author` names the writer of drafts without one, after CAIRN_AUTHOR and before
        $USER (the application passes `cairn.gitrefs.git_author`: the store runs no git).
        """
        path = Path(cairn_dir)
        if not path.is_dir():
            raise StoreError(f"{path} is not a Cairn folder; run `cairn init` first")
        check_confined(path)  # never write through a link that leaves the project
        store = cls(path, author)
        store.refresh()
        return store

    @classmethod
    def rebuild(cls, cairn_dir: Path) -> None:
        """Delete the index (under the write lock) and build it again from the log."""
        with write_lock(cairn_dir):
            remove_index(cairn_dir)
        cls.open(cairn_dir).close()

    @classmethod
    def open_or_rebuild(cls, cairn_dir: Path) -> Store:
        """`open`, rebuilding an index SQLite cannot read (it is derived from the log)."""
        try:
            return cls.open(cairn_dir)
        except sqlite3.DatabaseError:
            cls.rebuild(cairn_dir)
            return cls.open(cairn_dir)

    def clear_caches(self) -> None:
        """Forget remembered batch statuses (benchmarks use it to measure cold reads)."""
        with self._lock:
            self._reader.status_cache.clear()

    def close(self) -> None:
        """Release the database connection and the log's read handle."""
        with self._lock:
            self.index.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- freshness ----------------------------------------------------------------------

    def refresh(self) -> bool:
        """Catch the index up if the JSONL changed underneath; True if anything changed.

        Takes no cross-process write lock: a reader must not wait behind another
        process's long write. It reads only complete lines, and SQLite's own write
        transaction (with the recorded offset re-read inside it) serialises indexers.
        """
        with self._lock:
            if self._log_key() == self._seen:
                return False
            self._sync()
            return True

    def _log_key(self) -> _Stat | None:
        st = self.log.stat()
        return (st.st_size, st.st_mtime_ns, st.st_ino) if st else None

    def _sync(self) -> None:
        """Bring memory and index up to the file. Caller holds the thread lock."""
        self._reader.status_cache.clear()
        index = self.index
        index.close_log()  # the file may have been replaced: reopen it on the next read
        key = self._log_key()
        if index.recorded_stat() == key:
            # Already indexed (by us or another process): a read transaction suffices.
            if key != self._seen_db:
                index.reload_state()
            self._seen = key
            self._seen_db = key
            return
        with index.write_transaction():
            # Stat again inside the transaction: the stat taken before waiting for it
            # may predate another process's write, and catching up to it would take
            # the index back to an older file (a needless rebuild, at best).
            st = self.log.stat()
            key = (st.st_size, st.st_mtime_ns, st.st_ino) if st else None
            recorded = index.recorded_stat()
            if recorded != self._seen_db or index.changed_elsewhere():
                index.load_state()  # another process moved the index on
            if st is None:
                if index.next_seq > 1 or index.consumed:
                    index.reset()
            elif recorded != key:
                if not index.is_append_of_ingested(st):
                    index.reset()
                index.close_log()
                index.catch_up(index.consumed, st.st_size)
                index.record_position(index.consumed, st)
        self._seen = key
        self._seen_db = index.recorded_stat()

    # --- writing ------------------------------------------------------------------------

    def append(self, draft: EventDraft) -> AppendResult:
        """Validate, mask secrets, hash, write one line (fsynced), index it."""
        masked: list[str] = []
        events, replayed = self._write([draft], masked)
        if replayed:
            return AppendResult(events[0], [], confusable_warnings(events[0].entity), True)
        warnings = [*self.write_warnings, *confusable_warnings(events[0].entity)]
        return AppendResult(events[0], masked, warnings)

    def append_many(self, drafts: Iterable[EventDraft]) -> list[Event]:
        """Append many events under one lock and one index transaction (imports, bench).
        A draft whose idempotency key names a logged event returns that event instead."""
        return self._write(list(drafts), [])[0]

    def _write(self, drafts: list[EventDraft], masked: list[str]) -> tuple[list[Event], int]:
        """The events the drafts stand for, and how many of them were already logged."""
        if not drafts:
            return [], 0
        if self.index.fallback:
            raise StoreError(f"nothing was written: {self.index.fallback}")
        # The collector paused: a batch makes tens of thousands of short-lived dicts and
        # records, none in a cycle, and each burst made it walk every live object again
        # (a fifth of preparing a bulk load's drafts).
        with self._lock, write_lock(self.cairn_dir), gc_paused():
            self.log.repair_tail()
            # Caught up under the write lock: a key written just before a crash (the line
            # durable, the index not) is ingested here, so its retry finds it.
            self._sync()
            parents = sorted(self.index.heads)
            ctx = BatchContext()
            prepared: list[Pending] = []
            out: list[Event] = []
            keyed: dict[str, Event] = {}
            preparer = self._preparer
            preparer.prime(drafts)
            try:
                for draft in drafts:
                    key = check_key(draft.key) if draft.key else ""
                    if key:
                        earlier = replay(draft, keyed.get(key) or self._reader.keyed(key))
                        if earlier is not None:
                            out.append(earlier)
                            continue
                    pending = preparer.prepare(draft, parents, ctx, masked)
                    prepared.append(pending)
                    out.append(pending.event)
                    if key:
                        keyed[key] = pending.event
                    parents = [pending.event.id]
            finally:
                preparer.forget()
            self.write_warnings = []
            if prepared:
                # Everything validated: now write the lines in one go, then index them.
                warning, moved = write_prepared(self.log, self.index, prepared, self._seen_db)
                self.write_warnings = [warning] if warning else []
                self._reader.status_cache.clear()
                if moved:
                    # git replaced the log mid-write: index the file that is there now
                    # (still under the write lock, so nothing else moves it on). The
                    # lines are durable: an index that cannot follow is a warning.
                    try:
                        self._sync()
                    except sqlite3.Error as exc:
                        self.index.close_log()
                        self._seen = "unset"
                        self.write_warnings = [
                            f"the decision is written to {self.log.path.name}, but the "
                            f"index could not be updated ({exc}); it catches up later"
                        ]
                else:
                    # An index left behind is caught up (or tried again) by the next read.
                    self._seen = self._log_key() if warning is None else "unset"
                    self._seen_db = self.index.recorded_stat()
            return out, len(out) - len(prepared)

    def _events_of_types(self, entity: str, types: frozenset[EventType]) -> list[Event]:
        """The logged events on a canonical entity whose type is one of `types`: a
        supersede's target is found among the entity's verdicts, without reading (and
        decoding) every change logged on it."""
        ent = self.index.ent_of(entity)
        if ent is None:
            return []
        return self._reader.events([r for r in self.index.rows_for(ent) if r.type in types])

    def _verdicts_logged(self, entity: str, event_id: str) -> int | None:
        """How many logged verdicts on a canonical entity have this whole id; None when
        a logged supersede may name it (one names its 60-bit key). Three indexed lookups
        and the id read from one line, where `_events_of_types` reads every verdict and
        supersede on the entity and decodes them all (at 1M events, ~200 us a
        supersede of a bulk load)."""
        index = self.index
        # The ids this connection has seen are kept (a bulk load's: no query for them).
        ent = index.ent_ids.get(entity) or index.ent_of(entity)
        if ent is None:
            return 0
        key = id_key(event_id)
        if index.names_key(key):
            return None
        rows = index.rows_by_key_range(key, key, limit=_SAME_KEY)
        if len(rows) >= _SAME_KEY:
            return None
        return sum(
            index.event_id_at(r) == event_id for r in rows if r.entity == ent and r.type.is_verdict
        )

    def replay(self, draft: EventDraft) -> Event | None:
        """The logged event a write of `draft` would return instead of writing (its
        idempotency key names it), None when it would write; `KeyReused` when the key
        names a different decision. For commands that check before they act (redact)."""
        if not draft.key:
            return None
        key = check_key(draft.key)
        with self._lock:
            self.refresh()
            return replay(draft, self._reader.keyed(key))

    def validator(self) -> DraftValidator:
        """Check drafts in order as `append_many` would (same preparation); write nothing."""
        return DraftValidator(self._check_draft, self.heads())

    def _check_draft(self, draft: EventDraft, parents: list[str], ctx: BatchContext) -> Pending:
        with self._lock:
            self.refresh()
            return self._preparer.prepare(draft, parents, ctx, [])

    # --- reading ------------------------------------------------------------------------

    def status(self, entity: str) -> EntityStatus:
        """The derived status of one entity, with a rollup of its children (table columns).

        A bare root (`deps/`, `env/`, `route/`) is no entity: its status is `unknown` and
        its rollup lists every dependency (variable, route) with a verdict.
        """
        with self._lock:
            self.refresh()
            return self._reader.status(entity)

    def status_many(self, entities: Iterable[str]) -> dict[str, EntityStatus]:
        """Statuses for many entities with ONE query (keys are the caller's strings).

        What the editor asks for a whole file: `latest` and `rollup` are left empty and
        `conflicts` holds only the newest re-applying change, as a `Reapplied` (its id,
        times, author and agent; `status` gives every one whole, `events_of` the event).
        """
        with self._lock:
            self.refresh()
            return self._reader.status_many(entities)

    def events_of(self, conflicts: Iterable[Event | Reapplied]) -> list[Event]:
        """The whole events of a status's `conflicts` (a batch's are `Reapplied`)."""
        with self._lock:
            self.refresh()
            return self._reader.events_of(conflicts)

    def lineage_status(
        self, entity: str, formerly: Sequence[tuple[str, int]], *, linked: Iterable[str] = ()
    ) -> EntityStatus:
        """The status of `entity` derived over its own events and those of its former
        paths, so a verdict recorded under an old name holds under the new one.

        `formerly` is what `cairn.core.aliases` resolved: (former path, epoch ms of its
        rename); a former path's events count up to then. `rename` events link the names
        and decide nothing, nor does the `add`/`create` with `metadata.renamed_from` an
        importer writes on a path in `linked` (the new names of renames). Every conflict
        and the latest event are filled in; no rollup.
        """
        path = canonical(entity)
        former = [(canonical(f), until) for f, until in formerly]
        targets = {canonical(p) for p in linked}
        with self._lock:
            self.refresh()
            return self._reader.lineage_status(path, former, targets)

    def lineage_history(
        self, entity: str, formerly: Sequence[tuple[str, int]], *, as_of: str | None = None
    ) -> list[Event]:
        """`history` of `entity` and of its former paths up to their renames (see
        `lineage_status`), oldest first by recorded time."""
        limit = as_of_limit(as_of)
        path = canonical(entity)
        former = [(canonical(f), until) for f, until in formerly]
        with self._lock:
            self.refresh()
            rows = self._reader.lineage_rows(path, former)
            if limit is not None:
                rows = [r for r in rows if r.recorded_ms <= limit]
            rows.sort(key=lambda r: (r.recorded_ms, r.seq))
            return self._reader.events(rows)

    def renames(self, *, carrying: tuple[str, ...] = ()) -> list[Event]:
        """Every `rename` event, in log order; with `carrying`, only those whose metadata
        has one of these keys (`renamed_to`, `renamed_from`: the ones that link names)."""
        with self._lock:
            self.refresh()
            return self._reader.renames(carrying)

    def history(
        self, entity: str, *, as_of: str | None = None, include_children: bool = False
    ) -> list[Event]:
        """Events on an entity (or below it), oldest first by recorded time.

        `as_of` (a date or ISO time) keeps only what had been recorded by then: what the
        log said at that moment.
        """
        limit = as_of_limit(as_of)
        with self._lock:
            self.refresh()
            return self._reader.history(entity, limit=limit, include_children=include_children)

    def prior_attempts(
        self, entity: str, *, include_children: bool = False, include_active: bool = False
    ) -> list[Attempt]:
        """What was tried on an entity and what closed it (see `cairn.store.attempts`)."""
        with self._lock:
            self.refresh()
            return self._reader.prior_attempts(
                entity, include_children=include_children, include_active=include_active
            )

    def search(self, query: str, *, limit: int = 50) -> list[SearchHit]:
        """Up to `limit` decisions that answer a query, best first: its meaningful
        words ranked by BM25 over the events' why, alternative, commit subjects and
        entity path (`cairn.store.fulltext`); one decision's events on several entities
        are one hit (`SearchHit.others`)."""
        terms = parse_query(query)
        if not terms:
            raise ValidationError("search query has no words to look for")
        with self._lock:
            self.refresh()
            return self._reader.search(query, terms, limit)

    def recent_verdicts(self, limit: int = 20) -> list[Event]:
        """The newest open verdicts (reverts and rejects no supersede names) project-wide.

        The digest's project-wide section (`cairn digest`).
        """
        with self._lock:
            self.refresh()
            return self._reader.recent_verdicts(limit)

    def open_reverts(self, *, carrying: tuple[str, ...] = ()) -> list[Event]:
        """Every open `revert` (no supersede names it) project-wide, grouped by entity;
        with `carrying`, only those whose metadata has one of these keys.

        What change fingerprints are matched against (`cairn check`, the diagnostics):
        the cost is the reverts, not the size of the log, and with `carrying` it is
        mostly a byte search of the reverts' lines.
        """
        with self._lock:
            self.refresh()
            return self._reader.open_reverts(carrying)

    def rename_links(
        self, paths: Collection[str], *, by_new: bool
    ) -> list[tuple[str, str, int, str | None]]:
        """(old path, new path, when in epoch ms, members: JSON list of what a container's
        old path declared, or None) of each link a `rename` event makes
        (`renamed_to` on the old path, `renamed_from` on the new) whose new path, or
        without `by_new` old path, is one of `paths` (canonical), in the order `renames`
        gives the events. What a command asking about a few entities follows renames
        by (`cairn.core.aliases`), without reading every rename."""
        with self._lock:
            self.refresh()
            return self.index.rename_links(paths, by_new=by_new)

    def has_rename_links(self) -> bool:
        """Whether any `rename` event links two paths."""
        with self._lock:
            self.refresh()
            return self.index.has_rename_links()

    def open_reverts_printing(self, words: Collection[str]) -> list[Event]:
        """The open reverts whose `metadata.fingerprint` holds one of `words` (line
        hashes as written there, `+` included), with every other open fingerprinted
        revert of the same change (commit), in `open_reverts`' order.

        What `cairn check` matches a diff against: the cost is the diff's hashes and the
        reverts they name (an index keyed by line hash), not every open revert.
        """
        with self._lock:
            self.refresh()
            return self._reader.open_reverts_printing(words)

    def due_reviews(self, *, today: date | None = None) -> list[Review]:
        """Decisions whose revisit date or expiry trigger has come (superseded ones excluded)."""
        with self._lock:
            self.refresh()
            return self._reader.due_reviews(today)

    def get(self, id_or_prefix: str) -> Event:
        """The event with this id or unique id prefix (at least 6 hex characters)."""
        with self._lock:
            self.refresh()
            return self._reader.get(id_or_prefix)

    def source_keys(self, prefix: str) -> set[str]:
        """Importers' idempotency keys (`metadata.source_key`) starting with `prefix`."""
        with self._lock:
            self.refresh()
            return self.index.source_keys(prefix)

    def heads(self) -> list[str]:
        """Ids of the events no other event names as a parent."""
        with self._lock:
            self.refresh()
            return sorted(self.index.heads)

    def entities(self) -> list[str]:
        """Every entity path with at least one event."""
        with self._lock:
            self.refresh()
            return self.index.entity_paths()

    @property
    def degraded(self) -> str:
        """Why answers come from an index in memory ("" when the index file is used):
        reads work, slower, and writes are refused with this reason."""
        return self.index.fallback

    @property
    def damage(self) -> Damage:
        """Lines that verification rejects; readers ignore them (falsy when none)."""
        with self._lock:
            self.refresh()
            return Damage(self.index.damage_counts())

    def __len__(self) -> int:
        with self._lock:
            self.refresh()
            return self.index.event_count()
