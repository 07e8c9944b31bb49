"""The write path: prepare a draft (validate, resolve targets), mask its secrets, encode
it canonically once (id and line together), append the lines and index them.

Nothing here runs SQL (the index does) or decides freshness (the `Store` does); it is
handed the index, the log and a way to read an entity's events. The checks live in
`cairn.store.validate`, masking in `cairn.store.mask`, encoding in `cairn.store.encode`
and idempotency keys in `cairn.store.idempotency`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec

from cairn.store.author import AuthorLookup, default_author
from cairn.store.encode import encode_owned, encode_plain
from cairn.store.errors import AmbiguousTarget, ValidationError
from cairn.store.fastid import loads
from cairn.store.fields import CONTENT_FIELDS, HEADER_FIELDS, EventFields
from cairn.store.idempotency import IDEMPOTENCY, check_key, request_digest
from cairn.store.index import Index, Record
from cairn.store.log import LogFile
from cairn.store.mask import mask_event, mask_fields, path_refusal
from cairn.store.model import Event, EventDraft, EventType
from cairn.store.paths import EntityKind
from cairn.store.review import parse_expires_when, parse_revisit_after
from cairn.store.secrets import might_hold_secret
from cairn.store.times import now_ts, parse_ts, wire_forms
from cairn.store.validate import (
    HEX,
    SHORT_DIFF,
    SHORT_LABEL,
    SHORT_TEXT,
    check_json,
    check_redact_target,
    check_sizes,
    commit_id,
    parse_entity,
)

__all__ = [
    "HEX",
    "MIN_PREFIX",
    "BatchContext",
    "DraftValidator",
    "Pending",
    "Preparer",
    "write_prepared",
]

MIN_PREFIX = 6
_TYPES: dict[Any, EventType] = {**{t.value: t for t in EventType}, **{t: t for t in EventType}}
_KINDS = frozenset(k.value for k in EntityKind)
_VALUES = {t: t.value for t in EventType}  # `Enum.value` is a slow descriptor
# A member is a class attribute lookup through the enum's metaclass: once, not per draft.
_REDACT, _SUPERSEDE, _REVERT = EventType.REDACT, EventType.SUPERSEDE, EventType.REVERT
_REJECT = EventType.REJECT

_RECORDED_AT = attrgetter("recorded_at")
_NO_METADATA: dict[str, Any] = {}
_ENTITY_CACHE = 1 << 17  # raw entity paths a `Preparer` keeps canonical

# An entity's logged events whose type is one of these (the read path answers it).
EventsOn = Callable[[str, frozenset[EventType]], list[Event]]
# How many logged verdicts on an entity have this id (0 or 1 in any sound log), or None
# when a logged supersede may name it: then the full lookup decides.
VerdictsLogged = Callable[[str, str], int | None]
# What a supersede's target is looked for among, and a revert's.
_VERDICTS_AND_SUPERSEDES = frozenset(t for t in EventType if t.is_verdict) | {EventType.SUPERSEDE}
_APPLIED = frozenset(t for t in EventType if t.is_applied)


class Pending(msgspec.Struct, gc=False):
    """An event prepared in a batch but not yet written (a struct: made in C, one per
    event of a bulk load; it holds an event and bytes, never itself)."""

    event: Event
    line: bytes


class BatchContext:
    """Per-write caches: canonical entities and the batch's events (for ref lookups)."""

    def __init__(self) -> None:
        # The batch's events, grouped by entity only when a revert (or a supersede the
        # quick check below cannot settle) asks (most batches never do): a list append
        # per event, not a dict of lists.
        self.events: list[Event] = []
        self._by_entity: dict[str, list[Event]] = {}
        self._grouped = 0
        # The batch's verdicts' ids and the ids its supersedes name, by entity, noted as
        # they are prepared (`note_verdict`): what a supersede given a whole id needs of
        # the batch. Grouping every event of the batch for it was ~65 us a supersede.
        self.verdicts: dict[str, list[str]] = {}
        self.named: dict[str, list[str]] = {}

    def on(self, entity: str) -> list[Event]:
        """The batch's events on `entity`, in order (the caller picks the types it may
        name: hashing an enum member is a Python call, so none is hashed here)."""
        grouped = self._by_entity
        for event in self.events[self._grouped :]:
            grouped.setdefault(event.entity, []).append(event)
        self._grouped = len(self.events)
        return grouped.get(entity, [])

    def note_verdict(self, event: Event) -> None:
        """Note a prepared revert, reject or supersede (`prepare` calls it for those)."""
        if event.type is _SUPERSEDE:
            self.named.setdefault(event.entity, []).append(event.supersedes)
        else:
            self.verdicts.setdefault(event.entity, []).append(event.id)


class Preparer:
    """Turns drafts into events and their canonical lines (validation, masking, ids)."""

    def __init__(
        self,
        root: Path,
        events_on: EventsOn,
        author: AuthorLookup | None = None,
        verdicts_logged: VerdictsLogged | None = None,
    ) -> None:
        self.root = root
        self._events_on = events_on
        self._verdicts_logged = verdicts_logged
        self._author_lookup = author
        self._author: str | None = None
        # raw path -> (canonical path, inferred kind, why the path is refused or ""): a
        # bulk load names each entity again and again, across batches.
        self._entities: dict[str, tuple[str, str, str]] = {}
        # raw `recorded_at` -> its wire form, for the batch being written (`prime`)
        self._recorded: dict[str, str] = {}

    def prime(self, drafts: list[EventDraft]) -> None:
        """Work out the batch's times together (`wire_forms`: a few regex passes over
        them all instead of a parse each); `prepare` looks its draft's up. The answers
        are `parse_ts`'s, so a draft of another batch would only miss. `forget` after."""
        self._recorded = wire_forms(list(map(_RECORDED_AT, drafts)))

    def forget(self) -> None:
        """Drop what `prime` worked out (it holds a batch's times)."""
        self._recorded = {}

    def prepare(
        self, draft: EventDraft, parents: list[str], ctx: BatchContext, masked: list[str]
    ) -> Pending:
        """The event and line `draft` becomes with these parents; raises `StoreError`."""
        raw_type = draft.type
        etype = _TYPES.get(raw_type) if isinstance(raw_type, str) else None
        if etype is None:
            etype = _event_type(raw_type)
        hit = self._entities.get(draft.entity)
        entity, inferred_kind, refusal = hit if hit is not None else self._entity(draft.entity)
        f, kind, key = self._fields(draft, etype, entity, parents, ctx)
        if kind == inferred_kind:
            f.entity_kind = ""  # pruned: the path says it
        kind = kind or inferred_kind
        joined, long_text = _screened(f)
        holds: bool | None = None  # the secret screen's answer, once asked
        if not (long_text or f.metadata):
            # Most events: short text, no metadata. The same checks in the same order as
            # below, then the line encoded from the struct in C instead of dicts; anything
            # unusual (a secret to mask, text UTF-8 cannot hold) takes the path below.
            if refusal:
                raise ValidationError(refusal)
            holds = might_hold_secret(joined)
            if not holds:
                encoded = encode_plain(f)
                if encoded is not None:
                    eid, line = encoded
                    # Positional, in `Event`'s order: one per event of a bulk load.
                    event = Event(
                        eid, etype, entity, tuple(parents), kind, f.reasoning, f.alternative,
                        f.diff, f.supersedes, f.reverts, f.author, f.agent, f.session,
                        f.commit, f.recorded_at, f.occurred_at, f.revisit_after,
                        f.expires_when, f.stale_when, {}, False, "",
                    )  # fmt: skip
                    return _noted(ctx, Pending(event, line))
        # Both halves pruned (absent and empty are one; see `canonical.prune`).
        header = {name: value for name in HEADER_FIELDS if (value := getattr(f, name))}
        content = {name: value for name in CONTENT_FIELDS if (value := getattr(f, name))}
        if long_text:
            check_sizes(header, content)  # short text is under every limit: no need
        if refusal:
            raise ValidationError(refusal)
        if f.metadata or not isinstance(f.diff, str):
            header, content = mask_event(header, content, masked)
        elif holds if holds is not None else might_hold_secret(joined):  # (diff is text here)
            # `mask_event`'s screen, of the texts it would join (everything else is
            # shaped), without walking the dicts: most events hold only text.
            header, content = mask_fields(header, masked), mask_fields(content, masked)
        if key and content["metadata"][IDEMPOTENCY]["key"] != key:
            raise ValidationError(
                "--key looks like it holds a secret; use a random id such as a UUID"
            )
        try:
            eid, line = encode_owned(header, content)
        except (ValueError, TypeError) as exc:
            raise ValidationError(f"cannot encode the event: {exc}") from None
        # `encode_owned` may have made `header` the whole line: the content wins either way.
        event = Event.from_line({**header, **content, "id": eid, "entity_kind": kind})
        return _noted(ctx, Pending(event, line))

    def _fields(
        self,
        draft: EventDraft,
        etype: EventType,
        entity: str,
        parents: list[str],
        ctx: BatchContext,
    ) -> tuple[EventFields, str, str]:
        """The draft's fields checked and in their logged form (no id yet), with the
        entity kind it names ("" when none) and its idempotency key ("" when none).
        Raises `ValidationError` for the first thing wrong, in the order a writer reads
        the fields."""
        reasoning = (draft.reasoning or "").strip()
        if not reasoning:
            raise ValidationError(
                f"reasoning is empty for {etype.value} on {entity}; say why (-r/--reason)"
            )
        # A reject's ENTITY is what was rejected; `alternative` optionally names the
        # approach when the entity alone does not say it.
        alternative = (draft.alternative or "").strip()
        if etype is _REDACT:
            check_redact_target(draft.metadata)
        supersedes = reverts = ""
        if draft.supersedes and etype is not _SUPERSEDE:
            raise ValidationError("--supersedes only goes with type supersede")
        if draft.reverts and etype is not _REVERT:
            raise ValidationError("--reverts only goes with type revert")
        if etype is _SUPERSEDE:
            supersedes = self._supersede_target(entity, draft.supersedes, ctx)
        elif etype is _REVERT and draft.reverts:
            reverts = self._revert_target(entity, draft.reverts, ctx)
        raw_time, primed = draft.recorded_at, self._recorded
        # (Primed only with a batch whose times are all text, so `get` cannot fail.)
        recorded_at = (primed.get(raw_time) if primed else None) or (
            parse_ts(raw_time, field="recorded_at") if raw_time else ""
        )
        if not recorded_at:
            recorded_at = now_ts()
        occurred_at = parse_ts(draft.occurred_at, field="occurred_at") if draft.occurred_at else ""
        revisit = parse_revisit_after(draft.revisit_after) if draft.revisit_after else ""
        expires = parse_expires_when(draft.expires_when) if draft.expires_when else ""
        kind = (draft.entity_kind or "").strip().lower()
        if kind and kind not in _KINDS:
            names = ", ".join(k.value for k in EntityKind)
            raise ValidationError(f"unknown entity kind {kind!r}; expected one of: {names}")
        metadata = draft.metadata or _NO_METADATA  # read, never written to
        if not isinstance(metadata, dict):
            raise ValidationError("metadata must be a JSON object")
        if metadata:
            check_json(metadata, "metadata")
        key = check_key(draft.key) if draft.key else ""
        if key:
            metadata = {**metadata, IDEMPOTENCY: {"key": key, "request": request_digest(draft)}}
        author = (draft.author or "").strip() or self._default_author()
        commit = commit_id(draft.commit) if draft.commit else ""
        # Positional, in `EventFields`' (canonical) order: a keyword call cost more.
        fields = EventFields(
            (draft.agent or "").strip(), alternative, author, commit, "", draft.diff or "",
            entity, kind, expires, "", metadata, occurred_at, parents, reasoning,
            recorded_at, False, reverts, revisit, (draft.session or "").strip(),
            (draft.stale_when or "").strip(), supersedes, _VALUES[etype],
        )  # fmt: skip
        return fields, kind, key

    def _entity(self, raw: str) -> tuple[str, str, str]:
        """(canonical path, inferred kind, refusal) of a raw path; ValidationError when it
        is no path. The refusal (a credential in the path) is raised by `prepare` after
        its other checks, so the first error a draft gets does not change."""
        path, kind = parse_entity(raw)
        hit = (path, kind, path_refusal(raw if isinstance(raw, str) else "", path))
        if len(self._entities) >= _ENTITY_CACHE:
            self._entities.clear()
        self._entities[raw] = hit
        return hit

    def _default_author(self) -> str:
        if self._author is None:
            self._author = default_author(self._author_lookup)
        return self._author

    def _supersede_target(self, entity: str, given: str, ctx: BatchContext) -> str:
        if isinstance(given, str) and len(given) >= 64:
            whole = given.strip().lower()
            if len(whole) == 64 and HEX.match(whole) and self._is_open_verdict(entity, whole, ctx):
                return whole  # what the lookup below returns for it (its one match)
        open_ids = self._open_verdict_ids(entity, ctx)
        if given:
            wanted = given.strip().lower()
            matches = [i for i in open_ids if i.startswith(wanted)]
            if len(wanted) < MIN_PREFIX or not HEX.match(wanted):
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

    def _revert_target(self, entity: str, given: str, ctx: BatchContext) -> str:
        wanted = given.strip().lower()
        if len(wanted) < MIN_PREFIX or not HEX.match(wanted):
            raise ValidationError(
                f"--reverts needs an event id or a prefix of at least {MIN_PREFIX} hex "
                f"characters, not {given!r}"
            )
        events = self._entity_events(entity, ctx, _APPLIED)
        candidates = [e for e in events if e.id.startswith(wanted)]
        applied = [e for e in candidates if e.type.is_applied]
        if len(applied) == 1:
            return applied[0].id
        if len(applied) > 1:
            ids = [e.id for e in applied]
            raise AmbiguousTarget(
                f"{given} matches several changes on {entity}: " + ", ".join(ids), ids
            )
        raise ValidationError(f"{given} is not an applied change on {entity}; --reverts names one")

    def _entity_events(
        self, entity: str, ctx: BatchContext, types: frozenset[EventType]
    ) -> list[Event]:
        """The logged events of these types and all of the batch's (callers test types)."""
        return self._events_on(entity, types) + ctx.on(entity)

    def _is_open_verdict(self, entity: str, event_id: str, ctx: BatchContext) -> bool:
        """True when `event_id` is, once, an open verdict on `entity` (logged or in the
        batch): the one id `_open_verdict_ids` would match it to. False when it is not
        or this cannot tell (then `_open_verdict_ids` decides, and words the error).

        The whole id a bulk load or an importer gives is checked without reading and
        decoding every verdict and supersede on the entity: ~190 us a supersede at 1M
        events, 1.3 us an event of the load."""
        if self._verdicts_logged is None or event_id in ctx.named.get(entity, ()):
            return False
        logged = self._verdicts_logged(entity, event_id)
        if logged is None:
            return False
        return logged + ctx.verdicts.get(entity, []).count(event_id) == 1

    def _open_verdict_ids(self, entity: str, ctx: BatchContext) -> list[str]:
        events = self._entity_events(entity, ctx, _VERDICTS_AND_SUPERSEDES)
        named = {e.supersedes for e in events if e.type is EventType.SUPERSEDE}
        return sorted(e.id for e in events if e.type.is_verdict and e.id not in named)


class DraftValidator:
    """Dry runs: each accepted draft is seen by the later ones, as in one `append_many`."""

    def __init__(
        self, check: Callable[[EventDraft, list[str], BatchContext], Pending], heads: list[str]
    ) -> None:
        self._check = check
        self._parents = list(heads)
        self._ctx = BatchContext()

    def check(self, draft: EventDraft) -> Event:
        """The event `append` would write, or the `StoreError` it would raise (then forgotten)."""
        pending = self._check(draft, self._parents, self._ctx)
        self._parents = [pending.event.id]
        return pending.event


def write_prepared(
    log: LogFile, index: Index, prepared: list[Pending], seen_db: object
) -> tuple[str | None, bool]:
    """Append the prepared lines in one write (fsynced), then index them in one transaction.

    Callers hold the cross-process write lock and have caught the index up; `seen_db`
    is the index's recorded stat as the caller last saw it. Once the lines are durable
    the write has happened: an index that cannot take them (not writable, disk full) is
    not a failure to report, since a retry would write the decision twice. It returns a
    warning instead, and the index catches up from the log on the next open.

    The second value is True when git replaced the log during the write: the lines are
    in the new file but not where this writer put them, so nothing is indexed here and
    the caller catches the index up by reading the file actually there.
    """
    lines = [p.line for p in prepared]
    data = b"".join(lines)
    appended = log.append(data)
    offset = appended.offset
    if offset is None:
        index.close_log()
        return None, True
    try:
        _index_written(log, index, prepared, list(map(len, lines)), seen_db, (offset, data))
    except sqlite3.Error as exc:
        index.close_log()
        return (
            f"the decision is written to {log.path.name}, but the index could not be "
            f"updated ({exc}); it catches up when .cairn/index.db is writable again"
        ), False
    return None, False


def _index_written(
    log: LogFile,
    index: Index,
    prepared: list[Pending],
    lengths: list[int],
    seen_db: object,
    written: tuple[int, bytes],
) -> None:
    start = offset = written[0]
    end = start + sum(lengths)
    st = log.stat()
    assert st is not None
    with index.write_transaction():
        if index.recorded_stat() != seen_db or index.changed_elsewhere():
            # A reader in another process indexed (part of) our lines meanwhile.
            index.load_state()
        if index.ingest_written([p.event for p in prepared], start, lengths):
            pass  # the normal path: the index stood where the batch was prepared
        elif index.consumed == start:
            records = []
            for p, length in zip(prepared, lengths, strict=True):
                # (rare: the index moved since the batch was prepared) read as written
                records.append(Record(offset, length - 1, loads(p.line)))
                offset += length
            index.ingest(records, dedupe=False)
        elif index.consumed < end:
            # Lines before or among ours are not indexed yet.
            index.catch_up(index.consumed, end)
        index.record_position(end, st, written)
    index.close_log()


def _event_type(raw: EventType | str) -> EventType:
    """The type a draft names in other than its own spelling, or ValidationError."""
    try:
        return EventType.parse(raw)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def _screened(f: EventFields) -> tuple[str, bool]:
    """Every text the secret screen reads, joined once, and whether any text may be over
    its limit. The joined length bounds each text's: when it is within the text limit,
    only the labels' (the smallest limit) need a look (four tests an event, not nine).
    A diff that is not text is long (it takes the full checks) and joins nothing."""
    diff = f.diff
    if not isinstance(diff, str):
        return "", True
    reasoning, alternative, expires, stale = (
        f.reasoning,
        f.alternative,
        f.expires_when,
        f.stale_when,
    )
    author, agent, session = f.author, f.agent, f.session
    joined = "\n".join((reasoning, alternative, diff, author, agent, session, expires, stale))
    long_text = (
        len(author) > SHORT_LABEL
        or len(agent) > SHORT_LABEL
        or len(session) > SHORT_LABEL
        or (
            len(joined) > SHORT_TEXT
            and (
                len(reasoning) > SHORT_TEXT
                or len(alternative) > SHORT_TEXT
                or len(stale) > SHORT_TEXT
                or len(expires) > SHORT_TEXT
                or len(diff) > SHORT_DIFF
            )
        )
    )
    return joined, long_text


def _noted(ctx: BatchContext, pending: Pending) -> Pending:
    """`pending`, its event noted in the batch (a verdict or supersede also by id)."""
    event = pending.event
    ctx.events.append(event)
    if event.type is _REVERT or event.type is _REJECT or event.type is _SUPERSEDE:
        ctx.note_verdict(event)
    return pending
