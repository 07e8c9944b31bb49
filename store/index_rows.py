"""An event as the index knows it (`Row`), and the SQL that reads events back: by
entity, by id key, by path. Ingest and queries both read through these."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from operator import itemgetter
from typing import Any, NamedTuple

from cairn.store.dag import ChainPos
from cairn.store.index_schema import APPLIED_CODES, KEY_SHIFT, NOTE_CODES, RESTORED_BIT, TYPES
from cairn.store.model import EventType

# Applied events folded to their chain's latest; a rename is kept whole, as `derive`
# counts it as applied but never as a conflict, so it must not stand for a change.
FOLDED_CODES = APPLIED_CODES - {TYPES.index(EventType.RENAME)}

__all__ = ["Row", "id_key", "names_a_summarised_change"]


def id_key(event_id: str) -> int:
    """The 60-bit integer an id (or a 15+ char prefix) is indexed under."""
    return int(event_id[:15], 16)


def is_key_of(event_id: str, key: int) -> bool:
    """Whether `event_id` is indexed under `key` (False for a malformed id)."""
    try:
        return id_key(event_id) == key
    except ValueError:
        return False


_PRINT_WORD = re.compile(r"\+?[0-9a-f]{8}")


def print_code(word: str) -> int | None:
    """The integer a fingerprint word is listed under in `print_line`; None for a word
    of another shape (no line hash can equal it, so it is not listed)."""
    if not _PRINT_WORD.fullmatch(word):
        return None
    if word[0] == "+":
        return int(word[1:], 16) | RESTORED_BIT
    return int(word, 16)


def change_code(change: str) -> int:
    """The integer a revert's change (its commit, else its own id) is listed under: 56
    bits of a hash, so two changes sharing one only make a lookup read one more revert."""
    return int.from_bytes(hashlib.blake2b(change.encode(), digest_size=7).digest(), "big")


class Row(NamedTuple):
    """One event as the index knows it (no text). A tuple: thousands per editor batch."""

    seq: int  # its place in the index, in ingest order
    entity: int  # its entity's id in the `entity` table
    key: int  # its id key (`id_key`)
    type: EventType
    chain_pos: ChainPos  # its place in the DAG (`cairn.store.dag`)
    target_key: int | None  # the id key of the event a supersede or revert names
    recorded_ms: int  # recorded_at, ms since 1970
    occurred_ms: int | None  # occurred_at, ms since 1970
    off: int  # the line's byte span in the log, newline excluded
    len: int


def row_of(t: tuple[Any, ...]) -> Row:
    """The `Row` of a tuple in `EVENT_COLUMNS` order."""
    return Row(t[0], t[1], t[2], TYPES[t[3]], (t[4], t[5]), t[6], t[7], t[8], t[9], t[10])


by_seq = itemgetter(0)

EVENT_COLUMNS = (
    "seq, entity, id_key, type, chain, pos, target_key, recorded_ms, occurred_ms, "
    "line_offset, line_length"
)
SELECT_EVENTS = f"SELECT {EVENT_COLUMNS} FROM event"
_V_COLUMNS = ", ".join(f"v.{c.strip()}" for c in EVENT_COLUMNS.split(","))


def _by_key(columns: str, where: str) -> str:
    """`columns` of `event v` for the events whose bucket and key match `where` (of
    `l.bucket` and `v.id_key`), from both key lists: a join per list, not `seq IN` the
    lists (which builds a temporary table for every lookup)."""
    one = f"SELECT {columns} FROM {{}} l CROSS JOIN event v ON v.seq = l.seq WHERE {where}"
    return f"{one.format('key_events')} UNION ALL {one.format('key_events_recent')}"


# (seq, chain, pos) of the event with id key ?1; 1 when a sound event has it.
BY_KEY_SQL = _by_key("v.seq, v.chain, v.pos", f"l.bucket = ?1 >> {KEY_SHIFT} AND v.id_key = ?1")
KNOWN_SQL = _by_key("1", f"l.bucket = ?1 >> {KEY_SHIFT} AND v.id_key = ?1")
# The events whose keys are in [?1, ?2], in key order, ?3 at most.
BY_KEY_RANGE_SQL = (
    "SELECT * FROM ("
    + _by_key(
        _V_COLUMNS,
        f"l.bucket BETWEEN ?1 >> {KEY_SHIFT} AND ?2 >> {KEY_SHIFT} AND v.id_key BETWEEN ?1 AND ?2",
    )
    + ") ORDER BY id_key, seq LIMIT ?3"
)
# One entity's events (?1), each list read along its key (seq order) and not sorted:
# the callers sort the few rows in Python, for less than an ORDER BY costs.
ROWS_OF_ENTITY_SQL = (
    f"SELECT {_V_COLUMNS} FROM entity_events s CROSS JOIN event v ON v.seq = s.seq "
    "WHERE s.entity = ?1 UNION ALL "
    f"SELECT {_V_COLUMNS} FROM entity_events_recent s CROSS JOIN event v ON v.seq = s.seq "
    "WHERE s.entity = ?1"
)
# (path, event columns) for each event of the entities the query in {} names (path,
# id): per path the full list's rows (older than any recent one) first, each list read
# along its key, not sorted (see ROWS_OF_ENTITY_SQL); the entities are looked up once.
_BY_PATH_SQL = (
    "WITH t(path, id) AS ({}) "
    f"SELECT t.path, {_V_COLUMNS} FROM t CROSS JOIN entity_events s ON s.entity = t.id "
    "CROSS JOIN event v ON v.seq = s.seq UNION ALL "
    f"SELECT t.path, {_V_COLUMNS} FROM t CROSS JOIN entity_events_recent s ON s.entity = t.id "
    "CROSS JOIN event v ON v.seq = s.seq"
)
# The events of the paths in ?1 (a JSON list).
BY_PATHS_SQL = _BY_PATH_SQL.format(
    "SELECT path, id FROM entity WHERE path IN (SELECT value FROM json_each(?))"
)
# The same, one lookup a path in their given order (what a status derivation reads).
BY_PATHS_IN_ORDER_SQL = _BY_PATH_SQL.format(
    "SELECT e.path, e.id FROM json_each(?) j CROSS JOIN entity e ON e.path = j.value"
)
# The stored status rows of many paths (?1: a JSON list), one lookup a path.
STATUS_ROWS_SQL = (
    "SELECT s.path, s.status, s.event_count, s.note_count, s.kind, s.detail FROM json_each(?) j "
    "CROSS JOIN entity_status s ON s.path = j.value"
)


def summarise(
    cursor: Iterable[tuple[Any, ...]], keys: list[Any]
) -> Iterator[tuple[Any, tuple[list[Row], int, int]]]:
    """Per key (the first column): every verdict, supersede and removal, but of the
    applied events only the latest of each DAG chain (within a chain a later position
    descends from every earlier one, so it alone decides ancestry), the event count and
    how many of those are notes (`EventType.is_note`; `status_rows.advance` counts the
    same)."""
    rows: dict[Any, list[Row]] = {k: [] for k in keys}
    counts: dict[Any, int] = dict.fromkeys(keys, 0)
    notes: dict[Any, int] = dict.fromkeys(keys, 0)
    latest: dict[tuple[Any, int], tuple[Any, ...]] = {}  # (key, chain) -> applied row
    # One pass in SQLite's order; a GROUP BY in SQL cost more than this loop.
    for t in cursor:
        k = t[0]
        counts[k] += 1
        if t[4] in FOLDED_CODES:
            lk = (k, t[5])
            best = latest.get(lk)
            if best is None or t[6] > best[6]:
                latest[lk] = t
        else:
            if t[4] in NOTE_CODES:
                notes[k] += 1
            rows[k].append(row_of(t[1:]))
    for (k, _), t in latest.items():
        rows[k].append(row_of(t[1:]))
    for k in keys:
        yield k, (rows[k], counts[k], notes[k])


def names_a_summarised_change(rows: list[Row]) -> bool:
    """True when a revert's `reverts` points at an applied event of the entity that is
    the latest of its chain: earlier ones in that chain were folded away."""
    refs = {r.target_key for r in rows if r.type is EventType.REVERT and r.target_key is not None}
    return any(r.key in refs for r in rows if r.type.is_applied)
