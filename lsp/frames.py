"""Reading LSP frames with a size limit, so one header cannot kill or deafen the server.

pygls' read loop (`pygls.io_.run_async`, which `cairn.lsp.transport` runs) trusts
`Content-Length`: it calls `readexactly(n)` for whatever `n` the header says.
`Content-Length: 99999999999` made the process die of MemoryError; `10**9` left it
alive but waiting forever for bytes that never came, deaf to every frame after it.
pygls takes any reader with `readline()` and `readexactly(n)`, so the limit lives
here, in the reader it is given:

* a frame whose declared length is over the limit (`Settings.max_message_bytes`,
  64 MB by default) is skipped in bounded chunks, never allocated; pygls is handed a
  tiny `$/cairn/skippedFrame` notification in its place (ignored), and the client's log
  says what happened;
* a header line longer than `MAX_HEADER_LINE` is dropped (pygls ignores it);
* a body that turns out shorter than it claimed is detected when the next frame's header
  shows up inside it (`Content-Length: N` followed by a raw CR LF cannot occur in a valid
  JSON body, whose strings escape control characters), and the server resynchronises
  there instead of swallowing the frames that follow.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

__all__ = [
    "DEFAULT_MAX_MESSAGE_BYTES",
    "MAX_HEADER_LINE",
    "SKIPPED_FRAME",
    "FrameReader",
]

DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_HEADER_LINE = 8 * 1024
CHUNK = 64 * 1024
# What pygls gets instead of a refused body: a notification no handler claims.
SKIPPED_FRAME = b'{"jsonrpc":"2.0","method":"$/cairn/skippedFrame","params":{}}'

_LENGTH = re.compile(rb"^Content-Length:[ \t]*(\d+)[ \t]*\r?\n$", re.IGNORECASE)
# The start of a real frame, found where a body was expected (see the module docstring).
_NEXT_FRAME = re.compile(rb"Content-Length: \d{1,18}\r\n")
# Longest tail kept back while skipping, so a header split across two reads is still seen.
_TAIL = 32


class FrameReader:
    """The reader pygls' loop reads frames from, with the limit applied.

    `read_some(n)` returns between 1 and `n` bytes, or b"" at end of input.
    `limit()` is read at each frame (the client may change the setting).
    `report(message)` tells the client and the server log about a refused frame.
    """

    def __init__(
        self,
        read_some: Callable[[int], Awaitable[bytes]],
        limit: Callable[[], int],
        report: Callable[[str], None],
    ) -> None:
        self._read_some = read_some
        self._limit = limit
        self._report = report
        self._buffer = bytearray()
        self._eof = False
        self._skip: int | None = None  # declared length of a refused frame

    async def _fill(self) -> bool:
        """Read more into the buffer; False at end of input."""
        if self._eof:
            return False
        chunk = await self._read_some(CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    async def readline(self) -> bytes:
        """One header line (with its newline); b"" only at end of input."""
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return self._checked(line)
            if len(self._buffer) > MAX_HEADER_LINE:
                # Not a header: drop it, but keep a tail in case a real one starts there.
                size = len(self._buffer) - _TAIL
                del self._buffer[:size]
                self._report(f"dropped {size:,} bytes that were not an LSP header")
                return b"X-Cairn-Dropped: not a header\r\n"  # pygls ignores unknown headers
            if not await self._fill():
                line = bytes(self._buffer)
                self._buffer.clear()
                return line

    def _checked(self, line: bytes) -> bytes:
        match = _LENGTH.match(line)
        if match is None:
            # Leftovers of a body shorter than it claimed, then a real header: resume there.
            found = _NEXT_FRAME.search(line)
            if found is None or found.end() != len(line):
                return line
            line = line[found.start() :]
            match = _LENGTH.match(line)
            assert match is not None
        digits = match.group(1)
        limit = self._limit()
        # Compare lengths before int(): a 5,000-digit header must not cost anything.
        if len(digits) <= 18 and int(digits) <= limit:
            self._skip = None
            return line
        declared = int(digits) if len(digits) <= 18 else -1
        self._skip = declared
        size = f"{declared:,} bytes" if declared >= 0 else f"a {len(digits):,}-digit length"
        self._report(
            f"refused an LSP message of {size} (the limit is {limit:,} bytes, setting "
            "cairn.maxMessageBytes); it was skipped without being read into memory"
        )
        return b"Content-Length: %d\r\n" % len(SKIPPED_FRAME)

    async def readexactly(self, n: int) -> bytes:
        """The body pygls asked for (or the stand-in for a refused one)."""
        if self._skip is not None and n == len(SKIPPED_FRAME):
            declared, self._skip = self._skip, None
            await self._discard(declared)
            return SKIPPED_FRAME
        checked = 0  # the buffer before this offset holds no frame header
        while True:
            lie = self._next_frame_in(checked, n)
            if lie is not None:
                del self._buffer[:lie]
                self._report(
                    f"an LSP message ended after {lie:,} of the {n:,} bytes it declared; "
                    "skipped it and resumed at the next message"
                )
                return SKIPPED_FRAME
            if len(self._buffer) >= n:
                break
            checked = max(0, len(self._buffer) - _TAIL)
            if not await self._fill():
                break
        body = bytes(self._buffer[:n])
        del self._buffer[:n]
        return body

    def _next_frame_in(self, start: int, within: int) -> int | None:
        if b"Content-Length" not in self._buffer[start:]:
            return None
        found = _NEXT_FRAME.search(self._buffer, start)
        return found.start() if found is not None and found.start() < within else None

    async def _discard(self, declared: int) -> None:
        """Drop a refused body in bounded chunks (all of it, or up to the next frame)."""
        remaining = declared if declared >= 0 else None  # None: unknowably long
        while remaining is None or remaining > 0:
            found = _NEXT_FRAME.search(self._buffer)
            if found is not None and (remaining is None or found.start() < remaining):
                del self._buffer[: found.start()]
                return
            keep = _TAIL if remaining is None or remaining > len(self._buffer) else 0
            drop = max(0, len(self._buffer) - keep)
            if remaining is not None:
                drop = min(drop, remaining)
                remaining -= drop
            del self._buffer[:drop]
            if remaining == 0 or not await self._fill():
                return
