"""`cairn import selvedge DB`: a Selvedge SQLite database, imported losslessly.

Every row of Selvedge's `events` table becomes one Cairn event: the change type is
the same word (Cairn's vocabulary is Selvedge's), reasoning, diff, session, git commit,
revisit/expiry/stale fields map one to one, `supersedes` links are re-pointed at the
imported events, and what Cairn has no field for (Selvedge's id, entity type, agent,
project, changeset, `constraint`, its own metadata) is kept under `metadata.selvedge`.
Entity paths go through Cairn's grammar; a Selvedge endpoint path such as
`api/v1/users` becomes `route/ANY /api/v1/users`. Rows that cannot be mapped are
reported, never dropped silently.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cairn.importers.base import Note, Proposed, Skipped, SourceError, normalise_time
from cairn.store.paths import EntityPathError, canonicalise, parse, route_path

SOURCE = "selvedge"
CHANGE_TYPES = frozenset(
    {
        "add",
        "remove",
        "modify",
        "rename",
        "retype",
        "create",
        "delete",
        "index_add",
        "index_remove",
        "migrate",
        "supersede",
        "revert",
        "reject",
    }
)
_KINDS = {
    "column": "column",
    "table": "table",
    "file": "file",
    "function": "function",
    "class": "class",
    "endpoint": "route",
    "dependency": "dependency",
    "env_var": "env",
}
# Fields carried over under metadata.selvedge because Cairn has no column for them.
_KEPT = ("id", "entity_type", "entity_path", "agent", "project", "changeset_id", "constraint")
VERDICTS = frozenset({"revert", "reject"})


def map_expiry(raw: str) -> tuple[str, str | None]:
    """Selvedge's `expires_when` in Cairn's grammar (date:, entity:…:changes, manual:).

    `library:NAME>=VERSION` has no Cairn equivalent; it becomes a manual review label
    that says the same thing, and the original stays in metadata.
    """
    kind, _, rest = raw.partition(":")
    if kind == "date":
        return f"date:{rest[:10]}", None
    if kind == "entity" and rest.endswith(":changes"):
        try:
            return f"entity:{canonicalise(rest[: -len(':changes')])}:changes", None
        except EntityPathError:
            pass
    if kind == "manual":
        return raw, None
    return f"manual:{raw}", f"expires_when {raw!r} has no Cairn equivalent: kept as manual review"


def open_db(path: Path) -> sqlite3.Connection:
    """Open a Selvedge database read-only, or say why it is not one."""
    if path.is_dir():
        raise SourceError(f"{path} is a directory; give the Selvedge database file")
    if not path.is_file():
        raise SourceError(f"{path}: no such file")
    try:
        # as_uri() escapes `#`, `?` and `%`, which a raw `file:` URI would misread.
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        cols = {r[1] for r in conn.execute("PRAGMA table_info(events)")}
    except sqlite3.DatabaseError as exc:
        raise SourceError(f"{path}: not a SQLite database ({exc})") from None
    missing = {"id", "timestamp", "entity_path", "change_type"} - cols
    if missing:
        raise SourceError(
            f"{path}: not a Selvedge database (events table lacks {', '.join(sorted(missing))})"
        )
    return conn


def map_entity(raw: str, entity_type: str) -> tuple[str, str | None]:
    """(Cairn entity path, a note when the mapping changed its meaning) or EntityPathError."""
    text = raw.strip()
    if entity_type == "endpoint" and not text.startswith("route/"):
        method, _, rest = text.partition(" ")
        if method.upper() in ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS") and rest:
            return route_path(method, rest), None
        return route_path("ANY", text), "endpoint without an HTTP method: mapped to route/ANY"
    return parse(text).path, None


def _metadata(row: sqlite3.Row, keys: set[str]) -> dict[str, Any]:
    kept: dict[str, Any] = {k: row[k] for k in _KEPT if k in keys and row[k] not in (None, "")}
    raw = row["metadata"] if "metadata" in keys else None
    if raw and raw != "{}":
        try:
            kept["metadata"] = json.loads(raw)
        except ValueError:
            kept["metadata"] = raw
    return kept


def import_selvedge(
    db: Path, root: Path, unit_done: list | None = None
) -> tuple[int, Iterator[Proposed | Skipped]]:
    """(number of rows, the proposals in Selvedge's timestamp order)."""
    conn = open_db(db)
    keys = {r[1] for r in conn.execute("PRAGMA table_info(events)")}
    total = conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    types = {str(i): str(t) for i, t in conn.execute("SELECT id, change_type FROM events")}

    def col(row: sqlite3.Row, name: str) -> str:
        value = row[name] if name in keys else None
        return "" if value is None else str(value)

    def items() -> Iterator[Proposed | Skipped]:
        yield from _links_first(rows())

    def rows() -> Iterator[Proposed | Skipped]:
        try:
            rows = conn.execute("SELECT * FROM events ORDER BY timestamp, rowid")
            for row in rows:
                for hook in unit_done or []:
                    hook(1)
                label = f"{row['id']} ({row['change_type']} {row['entity_path']})"
                ctype = str(row["change_type"])
                if ctype not in CHANGE_TYPES:
                    yield Skipped(label, f"unknown change type {ctype!r}")
                    continue
                try:
                    entity, note = map_entity(str(row["entity_path"]), col(row, "entity_type"))
                except EntityPathError as exc:
                    yield Skipped(label, f"entity path cannot be mapped: {exc}")
                    continue
                try:
                    when = normalise_time(str(row["timestamp"]))
                except SourceError as exc:
                    yield Skipped(label, str(exc))
                    continue
                metadata: dict[str, Any] = {"selvedge": _metadata(row, keys)}
                notes = [note] if note else []
                reasoning = col(row, "reasoning").strip()
                if not reasoning:
                    # Cairn requires a reason; say plainly that none was recorded.
                    reasoning = f"(no reasoning recorded in Selvedge for this {ctype})"
                    metadata["selvedge"]["reasoning"] = ""
                alternative = None
                if ctype == "reject":
                    # Selvedge has no field for the rejected approach; its diff is the
                    # closest thing, else the reasoning says what was turned down.
                    alternative = col(row, "diff") or reasoning
                expires = col(row, "expires_when")
                if expires:
                    expires, expiry_note = map_expiry(expires)
                    if expiry_note:
                        notes.append(expiry_note)
                        metadata["selvedge"]["expires_when"] = col(row, "expires_when")
                supersedes = col(row, "supersedes")
                if supersedes and ctype != "supersede":
                    metadata["selvedge"]["supersedes"] = supersedes
                    supersedes = ""
                if ctype == "supersede":
                    target = types.get(supersedes)
                    if target not in VERDICTS:
                        # Cairn re-opens only verdicts; a supersede of anything else is
                        # a plain change that points back at what it replaced.
                        ctype = "modify"
                        metadata["selvedge"]["change_type"] = "supersede"
                        metadata["selvedge"]["supersedes"] = supersedes
                        notes.append(
                            f"supersede of a {target or 'missing'} event: Cairn supersedes "
                            "only reverts and rejects, so it is a modify that links back"
                        )
                        supersedes = ""
                if notes:
                    metadata["mapping_notes"] = notes
                    for text in notes:
                        yield Note(label, text)
                yield Proposed(
                    source_key=f"{SOURCE}:{row['id']}",
                    type=ctype,
                    entity=entity,
                    entity_kind=_KINDS.get(col(row, "entity_type"), ""),
                    reasoning=reasoning,
                    alternative=alternative,
                    diff=col(row, "diff") or None,
                    occurred_at=when,
                    session=col(row, "session_id") or None,
                    commit=_commit_or_note(col(row, "git_commit"), metadata),
                    revisit_after=col(row, "revisit_after") or None,
                    expires_when=expires or None,
                    stale_when=col(row, "stale_when") or None,
                    supersedes_key=f"{SOURCE}:{supersedes}" if supersedes else None,
                    metadata=metadata,
                )
        finally:
            conn.close()

    return total, items()


def _links_first(items: Iterator[Proposed | Skipped]) -> Iterator[Proposed | Skipped]:
    """Yield a supersede only after the event it names, whatever the clocks said."""
    pending = list(items)
    present = {p.source_key for p in pending if isinstance(p, Proposed)}
    done: set[str] = set()
    waiting: dict[str, list[Proposed]] = {}

    def release(p: Proposed) -> Iterator[Proposed]:
        stack = [p]
        while stack:
            item = stack.pop()
            done.add(item.source_key)
            yield item
            stack.extend(reversed(waiting.pop(item.source_key, [])))

    for item in pending:
        if isinstance(item, Skipped):
            yield item
            continue
        target = item.supersedes_key
        if target and target in present and target not in done:
            waiting.setdefault(target, []).append(item)
            continue
        yield from release(item)
    for stuck in waiting.values():  # a cycle of supersedes: let the runner report them
        yield from stuck


_HEX_COMMIT = re.compile(r"^[0-9a-fA-F]{4,64}$")


def _commit_or_note(raw: str, metadata: dict[str, Any]) -> str | None:
    """A Selvedge `git_commit` that is a hex id; anything else (a branch name, free text)
    is kept in the metadata, since Cairn's `commit` field holds only commit ids."""
    if not raw or _HEX_COMMIT.match(raw.strip()):
        return raw or None
    metadata.setdefault("selvedge", {})["git_commit"] = raw
    return None
