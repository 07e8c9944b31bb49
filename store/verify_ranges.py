"""`cairn verify`'s reading of the log: every line's id proven, in ranges of whole
lines, across worker processes when the log is large enough to repay starting them.

A range yields a `Chunk` of plain values: findings on its own lines (malformed, ids that
do not match), the ids it proved, and only what the checks across the whole log need
(the links it could not resolve by itself, its heads, its redactions). `scan` joins the
ranges into one `Scan`; when two ranges would have to look at each other's lines (a copy
of a line far from its original, a redaction and a full copy in different ranges) it
reads the log again in one range, so the result is always the one-process result.

Each process reads only its own range from the file (`LogBytes`), and workers are
forked only from a process running one thread; without multiprocessing, on one core,
or when a worker fails, its range is read here. Most lines are proven by
`cairn.store.fastid.proven` from their bytes; anything it declines is read the full
way (`loads`, `line_id`), which decides every finding.
"""

from __future__ import annotations

import os
import sys
import threading
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from typing import Any

from cairn.store.canonical import CONTENT_FIELDS
from cairn.store.fastid import loads, proven
from cairn.store.gcpause import gc_paused
from cairn.store.model import line_id

__all__ = ["PARALLEL_BYTES", "LogBytes", "Scan", "scan"]


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


def _scan_range(
    data: bytes, start: int, end: int, earlier: frozenset[str], careful: bool = False
) -> Chunk:
    """Read the whole lines in data[start:end]: prove every event's id, report malformed
    lines and ids that do not match, and keep what the checks across the log need.

    Most lines are proven by `proven` from their bytes; anything it declines is read
    the full way, which decides every finding. `earlier` are the ids a previous verify
    saw redacted (a full copy of one appended since is a problem).

    Unless `careful`, no set of the ids is kept while reading (at a million ids each
    insertion misses the cache): a copy of a line would then be counted twice, which
    `_join` notices (`distinct`), and the caller reads the log again, carefully.
    """
    out = Chunk()
    findings, proven_ids, pending = out.findings, out.proven, out.pending
    redacted_at: set[int] = set()  # positions in `proven_ids` of redacted lines
    good: set[str] = set()  # when careful: every proven id so far
    # Instead of every named parent: the proven ids nothing named since they were read,
    # and the names of ids that were not among those when named (ids further back, in
    # another range, or nowhere). The heads and the links across ranges need no more.
    unnamed: set[str] = set()
    early: set[str] = set()
    last = ""  # the last proven id: a writer's line usually names just that one
    # Line numbers of proven ids: index + lines skipped before; (index, skipped) each
    # time a line is skipped (blank, malformed, unproven), which is rare.
    breaks: list[tuple[int, int]] = []
    skipped = blank = 0
    keep, prove = proven_ids.append, proven
    view, find = memoryview(data), data.find
    pos = start
    while pos < end:
        nl = find(b"\n", pos, end)
        hit = prove(view[pos:nl])
        if hit is not None:
            pos = nl + 1
            ident, parents, supersedes, reverts = hit
            keep(ident)
            if careful and _again(good, ident):
                continue  # a copy: the first one's links are checked (they are the same)
            if ident not in early:
                unnamed.add(ident)
            if parents and not (len(parents) == 1 and parents[0] == last):
                for parent in parents:
                    if parent in unnamed:
                        unnamed.discard(parent)
                    else:
                        early.add(parent)
                pending.append((len(proven_ids) - 1, ident, parents, supersedes, reverts))
            else:
                if parents:
                    unnamed.discard(last)
                if supersedes or reverts:
                    pending.append((len(proven_ids) - 1, ident, parents, supersedes, reverts))
            last = ident
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
        if careful and _again(good, eid):
            continue
        if eid not in early:
            unnamed.add(eid)
        links: Any = event.get("parents") or ()
        for parent in links:
            if parent in unnamed:
                unnamed.discard(parent)
            else:
                early.add(parent)
        # A hand-made line: whatever its links hold, the full check looks at them.
        pending.append(
            (len(proven_ids) - 1, eid, links, event.get("supersedes"), event.get("reverts"))
        )
        last = eid
    out.heads, out.named_outside = list(unnamed), list(early)
    return _numbered(out, skipped, blank, breaks, earlier, redacted_at, good if careful else None)


def _again(seen: set[str], ident: str) -> bool:
    """Whether a careful scan saw `ident` before (it is noted as seen now)."""
    if ident in seen:
        return True
    seen.add(ident)
    return False


def _numbered(
    out: Chunk,
    skipped: int,
    blank: int,
    breaks: list[tuple[int, int]],
    earlier: frozenset[str],
    redacted_at: set[int],
    distinct: set[str] | None,
) -> Chunk:
    """`out` with its counts, its lines numbered (`breaks`: see `_scan_range`) and its
    ids keyed; `distinct` is every proven id once, when the scan was careful."""
    proven_ids = out.proven
    out.newlines = len(proven_ids) + skipped
    out.lines = out.newlines - blank
    out.distinct = len(distinct) if distinct is not None else len(proven_ids)
    number = _numbering(breaks)
    out.pending = [(number(i), *rest) for i, *rest in out.pending]
    red = earlier.union(out.redacted)
    if red:
        for i, ident in enumerate(proven_ids):
            if ident in red and i not in redacted_at:
                out.unredacted.append((number(i), ident))
    out.keys = _keys(distinct if distinct is not None else proven_ids)
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
    good: set[str]  # the proven ids
    ids: list[str]  # the same, in log order (first copy)
    unproven: set[str]
    redacted: set[str]
    pending: list[tuple[int, str, Any, Any, Any]]
    unredacted: list[tuple[int, str]]
    heads: set[str]  # proven ids that nothing in their own range names
    named_outside: set[str]  # names of ids a range did not hold when it named them
    key_parts: list[bytes]  # each range's packed 64-bit keys (`Chunk.keys`)
    end_line: int  # the line number after the last whole line


def _join(chunks: list[Chunk], first: int) -> Scan | None:
    """The ranges' findings as one log's, or None when an id is proven twice without
    the range having looked (a copy of a line) or a redaction in one range names a line
    proven in another: the caller then reads the log carefully in one range."""
    joined = Scan(0, [], set(), [], set(), set(), [], [], set(), set(), [], first)
    good = joined.good
    for chunk in chunks:
        base = joined.end_line
        before = len(good)
        good.update(chunk.proven)
        if len(good) - before != chunk.distinct:
            return None
        joined.ids.extend(
            chunk.proven if chunk.distinct == len(chunk.proven) else dict.fromkeys(chunk.proven)
        )
        joined.lines += chunk.lines
        joined.findings.extend(
            (code, message, base + line, event) for code, message, line, event in chunk.findings
        )
        joined.unproven.update(chunk.unproven)
        joined.redacted.update(chunk.redacted)
        joined.pending.extend((base + line, *rest) for line, *rest in chunk.pending)
        joined.unredacted.extend((base + line, ident) for line, ident in chunk.unredacted)
        joined.heads.update(chunk.heads)
        joined.named_outside.update(chunk.named_outside)
        joined.key_parts.append(chunk.keys)
        joined.end_line = base + chunk.newlines
    if len(chunks) > 1 and joined.redacted:
        # Each range checked its own copies of what it saw redacted; a full copy in
        # another range is beyond it.
        holders: dict[str, set[int]] = {}
        for n, chunk in enumerate(chunks):
            for ident in joined.redacted.intersection(chunk.proven):
                holders.setdefault(ident, set()).add(n)
        for n, chunk in enumerate(chunks):
            if any(holders.get(ident, {n}) - {n} for ident in chunk.redacted):
                return None
    return joined


class LogBytes:
    """The log read on demand through one open file: each process reads only the range
    it proves (`os.pread` keeps no shared offset, so a forked worker reads beside this
    process), the whole-file hash streams it in pieces, and no process holds all of it.

    The size is taken once: lines appended meanwhile are for the next verify. A file
    that shrinks meanwhile reads short, as a truncated log does.
    """

    PIECE = 16 << 20
    HASH_PIECE = 1 << 20  # fits in the caches the hash reads it from

    def __init__(self, fd: int | None) -> None:
        self.fd = fd
        self.size = os.fstat(fd).st_size if fd is not None else 0

    def read(self, lo: int, hi: int) -> bytes:
        """The bytes in [lo, hi)."""
        if self.fd is None or hi <= lo:
            return b""
        parts = []
        while lo < hi:
            piece = os.pread(self.fd, min(hi - lo, 1 << 30), lo)
            if not piece:
                break
            parts.append(piece)
            lo += len(piece)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def pieces(self, lo: int, hi: int) -> Iterator[bytes]:
        """The bytes in [lo, hi), a piece at a time."""
        for at in range(lo, hi, self.PIECE):
            piece = self.read(at, min(hi, at + self.PIECE))
            if not piece:
                return
            yield piece

    def feed(self, hasher: Any, lo: int, hi: int) -> None:
        """Hash [lo, hi) into `hasher` (hashlib lets go of the GIL for large pieces).

        The bytes go through one reused 1 MiB buffer, which stays in the CPU's caches
        between the copy from the page cache and the hash; a fresh 16 MiB piece is read
        back from memory (59 against 34.5 ms for a 100k log's 54 MB).
        """
        if self.fd is None or hi <= lo:
            return
        if not hasattr(os, "preadv"):  # not on Linux or the BSDs: a piece at a time
            for piece in self.pieces(lo, hi):
                hasher.update(piece)
            return
        view = memoryview(bytearray(min(self.HASH_PIECE, hi - lo)))
        while lo < hi:
            got = os.preadv(self.fd, [view[: min(hi - lo, len(view))]], lo)
            if got <= 0:
                return  # the file shrank meanwhile: it hashes short, as it reads short
            hasher.update(view[:got])
            lo += got

    def count_newlines(self, lo: int, hi: int) -> int:
        return sum(piece.count(b"\n") for piece in self.pieces(lo, hi))

    def newline_after(self, at: int, hi: int) -> int:
        """The offset of the first line break in [at, hi), or -1."""
        window = 1 << 12  # a line is ~540 bytes; the window grows for longer ones
        while at < hi:
            piece = self.read(at, min(hi, at + window))
            found = piece.find(b"\n")
            if found >= 0:
                return at + found
            if not piece:
                break
            at += len(piece)
            window = min(window * 2, 1 << 20)
        return -1

    def last_newline(self) -> int:
        """The offset of the log's last line break, or -1."""
        window, hi = 1 << 16, self.size
        while hi > 0:
            lo = max(0, hi - window)
            found = self.read(lo, hi).rfind(b"\n")
            if found >= 0:
                return lo + found
            hi = lo
        return -1


def scan(
    log: LogBytes,
    start: int,
    end: int,
    first: int,
    earlier: frozenset[str],
    hasher: Any,
    workers: int | None,
) -> Scan:
    """Read the log's [start, end) (whole lines; line `first` at `start`), in ranges
    across worker processes when the log is large enough to repay starting them, and
    feed the same bytes to `hasher`: here before claiming ranges when workers run,
    else in a thread beside the one reader (hashlib lets go of the GIL for large
    inputs, so that hash costs no time here)."""
    count = workers if workers is not None else _workers(end - start)
    context = _fork() if count > 1 else None
    # Without a worker there is nothing to share out: one range, read here.
    bounds = _split(log, start, end, _pieces(end - start, count) if context else 1)
    claims = _Claims(len(bounds) - 1)
    jobs = _start_workers(context, count - 1, log, bounds, claims, earlier)

    def hash_all() -> None:
        log.feed(hasher, start, end)

    feed = None
    if not jobs:
        feed = threading.Thread(target=hash_all)
        feed.start()
    try:
        # With workers every core has a reader: a hash thread would only contend with
        # them (and hand the GIL to and fro). Hashed here first, this process then
        # claims fewer ranges while the workers take the rest.
        chunks = _collect(log, bounds, claims, jobs, earlier, hash_all if jobs else None)
    finally:
        claims.close()
        if feed is not None:
            feed.join()
    joined = _join(chunks, first)
    if joined is None:
        data = log.read(start, end)
        joined = _join([_scan_range(data, 0, len(data), earlier, careful=True)], first)
        assert joined is not None  # one careful range cannot disagree with itself
    return joined


# Below this many bytes (about 15,000 events) a worker process costs more than it saves.
PARALLEL_BYTES = 8 << 20
# The size of the ranges the processes take in turn (about 3,700 events, ~15 ms): the
# last one to finish waits for at most one range of the other, however the machine's
# other load, this process's hash thread and the work after the join fall.
RANGE_BYTES = 2 << 20
MAX_RANGES = 2048  # a pipe holds all their numbers without blocking (8 KiB of 4-byte words)

_Job = tuple[Any, Any]  # (process, pipe end it sends its chunks on)


def _workers(size: int) -> int:
    """Processes worth starting for `size` bytes: one per usable core, once it pays."""
    if size < PARALLEL_BYTES:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, size // (PARALLEL_BYTES // 2)))


def _pieces(size: int, processes: int) -> int:
    """How many ranges `processes` processes share out for `size` bytes."""
    return max(processes, min(MAX_RANGES, size // RANGE_BYTES))


def _split(log: LogBytes, start: int, end: int, parts: int) -> list[int]:
    """Byte offsets cutting [start, end) into `parts` runs of whole lines (fewer when
    lines are longer than a run)."""
    bounds = [start]
    for i in range(1, parts):
        cut = log.newline_after(start + (end - start) * i // parts, end) + 1
        if bounds[-1] < cut < end:
            bounds.append(cut)
    bounds.append(end)
    return bounds


class _Claims:
    """The ranges still to read, as numbers in a pipe: each process (this one and its
    workers) takes the next with one read, which the kernel makes atomic, until the
    pipe is empty. Whoever is free reads the next range, so no process waits long for
    another, with no lock and nothing to send back but the chunks."""

    def __init__(self, count: int) -> None:
        self.fd, writer = os.pipe()
        try:
            os.write(writer, array("I", range(count)).tobytes())  # within a pipe's buffer
        finally:
            os.close(writer)  # an empty pipe then reads as the end, in every process

    def __iter__(self) -> Iterator[int]:
        size = array("I").itemsize
        while len(word := os.read(self.fd, size)) == size:
            yield array("I", word)[0]

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _fork() -> Any:
    """multiprocessing's fork context, or None where there is none or it is unsafe.

    A fork is only safe while this process runs one thread: it copies only the calling
    thread, and a lock another thread held stays held in the child forever.
    """
    if threading.active_count() > 1:
        return None
    try:
        import multiprocessing

        return multiprocessing.get_context("fork")
    except (ImportError, ValueError):  # no multiprocessing, or no fork on this platform
        return None


def _start_workers(
    context: Any,
    count: int,
    log: LogBytes,
    bounds: list[int],
    claims: _Claims,
    earlier: frozenset[str],
) -> list[_Job]:
    """Up to `count` forked workers taking ranges from `claims` (none without `context`,
    or once starting one fails)."""
    jobs: list[_Job] = []
    for _ in range(count if context is not None else 0):
        try:
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(
                target=_work, args=(writer, log, bounds, claims, earlier), daemon=True
            )
            process.start()
            writer.close()
            jobs.append((process, reader))
        except (OSError, AssertionError):  # out of processes or memory, or this is a
            break  # daemonic worker itself (it may not fork): the others read it all
    return jobs


def _read_range(log: LogBytes, lo: int, hi: int, earlier: frozenset[str]) -> Chunk:
    data = log.read(lo, hi)
    return _scan_range(data, 0, len(data), earlier)


def _collect(
    log: LogBytes,
    bounds: list[int],
    claims: _Claims,
    jobs: list[_Job],
    earlier: frozenset[str],
    first: Callable[[], None] | None = None,
) -> list[Chunk]:
    """Every range's chunk, in log order: the ranges this process claims (after doing
    `first`), then the workers'; a range a worker claimed and did not send (it failed)
    is read here."""
    chunks: dict[int, Chunk] = {}
    heard = 0  # the workers whose chunks were received
    try:
        if first is not None:
            first()
        for n in claims:
            chunks[n] = _read_range(log, bounds[n], bounds[n + 1], earlier)
        for _, reader in jobs:
            try:
                sent = reader.recv()
            except (EOFError, OSError):
                sent = None
            heard += 1
            for n, values in sent or ():
                chunks[n] = _unpack(values)
    finally:
        for i, (process, reader) in enumerate(jobs):
            reader.close()
            if i >= heard:
                # Unheard (this process is raising): its send may be blocked on a full
                # pipe whose read end it holds too (fork copied it), so it never ends.
                process.kill()
            process.join()
    return [
        chunks[n] if n in chunks else _read_range(log, bounds[n], bounds[n + 1], earlier)
        for n in range(len(bounds) - 1)
    ]


def _work(
    conn: Any, log: LogBytes, bounds: list[int], claims: _Claims, earlier: frozenset[str]
) -> None:
    """A worker: read ranges while there are any to claim, and send their chunks back
    as plain values (what it read before an error, if one stops it: the parent reads
    the rest, and meets the same error)."""
    done: list[tuple[int, list[Any]]] = []
    try:
        with gc_paused():
            for n in claims:
                done.append((n, _pack(_read_range(log, bounds[n], bounds[n + 1], earlier))))
    except Exception:  # the parent reads what is missing, and meets the same error
        pass
    try:
        conn.send(done)
    finally:
        conn.close()


_ID = 64  # every proven id is a SHA-256 in hex (its own line's hash matched it)


def _pack(chunk: Chunk) -> list[Any]:
    """A chunk's values to send: its proven ids as one string (pickling and unpickling
    one object per id cost ~14 ms of a 100k verify's ~50k ids in a worker)."""
    values = [getattr(chunk, f.name) for f in fields(Chunk)]
    joined = "".join(chunk.proven)
    if len(joined) == _ID * len(chunk.proven):
        values[_PROVEN] = joined
    return values


def _unpack(values: list[Any]) -> Chunk:
    proven = values[_PROVEN]
    if isinstance(proven, str):
        values[_PROVEN] = [proven[i : i + _ID] for i in range(0, len(proven), _ID)]
    return Chunk(*values)


_PROVEN = [f.name for f in fields(Chunk)].index("proven")
