"""The append-only JSONL file: locking, crash recovery and whole-line appends."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec

from cairn.store.errors import LockTimeout, StoreError

__all__ = [
    "LOG_NAME",
    "QUARANTINE_NAME",
    "Appended",
    "LogFile",
    "lock_is_free",
    "write_lock",
]

LOG_NAME = "decisions.jsonl"
QUARANTINE_NAME = "decisions.jsonl.quarantine"
LOCK_NAME = "lock"
LOCK_TIMEOUT_S = 30.0
# git's checkout unlinks a file and creates it again (O_EXCL): for that long the path
# names nothing. A writer that finds no log waits this long for it before deciding the
# log is really gone (creating one meanwhile would make git's create fail).
REAPPEAR_S = 0.5
# How many times a write follows the log to a new file before giving up (each time the
# path named another file when checked: a git operation replacing it again and again).
SWAP_ATTEMPTS = 20


class Appended(msgspec.Struct, frozen=True):
    """Where an append's lines landed.

    `offset` is where they start in the file the path names, or None when that file was
    replaced during the write: the lines are in the new file (appended again, or found
    already there), at places this writer did not choose, so the index must read them.
    """

    offset: int | None

    @property
    def moved(self) -> bool:
        return self.offset is None


@contextmanager
def write_lock(cairn_dir: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the exclusive cross-process lock on `.cairn/lock` (flock, released on exit)."""
    fd = os.open(cairn_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while not _try_lock(fd):
            if time.monotonic() > deadline:
                raise LockTimeout(
                    f"another process has held {cairn_dir / LOCK_NAME} for over "
                    f"{timeout:.0f}s; try again"
                )
            time.sleep(0.005)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _try_lock(fd: int) -> bool:
    """Take the write lock on the open lock file `fd` without waiting; True when taken."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def lock_is_free(fd: int) -> bool:
    """Whether no process holds the write lock now (on the open lock file `fd`): it is
    taken and released at once. Callers that wait for it poll this."""
    if not _try_lock(fd):
        return False
    fcntl.flock(fd, fcntl.LOCK_UN)
    return True


class LogFile:
    """`.cairn/decisions.jsonl`; callers hold `write_lock` around `repair_tail`/`append`."""

    def __init__(self, cairn_dir: Path) -> None:
        self.path = cairn_dir / LOG_NAME
        self.quarantine = cairn_dir / QUARANTINE_NAME
        # A seam for tests: called once the lines are durable in the file written and
        # before the path is checked, where a racing `git merge` replaces the file.
        self.after_write: Callable[[], None] | None = None

    def stat(self) -> os.stat_result | None:
        """The file's stat, or None when it does not exist yet."""
        try:
            return os.stat(self.path)
        except FileNotFoundError:
            return None

    def repair_tail(self) -> int:
        """Move a partial last line (a crash mid-write) to the quarantine file.

        Returns the number of bytes moved. The log is truncated back to its last newline;
        the fragment is appended to the quarantine, never dropped.
        """
        st = self.stat()
        if st is None or st.st_size == 0:
            return 0
        with open(self.path, "rb+") as fh:
            size = st.st_size
            fh.seek(size - 1)
            if fh.read(1) == b"\n":
                return 0
            # Scan backwards for the last newline, a block at a time.
            pos = size
            cut = 0
            while pos > 0:
                start = max(0, pos - 65536)
                fh.seek(start)
                block = fh.read(pos - start)
                nl = block.rfind(b"\n")
                if nl >= 0:
                    cut = start + nl + 1
                    break
                pos = start
            fh.seek(cut)
            fragment = fh.read()
            with open(self.quarantine, "ab") as q:
                q.write(fragment if fragment.endswith(b"\n") else fragment + b"\n")
                q.flush()
                os.fsync(q.fileno())
            fh.truncate(cut)
            fh.flush()
            os.fsync(fh.fileno())
            return len(fragment)

    def append(self, data: bytes) -> Appended:
        """Write whole lines in one `os.write`, fsync, and make sure they are in the file
        the path names afterwards.

        git replaces the log by path (a merge, a checkout, a pull): a write through a
        descriptor opened before that lands in a file nobody will read again, and the
        decision, acknowledged, is lost. So once the lines are durable the path is
        checked against the file written (device and inode); when it names another
        file, the lines it lacks are appended to that one (ids are content hashes, so a
        line already there is not written twice) and the check runs again.
        """
        fd = self._open_existing()
        try:
            offset = os.fstat(fd).st_size
            try:
                _write_all(fd, data)
                os.fsync(fd)
            except OSError:
                # A full disk (or quota) can take part of the lines: cut them off again
                # (we hold the write lock, so nothing else was appended since), so the
                # log never ends in half an event no command reported as written.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, offset)
                raise
            wrote = os.fstat(fd)
        finally:
            os.close(fd)
        moved = False
        for _ in range(SWAP_ATTEMPTS):
            if self.after_write is not None:
                self.after_write()
            now = self._stat_waiting()
            if now is None:
                raise StoreError(
                    f"{self.path} was removed while a decision was written to it, so the "
                    "decision is not in the log; restore the log (git checkout) and try again"
                )
            if (now.st_dev, now.st_ino) == (wrote.st_dev, wrote.st_ino):
                return Appended(None if moved else offset)
            moved = True
            wrote = self._append_missing(data)
        raise StoreError(
            f"{self.path} kept being replaced while a decision was written (a git "
            "operation running?); run `cairn verify` once it is done and log it again if "
            "it is missing"
        )

    def _open_existing(self) -> int:
        """A descriptor appending to the log; waits out git's unlink-then-create, and
        creates the log only when it is still missing after that."""
        flags = os.O_WRONLY | os.O_APPEND
        deadline = time.monotonic() + REAPPEAR_S
        while True:
            try:
                return os.open(self.path, flags)
            except FileNotFoundError:
                if time.monotonic() > deadline:
                    return os.open(self.path, flags | os.O_CREAT, 0o644)
                time.sleep(0.002)

    def _stat_waiting(self) -> os.stat_result | None:
        """The path's stat, waiting out git's unlink-then-create; None when it stays gone."""
        deadline = time.monotonic() + REAPPEAR_S
        while True:
            st = self.stat()
            if st is not None or time.monotonic() > deadline:
                return st
            time.sleep(0.002)

    def _append_missing(self, data: bytes) -> os.stat_result:
        """Append to the file now at the path those of `data`'s lines it does not hold;
        the stat of the file written (or read)."""
        self.repair_tail()  # a replacement may end mid-line; never glue a line onto it
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND)
        try:
            held = _read_all(fd)
            missing = [
                line
                for line in data.splitlines(keepends=True)
                if not (held.startswith(line) or b"\n" + line in held)
            ]
            if missing:
                _write_all(fd, b"".join(missing))
                os.fsync(fd)
            return os.fstat(fd)
        finally:
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    at = 0
    while True:
        chunk = os.pread(fd, max(size - at, 1 << 16), at)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        at += len(chunk)
