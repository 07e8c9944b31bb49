"""`Store`: the decision log's one entry point (append, status, history, search...)."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from functools import lru_cache
from hashlib import sha256
from pathlib import Path
from typing import Any

from cairn.store.attempts import pair_attempts
from cairn.store.author import default_author
from cairn.store.canonical import prune
from cairn.store.errors import AmbiguousTarget, StoreError, UnknownEvent, ValidationError
from cairn.store.index import TYPE_CODES, Index, Record, Row
from cairn.store.log import LogFile, write_lock
from cairn.store.model import (
    AppendResult,
    Attempt,
    EntityStatus,
    Event,
    EventDraft,
    EventType,
    Review,
    SearchHit,
    Status,
)
from cairn.store.paths import (
    EntityKind,
    EntityPathError,
    canonicalise,
    covers,
    parse,
    prefix_upper_bound,
)
from cairn.store.review import parse_expires_when, parse_revisit_after
from cairn.store.status import derive
from cairn.store.times import now_ts, parse_ts, to_ms

try:
    from cairn.store.secrets import mask_secrets
except ImportError:  # pragma: no cover - the trust area ships it; never absent in a release

    def mask_secrets(text: str) -> tuple[str, list[str]]:
        return text, []


__all__ = ["MIN_PREFIX", "Store", "might_hold_secret"]

# A cheap screen run before `mask_secrets` (which applies ~17 regexes): every masking
# rule needs one of these literal markers, or a credential keyword followed by an
# assignment operator; text with neither cannot be changed by it.
# tests/store/test_secret_screen.py checks this against every kind of secret.
_SECRET_MARKERS = (
    "-----BEGIN", "://", "gh", "github_pat_", "glpat-", "xox", "k_live_", "k_test_", "sk-",
    "AIza", "npm_", "eyJ", "earer", "AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA",
    "AIPA", "ANPA", "ANVA", "APKA",
)  # fmt: skip
_KEYWORDS = ("passw", "passphrase", "pwd", "secret", "token", "credential", "key")
_ASSIGNED = re.compile(
    r"(?:passw|passphrase|pwd|secret|token|credential|key)[a-z0-9_\-.]*[\"']?\s*(?::=|=>|[:=])"
)


def might_hold_secret(text: str) -> bool:
    """False when `mask_secrets` could not change `text` (so it need not run)."""
    for marker in _SECRET_MARKERS:
        if marker in text:
            return True
    if "=" not in text and ":" not in text:
        return False  # no assignment operator, so no `key = value` credential
    low = text.lower()
    for keyword in _KEYWORDS:
        if keyword in low:
            return _ASSIGNED.search(low) is not None
    return False


MIN_PREFIX = 6
STATUS_CACHE_MAX = 50_000
_HEX = re.compile(r"^[0-9a-f]+$")
_ROOT_PREFIXES = ("route/", "deps/", "env/")
_TYPES: dict[Any, EventType] = {**{t.value: t for t in EventType}, **{t: t for t in EventType}}
_KINDS = frozenset(k.value for k in EntityKind)


@dataclass(slots=True)
class _Pending:
    """An event prepared in a batch but not yet written."""

    event: Event
    line: bytes


class Store:
    """The decision log in one `.cairn/` folder. Thread-safe (one lock per store)."""

    def __init__(self, cairn_dir: Path) -> None:
        self.cairn_dir = cairn_dir
        self.root = cairn_dir.parent
        self.log = LogFile(cairn_dir)
        self.index = Index(cairn_dir, self.log.path)
        self._lock = threading.RLock()
        self._seen: tuple[int, int, int] | str | None = "unset"
        self._seen_db: tuple[int, int, int] | None = self.index.recorded_stat()
        self._author: str | None = None
        # Statuses of the editor's batches, valid until the log changes (cleared by any
        # sync or write): re-analysing a file on every keystroke asks the same again.
        self._status_cache: dict[str, EntityStatus] = {}

    @classmethod
    def open(cls, cairn_dir: Path | str) -> Store:
        """Open the store in `cairn_dir` and catch its index up with the JSONL."""
        path = Path(cairn_dir)
        if not path.is_dir():
            raise StoreError(f"{path} is not a Cairn folder; run `cairn init` first")
        store = cls(path)
        store.refresh()
        return store

    def clear_caches(self) -> None:
        """Forget remembered batch statuses (benchmarks use it to measure cold reads)."""
        with self._lock:
            self._status_cache.clear()

    def close(self) -> None:
        """Release the database connection and the log's read handle."""
        with self._lock:
            self.index.close_log()
            self.index.db.close()

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
            st = self.log.stat()
            key = (st.st_size, st.st_mtime_ns, st.st_ino) if st else None
            if key == self._seen:
                return False
            self._sync()
            return True

    def _sync(self) -> None:
        """Bring memory and index up to the file. Caller holds the thread lock."""
        self._status_cache.clear()
        index = self.index
        index.close_log()  # the file may have been replaced: reopen it on the next read
        st = self.log.stat()
        key = (st.st_size, st.st_mtime_ns, st.st_ino) if st else None
        if index.recorded_stat() == key:
            # Already indexed (by us or another process): a read transaction suffices.
            if key != self._seen_db:
                index.db.execute("BEGIN")
                try:
                    index.load_state()
                finally:
                    index.db.execute("COMMIT")
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
                records, consumed, bad = index.read_records(index.consumed, st.st_size)
                index.bad_lines += bad
                index.ingest(records)
                index.record_position(consumed, st)
        self._seen = key
        self._seen_db = index.recorded_stat()

    # --- writing ------------------------------------------------------------------------

    def append(self, draft: EventDraft) -> AppendResult:
        """Validate, mask secrets, hash, write one line (fsynced), index it."""
        masked: list[str] = []
        events = self._write([draft], masked)
        return AppendResult(events[0], masked)

    def append_many(self, drafts: Iterable[EventDraft]) -> list[Event]:
        """Append many events under one lock and one index transaction (imports, bench)."""
        return self._write(list(drafts), [])

    def _write(self, drafts: list[EventDraft], masked: list[str]) -> list[Event]:
        if not drafts:
            return []
        with self._lock, write_lock(self.cairn_dir):
            self.log.repair_tail()
            self._sync()
            index = self.index
            parents = sorted(index.heads)
            ctx = _BatchContext()
            prepared: list[_Pending] = []
            for draft in drafts:
                pending = self._prepare(draft, parents, ctx, masked)
                prepared.append(pending)
                parents = [pending.event.id]
            data = b"".join(p.line for p in prepared)
            # Everything validated: now write the lines in one go, then index them.
            offset = self.log.append(data)
            records = []
            for p in prepared:
                records.append(Record(offset, len(p.line) - 1, _line_dict(p)))
                offset += len(p.line)
            st = self.log.stat()
            assert st is not None
            with index.write_transaction():
                if index.recorded_stat() != self._seen_db or index.changed_elsewhere():
                    # A reader in another process indexed (part of) our lines meanwhile.
                    index.load_state()
                if index.consumed == records[0].off:
                    index.ingest(records, dedupe=False)
                elif index.consumed < offset:
                    # Lines before or among ours are not indexed yet: the normal path.
                    recs, _, bad = index.read_records(index.consumed, offset)
                    index.bad_lines += bad
                    index.ingest(recs)
                index.record_position(offset, st)
            index.close_log()
            self._status_cache.clear()
            self._seen = (st.st_size, st.st_mtime_ns, st.st_ino)
            self._seen_db = index.recorded_stat()
            return [p.event for p in prepared]

    def validator(self) -> DraftValidator:
        """Check drafts in order exactly as `append_many` would (same `_prepare`); write nothing."""
        return DraftValidator(self)

    def _prepare(
        self, draft: EventDraft, parents: list[str], ctx: _BatchContext, masked: list[str]
    ) -> _Pending:
        etype = _TYPES.get(draft.type) if isinstance(draft.type, str) else None
        if etype is None:
            try:
                etype = EventType.parse(draft.type)
            except ValueError as exc:
                raise ValidationError(str(exc)) from None
        entity, inferred_kind = ctx.entity(draft.entity)
        reasoning = (draft.reasoning or "").strip()
        if not reasoning:
            raise ValidationError(
                f"reasoning is empty for {etype.value} on {entity}; say why (-r/--reason)"
            )
        # A reject's ENTITY is what was rejected; `alternative` optionally names the
        # approach when the entity alone does not say it.
        alternative = (draft.alternative or "").strip()
        texts = {}
        for name, value in (
            ("reasoning", reasoning),
            ("alternative", alternative),
            ("diff", draft.diff or ""),
            ("stale_when", (draft.stale_when or "").strip()),
        ):
            if value and might_hold_secret(value):
                value, kinds = mask_secrets(value)
                masked.extend(k for k in kinds if k not in masked)
            texts[name] = value
        supersedes = reverts = ""
        if draft.supersedes and etype is not EventType.SUPERSEDE:
            raise ValidationError("--supersedes only goes with type supersede")
        if draft.reverts and etype is not EventType.REVERT:
            raise ValidationError("--reverts only goes with type revert")
        if etype is EventType.SUPERSEDE:
            supersedes = self._supersede_target(entity, draft.supersedes, ctx)
        elif etype is EventType.REVERT and draft.reverts:
            reverts = self._revert_target(entity, draft.reverts, ctx)
        recorded_at = parse_ts(draft.recorded_at, field="recorded_at") if draft.recorded_at else ""
        if not recorded_at:
            recorded_at = now_ts()
        occurred_at = parse_ts(draft.occurred_at, field="occurred_at") if draft.occurred_at else ""
        revisit = parse_revisit_after(draft.revisit_after) if draft.revisit_after else ""
        expires = parse_expires_when(draft.expires_when) if draft.expires_when else ""
        kind = (draft.entity_kind or "").strip().lower()
        if kind and kind not in _KINDS:
            names = ", ".join(k.value for k in EntityKind)
            raise ValidationError(f"unknown entity kind {kind!r}; expected one of: {names}")
        metadata = draft.metadata or {}
        if not isinstance(metadata, dict):
            raise ValidationError("metadata must be a JSON object")
        _check_json(metadata, "metadata")
        metadata = _mask_strings(metadata, masked)
        author = (draft.author or "").strip() or self._default_author()
        header: dict[str, Any] = {
            "parents": parents,
            "type": etype.value,
            "entity": entity,
            "entity_kind": "" if kind in ("", inferred_kind) else kind,
            "supersedes": supersedes,
            "reverts": reverts,
            "author": author,
            "agent": (draft.agent or "").strip(),
            "session": (draft.session or "").strip(),
            "commit": (draft.commit or "").strip(),
            "recorded_at": recorded_at,
            "occurred_at": occurred_at,
            "revisit_after": revisit,
            "expires_when": expires,
            "stale_when": texts["stale_when"],
        }
        content = {
            "reasoning": texts["reasoning"],
            "alternative": texts["alternative"],
            "diff": texts["diff"],
            "metadata": metadata,
        }
        try:
            header = prune(header)
            eid, line = _encode_event(header, prune(content))
        except (ValueError, TypeError) as exc:
            raise ValidationError(f"cannot encode the event: {exc}") from None
        event = Event(
            id=eid,
            type=etype,
            entity=entity,
            parents=tuple(parents),
            entity_kind=kind or inferred_kind,
            reasoning=texts["reasoning"],
            alternative=texts["alternative"],
            diff=texts["diff"],
            supersedes=supersedes,
            reverts=reverts,
            author=author,
            agent=header.get("agent", ""),
            session=header.get("session", ""),
            commit=header.get("commit", ""),
            recorded_at=recorded_at,
            occurred_at=occurred_at,
            revisit_after=revisit,
            expires_when=expires,
            stale_when=texts["stale_when"],
            metadata=metadata,
        )
        ctx.add(event)
        return _Pending(event, line)

    def _default_author(self) -> str:
        if self._author is None:
            self._author = default_author(self.root)
        return self._author

    def _supersede_target(self, entity: str, given: str, ctx: _BatchContext) -> str:
        open_ids = self._open_verdict_ids(entity, ctx)
        if given:
            wanted = given.strip().lower()
            matches = [i for i in open_ids if i.startswith(wanted)]
            if len(wanted) < MIN_PREFIX or not _HEX.match(wanted):
                raise ValidationError(
                    f"--of/--supersedes needs an event id or a prefix of at least "
                    f"{MIN_PREFIX} hex characters, not {given!r}"
                )
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise AmbiguousTarget(
                    f"{given} matches several open verdicts on {entity}: " + ", ".join(matches),
                    matches,
                )
            listing = ", ".join(open_ids) if open_ids else "none"
            raise ValidationError(
                f"{given} is not an open verdict on {entity} (open verdicts: {listing})"
            )
        if len(open_ids) == 1:
            return open_ids[0]
        if not open_ids:
            raise AmbiguousTarget(f"{entity} has no open verdict to supersede", [])
        raise AmbiguousTarget(
            f"{entity} has {len(open_ids)} open verdicts; choose one with --of: "
            + ", ".join(open_ids),
            open_ids,
        )

    def _revert_target(self, entity: str, given: str, ctx: _BatchContext) -> str:
        wanted = given.strip().lower()
        if len(wanted) < MIN_PREFIX or not _HEX.match(wanted):
            raise ValidationError(
                f"--reverts needs an event id or a prefix of at least {MIN_PREFIX} hex "
                f"characters, not {given!r}"
            )
        candidates = [e for e in self._entity_events(entity, ctx) if e.id.startswith(wanted)]
        applied = [e for e in candidates if e.type.is_applied]
        if len(applied) == 1:
            return applied[0].id
        if len(applied) > 1:
            ids = [e.id for e in applied]
            raise AmbiguousTarget(
                f"{given} matches several changes on {entity}: " + ", ".join(ids), ids
            )
        raise ValidationError(f"{given} is not an applied change on {entity}; --reverts names one")

    def _entity_events(self, entity: str, ctx: _BatchContext) -> list[Event]:
        ent = self.index.ent_of(entity)
        events = [self._event(r) for r in self.index.rows_for(ent)] if ent is not None else []
        return events + ctx.by_entity.get(entity, [])

    def _open_verdict_ids(self, entity: str, ctx: _BatchContext) -> list[str]:
        events = self._entity_events(entity, ctx)
        named = {e.supersedes for e in events if e.type is EventType.SUPERSEDE}
        return sorted(e.id for e in events if e.type.is_verdict and e.id not in named)

    # --- reading ------------------------------------------------------------------------

    def _event(self, row: Row) -> Event:
        return Event.from_line(self.index.line(row.off, row.len))

    def status(self, entity: str) -> EntityStatus:
        """The derived status of one entity, with a rollup of its children (table columns).

        A bare root (`deps/`, `env/`, `route/`) is no entity: its status is `unknown` and
        its rollup lists every dependency (variable, route) with a verdict.
        """
        root = entity.strip() in _ROOT_PREFIXES
        path = entity.strip() if root else _canonical(entity)
        with self._lock:
            self.refresh()
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
                    for child, st in self._status_many(children).items():
                        if st.status not in (Status.ACTIVE, Status.UNKNOWN):
                            rollup[child] = st.status
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
            )

    def status_many(self, entities: Iterable[str]) -> dict[str, EntityStatus]:
        """Statuses for many entities with ONE query (keys are the caller's strings).

        What the editor asks for a whole file: `latest` and `rollup` are left empty and
        `conflicts` holds only the newest re-applying change (`status` gives them all).
        """
        wanted = list(entities)
        canon = {raw: _canonical(raw) for raw in wanted}
        with self._lock:
            self.refresh()
            cache = self._status_cache
            missing = sorted({c for c in canon.values() if c not in cache})
            if missing:
                if len(cache) > STATUS_CACHE_MAX:
                    cache.clear()
                cache.update(self._status_many(missing))
            found = {c: cache[c] for c in canon.values()}
        return {raw: found[c] for raw, c in canon.items()}

    def _stored_statuses(self, paths: list[str]) -> dict[str, EntityStatus]:
        """Statuses from the index's per-entity rows: one query, then the texts of only
        the events that explain a non-plain status (open verdicts, a conflict)."""
        out = {p: EntityStatus(p, Status.UNKNOWN) for p in paths}
        details = []
        for path, status, count, detail in self.index.status_rows(paths):
            if detail is None:
                out[path] = EntityStatus(path, status, event_count=count)
            else:
                details.append((path, status, count, json.loads(detail)))
        if not details:
            return out
        texts = {s for d in details for s in (*d[3][0], d[3][1]) if s}
        pairs = {x for d in details for pair in d[3][2] for x in pair}
        rows = self.index.rows_by_seq(sorted(texts | pairs))
        events = {seq: self._event(rows[seq]) for seq in texts}
        ids = {seq: self.index.event_id_at(rows[seq]) for seq in pairs}
        for path, status, count, (open_v, conflict, reopened) in details:
            out[path] = EntityStatus(
                entity=path,
                status=status,
                open_verdicts=[events[s] for s in open_v],
                conflicts=[events[conflict]] if conflict else [],
                reopened={ids[v]: ids[s] for v, s in reopened},
                event_count=count,
            )
        return out

    def _status_many(
        self, paths: list[str], *, with_latest: bool = False
    ) -> dict[str, EntityStatus]:
        if not with_latest:
            return self._stored_statuses(paths)
        full = self.index.rows_for_paths(paths)
        summary = {p: (rows, len(rows)) for p, rows in full.items()}
        out: dict[str, EntityStatus] = {}
        is_ancestor = self.index.dag.is_ancestor
        for path, (rows, count) in summary.items():
            if not rows:
                out[path] = EntityStatus(path, Status.UNKNOWN)
                continue
            derived = derive(rows, is_ancestor)  # type: ignore[arg-type]
            by_seq = {r.seq: r for r in rows}
            conflicts = derived.conflicts
            latest_seq = max(rows, key=lambda r: (r.rec, r.seq)).seq
            wanted = {*derived.open_verdicts, *conflicts, latest_seq}
            events = {seq: self._event(by_seq[seq]) for seq in wanted}
            ids = self.index.event_id_at
            out[path] = EntityStatus(
                entity=path,
                status=derived.status,
                open_verdicts=[events[s] for s in derived.open_verdicts],
                conflicts=[events[s] for s in conflicts],
                reopened={ids(by_seq[v]): ids(by_seq[s]) for v, s in derived.reopened},
                event_count=count,
                latest=events[latest_seq],
            )
        return out

    def history(
        self, entity: str, *, as_of: str | None = None, include_children: bool = False
    ) -> list[Event]:
        """Events on an entity (or below it), oldest first by recorded time.

        `as_of` (a date or ISO time) keeps only what had been recorded by then: what the
        log said at that moment.
        """
        limit = to_ms(parse_ts(as_of, field="--as-of date", end_of_day=True)) if as_of else None
        with self._lock:
            self.refresh()
            rows = self._rows_under(entity, include_children)
            if limit is not None:
                rows = [r for r in rows if r.rec <= limit]
            rows.sort(key=lambda r: (r.rec, r.seq))
            return [self._event(r) for r in rows]

    def _rows_under(self, entity: str, include_children: bool) -> list[Row]:
        text = entity.strip()
        path = text if include_children and text in _ROOT_PREFIXES else _canonical(entity)
        if not include_children:
            ent = self.index.ent_of(path)
            return self.index.rows_for(ent) if ent is not None else []
        rows: list[Row] = []
        for ent, p in self.index.paths_in_range(path, prefix_upper_bound(path)):
            if covers(path, p):
                rows.extend(self.index.rows_for(ent))
        return rows

    def prior_attempts(
        self, entity: str, *, include_children: bool = False, include_active: bool = False
    ) -> list[Attempt]:
        """What was tried on an entity and what closed it (see `cairn.store.attempts`)."""
        with self._lock:
            self.refresh()
            rows = self._rows_under(entity, include_children)
            by_ent: dict[int, list[Event]] = {}
            for r in rows:
                by_ent.setdefault(r.ent, []).append(self._event(r))
        out: list[Attempt] = []
        for events in by_ent.values():
            out.extend(pair_attempts(events, include_active=include_active))
        if len(by_ent) > 1:
            out.sort(key=_attempt_when)
        return out

    def search(self, query: str, *, limit: int = 50) -> list[SearchHit]:
        """Full-text search over reasoning, alternatives and entity paths (BM25 ranked)."""
        match = _fts_query(query)
        if not match:
            raise ValidationError("search query has no words to look for")
        with self._lock:
            self.refresh()
            try:
                hits = self.index.db.execute(
                    "SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?",
                    (match, limit),
                ).fetchall()
            except sqlite3.OperationalError as exc:
                raise ValidationError(f"invalid search query {query!r}: {exc}") from None
            rows = self.index.rows_by_seq([h[0] for h in hits])
            return [
                SearchHit(self._event(rows[seq]), float(score))
                for seq, score in hits
                if seq in rows
            ]

    def due_reviews(self, *, today: date | None = None) -> list[Review]:
        """Decisions whose revisit date or expiry trigger has come (superseded ones excluded)."""
        day = (today or datetime.now(timezone.utc).date()).isoformat()
        with self._lock:
            self.refresh()
            found = self.index.db.execute(
                "SELECT r.seq, r.revisit, r.expires FROM review r ORDER BY r.seq"
            ).fetchall()
            if not found:
                return []
            rows = self.index.rows_by_seq([f[0] for f in found])
            superseded = {
                t[0]
                for t in self.index.db.execute(
                    "SELECT ref FROM ev WHERE ty = ? AND ref IS NOT NULL",
                    (TYPE_CODES["supersede"],),
                )
            }
            out: list[Review] = []
            for seq, revisit, expires in found:
                row = rows[seq]
                if row.h in superseded:
                    continue
                if revisit and revisit <= day:
                    out.append(Review(self._event(row), "revisit_after", revisit))
                if expires:
                    review = self._expiry(row, expires, day)
                    if review is not None:
                        out.append(review)
        out.sort(key=lambda r: (r.due or "9999", r.event.recorded_at))
        return out

    def _expiry(self, row: Row, expires: str, day: str) -> Review | None:
        kind, _, rest = expires.partition(":")
        if kind == "date" and rest <= day:
            return Review(self._event(row), "expires_when", rest, expires)
        if kind == "entity":
            target = rest[: -len(":changes")]
            later = [
                r for r in self._rows_under(target, True) if r.rec > row.rec and r.seq != row.seq
            ]
            if later:
                first = min(later, key=lambda r: (r.rec, r.seq))
                changed = datetime.fromtimestamp(first.rec / 1000, timezone.utc).date().isoformat()
                if changed > day:
                    return None
                return Review(self._event(row), "expires_when", changed, expires)
        return None

    def get(self, id_or_prefix: str) -> Event:
        """The event with this id or unique id prefix (at least 6 hex characters)."""
        wanted = id_or_prefix.strip().lower()
        if len(wanted) < MIN_PREFIX or not _HEX.match(wanted) or len(wanted) > 64:
            raise ValidationError(
                f"{id_or_prefix!r} is not an event id; give at least {MIN_PREFIX} hex characters"
            )
        head = wanted[:15]
        lo = int(head.ljust(15, "0"), 16)
        hi = int(head.ljust(15, "f"), 16)
        with self._lock:
            self.refresh()
            events = [self._event(r) for r in self.index.rows_by_key_range(lo, hi, limit=20)]
        matches = [e for e in events if e.id.startswith(wanted)]
        if not matches:
            raise UnknownEvent(f"no event with id {id_or_prefix}")
        if len(matches) > 1:
            ids = [e.id for e in matches]
            raise AmbiguousTarget(f"id prefix {id_or_prefix} is ambiguous: " + ", ".join(ids), ids)
        return matches[0]

    def source_keys(self, prefix: str) -> set[str]:
        """Importers' idempotency keys (`metadata.source_key`) starting with `prefix`."""
        with self._lock:
            self.refresh()
            return {
                k
                for (k,) in self.index.db.execute(
                    "SELECT k FROM srckey WHERE k >= ? AND k < ?", (prefix, prefix + "\U0010ffff")
                )
            }

    def heads(self) -> list[str]:
        """Ids of the events no other event names as a parent."""
        with self._lock:
            self.refresh()
            return sorted(self.index.heads)

    def entities(self) -> list[str]:
        """Every entity path with at least one event."""
        with self._lock:
            self.refresh()
            return [p for (p,) in self.index.db.execute("SELECT path FROM ent ORDER BY path")]

    def __len__(self) -> int:
        with self._lock:
            self.refresh()
            return int(self.index.db.execute("SELECT count(*) FROM ev").fetchone()[0])


def _attempt_when(attempt: Attempt) -> str:
    event = attempt.change or attempt.closed_by
    return event.when if event is not None else ""


class DraftValidator:
    """Dry runs: each accepted draft is seen by the later ones, as in one `append_many`."""

    def __init__(self, store: Store) -> None:
        self._store = store
        store.refresh()
        self._parents = sorted(store.index.heads)
        self._ctx = _BatchContext()

    def check(self, draft: EventDraft) -> Event:
        """The event `append` would write, or the `StoreError` it would raise (then forgotten)."""
        with self._store._lock:
            pending = self._store._prepare(draft, self._parents, self._ctx, [])
        self._parents = [pending.event.id]
        return pending.event


class _BatchContext:
    """Per-write caches: canonical entities and the batch's events (for ref lookups)."""

    def __init__(self) -> None:
        self._canon: dict[str, tuple[str, str]] = {}
        self.by_entity: dict[str, list[Event]] = {}

    def entity(self, raw: str) -> tuple[str, str]:
        hit = self._canon.get(raw)
        if hit is None:
            hit = _parsed(raw)
            self._canon[raw] = hit
        return hit

    def add(self, event: Event) -> None:
        if event.type.is_verdict or event.type.is_applied or event.type is EventType.SUPERSEDE:
            self.by_entity.setdefault(event.entity, []).append(event)


def _line_dict(p: _Pending) -> dict[str, Any]:
    e = p.event
    return {
        "id": e.id,
        "type": e.type.value,
        "entity": e.entity,
        "parents": list(e.parents),
        "recorded_at": e.recorded_at,
        "occurred_at": e.occurred_at,
        "supersedes": e.supersedes,
        "reverts": e.reverts,
        "reasoning": e.reasoning,
        "alternative": e.alternative,
        "revisit_after": e.revisit_after,
        "expires_when": e.expires_when,
        "metadata": e.metadata,
    }


def _mask_strings(value: Any, masked: list[str]) -> Any:
    """`value` with every string inside it masked (a copy: the caller's draft is kept)."""
    if isinstance(value, str):
        if value and might_hold_secret(value):
            value, kinds = mask_secrets(value)
            masked.extend(k for k in kinds if k not in masked)
        return value
    if isinstance(value, dict):
        return {k: _mask_strings(v, masked) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask_strings(v, masked) for v in value]
    return value


_encode_str = json.encoder.encode_basestring  # what the canonical encoder uses for text
_encode_any = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def _encode_event(header: dict[str, Any], content: dict[str, Any]) -> tuple[str, bytes]:
    """(id, line) for pruned header and content fields, encoding each member once.

    The same bytes as `event_id` and `canonical_bytes` of the whole line (sorted members
    joined by commas is exactly canonical JSON), but encoding the content and header
    again for the id and the line was a quarter of a bulk load's time.
    tests/store/test_canonical.py checks it against the one definition.
    """
    members: dict[str, str] = {}
    for key, value in header.items():
        text = _encode_str(value) if type(value) is str else _encode_any(value)
        members[key] = f'"{key}":{text}'
    body = {}
    for key, value in content.items():
        text = _encode_str(value) if type(value) is str else _encode_any(value)
        body[key] = f'"{key}":{text}'
    try:
        packed = ("{" + ",".join(body[k] for k in sorted(body)) + "}").encode()
    except UnicodeEncodeError:
        raise ValueError("text contains a lone surrogate; it cannot be encoded as UTF-8") from None
    digest = sha256(packed).hexdigest()
    members["content_digest"] = f'"content_digest":"{digest}"'
    head = "{" + ",".join(members[k] for k in sorted(members)) + "}"
    try:
        eid = sha256(head.encode()).hexdigest()
    except UnicodeEncodeError:
        raise ValueError("text contains a lone surrogate; it cannot be encoded as UTF-8") from None
    del members["content_digest"]
    members.update(body)
    members["id"] = f'"id":"{eid}"'
    line = "{" + ",".join(members[k] for k in sorted(members)) + "}\n"
    return eid, line.encode()


def _check_json(value: Any, where: str) -> None:
    """Only what canonical JSON can say one way: strings, integers, booleans, null, nesting."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValidationError(f"{where} keys must be strings, not {key!r}")
            _check_json(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for item in value:
            _check_json(item, where)
    elif isinstance(value, float):
        raise ValidationError(
            f"{where} holds the float {value!r}; floats have no single canonical text, "
            "store it as a string or an integer"
        )
    elif value is not None and not isinstance(value, str | int | bool):
        raise ValidationError(f"{where} holds a {type(value).__name__}, which JSON cannot hold")


@lru_cache(maxsize=1 << 17)
def _parsed(raw: str) -> tuple[str, str]:
    """(canonical path, kind) of a raw entity path: parsing was a tenth of a bulk load,
    and a batch of 10k events names each entity again and again across batches."""
    try:
        parsed = parse(raw)
    except EntityPathError as exc:
        raise ValidationError(str(exc)) from None
    return parsed.path, parsed.kind.value


@lru_cache(maxsize=65536)
def _canonical(entity: str) -> str:
    try:
        return canonicalise(entity)
    except EntityPathError as exc:
        raise ValidationError(str(exc)) from None


_WORD = re.compile(r"[\w]+\*?", re.UNICODE)


def _fts_query(query: str) -> str:
    """Words of a user query as an FTS5 AND of quoted terms (a trailing * keeps a prefix)."""
    terms = []
    for word in _WORD.findall(query):
        star = word.endswith("*")
        word = word.rstrip("*")
        if word:
            terms.append(f'"{word}"' + ("*" if star else ""))
    return " ".join(terms)
