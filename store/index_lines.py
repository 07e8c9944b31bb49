"""Reading the log's lines for the index: streamed in chunks for an ingest, and at the
byte spans the index keeps for an answer (one line, or many at once)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import msgspec

from cairn.store.fastid import line_damage
from cairn.store.fastid import loads as parse_line
from cairn.store.index_rows import Row, is_key_of
from cairn.store.index_state import IndexState
from cairn.store.model import Event, event_from_bytes, events_from_bytes

__all__ = ["LogLines", "Record"]

READ_CHUNK = 2 << 20  # an ingest streams the log in pieces this big (bounded memory)
# Not on every platform (macOS has no posix_fadvise): there, lines are read one by one.
_advise = getattr(os, "posix_fadvise", None)
_WILLNEED = getattr(os, "POSIX_FADV_WILLNEED", 0)
# Linux: a read that takes only what the page cache holds (0: not here, or refused once).
_nowait: int = getattr(os, "RWF_NOWAIT", 0) if hasattr(os, "preadv") else 0


class Record(msgspec.Struct):
    """A parsed line on its way into the index; `damage` says why it cannot be trusted."""

    off: int
    len: int
    raw: dict[str, Any]
    damage: str | None = None


class LogLines(IndexState):
    """The log's lines, as the index reads them."""

    def _chunks(self, start: int, stop: int) -> Iterator[tuple[list[Record], int, int]]:
        """(records, offset after them, malformed lines) for the complete lines in
        [start, stop), a few megabytes at a time.

        A writer may be mid-line at the end: only bytes up to the last newline count.
        Every line's id is checked here (`line_damage`): a line verification rejects
        is kept as damage, never as an event.
        """
        with open(self.log_path, "rb") as fh:
            fh.seek(start)
            at = start
            carry = b""
            while at < stop:
                piece = fh.read(min(READ_CHUNK, stop - at))
                if not piece:
                    break
                base = at - len(carry)
                data = carry + piece if carry else piece
                at += len(piece)
                end = data.rfind(b"\n") + 1
                carry = data[end:]
                records, bad = _records(data, end, base)
                yield records, base + end, bad

    def _read(self, off: int, length: int) -> bytes:
        """The bytes of a known span of the log.

        `pread` rather than a memory map: a map puts the pages of the log it touches into
        the language server's RSS; a hover reads a few lines.
        """
        if self._fd is None:
            self._fd = os.open(self.log_path, os.O_RDONLY)
        data = os.pread(self._fd, length, off)
        if len(data) < length:
            raise ValueError("the log is shorter than the index says")
        return data

    def raw(self, off: int, length: int) -> bytes:
        """The unparsed line at a byte span of the log."""
        return self._read(off, length)

    def line(self, off: int, length: int) -> dict[str, Any]:
        """The parsed line at a byte span of the log."""
        result: dict[str, Any] = parse_line(self._read(off, length))
        return result

    def event_at(self, off: int, length: int) -> Event:
        """The event whose line is at this span, decoded straight from its bytes."""
        return event_from_bytes(self._read(off, length), parse_line)

    def events_at(self, spans: list[tuple[int, int]]) -> list[Event]:
        """The events at many spans (in that order), from their lines (`lines_at`)
        decoded together (`events_from_bytes`)."""
        return events_from_bytes(self.lines_at(spans), parse_line, {})

    def lines_at(self, spans: list[tuple[int, int]]) -> list[bytes | memoryview]:
        """The lines at many spans (in that order).

        Lines in the page cache are taken without blocking (`RWF_NOWAIT`: one system
        call each); the kernel is then told about all the others at once
        (`POSIX_FADV_WILLNEED`), so lines not in memory are read from the disk together
        rather than one blocking read after another: on a machine that pages cold file
        pages out (a VM), an editor's batch would wait on hundreds of such reads in a row.
        Telling it about every line, the cached ones too, would be a system call each.
        """
        global _nowait
        out: list[bytes | memoryview] = [b""] * len(spans)
        missed: list[int] = []
        if _nowait and len(spans) > 1:
            if self._fd is None:
                self._fd = os.open(self.log_path, os.O_RDONLY)
            fd = self._fd
            buf = memoryview(bytearray(sum(length for _, length in spans)))
            at = 0
            preadv, nowait = os.preadv, _nowait
            for i, (off, length) in enumerate(spans):
                out[i] = line = buf[at : at + length]
                at += length
                try:
                    if preadv(fd, (line,), off, nowait) != length:
                        missed.append(i)  # partly in memory, or past the end
                except BlockingIOError:
                    missed.append(i)
                except OSError:  # the file system cannot: advise and read, as before
                    _nowait = 0
                    missed += range(i, len(spans))
                    break
        else:
            missed = list(range(len(spans)))
        self.will_read([spans[i] for i in missed])
        for i in missed:
            out[i] = self._read(*spans[i])
        return out

    def will_read(self, spans: list[tuple[int, int]]) -> None:
        """Tell the kernel these spans of the log are about to be read (see `lines_at`)."""
        if len(spans) > 1 and _advise is not None:
            if self._fd is None:
                self._fd = os.open(self.log_path, os.O_RDONLY)
            fd = self._fd
            for off, length in sorted(spans):
                _advise(fd, off, length, _WILLNEED)

    def event_id_at(self, row: Row) -> str:
        """The full id of a row's event, read from its line without parsing all of it."""
        return self.id_at(row.key, row.off, row.len)

    def id_at(self, key: int, off: int, length: int) -> str:
        """The full id of the event whose id key is `key` and line is at this span.

        In a canonical line every key before `id` holds a string, in which a quote is
        escaped, so the first `"id":"` is the event's own; anything else is parsed.
        """
        data = self._read(off, length)
        start = data.find(b'"id":"')
        if start >= 0:
            found = data[start + 6 : start + 70].decode("ascii", "replace")
            if len(found) == 64 and is_key_of(found, key):
                return found
        return str(json.loads(data)["id"])

    def close_log(self) -> None:
        """Close the log's read handle (the file may have been replaced or truncated)."""
        if self._fd is not None:
            os.close(self._fd)
        self._fd = None


def _records(data: bytes, end: int, base: int) -> tuple[list[Record], int]:
    """The records of the lines in data[:end] (whole lines; `base` is data's offset in
    the log), and how many lines were not JSON objects."""
    loads = parse_line
    records: list[Record] = []
    bad = 0
    pos = 0
    while pos < end:
        nl = data.index(b"\n", pos)
        line = data[pos:nl]
        if line.strip():
            try:
                raw = loads(line)
                if not isinstance(raw, dict):
                    raise ValueError
            except ValueError:
                bad += 1
            else:
                rec = Record(base + pos, nl - pos, raw)
                rec.damage = line_damage(raw, line)
                records.append(rec)
        pos = nl + 1
    return records, bad
