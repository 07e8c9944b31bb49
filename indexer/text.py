"""Source bytes, lines and the UTF-8 byte <-> UTF-16 code unit arithmetic LSP needs.

tree-sitter counts columns in bytes of UTF-8; LSP counts UTF-16 code units. Pure-ASCII
text (most code) takes a fast path where the two agree.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from cairn.limits import MAX_FILE_BYTES

_NEWLINE = re.compile(b"\n")

# Files bigger than this are not indexed: the language server must stay responsive,
# and no hand-written source file is anywhere near it. One limit for every surface,
# kept in the core's leaf module of constants (which imports nothing).
MAX_BYTES = MAX_FILE_BYTES


def to_bytes(source: str | bytes) -> bytes:
    """UTF-8 bytes of `source`; a lone surrogate becomes `?` (one unit either way)."""
    if isinstance(source, bytes):
        return source
    return source.encode("utf-8", "replace")


class LineIndex:
    """Line starts of a byte buffer, for point <-> LSP position conversion."""

    __slots__ = ("_starts", "ascii", "data")

    def __init__(self, data: bytes, starts: list[int] | None = None) -> None:
        self.data = data
        self.ascii = data.isascii()
        self._starts: list[int] | None = starts

    def after_edit(self, data: bytes, start: int, end: int, inserted: bytes) -> LineIndex:
        """The index of `data`, which is this text with bytes [start, end) replaced by
        `inserted`: line starts are patched, not recomputed (an edit must stay cheap)."""
        if self._starts is None:
            return LineIndex(data)
        starts = self._starts
        first = bisect_right(starts, start)  # line starts up to the edit are unchanged
        last = bisect_right(starts, end)  # line starts after the removed bytes shift
        delta = len(inserted) - (end - start)
        middle = [start + m.end() for m in _NEWLINE.finditer(inserted)]
        tail = [s + delta for s in starts[last:]] if delta else starts[last:]
        return LineIndex(data, [*starts[:first], *middle, *tail])

    @property
    def starts(self) -> list[int]:
        """Byte offset of the first byte of every line (computed on first use)."""
        if self._starts is None:
            self._starts = [0, *(m.end() for m in _NEWLINE.finditer(self.data))]
        return self._starts

    def utf16_column(self, row: int, byte_column: int) -> int:
        """The UTF-16 column of a tree-sitter point."""
        if self.ascii or byte_column == 0:
            return byte_column
        start = self.starts[row] if row < len(self.starts) else len(self.data)
        prefix = self.data[start : start + byte_column]
        if prefix.isascii():
            return byte_column
        return len(prefix.decode("utf-8", "replace").encode("utf-16-le")) // 2

    def byte_offset(self, line: int, character: int) -> tuple[int, int]:
        """(byte offset, byte column) of an LSP position, clamped into the buffer."""
        starts = self.starts
        if line < 0:
            return 0, 0
        if line >= len(starts):
            return len(self.data), self._line_bytes(len(starts) - 1)
        start = starts[line]
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self.data)
        text = self.data[start:end]
        if text.endswith(b"\r"):
            text = text[:-1]
        character = max(0, character)
        if text.isascii():
            col = min(character, len(text))
        else:
            col = _utf16_to_byte_column(text, character)
        return start + col, col

    def point(self, offset: int) -> tuple[int, int]:
        """The tree-sitter point (row, byte column) of a byte offset."""
        starts = self.starts
        row = max(0, bisect_right(starts, offset) - 1)  # the last line start <= offset
        return row, offset - starts[row]

    def _line_bytes(self, line: int) -> int:
        return len(self.data) - self.starts[line]


def _utf16_to_byte_column(line: bytes, character: int) -> int:
    text = line.decode("utf-8", "replace")
    units = 0
    for index, ch in enumerate(text):
        if units >= character:
            return len(text[:index].encode("utf-8"))
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)
