"""What every importer shares: idempotency, dry runs, progress and the report.

An importer only yields `Proposed` events (or `Skipped` items); `run_import` does the
rest: it drops what an earlier run already wrote (by `metadata.source_key`), resolves
links between imported events (a supersede naming a revert imported in the same run
or an earlier one), writes in batches through `Store.append_many` (or, on a dry run,
checks each draft with the store's own validation, `Store.validator()`), and reports.
"""

from __future__ import annotations

import ast
import fcntl
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol, TypeVar

from cairn.limits import MAX_NESTING, LimitExceeded, nesting_within, read_source
from cairn.store.times import format_ts

AGENT_PREFIX = "cairn-import/"
BATCH_SIZE = 2000


class SourceError(Exception):
    """A source that cannot be imported at all (missing, unreadable, wrong format)."""


@dataclass
class Proposed:
    """One event an importer wants written, keyed for idempotency."""

    source_key: str
    type: str
    entity: str
    reasoning: str = ""
    occurred_at: str | None = None
    alternative: str | None = None
    diff: str | None = None
    author: str | None = None
    commit: str | None = None
    session: str | None = None
    revisit_after: str | None = None
    expires_when: str | None = None
    stale_when: str | None = None
    entity_kind: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    # Links to other imported events, by source key; resolved to ids at write time.
    supersedes_key: str | None = None
    reverts_key: str | None = None
    # A link to an event id that is already known (e.g. typed by a user).
    supersedes: str | None = None

    def describe(self) -> str:
        """`type entity` for human output."""
        return f"{self.type} {self.entity}"


@dataclass
class Skipped:
    """Something in the source that was not imported, and why."""

    item: str
    reason: str


@dataclass
class Known:
    """Events an earlier run imported from a source unit that was not read again."""

    count: int


@dataclass
class Note(Skipped):
    """Something imported with a change of meaning the user should know about."""


@dataclass
class ImportReport:
    """What an import did (or, on a dry run, would do)."""

    source: str
    dry_run: bool
    imported: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    notes: list[Skipped] = field(default_factory=list)  # imported, but mapped with a change
    already: int = 0

    def to_json(self) -> dict[str, Any]:
        """The report as a JSON-ready dict (stable key order)."""
        return {
            "source": self.source,
            "dry_run": self.dry_run,
            "imported": len(self.imported),
            "already_imported": self.already,
            "skipped": len(self.skipped),
            "events": self.imported,
            "skipped_items": [{"item": s.item, "reason": s.reason} for s in self.skipped],
            "notes": [{"item": n.item, "note": n.reason} for n in self.notes],
        }


class EventStore(Protocol):
    """The slice of `cairn.store.Store` an import needs."""

    def source_keys(self, prefix: str) -> set[str]: ...

    def append_many(self, drafts: list[Any]) -> list[Any]: ...

    def validator(self) -> Any: ...

    def history(self, entity: str, *, as_of: Any = None, include_children: bool = False) -> Any: ...


def iso(value: datetime) -> str:
    """An aware datetime as ISO 8601 in UTC with a `Z`."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    # Not strftime("%Y"): glibc writes year 999 as `999`, which no reader accepts.
    return format_ts(value)[:19] + "Z"


def normalise_time(raw: str) -> str:
    """Any ISO 8601 date or date-time (with or without an offset) as UTC `...Z`."""
    text = raw.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        return iso(datetime.fromisoformat(text))
    except (ValueError, OverflowError):
        raise SourceError(f"not an ISO 8601 date between years 0001 and 9999: {raw!r}") from None


@contextmanager
def one_import_at_a_time(cairn_dir: Path, waiting: Callable[[], None]) -> Iterator[None]:
    """Serialise imports into one log: two runs reading the imported keys before either
    wrote would both write everything (duplicates an append-only log cannot drop)."""
    # The lock is the .cairn folder itself (flock works on a directory on Linux and
    # macOS): no new file, and no clash with the store's own per-write lock file.
    fd = os.open(cairn_dir, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def make_draft(p: Proposed, agent: str, ids: dict[str, str]) -> Any:
    """Turn a proposal into a `cairn.store.EventDraft` (links resolved through `ids`)."""
    from cairn.store import EventDraft

    metadata = dict(p.metadata)
    metadata["source_key"] = p.source_key
    fields: dict[str, Any] = {
        "type": p.type,
        "entity": p.entity,
        "reasoning": p.reasoning,
        "agent": agent,
        "metadata": metadata,
    }
    optional = {
        "occurred_at": p.occurred_at,
        "alternative": p.alternative,
        "diff": p.diff,
        "author": p.author,
        "commit": p.commit,
        "session": p.session,
        "revisit_after": p.revisit_after,
        "expires_when": p.expires_when,
        "stale_when": p.stale_when,
        "entity_kind": p.entity_kind,
        "supersedes": p.supersedes,
    }
    if p.supersedes_key:
        optional["supersedes"] = ids[p.supersedes_key]
    if p.reverts_key:
        optional["reverts"] = ids[p.reverts_key]
    fields.update({k: v for k, v in optional.items() if v is not None})
    return EventDraft(**fields)


def _source_key_of(event: Any) -> str | None:
    metadata = getattr(event, "metadata", None) or {}
    key = metadata.get("source_key") if isinstance(metadata, dict) else None
    return key if isinstance(key, str) else None


class _Progress:
    """A rich progress bar on a terminal; silent otherwise (pipes, CI, tests)."""

    def __init__(self, label: str, enabled: bool) -> None:
        self._bar: Any = None
        self._task: Any = None
        if enabled and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._bar = Progress(
                TextColumn(label),
                BarColumn(),
                MofNCompleteColumn(),
                console=Console(stderr=True),
                transient=True,
            )

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.__enter__()
            self._task = self._bar.add_task("import", total=None)
        return self

    def total(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(self._task, total=n)

    def advance(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, n)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)


ProgressHook = Callable[[int], None]
_R = TypeVar("_R")


def guarded(rel: str, work: Callable[[], _R]) -> _R | Skipped:
    """What `work` makes of one source file, or why the file is skipped: over a size or
    nesting limit, or unreadable. A hostile file costs its own proposals, never the
    import's."""
    try:
        return work()
    except LimitExceeded as exc:
        return Skipped(rel, f"skipped: {exc}")
    except (RecursionError, MemoryError):
        return Skipped(rel, f"skipped: nested deeper than {MAX_NESTING} levels")
    except (OSError, UnicodeDecodeError) as exc:
        return Skipped(rel, f"unreadable: {exc}")


def parse_python(path: Path) -> tuple[str, ast.Module] | Skipped:
    """A Python migration's text and syntax tree (no code is executed), or why it is
    skipped: over the size limit or not a regular file, nested deeper than the limit,
    or not readable Python."""
    try:
        text = read_source(path)
        tree = ast.parse(text, filename=str(path))
        nesting_within(tree, ast.iter_child_nodes)
    except LimitExceeded as exc:
        return Skipped(str(path), str(exc))
    except (RecursionError, MemoryError):
        return Skipped(str(path), f"nested deeper than {MAX_NESTING} levels")
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as exc:
        return Skipped(str(path), f"not readable Python: {exc}")
    return text, tree


def run_import(
    store: EventStore,
    source: str,
    items: Iterable[Proposed | Skipped | Known],
    *,
    dry_run: bool = False,
    progress: bool = True,
    units: int | None = None,
    unit_done: list[ProgressHook] | None = None,
) -> ImportReport:
    """Write the new proposals of one import and report what happened.

    `unit_done` is a list the importer's generator can call into (files or commits
    finished) to move the progress bar; `run_import` fills it in.
    """
    agent = AGENT_PREFIX + source
    report = ImportReport(source=source, dry_run=dry_run)
    existing = store.source_keys(f"{source}:")
    # On a dry run the store still checks every draft (as one append_many would).
    validator = store.validator() if dry_run else None
    ids: dict[str, str] = {}
    refused: set[str] = set()
    keys_seen: set[str] = set()
    pending: list[Proposed] = []
    pending_keys: set[str] = set()

    def flush() -> None:
        if not pending:
            return
        if validator is not None:
            turned_down = _check(validator, pending, agent, ids, report)
        else:
            turned_down = _write(store, pending, agent, ids, report)
        if turned_down:
            refused.update(turned_down)
            report.imported = [e for e in report.imported if e["source_key"] not in turned_down]
        pending.clear()
        pending_keys.clear()

    def resolve(p: Proposed, key: str) -> bool:
        if key in pending_keys:
            flush()
        if key in ids:
            return True
        if key in existing:
            ids.update(_ids_from_history(store, p.entity, source))
        return key in ids

    with _Progress(f"import {source}", progress) as bar:
        if units is not None:
            bar.total(units)
        if unit_done is not None:
            unit_done.append(bar.advance)
        for item in items:
            if isinstance(item, Known):
                report.already += item.count
                continue
            if isinstance(item, Note):
                report.notes.append(item)
                continue
            if isinstance(item, Skipped):
                report.skipped.append(item)
                continue
            if item.source_key in existing or item.source_key in keys_seen:
                # Once per key: a source may propose one event twice (a dependency bumped
                # in two manifests by one commit), which a first run writes once.
                if item.source_key not in keys_seen:
                    keys_seen.add(item.source_key)
                    report.already += 1
                continue
            missing = [
                k for k in (item.supersedes_key, item.reverts_key) if k and not resolve(item, k)
            ]
            if missing:
                why = (
                    "which the log refused (see above)"
                    if missing[0] in refused
                    else "which is not in the log (outside the imported range?)"
                )
                report.skipped.append(Skipped(item.describe(), f"links to {missing[0]}, {why}"))
                continue
            keys_seen.add(item.source_key)
            pending.append(item)
            pending_keys.add(item.source_key)
            report.imported.append(_summary(item))
            if len(pending) >= BATCH_SIZE:
                flush()
        flush()
    return report


def _check(
    validator: Any, batch: list[Proposed], agent: str, ids: dict[str, str], report: ImportReport
) -> set[str]:
    """Dry run: ask the store's validation about each draft; report what it would refuse
    and return their source keys."""
    from cairn.store import StoreError

    turned_down: set[str] = set()
    for p in batch:
        try:
            # The would-be id lets later drafts link to this one, as in a real run.
            ids[p.source_key] = validator.check(make_draft(p, agent, ids)).id
        except StoreError as exc:
            report.skipped.append(Skipped(p.describe(), f"the log would refuse it: {exc}"))
            turned_down.add(p.source_key)
    return turned_down


def _write(
    store: EventStore, batch: list[Proposed], agent: str, ids: dict[str, str], report: ImportReport
) -> set[str]:
    """Append a batch in one transaction; if the store refuses one event, write the rest
    one by one so a single bad event is reported instead of sinking the import. Returns
    the source keys of those it refused."""
    from cairn.store import StoreError

    # The batch's report entries are the newest ones (appended as the batch was built).
    entries = {e["source_key"]: e for e in report.imported[-len(batch) :]}
    turned_down: set[str] = set()
    try:
        events = store.append_many([make_draft(p, agent, ids) for p in batch])
    except StoreError:
        events = []
        for p in batch:
            try:
                events.extend(store.append_many([make_draft(p, agent, ids)]))
            except StoreError as exc:
                report.skipped.append(Skipped(p.describe(), f"the log refused it: {exc}"))
                turned_down.add(p.source_key)
    for event in events:
        key = _source_key_of(event)
        if key is not None:
            ids[key] = event.id
            if key in entries:
                entries[key]["id"] = event.id
    return turned_down


def _ids_from_history(store: EventStore, entity: str, source: str) -> dict[str, str]:
    """Source key -> event id for the events an earlier run imported on `entity`."""
    found: dict[str, str] = {}
    for event in store.history(entity):
        key = _source_key_of(event)
        if key is not None and key.startswith(f"{source}:"):
            found[key] = event.id
    return found


def _summary(p: Proposed) -> dict[str, Any]:
    out: dict[str, Any] = {
        "source_key": p.source_key,
        "type": p.type,
        "entity": p.entity,
        "occurred_at": p.occurred_at,
    }
    if p.supersedes_key:
        out["supersedes"] = p.supersedes_key
    if p.reverts_key:
        out["reverts"] = p.reverts_key
    return out
