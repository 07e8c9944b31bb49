"""The write path: prepare a draft (validate, resolve targets), mask its secrets, encode
it canonically once (id and line together), append the lines and index them.

Nothing here runs SQL (the index does) or decides freshness (the `Store` does); it is
handed the index, the log and a way to read an entity's events.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
from collections.abc import Callable
from functools import lru_cache
from hashlib import sha256
from operator import attrgetter
from pathlib import Path
from typing import Any

import msgspec
import orjson

from cairn.store.author import AuthorLookup, default_author
from cairn.store.canonical import canonical_bytes
from cairn.store.errors import AmbiguousTarget, KeyReused, ValidationError
from cairn.store.fastproof import ContentFields, LineFields
from cairn.store.index import Index, Record
from cairn.store.log import LogFile
from cairn.store.model import Event, EventDraft, EventType, new_event
from cairn.store.paths import EntityKind, EntityPathError, parse, parsed_or_none
from cairn.store.review import parse_expires_when, parse_revisit_after
from cairn.store.secrets import mask_secrets, might_hold_secret
from cairn.store.times import now_ts, parse_ts, wire_forms

__all__ = [
    "IDEMPOTENCY",
    "MIN_PREFIX",
    "BatchContext",
    "DraftValidator",
    "Pending",
    "Preparer",
    "check_key",
    "encode_event",
    "mask_event",
    "replay",
    "write_prepared",
]

MIN_PREFIX = 6
HEX = re.compile(r"^[0-9a-f]+$")
_TYPES: dict[Any, EventType] = {**{t.value: t for t in EventType}, **{t: t for t in EventType}}
_KINDS = frozenset(k.value for k in EntityKind)
_VALUES = {t: t.value for t in EventType}  # `Enum.value` is a slow descriptor
# A member is a class attribute lookup through the enum's metaclass: once, not per draft.
_REDACT, _SUPERSEDE, _REVERT = EventType.REDACT, EventType.SUPERSEDE, EventType.REVERT
_REJECT = EventType.REJECT

_RECORDED_AT = attrgetter("recorded_at")
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
            try:
                etype = EventType.parse(raw_type)
            except ValueError as exc:
                raise ValidationError(str(exc)) from None
        hit = self._entities.get(draft.entity)
        entity, inferred_kind, refusal = hit if hit is not None else self._entity(draft.entity)
        reasoning = (draft.reasoning or "").strip()
        if not reasoning:
            raise ValidationError(
                f"reasoning is empty for {etype.value} on {entity}; say why (-r/--reason)"
            )
        # A reject's ENTITY is what was rejected; `alternative` optionally names the
        # approach when the entity alone does not say it.
        alternative = (draft.alternative or "").strip()
        if etype is _REDACT:
            _check_redact_target(draft.metadata)
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
            _check_json(metadata, "metadata")
        key = check_key(draft.key) if draft.key else ""
        if key:
            metadata = {**metadata, IDEMPOTENCY: {"key": key, "request": request_digest(draft)}}
        author = (draft.author or "").strip() or self._default_author()
        agent = (draft.agent or "").strip()
        session = (draft.session or "").strip()
        commit = commit_id(draft.commit) if draft.commit else ""
        stale = (draft.stale_when or "").strip()
        diff = draft.diff or ""
        # Every text the secret screen reads, joined once. Its length bounds each
        # text's: when it is within the text limit, only the labels' (the smallest
        # limit) need a look (four tests an event, not nine).
        text_diff = isinstance(diff, str)
        joined = (
            "\n".join((reasoning, alternative, diff, author, agent, session, expires, stale))
            if text_diff
            else ""
        )
        long_text = (
            not text_diff
            or len(author) > _SHORT_LABEL
            or len(agent) > _SHORT_LABEL
            or len(session) > _SHORT_LABEL
            or (
                len(joined) > _SHORT_TEXT
                and (
                    len(reasoning) > _SHORT_TEXT
                    or len(alternative) > _SHORT_TEXT
                    or len(stale) > _SHORT_TEXT
                    or len(expires) > _SHORT_TEXT
                    or len(diff) > _SHORT_DIFF
                )
            )
        )
        holds: bool | None = None  # the secret screen's answer, once asked
        if not (long_text or metadata):
            # Most events: short text, no metadata. The same checks in the same order as
            # below, then the line encoded from structs in C instead of dicts; anything
            # unusual (a secret to mask, text UTF-8 cannot hold) takes the path below.
            if refusal:
                raise ValidationError(refusal)
            holds = might_hold_secret(joined)
            if not holds:
                encoded = _encode_plain(
                    _VALUES[etype], entity, parents, kind if kind != inferred_kind else "",
                    supersedes, reverts, author, agent, session, commit, recorded_at,
                    occurred_at, revisit, expires, stale, reasoning, alternative, diff,
                )  # fmt: skip
                if encoded is not None:
                    eid, line = encoded
                    # `new_event`'s call, without its frame (one per event of a load).
                    event = Event(
                        eid, etype, entity, tuple(parents), kind or inferred_kind, reasoning,
                        alternative, diff, supersedes, reverts, author, agent, session,
                        commit, recorded_at, occurred_at, revisit, expires, stale, {}, False,
                        "",
                    )  # fmt: skip
                    ctx.events.append(event)
                    if etype is _REVERT or etype is _REJECT or etype is _SUPERSEDE:
                        ctx.note_verdict(event)
                    return Pending(event, line)
        # Both halves built pruned (absent and empty are one; see `canonical.prune`).
        header: dict[str, Any] = {"type": _VALUES[etype], "entity": entity}
        if parents:
            header["parents"] = parents
        if kind and kind != inferred_kind:
            header["entity_kind"] = kind
        if supersedes:
            header["supersedes"] = supersedes
        if reverts:
            header["reverts"] = reverts
        if author:
            header["author"] = author
        if agent:
            header["agent"] = agent
        if session:
            header["session"] = session
        if commit:
            header["commit"] = commit
        header["recorded_at"] = recorded_at
        if occurred_at:
            header["occurred_at"] = occurred_at
        if revisit:
            header["revisit_after"] = revisit
        if expires:
            header["expires_when"] = expires
        if stale:
            header["stale_when"] = stale
        content: dict[str, Any] = {"reasoning": reasoning}
        if alternative:
            content["alternative"] = alternative
        if diff:
            content["diff"] = diff
        if metadata:
            content["metadata"] = metadata
        if long_text:
            check_sizes(header, content)  # short text is under every limit: no need
        if refusal:
            raise ValidationError(refusal)
        if metadata or not isinstance(diff, str):
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
            eid, line = _encode_owned(header, content)
        except (ValueError, TypeError) as exc:
            raise ValidationError(f"cannot encode the event: {exc}") from None
        get = header.get
        event = new_event(
            eid, etype, entity, tuple(parents), kind or inferred_kind, content["reasoning"],
            content.get("alternative", ""), content.get("diff", ""), supersedes, reverts,
            get("author", ""), get("agent", ""), get("session", ""), commit, recorded_at,
            occurred_at, revisit, get("expires_when", ""), get("stale_when", ""),
            content.get("metadata") or {},
        )  # fmt: skip
        ctx.events.append(event)
        if etype is _REVERT or etype is _REJECT or etype is _SUPERSEDE:
            ctx.note_verdict(event)
        return Pending(event, line)

    def _entity(self, raw: str) -> tuple[str, str, str]:
        """(canonical path, inferred kind, refusal) of a raw path; ValidationError when it
        is no path. The refusal (a credential in the path) is raised by `prepare` after
        its other checks, so the first error a draft gets does not change."""
        path, kind = _parse_entity(raw)
        hit = (path, kind, _path_refusal(raw if isinstance(raw, str) else "", path))
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


# Where an event keeps its writer's idempotency key: in metadata (content), so the log's
# canonical format and every existing id are unchanged. `request` is a digest of the
# request the key was first used for (masked first: no digest of a secret is stored),
# so a second use can tell a retry from a different decision. A redaction erases it
# with the rest of the content: after `cairn redact`, the key is free again.
IDEMPOTENCY = "idempotency"
_KEY = re.compile(r"^[!-~]{1,200}$")  # printable ASCII, no spaces


def check_key(raw: str) -> str:
    """An idempotency key as given, or ValidationError saying what a key may be."""
    key = raw.strip() if isinstance(raw, str) else ""
    if not _KEY.match(key):
        raise ValidationError(
            f"--key {str(raw)[:60]!r} is not a usable key; use 1 to 200 printable ASCII "
            "characters without spaces, e.g. a UUID"
        )
    return key


def request_digest(draft: EventDraft) -> str:
    """SHA-256 of what a draft asks for, without its key: equal for a retry of the same
    command, different when anything the writer gave differs.

    Not the writer's `session` either: it names one connection or process (an MCP
    session, a server run), and a retry after a crash comes on a new one."""
    fields: dict[str, Any] = {}
    for name in EventDraft.__dataclass_fields__:
        value = getattr(draft, name)
        fields[name] = value.strip() if isinstance(value, str) else value
    del fields["key"], fields["session"]
    fields["type"] = str(getattr(draft.type, "value", draft.type)).strip().lower()
    with contextlib.suppress(ValidationError, TypeError):  # preparing says what is wrong
        fields["entity"] = _parsed(draft.entity)[0]
    try:
        return sha256(canonical_bytes(_mask_strings(fields, []))).hexdigest()
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"cannot encode the event: {exc}") from None


def replay(draft: EventDraft, earlier: Event | None) -> Event | None:
    """The one rule for idempotency keys: the event a write of `draft` returns instead
    of writing (`earlier`, the event its key names, when the request is the same), None
    when it must be written, or `KeyReused` when the key names a different decision."""
    if earlier is None:
        return None
    found = earlier.metadata.get(IDEMPOTENCY)
    if isinstance(found, dict) and found.get("request") == request_digest(draft):
        return earlier
    raise KeyReused(
        f"key {draft.key.strip()!r} was already used for {earlier.type.value} "
        f"{earlier.id[:12]} on {earlier.entity}, with different content; nothing was "
        "written (a new decision needs a new key)"
    )


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
                records.append(Record(offset, length - 1, _line_dict(p.event)))
                offset += length
            index.ingest(records, dedupe=False)
        elif index.consumed < end:
            # Lines before or among ours are not indexed yet.
            index.catch_up(index.consumed, end)
        index.record_position(end, st, written)
    index.close_log()


def _line_dict(e: Event) -> dict[str, Any]:
    """What the index reads of a line, built from the event we just wrote (no parse)."""
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


# Fields whose value has a proven shape by the time it is masked (ids, times, an enum
# value, the canonical entity path, a hex commit id): masking cannot apply to them.
# EVERY other field is masked, whatever its name, so a field added to the event later is
# masked without anyone remembering to (tests/hardening/test_secret_fields.py checks
# each field of EVENT_FIELDS with a secret in it).
SHAPED_FIELDS = frozenset(
    {
        "id",
        "parents",
        "type",
        "entity",
        "entity_kind",
        "supersedes",
        "reverts",
        "commit",
        "recorded_at",
        "occurred_at",
        "revisit_after",
    }
)

# Size limits, in UTF-8 bytes: a decision's why is prose, not an attachment. Larger text
# belongs in the repository (link to it); the limit keeps one line of the log, and every
# reader that loads it, bounded.
MAX_REASONING_BYTES = 64 * 1024
MAX_DIFF_BYTES = 1024 * 1024
MAX_LABEL_BYTES = 1024  # author, agent, session
_LIMITS = {
    "reasoning": MAX_REASONING_BYTES,
    "alternative": MAX_REASONING_BYTES,
    "stale_when": MAX_REASONING_BYTES,
    "expires_when": MAX_REASONING_BYTES,
    "diff": MAX_DIFF_BYTES,
    "author": MAX_LABEL_BYTES,
    "agent": MAX_LABEL_BYTES,
    "session": MAX_LABEL_BYTES,
}
# Characters below which a text is under its limit whatever it holds (at most 4 bytes
# a character), so `check_sizes` need not look.
_SHORT_TEXT = MAX_REASONING_BYTES // 4
_SHORT_DIFF = MAX_DIFF_BYTES // 4
_SHORT_LABEL = MAX_LABEL_BYTES // 4
# The limits by half of the event, in the order they are checked (content first).
_CONTENT_LIMITS = tuple((k, _LIMITS[k]) for k in ("reasoning", "alternative", "diff"))
_HEADER_LIMITS = tuple(
    (k, _LIMITS[k]) for k in ("author", "agent", "session", "expires_when", "stale_when")
)
_COMMIT_RE = re.compile(r"^[0-9a-f]{4,64}$")


def _check_redact_target(metadata: object) -> None:
    """A redact records which event's content was erased; one without a target is
    refused (`cairn log X redact` wrote one). Only `cairn redact` writes them."""
    target = metadata.get("redacts") if isinstance(metadata, dict) else None
    if not (isinstance(target, str) and len(target) == 64 and HEX.match(target)):
        raise ValidationError(
            "a redact is written by `cairn redact ID --reason ...`, which erases that "
            "event's content; it cannot be logged by itself"
        )


def commit_id(raw: str) -> str:
    """A commit id as the log stores it (lower-case hex, 4-64 digits), or ValidationError."""
    text = raw.strip().lower()
    if text and not _COMMIT_RE.match(text):
        raise ValidationError(
            f"--commit {raw[:80]!r} is not a commit id; give its hex id (4 to 64 hex digits), "
            "e.g. the output of `git rev-parse HEAD`"
        )
    return text


def check_sizes(header: dict[str, Any], content: dict[str, Any]) -> None:
    """ValidationError naming the first field over its limit (nothing is written)."""
    for fields, limits in ((content, _CONTENT_LIMITS), (header, _HEADER_LIMITS)):
        for name, limit in limits:
            value = fields.get(name)
            if not isinstance(value, str) or len(value) * 4 <= limit:
                continue  # at most 4 bytes a character: short text needs no encoding
            size = len(value.encode("utf-8", "surrogatepass"))
            if size > limit:
                raise ValidationError(
                    f"{name} is {size:,} bytes; the limit is {limit // 1024:,} KB. Keep the "
                    "decision and its why here and link to longer material"
                )


def _path_refusal(*paths: str) -> str:
    """Why an entity path is refused, or "": one that holds a credential is refused, not
    masked (a masked path would be a different entity). Both the path as given and its
    canonical form are checked: canonicalising can hide a URL (`//` folds to `/`)."""
    for path in paths:
        kinds = _secret_kinds_in_path(path)
        if kinds:
            return (
                f"the entity path looks like it holds a secret ({', '.join(kinds)}); "
                "name the thing the decision is about, not its credential"
            )
    return ""


@lru_cache(maxsize=1 << 16)
def _secret_kinds_in_path(path: str) -> tuple[str, ...]:
    """Kinds of secret in an entity path (a bulk load names each entity many times)."""
    if not might_hold_secret(path):
        return ()
    return tuple(mask_secrets(path)[1])


def mask_event(
    header: dict[str, Any], content: dict[str, Any], masked: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`mask_fields` of both halves of an event, screened once for the whole event.

    Screening every field apart was a sixth of a bulk load. The screen of the fields'
    texts joined is never weaker than each field's own (a marker or an assignment in one
    field is in the joined text too), so when it finds nothing no field can change.
    A field holding more than text (metadata) takes the full walk.
    """
    texts = []
    for fields in (header, content):
        for name, value in fields.items():
            if not value or name in SHAPED_FIELDS:
                continue
            if type(value) is not str:
                return mask_fields(header, masked), mask_fields(content, masked)
            texts.append(value)
    if not might_hold_secret("\n".join(texts)):
        return header, content
    return mask_fields(header, masked), mask_fields(content, masked)


def mask_fields(fields: dict[str, Any], masked: list[str]) -> dict[str, Any]:
    """`fields` with every string in every field not in SHAPED_FIELDS masked (a copy)."""
    return {
        name: value if name in SHAPED_FIELDS else _mask_strings(value, masked)
        for name, value in fields.items()
    }


def _masked(value: str, masked: list[str]) -> str:
    """`value` with its secrets masked; the kinds found are added to `masked`."""
    if not value:
        return value
    if len(value) <= 256:  # labels (author, agent, session) repeat across a bulk load
        value, kinds = _mask_short(value)
    elif might_hold_secret(value):
        value, found = mask_secrets(value)
        kinds = tuple(found)
    else:
        return value
    masked.extend(k for k in kinds if k not in masked)
    return value


@lru_cache(maxsize=4096)
def _mask_short(value: str) -> tuple[str, tuple[str, ...]]:
    if not might_hold_secret(value):
        return value, ()
    text, kinds = mask_secrets(value)
    return text, tuple(kinds)


def _mask_strings(value: Any, masked: list[str]) -> Any:
    """`value` with every string inside it masked (a copy: the caller's draft is kept)."""
    if isinstance(value, str):
        return _masked(value, masked)
    if isinstance(value, dict):
        # Keys too: a metadata key is text that reaches the log like any other.
        return {_mask_strings(k, masked): _mask_strings(v, masked) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask_strings(v, masked) for v in value]
    return value


_dumps = orjson.dumps
_SORTED = orjson.OPT_SORT_KEYS
_SORTED_LINE = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
_encode_str = json.encoder.encode_basestring  # what the canonical encoder uses for text
_encode_any = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def _encode_member(value: Any) -> str:
    """Canonical JSON of one member's value; a list of strings (the parents) without the
    general encoder's Python-level walk, which was a tenth of a bulk load."""
    if type(value) is str:
        return _encode_str(value)
    if type(value) is list and all(type(v) is str for v in value):
        return "[" + ",".join(map(_encode_str, value)) + "]"
    return _encode_any(value)


def encode_event(header: dict[str, Any], content: dict[str, Any]) -> tuple[str, bytes]:
    """(id, line) for pruned header and content fields.

    The same bytes as `event_id` and `canonical_bytes` of the whole line (the one
    definition, in `cairn.store.canonical`), produced by orjson: with sorted keys and
    no options its output is byte for byte the canonical encoder's for what a prepared
    event holds (strings, lists, objects with string keys, integers, booleans, null),
    at a quarter of the cost of encoding each member in Python. What orjson refuses
    (an integer beyond 64 bits, a lone surrogate) takes the standard encoder.
    tests/store/test_canonical.py checks both against the one definition.
    """
    return _encode_owned(dict(header), content)


def _encode_owned(header: dict[str, Any], content: dict[str, Any]) -> tuple[str, bytes]:
    """`encode_event` of a header the caller gives away: the one dict becomes the id's
    header (with `content_digest`) and then the whole line, instead of two copies."""
    try:
        header["content_digest"] = sha256(_dumps(content, option=_SORTED)).hexdigest()
        eid = sha256(_dumps(header, option=_SORTED)).hexdigest()
        del header["content_digest"]
        header.update(content)
        header["id"] = eid
        return eid, _dumps(header, option=_SORTED_LINE)
    except TypeError:  # metadata orjson cannot hold (only content can fail)
        for name in ("content_digest", "id", *content):
            header.pop(name, None)
        return encode_event_by_members(header, content)


# Struct fields encode in definition order, which `LineFields` and `ContentFields`
# declare canonical (the order verify proves lines with).
_msgspec_encode = msgspec.json.Encoder().encode
_NO_METADATA: dict[str, Any] = {}


def _encode_plain(
    type_: str, entity: str, parents: list[str], entity_kind: str, supersedes: str,
    reverts: str, author: str, agent: str, session: str, commit: str, recorded_at: str,
    occurred_at: str, revisit_after: str, expires_when: str, stale_when: str,
    reasoning: str, alternative: str, diff: str,
) -> tuple[str, bytes] | None:  # fmt: skip
    """`encode_event` of an event without metadata whose fields are all text (the
    parents a list of text), from structs: the same bytes (a struct's fields are
    declared in canonical order and empty ones are omitted, which is `prune`; msgspec
    escapes text as the canonical encoder does, tests/store/test_write_fast_paths.py
    checks every code point) without building, copying and sorting dicts. None for
    what msgspec refuses (a lone surrogate, a subclass of str): the dict path decides.
    """
    try:
        content = ContentFields(alternative, diff, _NO_METADATA, reasoning)
        digest = sha256(_msgspec_encode(content)).hexdigest()
        # Positional, in `LineFields`' order: a keyword call cost ~2 us more an event.
        header = LineFields(
            agent, "", author, commit, digest, "", entity, entity_kind, expires_when, "",
            _NO_METADATA, occurred_at, parents, "", recorded_at, False, reverts,
            revisit_after, session, stale_when, supersedes, type_,
        )  # fmt: skip
        eid = sha256(_msgspec_encode(header)).hexdigest()
        line = LineFields(
            agent, alternative, author, commit, "", diff, entity, entity_kind, expires_when,
            eid, _NO_METADATA, occurred_at, parents, reasoning, recorded_at, False, reverts,
            revisit_after, session, stale_when, supersedes, type_,
        )  # fmt: skip
        return eid, _msgspec_encode(line) + b"\n"
    except (ValueError, TypeError):
        return None


def encode_event_by_members(header: dict[str, Any], content: dict[str, Any]) -> tuple[str, bytes]:
    """`encode_event` with the standard encoder, one member at a time (what orjson cannot
    encode; raises ValueError for text UTF-8 cannot hold)."""
    members: dict[str, str] = {}
    for key, value in header.items():
        members[key] = f'"{key}":{_encode_member(value)}'
    body = {}
    for key, value in content.items():
        body[key] = f'"{key}":{_encode_member(value)}'
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


def _parse_entity(raw: str) -> tuple[str, str]:
    """(canonical path, kind) of a raw entity path, or ValidationError."""
    # Through the process's cache, which the index also asks for a path's kind.
    parsed = parsed_or_none(raw) if isinstance(raw, str) else None
    if parsed is None:
        try:
            parsed = parse(raw)
        except EntityPathError as exc:
            raise ValidationError(str(exc)) from None
    return parsed.path, parsed.kind.value


# For request digests; `Preparer` keeps its own (parsing was a tenth of a bulk load).
_parsed = lru_cache(maxsize=1 << 12)(_parse_entity)
