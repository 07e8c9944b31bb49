"""`cairn import sql`: SQL migration directories, applied in their real order.

Flyway (`V1__x.sql`, `V1.2__y.sql`: versions compare numerically, so V2 < V10;
`R__` repeatables run last; `U` undo scripts are skipped), golang-migrate and dbmate
(`0001_x.up.sql`, `.down.sql` skipped; dbmate's `-- migrate:down` section ignored),
Rails-style timestamps (`20230102120000_x.sql`), and plain files sorted by name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from cairn.importers.base import Proposed, Skipped, SourceError, guarded, iso
from cairn.importers.dates import (
    absolute,
    commit_reason,
    file_author,
    file_date,
    file_history,
)
from cairn.importers.ddl import Change, parse_sql
from cairn.limits import read_source

SOURCE = "sql"

# File names are metadata, not code: matching them with patterns is how Flyway and
# golang-migrate themselves order migrations.
_FLYWAY = re.compile(r"^(?P<prefix>[VU])(?P<version>\d+(?:[._]\d+)*)__(?P<desc>.*)\.sql$", re.I)
_REPEATABLE = re.compile(r"^R__(?P<desc>.*)\.sql$", re.I)
_NUMBERED = re.compile(r"^(?P<version>\d+)[_-](?P<desc>.*?)(?P<dir>\.up|\.down)?\.sql$", re.I)
_RAILS_STAMP = re.compile(r"^\d{14}$")


@dataclass(frozen=True)
class Migration:
    """One migration file and where it sorts."""

    path: Path
    order: tuple[int, tuple[int, ...], str]
    description: str
    stamp: str | None  # a timestamp the file name carries (Rails/dbmate style)


def classify(path: Path) -> Migration | Skipped:
    """Where a file sorts among migrations, or why it is not one to apply."""
    name = path.name
    m = _FLYWAY.match(name)
    if m:
        if m["prefix"].upper() == "U":
            return Skipped(str(path), "Flyway undo migration (runs only on rollback)")
        version = tuple(int(p) for p in re.split(r"[._]", m["version"]))
        return Migration(path, (0, version, name), _describe(m["desc"]), None)
    m = _REPEATABLE.match(name)
    if m:
        return Migration(path, (2, (), name), _describe(m["desc"]), None)
    m = _NUMBERED.match(name)
    if m:
        if (m["dir"] or "").lower() == ".down":
            return Skipped(str(path), "down migration (runs only on rollback)")
        stamp = m["version"] if _RAILS_STAMP.match(m["version"]) else None
        return Migration(path, (0, (int(m["version"]),), name), _describe(m["desc"]), stamp)
    return Migration(path, (1, (), name), _describe(path.stem), None)


def _describe(raw: str) -> str:
    return raw.replace("__", " ").replace("_", " ").strip()


def ordered_migrations(paths: list[Path]) -> tuple[list[Migration], list[Skipped]]:
    """All `.sql` files under `paths`, in the order a migration tool applies them."""
    found: list[Migration] = []
    skipped: list[Skipped] = []
    for base in paths:
        if not base.exists():
            raise SourceError(f"{base}: no such file or directory")
        base = base.resolve()  # once: the files below inherit an absolute path
        files = [base] if base.is_file() else sorted(base.rglob("*.sql"))
        if base.is_file() and base.suffix.lower() != ".sql":
            raise SourceError(f"{base}: not a .sql file")
        if not files:  # most likely a mistyped folder: say so rather than import nothing
            raise SourceError(f"{base}: no .sql files found")
        for f in files:
            item = classify(f)
            (skipped if isinstance(item, Skipped) else found).append(item)  # type: ignore[arg-type]
    found.sort(key=lambda m: m.order)
    return found, skipped


def stamp_date(stamp: str) -> str:
    """`20230102120000` -> `2023-01-02T12:00:00Z`."""
    return iso(datetime.strptime(stamp, "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc))


def relative(path: Path, root: Path) -> str:
    """A path relative to the project root when inside it (stable source keys)."""
    resolved = absolute(path)
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)


def statement_digest(sql: str) -> str:
    """12 hex digits naming a statement by its text, blind to layout and a final `;`."""
    normal = " ".join(sql.split()).rstrip(";").rstrip()
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()[:12]


def _identity(ch: Change) -> str:
    """The text that names one change for its source key."""
    # A column defined inside CREATE TABLE (or create_table) is named by its own
    # definition and the table's creation by the table, so adding a column to that
    # statement (a schema file edited in place) imports just the new column.
    definition = ch.metadata.get("definition")
    if isinstance(definition, str):
        return definition
    if ch.type == "create" and "renamed_from" not in ch.metadata:
        return "create"
    return ch.sql


def file_proposals(
    read: Callable[[], tuple[list[Change], Iterable[str]]],
    *,
    source: str,
    rel: str,
    reasoning: str,
    occurred_at: str,
    extra: dict[str, object],
    author: str | None,
    unit_done: list | None,
) -> Iterator[Proposed | Skipped]:
    """One migration file's share of an import, in the order every importer gives it:
    a note for each part `read()` could not make sense of, a proposal for each change
    it found, then a tick of the progress bar (`unit_done`). A file `read()` fails on
    (see `guarded`) is one `Skipped`, and no tick.

    A proposal is keyed `source:rel:<digest>:entity`: the key names a change by its
    text, not its position, so inserting a statement into an imported migration imports
    just that statement; `#2`, `#3`... tell apart identical changes on the same entity
    in one file.
    """
    got = guarded(rel, read)
    if isinstance(got, Skipped):
        yield got
        return
    changes, unknown = got
    for note in unknown:
        yield Skipped(rel, note)
    used: dict[str, int] = {}
    # A comment above the first statement is the file's header: it explains them all.
    header = next((c.comment for c in changes if c.statement == 0 and c.comment), "")
    for ch in changes:
        key = f"{source}:{rel}:{statement_digest(_identity(ch))}:{ch.entity}"
        used[key] = used.get(key, 0) + 1
        if used[key] > 1:
            key = f"{key}#{used[key]}"
        notes = [n for n in (header, ch.comment) if n]
        sep = "\n\n" if "\n" in reasoning else ": "  # a commit message with a body
        why = reasoning + (sep + " ".join(dict.fromkeys(notes)) if notes else "")
        yield Proposed(
            source_key=key,
            type=ch.type,
            entity=ch.entity,
            entity_kind=ch.kind,
            reasoning=why,
            diff=ch.sql,
            occurred_at=occurred_at,
            author=author,
            metadata={"file": rel, "statement": ch.statement, **extra, **ch.metadata},
        )
    for hook in unit_done or []:
        hook(1)


def import_sql(
    paths: list[Path], root: Path, unit_done: list | None = None
) -> tuple[int, Iterator[Proposed | Skipped]]:
    """(number of files, the proposals in apply order)."""
    migrations, skipped = ordered_migrations(paths)
    added, dates = file_history([m.path for m in migrations])

    def items() -> Iterator[Proposed | Skipped]:
        for s in skipped:
            yield Skipped(relative(Path(s.item), root), s.reason)
        for m in migrations:
            rel = relative(m.path, root)
            text = guarded(rel, lambda: read_source(m.path))  # noqa: B023
            if isinstance(text, Skipped):
                yield text
                continue
            if m.stamp:
                when, origin = stamp_date(m.stamp), "file name"
            else:
                when, origin = file_date(m.path, dates)
            changes: list[Change] = []
            for entry in parse_sql(text):
                if isinstance(entry, Change):
                    changes.append(entry)
                else:
                    snippet = " ".join(entry.sql.split())[:60]
                    yield Skipped(f"{rel} statement {entry.statement + 1}: {snippet}", entry.reason)
            yield from file_proposals(
                lambda: (changes, ()),  # noqa: B023 (file_proposals calls it at once)
                source=SOURCE,
                rel=rel,
                # The commit that added the file says why; the file name says only what.
                reasoning=commit_reason(
                    added, m.path, f"Migration {m.path.name} ({m.description})"
                ),
                occurred_at=when,
                extra={"date_from": origin},
                author=file_author(m.path, dates),
                unit_done=unit_done,
            )

    return len(migrations), items()
