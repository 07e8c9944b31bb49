"""The read path: statuses, history, prior attempts, search, reviews and id lookups.

`Reader` answers from the index's rows and the log's lines at their byte spans. It takes
no lock and does not catch up: the `Store` does both around every call.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from datetime import date, datetime, timezone
from functools import lru_cache

from msgspec.structs import replace as struct_replace

from cairn.store.attempts import pair_attempts
from cairn.store.errors import AmbiguousTarget, UnknownEvent, ValidationError
from cairn.store.fastid import loads as parse_line
from cairn.store.fulltext import SearchTerm
from cairn.store.gcpause import gc_paused
from cairn.store.index import (
    COUNT_MASK,
    COUNT_SHIFT,
    KIND_SHIFT,
    KINDS,
    MARKED_KEYS,
    NO_KIND,
    NOTE_SHIFT,
    PRINT_KEY,
    STATUS_MASK,
    STATUSES,
    TYPES,
    Index,
    Row,
)
from cairn.store.model import (
    Attempt,
    EntityStatus,
    Event,
    EventType,
    Reapplied,
    Review,
    SearchHit,
    Status,
    event_from_bytes,
    events_from_bytes,
    same_decision,
)
from cairn.store.paths import EntityPathError, canonicalise, covers, prefix_upper_bound
from cairn.store.status import derive
from cairn.store.times import parse_ts, to_ms
from cairn.store.write import HEX, MIN_PREFIX

__all__ = ["STATUS_CACHE_MAX", "Reader", "canonical"]

STATUS_CACHE_MAX = 50_000
_ROOT_PREFIXES = ("route/", "deps/", "env/")


def _marked(keys: tuple[str, ...]) -> tuple[str, ...]:
    """`keys` when the index marks every one of them (its rows can be asked for by key),
    else nothing (every row of the type, then a byte search)."""
    return keys if keys and MARKED_KEYS.issuperset(keys) else ()


class Reader:
    """Answers questions about the log from its index. Not thread-safe by itself."""

    def __init__(self, index: Index) -> None:
        self.index = index
        # Statuses of the editor's batches, valid until the log changes (the store
        # clears them on every sync or write): re-analysing a file on every keystroke
        # asks the same again.
        self.status_cache: dict[str, EntityStatus] = {}

    def event(self, row: Row) -> Event:
        """The event a row points at, read from its line."""
        return self.index.event_at(row.off, row.len)

    def events(self, rows: Iterable[Row]) -> list[Event]:
        """The events of many rows, in their order (their lines read together)."""
        return self.index.events_at([(r.off, r.len) for r in rows])

    def keyed(self, key: str) -> Event | None:
        """The event a writer's idempotency key names, if the log holds one."""
        row = self.index.keyed_row(key)
        return self.event(row) if row is not None else None

    def status(self, entity: str) -> EntityStatus:
        """See `Store.status`."""
        root = entity.strip() in _ROOT_PREFIXES
        path = entity.strip() if root else canonical(entity)
        if root:
            found = EntityStatus(path, Status.UNKNOWN)
        else:
            found = self._status_many([path], with_latest=True)[path]
        rollup: dict[str, Status] = {}
        if not path.startswith(_ROOT_PREFIXES) or path.endswith("/"):
            children = [
                p
                for _, p in self.index.paths_in_range(path, prefix_upper_bound(path))
                if p != path and covers(path, p)
            ]
            if children:
                # Only the children's statuses: their stored rows, no event read.
                rows = self.index.status_rows(children)
                states = {p: STATUSES[st] for p, st, _, _, _, _ in rows}
                for child in children:
                    state = states.get(child, Status.UNKNOWN)
                    if state not in (Status.ACTIVE, Status.UNKNOWN):
                        rollup[child] = state
        if not rollup:
            return found
        return EntityStatus(
            found.entity,
            found.status,
            found.open_verdicts,
            found.conflicts,
            found.reopened,
            found.event_count,
            found.latest,
            found.due_reviews,
            rollup,
            note_count=found.note_count,
        )

    def status_many(self, entities: Iterable[str]) -> dict[str, EntityStatus]:
        """See `Store.status_many`; keys are the caller's strings.

        The strings are looked up as they are first: one the index holds as an entity
        path is canonical already (it keeps only canonical paths, and canonicalising is
        idempotent), and an editor's come from the indexer, canonical. Only the others
        are canonicalised (`ValidationError` for a bad one), and looked up again: at 1M
        events, canonicalising each entity of a cold batch was a third of its time.
        """
        cache = self.status_cache
        if len(cache) > STATUS_CACHE_MAX:
            cache.clear()  # before looking: every answer below must stay in it
        raws = list(entities)
        missing = sorted({r for r in raws if r not in cache})
        canon: dict[str, str] = {}
        if missing:
            # A cold batch at 1M events makes ~4k objects (statuses, events, their lists),
            # none in a cycle: the collector ran ~5 times during one, ~1 ms of its CPU.
            with gc_paused():
                found = self._stored_statuses(missing, unknown=False)
            cache.update(found)
            canon = {r: canonical(r) for r in missing if r not in found}
            for raw, path in canon.items():
                if path == raw:  # looked up already: nothing is logged on it
                    cache[path] = EntityStatus(path, Status.UNKNOWN)
            again = sorted({c for c in canon.values() if c not in cache})
            if again:
                cache.update(self._stored_statuses(again))
        return {r: cache[canon.get(r, r)] for r in raws}

    def _stored_statuses(
        self, paths: list[str], *, unknown: bool = True
    ) -> dict[str, EntityStatus]:
        """Statuses from the index's per-entity rows: one query, then the lines of only
        their open verdicts (a batch shows them whole), at the byte spans the rows keep,
        read together. The newest conflict and the re-opened pairs' ids are in the rows
        (`status_rows.encode_detail`). Paths the index does not hold are `unknown`, or
        left out with `unknown=False`.

        At 1M events a cold batch of 500 reads ~380 lines: the loops below are the
        batch's Python, kept to one pass over the rows and one over the lines.
        """
        out: dict[str, EntityStatus] = {}
        # (path, status code (`index.status_code`), the index of its first open verdict's
        # line, their number, its conflicts, its re-opened pairs) of each status that
        # names events.
        named: list[tuple[str, int, int, int, list[Reapplied], dict[str, str]]] = []
        shown_at: list[int] = []  # flat (offset, length) of every open verdict's line
        # The kind each path's lines leave out, as the index stored it: inferring it
        # from the path again was a sixth of a cold batch at 1M events.
        kinds: dict[str, str] = {}
        statuses, types = STATUSES, TYPES
        keys, codes, details = self.index.status_table(paths)
        for key, code, parts in zip(keys, codes, details, strict=True):
            # `code`: status, kind and counts in one number (`index.status_code`).
            path = paths[key]
            if not parts:
                out[path] = EntityStatus(
                    path,
                    statuses[code & STATUS_MASK],
                    [],
                    [],
                    {},
                    (code >> COUNT_SHIFT) & COUNT_MASK,
                    note_count=code >> NOTE_SHIFT,
                )
                continue
            kd = (code >> KIND_SHIFT) & NO_KIND
            if kd != NO_KIND:
                kinds[path] = KINDS[kd]
            open_v, _, _, spans, summary, pair_ids = parts
            conflicts = []
            if summary:
                eid, ty, recorded, occurred, author, agent = summary
                conflicts.append(Reapplied(eid, types[ty], recorded, occurred, author, agent))
            pairs = dict(zip(pair_ids[::2], pair_ids[1::2], strict=True)) if pair_ids else {}
            named.append((path, code, len(shown_at) >> 1, len(open_v), conflicts, pairs))
            shown_at += spans
        if unknown and len(out) + len(named) < len(paths):
            for path in paths:
                if path not in out:
                    out[path] = EntityStatus(path, Status.UNKNOWN)
        if not named:
            return out
        # `lines_at` takes what the page cache holds as it comes (sorting the spans by
        # offset first saved nothing) and advises the rest at once.
        lines = self.index.lines_at(list(zip(shown_at[::2], shown_at[1::2], strict=True)))
        events = events_from_bytes(lines, parse_line, kinds)
        for path, code, at, n_open, conflicts, pairs in named:
            out[path] = EntityStatus(
                path,
                statuses[code & STATUS_MASK],
                events[at : at + n_open],
                conflicts,
                pairs,
                (code >> COUNT_SHIFT) & COUNT_MASK,
                note_count=code >> NOTE_SHIFT,
            )
        return out

    def events_of(self, items: Iterable[Event | Reapplied]) -> list[Event]:
        """Whole events for a status's conflicts (`Reapplied` ones read by their id)."""
        return [e if isinstance(e, Event) else self.get(e.id) for e in items]

    def _status_many(
        self, paths: list[str], *, with_latest: bool = False
    ) -> dict[str, EntityStatus]:
        if not with_latest:
            return self._stored_statuses(paths)
        full = self.index.rows_for_paths(paths)
        return {path: self._full_status(path, rows, rows) for path, rows in full.items()}

    def _full_status(self, path: str, rows: list[Row], deciding: list[Row]) -> EntityStatus:
        """Status with every conflict and the latest event, derived over `deciding`
        (`rows` minus what carries no decision) and counting all of `rows`."""
        if not rows:
            return EntityStatus(path, Status.UNKNOWN)
        derived = derive(deciding, self.index.dag.is_ancestor)
        if derived.status is Status.UNKNOWN and len(deciding) < len(rows):
            derived.status = Status.ACTIVE  # only renamed: it exists, under this name
        by_seq = {r.seq: r for r in rows}
        conflicts = derived.conflicts
        latest_seq = max(rows, key=lambda r: (r.recorded_ms, r.seq)).seq
        wanted = {*derived.open_verdicts, *conflicts, latest_seq}
        ordered = sorted(wanted)
        events = dict(zip(ordered, self.events(by_seq[s] for s in ordered), strict=True))
        ids = self.index.event_id_at
        return EntityStatus(
            entity=path,
            status=derived.status,
            open_verdicts=[events[s] for s in derived.open_verdicts],
            conflicts=[events[s] for s in conflicts],
            reopened={ids(by_seq[v]): ids(by_seq[s]) for v, s in derived.reopened},
            event_count=len(rows),
            latest=events[latest_seq],
            note_count=sum(1 for r in rows if r.type.is_note),
        )

    def lineage_status(
        self, path: str, formerly: Sequence[tuple[str, int]], linked: Collection[str] = ()
    ) -> EntityStatus:
        """See `Store.lineage_status`; the paths are canonical."""
        rows, held = self._lineage(path, formerly)
        # A rename links two names of one thing: history, not a re-application of it.
        # So is the `add`/`create` an importer writes on the new name (`renamed_from`).
        ents = {e for e in (self.index.ent_of(p) for p in linked) if e is not None}
        halves = {
            r.seq
            for r in rows
            if r.entity in ents
            and r.type.is_applied
            and "renamed_from" in (self.event(r).metadata or {})
        }
        deciding = [r for r in rows if r.type is not EventType.RENAME and r.seq not in halves]
        found = self._full_status(path, rows, deciding)
        # Only the former paths something was logged on (a decision, or the rename that
        # names it): a path a file's or a class's rename merely covers may never have
        # existed (a method added after the file was renamed), so it is not shown.
        return struct_replace(found, formerly=tuple(f for f, _ in formerly if f in held))

    def lineage_rows(self, path: str, formerly: Sequence[tuple[str, int]]) -> list[Row]:
        """The rows of `path` and of each former path up to its rename (`until` in epoch
        ms, by when the event happened), once each, in ingest order. A later supersede
        of a verdict kept here counts too: it names that verdict, whatever its date."""
        return self._lineage(path, formerly)[0]

    def _lineage(
        self, path: str, formerly: Sequence[tuple[str, int]]
    ) -> tuple[list[Row], set[str]]:
        """`lineage_rows`, and the former paths that hold any of them."""
        until = dict(formerly)
        full = self.index.rows_for_paths([path, *until])
        rows: dict[int, Row] = {}
        later: list[Row] = []
        for p, found in full.items():
            bound = until.get(p) if p != path else None
            for r in found:
                happened = r.occurred_ms if r.occurred_ms is not None else r.recorded_ms
                if bound is None or happened <= bound:
                    rows[r.seq] = r
                elif r.type is EventType.SUPERSEDE:
                    later.append(r)
        kept = {r.key for r in rows.values()}
        rows.update((r.seq, r) for r in later if r.target_key in kept)
        held = {p for p, found in full.items() if p in until and any(r.seq in rows for r in found)}
        return sorted(rows.values(), key=_seq), held

    def renames(self, carrying: tuple[str, ...] = ()) -> list[Event]:
        """See `Store.renames`."""
        rows = self.index.rename_rows(_marked(carrying))
        return [e for _, e in self._carrying(rows, carrying)]

    def _carrying(self, rows: Iterable[Row], keys: tuple[str, ...]) -> list[tuple[Row, Event]]:
        """The events of `rows` whose metadata has one of `keys` (all of them when none).

        The index marks the keys of `MARKED_KEYS` (`_marked` narrows the rows to them
        before any line is read); for any other key, a line without the key's quoted name
        cannot have it in its metadata (canonical JSON writes an ASCII key as it is), so
        it is not parsed.
        """
        if not keys:
            rows = list(rows)
            return list(zip(rows, self.events(rows), strict=True))
        marks = tuple(json.dumps(k).encode() for k in keys)
        out: list[tuple[Row, Event]] = []
        rows = list(rows)
        # At 1M events, 26k renames: their lines read together, not one after another.
        self.index.will_read([(r.off, r.len) for r in rows])
        for row in rows:
            raw = self.index.raw(row.off, row.len)
            if not any(m in raw for m in marks):
                continue
            event = event_from_bytes(raw, parse_line)
            if isinstance(event.metadata, dict) and any(k in event.metadata for k in keys):
                out.append((row, event))
        return out

    def history(self, entity: str, *, limit: int | None, include_children: bool) -> list[Event]:
        """See `Store.history`; `limit` is the `as_of` bound in epoch milliseconds."""
        rows = self.rows_under(entity, include_children)
        if limit is not None:
            rows = [r for r in rows if r.recorded_ms <= limit]
        rows.sort(key=lambda r: (r.recorded_ms, r.seq))
        return self.events(rows)

    def rows_under(self, entity: str, include_children: bool) -> list[Row]:
        """Rows of an entity, or of it and every entity it covers."""
        text = entity.strip()
        path = text if include_children and text in _ROOT_PREFIXES else canonical(entity)
        if not include_children:
            ent = self.index.ent_of(path)
            return self.index.rows_for(ent) if ent is not None else []
        rows: list[Row] = []
        for ent, p in self.index.paths_in_range(path, prefix_upper_bound(path)):
            if covers(path, p):
                rows.extend(self.index.rows_for(ent))
        return rows

    def prior_attempts(
        self, entity: str, *, include_children: bool, include_active: bool
    ) -> list[Attempt]:
        """See `Store.prior_attempts`."""
        rows = self.rows_under(entity, include_children)
        by_ent: dict[int, list[Event]] = {}
        for r, event in zip(rows, self.events(rows), strict=True):
            by_ent.setdefault(r.entity, []).append(event)
        out: list[Attempt] = []
        for events in by_ent.values():
            out.extend(pair_attempts(events, include_active=include_active))
        if len(by_ent) > 1:
            out.sort(key=_attempt_when)
        return out

    def search(self, query: str, terms: list[SearchTerm], limit: int) -> list[SearchHit]:
        """See `Store.search`; `terms` are the words of `query` (`fulltext.parse_query`)."""
        try:
            # More events than hits: one decision's events on many entities are one hit.
            hits = self.index.search(terms, limit * 5 + 50)
        except ValueError as exc:
            raise ValidationError(f"invalid search query {query!r}: {exc}") from None
        rows = self.index.rows_by_seq([h[0] for h in hits])
        groups: dict[tuple[str, str, str, str], tuple[Event, float, list[Event]]] = {}
        for seq, score in hits:
            if seq in rows:
                event = self.event(rows[seq])
                key = same_decision(event)
                if key in groups:
                    groups[key][2].append(event)
                elif len(groups) < limit:
                    groups[key] = (event, score, [])
        return [SearchHit(e, score, tuple(more)) for e, score, more in groups.values()]

    def recent_verdicts(self, limit: int) -> list[Event]:
        """See `Store.recent_verdicts`. Walks verdict rows newest first and keeps those the
        entity's stored status still counts as open: the cost is the verdicts skipped,
        not the size of the log."""
        out: list[Event] = []
        if limit <= 0:
            return out
        open_by_ent: dict[int, set[int]] = {}
        for row in self.index.verdict_rows_newest_first():
            seqs = open_by_ent.get(row.entity)
            if seqs is None:
                seqs = open_by_ent[row.entity] = self.index.open_verdict_seqs(row.entity)
            if row.seq in seqs:
                out.append(self.event(row))
                if len(out) >= limit:
                    break
        return out

    def open_reverts(self, carrying: tuple[str, ...] = ()) -> list[Event]:
        """See `Store.open_reverts`: revert rows the entity's stored status counts as open."""
        # The key first when there is one: a byte search, where openness is a query per
        # entity.
        return self._open(self._carrying(self.index.revert_rows(_marked(carrying)), carrying))

    def open_reverts_printing(self, words: Collection[str]) -> list[Event]:
        """See `Store.open_reverts_printing`."""
        return self._open(self._carrying(self.index.printed_revert_rows(words), (PRINT_KEY,)))

    def _open(self, found: list[tuple[Row, Event]]) -> list[Event]:
        """The events of `found` whose entity's stored status counts them as open."""
        open_by_ent: dict[int, set[int]] = {}

        def is_open(row: Row) -> bool:
            seqs = open_by_ent.get(row.entity)
            if seqs is None:
                seqs = open_by_ent[row.entity] = self.index.open_verdict_seqs(row.entity)
            return row.seq in seqs

        return [e for r, e in found if is_open(r)]

    def due_reviews(self, today: date | None) -> list[Review]:
        """See `Store.due_reviews`."""
        day = (today or datetime.now(timezone.utc).date()).isoformat()
        found = self.index.review_rows()
        if not found:
            return []
        rows = self.index.rows_by_seq([f[0] for f in found])
        superseded = self.index.superseded_keys({r.key for r in rows.values()})
        out: list[Review] = []
        for seq, revisit, expires in found:
            row = rows[seq]
            if row.key in superseded:
                continue
            if revisit and revisit <= day:
                out.append(Review(self.event(row), "revisit_after", revisit))
            if expires:
                review = self._expiry(row, expires, day)
                if review is not None:
                    out.append(review)
        out.sort(key=lambda r: (r.due or "9999", r.event.recorded_at))
        return out

    def _expiry(self, row: Row, expires: str, day: str) -> Review | None:
        kind, _, rest = expires.partition(":")
        if kind == "date" and rest <= day:
            return Review(self.event(row), "expires_when", rest, expires)
        if kind == "entity":
            target = rest[: -len(":changes")]
            later = [
                r
                for r in self.rows_under(target, True)
                if r.recorded_ms > row.recorded_ms and r.seq != row.seq
            ]
            if later:
                first = min(later, key=lambda r: (r.recorded_ms, r.seq))
                when = datetime.fromtimestamp(first.recorded_ms / 1000, timezone.utc)
                changed = when.date().isoformat()
                if changed > day:
                    return None
                return Review(self.event(row), "expires_when", changed, expires)
        return None

    def get(self, id_or_prefix: str) -> Event:
        """See `Store.get`."""
        wanted = check_id_prefix(id_or_prefix)
        head = wanted[:15]
        lo = int(head.ljust(15, "0"), 16)
        hi = int(head.ljust(15, "f"), 16)
        events = [self.event(r) for r in self.index.rows_by_key_range(lo, hi, limit=20)]
        matches = [e for e in events if e.id.startswith(wanted)]
        if not matches:
            raise UnknownEvent(f"no event with id {id_or_prefix}")
        if len(matches) > 1:
            ids = [e.id for e in matches]
            raise AmbiguousTarget(f"id prefix {id_or_prefix} is ambiguous: " + ", ".join(ids), ids)
        return matches[0]


def check_id_prefix(id_or_prefix: str) -> str:
    """The lower-cased id prefix, or `ValidationError` when it cannot name an event."""
    wanted = id_or_prefix.strip().lower()
    if len(wanted) < MIN_PREFIX or not HEX.match(wanted) or len(wanted) > 64:
        raise ValidationError(
            f"{id_or_prefix!r} is not an event id; give at least {MIN_PREFIX} hex characters"
        )
    return wanted


def as_of_limit(as_of: str | None) -> int | None:
    """The `--as-of` bound in epoch milliseconds (end of that day for a bare date)."""
    if as_of is None:  # not `if as_of`: an empty --as-of is a mistake to report, not "no limit"
        return None
    return to_ms(parse_ts(as_of, field="--as-of date", end_of_day=True))


def _seq(row: Row) -> int:
    return row.seq


def _attempt_when(attempt: Attempt) -> str:
    event = attempt.change or attempt.closed_by
    return event.when if event is not None else ""


@lru_cache(maxsize=65536)
def canonical(entity: str) -> str:
    """The canonical path of `entity`, or `ValidationError` saying what is valid."""
    try:
        return canonicalise(entity)
    except EntityPathError as exc:
        raise ValidationError(str(exc)) from None
