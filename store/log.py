"""The append-only JSONL file: locking, crash recovery and whole-line appends."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cairn.store.errors import LockTimeout

__all__ = ["LOG_NAME", "QUARANTINE_NAME", "LogFile", "write_lock"]

LOG_NAME = "decisions.jsonl"
QUARANTINE_NAME = "decisions.jsonl.quarantine"
LOCK_NAME = "lock"
LOCK_TIMEOUT_S = 30.0


@contextmanager
def write_lock(cairn_dir: Path, timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the exclusive cross-process lock on `.cairn/lock` (flock, released on exit)."""
    fd = os.open(cairn_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockTimeout(
                        f"another process has held {cairn_dir / LOCK_NAME} for over "
                        f"{timeout:.0f}s; try again"
                    ) from None
                time.sleep(0.005)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


class LogFile:
    """`.cairn/decisions.jsonl`; callers hold `write_lock` around `repair_tail`/`append`."""

    def __init__(self, cairn_dir: Path) -> None:
        self.path = cairn_dir / LOG_NAME
        self.quarantine = cairn_dir / QUARANTINE_NAME

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

    def append(self, data: bytes) -> int:
        """Write whole lines in one `os.write`, fsync; return the offset they start at."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            offset = os.fstat(fd).st_size
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
            return offset
        finally:
            os.close(fd)
