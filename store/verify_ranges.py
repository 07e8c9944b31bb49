"""`cairn verify`'s reading of the log: every line's id proven, in ranges of whole
lines, across worker processes when the log is large enough to repay starting them.

A range yields a `Chunk` of plain values: findings on its own lines (malformed, ids that
do not match), the ids it proved, and only what the checks across the whole log need
(the links it could not resolve by itself, its heads, its redactions). `scan` joins the
ranges into one `Scan`; when two ranges would have to look at each other's lines (a copy
of a line far from its original, a redaction and a full copy in different ranges) it
reads the log again in one range, so the result is always the one-process result.

Workers are forked (the log's bytes are shared, not copied) and only from a process
running one thread; without multiprocessing, on one core, or when a worker fails, its
range is read here. Most lines are proven by `cairn.store.fastproof.proven` from their
bytes; anything it declines is read the full way (`loads`, `proves_id`, `line_id`),
which decides every finding.
"""

from __future__ import annotations

import os
import sys
import threading
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from itertools import pairwise
from typing import Any

from cairn.store.canonical import CONTENT_FIELDS
from cairn.store.fastid import loads, proves_id
from cairn.store.fastproof import proven
from cairn.store.gcpause import gc_paused
from cairn.store.model import line_id

__all__ = ["PARALLEL_BYTES", "Scan", "scan"]


@dataclass(slots=True)
class Chunk:
    """What reading one byte range of the log found, in plain values (a worker process
    sends it back whole). Line numbers count from 0 at the range's first line.

    It holds what the checks across the whole log need, not the lines: at a million
    events holding every parsed line cost gigabytes.
    """

    newlines: int = 0  # the range's line breaks: the next range starts this many lines on
    lines: int = 0  # non-blank lines
    findings: list[tuple[str, str, int, str]] = field(default_factory=list)
    proven: list[str] = field(default_factory=list)  # ids proven, every copy, in order
    distinct: int = 0  # distinct ids in `proven`
    unproven: list[str] = field(default_factory=list)  # the ids other event lines claim
    redacted: list[str] = field(default_factory=list)  # ids of lines marked redacted
    # The first proven copy of an id whose parents or verdict links name an id no line
    # before it in the range holds: (line, id, parents, supersedes, reverts).
    pending: list[tuple[int, str, Any, Any, Any]] = field(default_factory=list)
    unredacted: list[tuple[int, str]] = field(default_factory=list)  # see _check_redactions
    heads: list[str] = field(default_factory=list)  # proven ids no proven line here names
    named_outside: list[str] = field(default_factory=list)  # named, not proven here
    keys: bytes = b""  # _key of each distinct proven id, as 64-bit integers


def _scan_range(data: bytes, start: int, end: int, earlier: frozenset[str]) -> Chunk:
    """Read the whole lines in data[start:end]: prove every event's id, report malformed
    lines and ids that do not match, and keep what the checks across the log need.

    Most lines are proven by `proven` from their bytes; anything it declines is read
    the full way, which decides every finding. `earlier` are the ids a previous verify
    saw redacted (a full copy of one appended since is a problem).
    """
    out = Chunk()
    findings, proven_ids, pending = out.findings, out.proven, out.pending
    redacted_at: set[int] = set()  # positions in `proven_ids` of redacted lines
    good: set[str] = set()  # every proven id so far
    # Instead of every named parent: the proven ids nothing named so far, and the names
    # of ids not proven when named. What is left of both at the end is what the heads
    # and the links between ranges need.
    unnamed: set[str] = set()
    early: set[str] = set()
    # Line numbers of proven ids: index + lines skipped before; (index, skipped) each
    # time a line is skipped (blank, malformed, unproven), which is rare.
    breaks: list[tuple[int, int]] = []
    skipped = blank = 0
    keep, known, prove = proven_ids.append, good.add, proven
    view, find = memoryview(data), data.find
    pos = start
    while pos < end:
        nl = find(b"\n", pos, end)
        hit = prove(view[pos:nl])
        if hit is not None:
            pos = nl + 1
            ident, parents, supersedes, reverts = hit
            keep(ident)
            if ident in good:
                continue  # a copy: the first one's links are checked (they are the same)
            known(ident)
            if ident not in early:
                unnamed.add(ident)
            if parents:
                unnamed.difference_update(parents)
                if not good.issuperset(parents):
                    early.update(p for p in parents if p not in good)
                    pending.append((len(proven_ids) - 1, ident, parents, supersedes, reverts))
                    continue
            if (supersedes and supersedes not in good) or (reverts and reverts not in good):
                pending.append((len(proven_ids) - 1, ident, parents, supersedes, reverts))
            continue
        # Everything the shortcut declines is read the full way, which decides findings.
        this = len(proven_ids) + skipped
        chunk = data[pos:nl]
        pos = nl + 1
        empty = not chunk or chunk.isspace()
        blank += empty
        event = None if empty else _read_line(chunk, this, findings)
        if event is None:
            skipped += 1
            breaks.append((len(proven_ids), skipped))
            continue
        eid: str = event["id"]
        redacted = bool(event.get("redacted"))
        if redacted:
            out.redacted.append(eid)
        problem = _id_problem(event, eid)
        if problem is not None:
            findings.append((problem[0], problem[1], this, eid))
            out.unproven.append(eid)
            skipped += 1
            breaks.append((len(proven_ids), skipped))
            continue
        if redacted:
            redacted_at.add(len(proven_ids))
        keep(eid)
        if eid in good:
            continue
        known(eid)
        if eid not in early:
            unnamed.add(eid)
        links: Any = event.get("parents") or ()
        unnamed.difference_update(links)
        early.update(p for p in links if p not in good)
        # A hand-made line: whatever its links hold, the full check looks at them.
        pending.append(
            (len(proven_ids) - 1, eid, links, event.get("supersedes"), event.get("reverts"))
        )
    out.newlines = len(proven_ids) + skipped
    out.lines, out.distinct = out.newlines - blank, len(good)
    number = _numbering(breaks)
    out.pending = [(number(i), *rest) for i, *rest in pending]
    red = earlier.union(out.redacted)
    if red:
        for i, ident in enumerate(proven_ids):
            if ident in red and i not in redacted_at:
                out.unredacted.append((number(i), ident))
    out.heads = list(unnamed)
    out.named_outside = list(early - good)
    out.keys = _keys(good)
    return out


def _read_line(
    chunk: bytes, number: int, findings: list[tuple[str, str, int, str]]
) -> dict[str, Any] | None:
    """A line read the full way: the parsed event (its id a string), or None when it is
    not an event (a finding says why)."""
    try:
        raw = loads(chunk)
    except ValueError:  # UnicodeDecodeError is one
        findings.append(("malformed", "not a JSON object (garbled or hand-edited)", number, ""))
        return None
    ident = raw.get("id") if isinstance(raw, dict) else None
    if not isinstance(ident, str) or not raw.get("type") or not raw.get("entity"):
        findings.append(("malformed", "not an event (missing id, type or entity)", number, ""))
        return None
    return raw


def _numbering(breaks: list[tuple[int, int]]) -> Callable[[int], int]:
    """The line number (from 0) of the proven id at an index, from the skip records."""
    at = [i for i, _ in breaks]

    def number(index: int) -> int:
        k = bisect_right(at, index)
        return index + (breaks[k - 1][1] if k else 0)

    return number


def _keys(ids: Iterable[str]) -> bytes:
    """The 64-bit keys (`_key`) of proven ids, packed: one C pass instead of an int()
    per id (proven ids are SHA-256 hex, so the first 8 bytes are the key)."""
    words = array("Q", bytes.fromhex("".join(ids)))[::4]
    if sys.byteorder == "little":
        words.byteswap()  # the key reads the hex big-end first
    return words.tobytes()


def _id_problem(raw: dict[str, Any], ident: str) -> tuple[str, str] | None:
    """(code, message) when a line's id is not proven by its contents, else None."""
    if raw.get("redacted") and any(raw.get(k) for k in CONTENT_FIELDS):
        return (
            "redacted-with-content",
            f"event {ident} is marked redacted but carries content its id "
            "does not cover (added after the redaction)",
        )
    if proves_id(raw):
        return None
    try:
        actual = line_id(raw)
    except (TypeError, ValueError) as exc:
        return "malformed", f"event {ident}: {exc}"
    if actual != ident:
        return (
            "id-mismatch",
            f"event {ident}: its id does not match its contents (the line was "
            f"edited after it was written; the contents hash to {actual[:12]})",
        )
    return None


@dataclass(slots=True)
class Scan:
    """The log's new lines, read (in ranges, perhaps by several processes) and joined."""

    lines: int
    # What the lines themselves showed (malformed, mismatch): (code, message, line, id).
    findings: list[tuple[str, str, int, str]]
    good: dict[str, int]  # proven ids in log order (first copy) -> the range holding them
    unproven: set[str]
    redacted: set[str]
    pending: list[tuple[int, str, Any, Any, Any]]
    unredacted: list[tuple[int, str]]
    heads: dict[int, set[str]]  # per range: proven ids nothing in it names
    named_outside: set[str]
    keys: set[int]
    end_line: int  # the line number after the last whole line


def _join(chunks: list[Chunk], first: int) -> Scan | None:
    """The ranges' findings as one log's, or None when an id is proven in two ranges
    (a copy far from its original) or a redaction in one range names a line proven in
    another: the caller then reads the log in one range, where both are plain."""
    joined = Scan(0, [], {}, set(), set(), [], [], {}, set(), set(), first)
    good = joined.good
    for n, chunk in enumerate(chunks):
        base = joined.end_line
        before = len(good)
        good.update(dict.fromkeys(chunk.proven, n))
        if len(good) - before != chunk.distinct:
            return None
        joined.lines += chunk.lines
        joined.findings.extend(
            (code, message, base + line, event) for code, message, line, event in chunk.findings
        )
        joined.unproven.update(chunk.unproven)
        joined.redacted.update(chunk.redacted)
        joined.pending.extend((base + line, *rest) for line, *rest in chunk.pending)
        joined.unredacted.extend((base + line, ident) for line, ident in chunk.unredacted)
        joined.heads[n] = set(chunk.heads)
        joined.named_outside.update(chunk.named_outside)
        joined.keys.update(array("Q", chunk.keys))
        joined.end_line = base + chunk.newlines
    if len(chunks) > 1:
        for n, chunk in enumerate(chunks):
            if any(good.get(ident, n) != n for ident in chunk.redacted):
                return None
    return joined


def scan(
    data: bytes,
    start: int,
    end: int,
    first: int,
    earlier: frozenset[str],
    hasher: Any,
    workers: int | None,
) -> Scan:
    """Read data[start:end] (whole lines; line `first` at `start`), in ranges across
    worker processes when the log is large enough to repay starting them, while a
    thread feeds the same bytes to `hasher` (hashlib lets go of the GIL for large
    inputs, so that hash costs no time here)."""
    count = workers if workers is not None else _workers(end - start)
    jobs = _start_workers(data, _split(data, start, end, count), earlier)
    feed = threading.Thread(target=hasher.update, args=(memoryview(data)[start:end],))
    feed.start()
    try:
        chunks = _collect(data, jobs, earlier)
    finally:
        feed.join()
    joined = _join(chunks, first) if len(chunks) > 1 else None
    if joined is None:
        whole = chunks if len(chunks) == 1 else [_scan_range(data, start, end, earlier)]
        joined = _join(whole, first)
        assert joined is not None  # one range cannot disagree with itself
    return joined


# Below this many bytes (about 15,000 events) a worker process costs more than it saves.
PARALLEL_BYTES = 8 << 20

_Job = tuple[Any, Any, int, int]  # (process, pipe end, start, end); process None: here


def _workers(size: int) -> int:
    """Processes worth starting for `size` bytes: one per usable core, once it pays."""
    if size < PARALLEL_BYTES:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, size // (PARALLEL_BYTES // 2)))


def _split(data: bytes, start: int, end: int, parts: int) -> list[int]:
    """Byte offsets cutting data[start:end] into `parts` runs of whole lines."""
    bounds = [start]
    for i in range(1, parts):
        cut = data.find(b"\n", start + (end - start) * i // parts, end) + 1
        if bounds[-1] < cut < end:
            bounds.append(cut)
    bounds.append(end)
    return bounds


def _fork() -> Any:
    """multiprocessing's fork context, or None where there is none or it is unsafe.

    Forking shares the log's bytes with the workers without copying them. It is only
    safe while this process runs one thread: a fork copies only the calling thread,
    and a lock another thread held stays held in the child forever.
    """
    if threading.active_count() > 1:
        return None
    try:
        import multiprocessing

        return multiprocessing.get_context("fork")
    except (ImportError, ValueError):  # no multiprocessing, or no fork on this platform
        return None


def _start_workers(data: bytes, bounds: list[int], earlier: frozenset[str]) -> list[_Job]:
    """One job per range: the first is read here, the others by forked workers (or here
    too when no worker can be started)."""
    ranges = list(pairwise(bounds))
    jobs: list[_Job] = [(None, None, *ranges[0])]
    context = _fork() if len(ranges) > 1 else None
    for lo, hi in ranges[1:]:
        if context is not None:
            try:
                reader, writer = context.Pipe(duplex=False)
                process = context.Process(
                    target=_work, args=(writer, data, lo, hi, earlier), daemon=True
                )
                process.start()
                writer.close()
                jobs.append((process, reader, lo, hi))
                continue
            except OSError:  # out of processes or memory: read it here
                context = None
        jobs.append((None, None, lo, hi))
    return jobs


def _collect(data: bytes, jobs: list[_Job], earlier: frozenset[str]) -> list[Chunk]:
    """Each job's chunk, in log order; a range whose worker failed is read here."""
    chunks = []
    try:
        for _, reader, lo, hi in jobs:
            values = None
            if reader is not None:
                try:
                    values = reader.recv()
                except (EOFError, OSError):
                    values = None
            chunks.append(Chunk(*values) if values else _scan_range(data, lo, hi, earlier))
    finally:
        for process, reader, _, _ in jobs:
            if reader is not None:
                reader.close()
                process.join()
    return chunks


def _work(conn: Any, data: bytes, start: int, end: int, earlier: frozenset[str]) -> None:
    """A worker: read one range and send its chunk back as plain values."""
    values = None
    try:
        with gc_paused():
            chunk = _scan_range(data, start, end, earlier)
        values = [getattr(chunk, f.name) for f in fields(Chunk)]
    except Exception:  # the parent reads the range itself and meets the same error
        values = None
    try:
        conn.send(values)
    finally:
        conn.close()
