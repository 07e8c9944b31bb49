"""A second process that indexes a big batch while this one prepares the rest of it.

A bulk load's CPU is two halves run one after the other: preparing the drafts (checks,
masking, canonical encoding, two SHA-256 each) and SQLite's writing of the index rows.
A thread cannot overlap them (`executemany` takes the GIL back at every row); a process
can. For a batch of at least `MIN_BATCH` drafts, `Store` starts this worker once (it
lives as long as the store) and hands it each prepared chunk's lines as soon as they
exist; the worker ingests them (`Index.ingest_written`, the same rows the in-process
path writes) inside ONE write transaction that it commits only when told the lines are
durable in the log. So nothing changes about when a batch becomes visible:

- a draft refused halfway writes nothing: the log is written after every draft is
  prepared, and the worker's transaction rolls back (`abort`);
- `append_many` returns after the commit, so every read sees the batch;
- any trouble with the worker (it cannot start, dies, refuses, falls behind) ends it and
  the batch is indexed in this process as before; a worker killed mid-batch leaves an
  uncommitted transaction, which SQLite discards.

Small writes (one event from the CLI or the editor) never come here.

Wire format on the worker's stdin: frames of a 1-byte op, an 8-byte length and a
payload. `B` begins a batch at a log offset; `C` carries lines (each ending in a
newline); `E` ends it at an offset (the lines are durable: record it, commit); `A`
aborts it; `Q` quits. The worker answers `E` and `A` with one JSON frame on stdout.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import sqlite3
import struct
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import IO, Any

import msgspec

from cairn.store.fastid import loads
from cairn.store.gcpause import gc_paused
from cairn.store.index import Index
from cairn.store.log import LOG_NAME
from cairn.store.model import Event, event_from_bytes

__all__ = ["CHUNK", "FIRST_CHUNK", "MIN_BATCH", "IndexWorker", "main", "spare_cores"]

# Drafts in one `append_many` from which the batch is indexed by the worker: a process
# start (~0.1 s of the other core) is worth it only for thousands of events, and small
# writes stay exactly as they were.
MIN_BATCH = 4096
# Events handed over at a time: at first FIRST_CHUNK, so the worker starts early (it
# waits while the batch's first chunk is prepared), then twice what was handed over,
# up to CHUNK. The worker takes whatever queued up at once: while it is behind, its
# `ingest_written` calls (each with a fixed cost: an entity lookup, status rows) grow.
FIRST_CHUNK = 256
CHUNK = 2048
_HEAD = struct.Struct("<cQ")
_PIPE_BYTES = 1 << 20  # the pipe's own room (Linux lets a process ask for up to 1 MiB)

_LAUNCH = (
    "import sys; del sys.path[0]\n"  # not the current folder: only the installed package
    "from cairn.store.index_worker import main; main()"
)


def spare_cores() -> int:
    """Cores no other task is running on now, beside this process (the kernel's count of
    runnable tasks, /proc/loadavg, includes it); the machine's cores where that count
    cannot be read.

    A worker pays only with a core to itself: on a busy machine the two processes share
    the cores with the others, and the split costs more CPU than it saves (a 100k load
    at load average 5 on 2 cores: 14.8 s with the worker, 9.7 s without; each process's
    cache is colder than one process's, ~+30% CPU for the same work)."""
    cores = os.cpu_count() or 1
    try:
        with open("/proc/loadavg", "rb") as fh:
            running = int(fh.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return cores
    return cores - running


class WorkerGone(Exception):
    """The worker cannot go on (it died, refused or answered nonsense)."""


class IndexWorker:
    """The parent's handle on the worker process (used under the store's lock)."""

    def __init__(self, cairn_dir: Path) -> None:
        self.cairn_dir = cairn_dir
        self.cpu_seconds = 0.0  # the worker's CPU time so far, as it last reported
        # Seconds its batches waited for lines (the parent still preparing), all told.
        self.waited_seconds = 0.0
        self.committed = 0  # batches it indexed
        # Why the last big batch was indexed in this process instead ("": by the worker).
        self.failure = ""
        self._proc: subprocess.Popen[bytes] | None = None
        self._answered = False  # the running worker has answered once: it can work here
        self._disabled = False  # one died before answering: this store stops trying
        self._owner = os.getpid()  # a forked child must not talk to its parent's worker
        self._open = False  # a batch is under way (begun, not ended or aborted)
        self._feed: _Feed | None = None
        self._finalizer: weakref.finalize[Any, Any] | None = None

    @property
    def pid(self) -> int | None:
        """The worker's process id while it runs (tests kill it)."""
        return self._proc.pid if self._proc is not None else None

    def begin(self, offset: int) -> bool:
        """Start a batch whose lines will be appended at `offset`; False when no worker
        can take it (the caller indexes in process)."""
        if os.getpid() != self._owner:
            return False  # a copy of the store in a forked child: the worker is not ours
        if self._open:
            self._kill()  # a batch left open (interrupted): its answers would be out of step
        if self._disabled:
            return False
        try:
            self._send(b"B", str(offset).encode())
        except WorkerGone as exc:
            self.failure = str(exc)
            return False
        self.failure = ""
        self._open = True
        return True

    def feed(self, lines: list[bytes]) -> bool:
        """Hand over the next prepared lines; False once the worker is gone."""
        if not self._open:
            return False
        try:
            self._send(b"C", b"".join(lines))
        except WorkerGone as exc:
            self.failure = str(exc)
            return False
        return True

    def finish(self, end: int) -> tuple[bool, str]:
        """The lines up to `end` are durable: index them and commit. (True, "") once the
        index holds them; (False, why) when it does not (the caller indexes in process)."""
        if not self._open:
            return False, self.failure or "the index worker is not running"
        self._open = False
        try:
            self._send(b"E", str(end).encode())
            reply = self._reply()
        except WorkerGone as exc:
            self.failure = str(exc)
            return False, self.failure
        if not reply.get("ok"):
            self.failure = str(reply.get("why") or "the index worker did not commit")
            return False, self.failure
        self.committed += 1
        return True, ""

    def abort(self) -> None:
        """Drop the batch (nothing of it is committed); waits until the worker's write
        transaction is rolled back, or the worker is gone."""
        if not self._open:
            return
        self._open = False
        with contextlib.suppress(WorkerGone):
            self._send(b"A", b"")
            self._reply()

    def close(self) -> None:
        """Stop the worker (it quits after any batch it holds is rolled back)."""
        self._open = False
        self._answered = False
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if self._finalizer is not None:
            self._finalizer.detach()
        _stop(proc, self._feed, self._owner)
        self._feed = None

    # --- the pipe -------------------------------------------------------------------

    def _started(self) -> subprocess.Popen[bytes]:
        proc = self._proc
        if proc is not None:
            if proc.poll() is None and self._feed is not None:
                return proc
            self._kill()
        try:
            proc = subprocess.Popen(
                [sys.executable, "-c", _LAUNCH, str(self.cairn_dir)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                close_fds=True,
            )
        except OSError as exc:
            self._disabled = True
            raise WorkerGone(f"the index worker did not start ({exc})") from None
        assert proc.stdin is not None
        self._proc = proc
        self._feed = _Feed(proc.stdin.fileno())
        self._finalizer = weakref.finalize(self, _stop, proc, self._feed, self._owner)
        return proc

    def _send(self, op: bytes, payload: bytes) -> None:
        """Send a frame (WorkerGone, the worker killed, when it cannot)."""
        proc = self._started() if op == b"B" else self._proc
        feed = self._feed
        if proc is None or feed is None:
            raise WorkerGone("the index worker is not running")
        try:
            feed.put(_HEAD.pack(op, len(payload)), payload)
        except OSError as exc:
            self._kill()
            raise WorkerGone(f"the index worker stopped ({exc})") from None

    def _reply(self) -> dict[str, Any]:
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise WorkerGone("the index worker is not running")
        try:
            reply = json.loads(_read_frame(proc.stdout)[1])
            if not isinstance(reply, dict):
                raise TypeError("not an object")
            self.cpu_seconds = float(reply["cpu"])
            self.waited_seconds += float(reply.get("waited", 0.0))
        except (OSError, ValueError, KeyError, TypeError, EOFError) as exc:
            self._kill()
            raise WorkerGone(f"the index worker stopped ({exc or 'no answer'})") from None
        self._answered = True
        return reply

    def _kill(self) -> None:
        """End the worker for good: once it is dead, SQLite drops its uncommitted rows
        and its lock, so this process may index the batch itself."""
        self._open = False
        proc, self._proc = self._proc, None
        self._feed = None
        if proc is not None and not self._answered:
            self._disabled = True  # it cannot run here (no Python, no package): stop trying
        self._answered = False
        if proc is not None:
            if self._finalizer is not None:
                self._finalizer.detach()
            if os.getpid() == self._owner:
                proc.kill()
            _stop(proc, None, self._owner)


class _Feed:
    """Frames on their way to the worker's stdin. Each is written whole before the
    parent goes on preparing, waiting for the worker to make room if it must: the
    worker is the slower half, and a frame left half-written until the next one was
    ready kept it idle (measured: it waited about twice as long for lines). No
    thread: one that must win the GIL back from the preparing loop hands lines over
    late. The pipe is non-blocking so that `_stop` can give up on a worker that hangs."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        with contextlib.suppress(OSError, AttributeError):  # Linux; a bigger pipe helps
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        os.set_blocking(fd, False)

    def put(self, head: bytes, payload: bytes, timeout: float | None = None) -> None:
        """Write a frame (OSError: the worker is gone; TimeoutError: it read nothing for
        `timeout` seconds)."""
        for data in (head, payload):
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self._fd, view) :]
                except BlockingIOError:
                    if not select.select([], [self._fd], [], timeout)[1]:
                        raise TimeoutError("the index worker reads nothing") from None


def _stop(proc: subprocess.Popen[bytes], feed: _Feed | None, owner: int) -> None:
    """Ask the worker to quit and wait for it (killed if it does not). In a forked
    child the worker is the parent's: only let go of the pipes."""
    if os.getpid() != owner:
        for pipe in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError, ValueError):
                if pipe is not None:
                    pipe.close()
        return
    if feed is not None and proc.poll() is None:
        with contextlib.suppress(OSError):  # TimeoutError included: then it is killed
            feed.put(_HEAD.pack(b"Q", 0), b"", timeout=10)
    for pipe in (proc.stdin, proc.stdout):
        with contextlib.suppress(OSError, ValueError):
            if pipe is not None:
                pipe.close()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _read_frame(stream: IO[bytes]) -> tuple[bytes, bytes]:
    head = stream.read(_HEAD.size)
    if len(head) < _HEAD.size:
        raise EOFError("the pipe closed")
    op, size = _HEAD.unpack(head)
    payload = stream.read(size) if size else b""
    if len(payload) < size:
        raise EOFError("the pipe closed")
    return op, payload


# --- the worker process -----------------------------------------------------------------


class _Abort(Exception):
    """The parent dropped the batch."""


class _Frames:
    """The frames on the worker's stdin. Each payload is read straight into a buffer of
    its size (a pipe hands over at most its room at a time: reading into one big
    buffer per call cost more system time than the indexing). `ready` says whether a
    whole frame can be had without waiting, so chunks that queued up while the worker
    was busy are taken together."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        os.set_blocking(fd, False)
        self._head = bytearray(_HEAD.size)
        self._got = 0  # bytes of the head read so far
        self._op = b""
        self._payload: bytearray | None = None  # None: the head is still being read
        self._filled = 0
        self.waited = 0.0  # seconds spent waiting for the parent's frames (a diagnostic)

    def _step(self) -> bool:
        """Read what is there now toward the current frame; True once it is whole."""
        while True:
            if self._payload is None:
                n = self._read_into(memoryview(self._head)[self._got :])
                if n is None:
                    return False
                self._got += n
                if self._got < _HEAD.size:
                    continue
                op, size = _HEAD.unpack(self._head)
                self._op, self._payload, self._filled = op, bytearray(size), 0
            if self._filled == len(self._payload):
                return True
            n = self._read_into(memoryview(self._payload)[self._filled :])
            if n is None:
                return False
            self._filled += n

    def _read_into(self, view: memoryview) -> int | None:
        try:
            n = os.readv(self._fd, [view])
        except BlockingIOError:
            return None
        if n == 0:
            raise EOFError("the pipe closed")
        return n

    def ready(self) -> bool:
        """True when a whole frame can be read now."""
        return self._step()

    def next(self) -> tuple[bytes, bytes]:
        """The next frame (waits for it); EOFError when the parent is gone."""
        while not self._step():
            t0 = time.perf_counter()
            select.select([self._fd], [], [])
            self.waited += time.perf_counter() - t0
        payload = self._payload
        assert payload is not None
        self._payload, self._got = None, 0
        return self._op, bytes(payload)


def main() -> None:
    """The worker's loop (run as `python -c ...` with the `.cairn` folder as argument)."""
    cairn_dir = Path(sys.argv[1])
    # Ctrl-C reaches the whole process group: the parent decides what becomes of a batch
    # (it aborts, or exits and the worker sees its pipe close), not the keyboard.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    frames = _Frames(os.dup(0))
    answers = os.dup(1)
    os.dup2(2, 1)  # a stray print must not land among the answers
    index = None
    with contextlib.suppress(EOFError):
        while True:
            op, payload = frames.next()
            if op == b"Q":
                break
            if op != b"B":
                continue  # nothing else comes outside a batch
            if index is None:
                index = Index(cairn_dir, cairn_dir / LOG_NAME)
            frames.waited = 0.0
            reply = _batch(index, int(payload), frames)
            reply["cpu"] = time.process_time()
            reply["waited"] = frames.waited
            data = json.dumps(reply).encode()
            os.write(answers, _HEAD.pack(b"R", len(data)) + data)
    if index is not None:
        index.close()


def _batch(index: Index, offset: int, frames: _Frames) -> dict[str, Any]:
    """Ingest one batch's chunks in one transaction; commit at `E` when all went in.
    Reads the batch's frames up to its `E` or `A` whatever happens (one answer each)."""
    why = ""
    ended = False
    at = offset
    try:
        with gc_paused(), index.write_transaction():
            if index.changed_elsewhere():
                index.load_state()  # the parent (or another process) wrote since
            while True:
                op, payload = frames.next()
                if op == b"C":
                    chunks = [payload]
                    while frames.ready():  # what queued up meanwhile, at once
                        op, payload = frames.next()
                        if op != b"C":
                            break
                        chunks.append(payload)
                    else:
                        op = b"C"
                    data = b"".join(chunks) if len(chunks) > 1 else chunks[0]
                    if not why:  # once behind, the parent indexes the batch itself
                        why = _ingest(index, data, at, at != offset)
                    at += len(data)
                    if op == b"C":
                        continue
                ended = True
                if op == b"E" and not why:
                    if int(payload) == at:
                        index.record_position(at, os.stat(index.log_path))
                        return {"ok": True}
                    why = f"the batch ends at {int(payload)}, not at {at}"
                raise _Abort(why or "aborted")
    except _Abort as exc:
        return {"ok": False, "why": str(exc)}
    except (sqlite3.Error, OSError, ValueError) as exc:
        if not ended:
            with contextlib.suppress(EOFError):
                while frames.next()[0] not in (b"E", b"A"):
                    pass
        return {"ok": False, "why": why or f"{type(exc).__name__}: {exc}"}
    finally:
        index.close_log()


def _ingest(index: Index, payload: bytes, at: int, later: bool) -> str:
    """Ingest a chunk of lines written at `at`; why not, or "" when it went in."""
    lines = payload.split(b"\n")
    lines.pop()  # after the last newline
    try:
        events = [_event(line) for line in lines]
        if later:
            # Where the chunk before this one ended: `ingest_written` takes a batch only
            # where the index stands, and `record_position` moves it there at the end.
            index.consumed = at
        if index.ingest_written(events, at, [len(line) + 1 for line in lines]):
            return ""
    except Exception as exc:  # whatever it is, the parent indexes the batch itself
        return f"{type(exc).__name__}: {exc}"
    return f"the index does not stand where the batch was prepared (offset {at})"


_decode = msgspec.json.Decoder(Event).decode


def _event(line: bytes) -> Event:
    """The event a line the parent just wrote holds, for `ingest_written`: decoded straight
    into an `Event` (the entity kind, which the index does not read, left unfilled); a
    line with metadata or anything unusual is read as every reader reads it."""
    try:
        event = _decode(line)
    except msgspec.DecodeError:
        return event_from_bytes(line, loads)
    return event if not event.metadata else event_from_bytes(line, loads)
