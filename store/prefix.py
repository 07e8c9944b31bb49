"""What the index remembers of the log's ingested bytes, to tell a replaced file that
still starts with them from one that does not.

Git rewrites the JSONL on every checkout, pull and merge: the file is new (another
inode) even when it only gained lines at the end, or did not change at all. Without a
record of the ingested bytes, the only safe answer to a new file is a rebuild, which
takes about a minute at 1M events. So the index keeps the SHA-256 of each complete
`BLOCK` of the ingested prefix, and of the rest up to the ingested end: a replaced file
whose first `consumed` bytes hash the same is caught up from there instead. Checking
costs one hash of the prefix (~0.4 s at 1M events on this machine's SHA extensions).

The digests of complete blocks never change once taken (the log is append-only), so
after an append only the rest is hashed again, and within one process only the bytes
that are new to it (`PrefixDigest` keeps the running hash).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from typing import Any

import msgspec

# (offset, bytes) of the log this process has just written (`PrefixDigest.advance`).
Known = tuple[int, bytes] | None
BLOCK = 1 << 20  # ~2,000 events; the rest hashed again after an append is at most this
READ = 8 << 20  # bytes read at a time when checking a replaced file


class PrefixDigest(msgspec.Struct):
    """The running digests of one process, for `Index.record_position`."""

    blocks: list[str] = msgspec.field(default_factory=list)
    upto: int = 0  # bytes the digests (blocks and `_rest`) cover
    _rest: Any = None  # hashlib object over [len(blocks) * BLOCK, upto)

    def clear(self) -> None:
        """Forget everything: the index was reset, or another process moved it on."""
        self.blocks = []
        self.upto = 0
        self._rest = None

    def advance(
        self, fd: int, stored: dict[str, Any], consumed: int, known: Known = None
    ) -> list[tuple[str, str]]:
        """The meta rows that describe [0, consumed) of the log open at `fd`.

        `stored` is the meta table (it holds the blocks another process recorded). A log
        shorter than `consumed` (cut while being read) gets no rows: without them a
        replaced file is rebuilt, the safe answer. `known` is (offset, bytes) this
        process has just written there under the write lock: those are hashed as they
        are in memory, not read back (a bulk load's 10k-event batch: 5.4 MB, ~2.5 ms).
        """
        try:
            return self._advance(fd, stored, consumed, known)
        except (OSError, EOFError):
            self.clear()
            return []

    def _advance(
        self, fd: int, stored: dict[str, Any], consumed: int, known: Known
    ) -> list[tuple[str, str]]:
        if self._rest is None or consumed < self.upto:
            self.blocks = [b for b in json.loads(stored.get("blocks", "[]")) if isinstance(b, str)]
            del self.blocks[consumed // BLOCK :]
            self.upto = len(self.blocks) * BLOCK
            self._rest = hashlib.sha256()
        changed = False
        while self.upto < consumed:
            block_end = (len(self.blocks) + 1) * BLOCK
            end = min(consumed, block_end)
            self._rest.update(_known_piece(known, self.upto, end) or _read(fd, self.upto, end))
            self.upto = end
            if end == block_end:
                self.blocks.append(self._rest.hexdigest())
                self._rest = hashlib.sha256()
                changed = True
        rows = [("rest", self._rest.hexdigest())]
        if changed or "blocks" not in stored:
            rows.append(("blocks", json.dumps(self.blocks)))
        return rows


def starts_with_ingested(fd: int, stored: dict[str, Any], consumed: int) -> bool:
    """True when the file open at `fd` begins with the `consumed` bytes the digests in
    `stored` (the meta table) describe. False when they are missing (an older index)."""
    try:
        blocks = json.loads(stored["blocks"])
        rest = stored["rest"]
    except (KeyError, TypeError, ValueError):
        return False
    if not isinstance(blocks, list) or len(blocks) != consumed // BLOCK:
        return False
    spans = [(i * BLOCK, (i + 1) * BLOCK) for i in range(len(blocks))]
    spans.append((len(blocks) * BLOCK, consumed))
    try:
        for (start, stop), digest in zip(spans, [*blocks, rest], strict=True):
            h = hashlib.sha256()
            for piece in _pieces(fd, start, stop):
                h.update(piece)
            if h.hexdigest() != digest:
                return False
    except (OSError, EOFError):
        return False
    return True


def _pieces(fd: int, start: int, stop: int) -> Iterator[bytes]:
    while start < stop:
        end = min(stop, start + READ)
        yield _read(fd, start, end)
        start = end


def _known_piece(known: Known, start: int, stop: int) -> memoryview | None:
    """The bytes [start, stop) of the log from `known`, None unless it holds them all."""
    if known is None:
        return None
    at, data = known
    if start < at or stop > at + len(data):
        return None
    return memoryview(data)[start - at : stop - at]


def _read(fd: int, start: int, stop: int) -> bytes:
    data = os.pread(fd, stop - start, start)
    if len(data) != stop - start:
        # The file is shorter than what it is being checked against: not the same prefix.
        raise EOFError(f"the log ends at {start + len(data)}, before {stop}")
    return data
