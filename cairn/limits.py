"""Limits every surface applies the same way.

`MAX_FILE_BYTES` is the one file-size limit: larger text is generated, vendored or
data, and parsing it would stall an editor (or an import). The indexer refuses it, so `cairn check`,
the language server (whose `maxFileBytes` setting can only lower it), workspace-symbol
lookups and the agent tools skip such files too. `looks_binary` is the one binary
sniff (git's: a NUL byte early on).

The importers read files a cloned repository ships, so each file they parse is read
through `read_source` (a regular file under the size limit, never a FIFO or a device)
and bounded by `MAX_NESTING` (how deep its syntax tree may go) and `MAX_STEPS` (how
many calls an unrolled migration may make); past a limit, `LimitExceeded` says which,
and the importer skips that one file with the reason, never the whole import.

`MAX_STORED_TEXT` caps text copied from a source into the log (a commit subject, an
imported reason): one 1 MB commit subject must not become megabytes of log.

This module imports nothing of Cairn: it is the base layer below the store and the
indexer (the indexer enforces the limit), and a surface can read the limit without
loading the indexer (a contract in pyproject.toml keeps it so).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "BINARY_SNIFF_BYTES",
    "CLIPPED_MARK",
    "MAX_FILE_BYTES",
    "MAX_NESTING",
    "MAX_STEPS",
    "MAX_STORED_TEXT",
    "MAX_SUBJECT",
    "LimitExceeded",
    "Steps",
    "capped",
    "looks_binary",
    "nesting_within",
    "read_source",
    "source_text",
]


MAX_FILE_BYTES = 4_000_000
BINARY_SNIFF_BYTES = 8192
# Python's own parser gives up near 200 nested brackets; real migrations stay far below
MAX_NESTING = 200
# calls one migration file may expand to (its loops unrolled): real ones make dozens
MAX_STEPS = 20_000
# characters of text copied from a source into an event: a commit's message (16,000
# leaves a revert's reason, which quotes two messages, under the store's 64 KiB) and
# its subject (which metadata repeats on every event of the commit)
MAX_STORED_TEXT = 16_000
MAX_SUBJECT = 1_000
CLIPPED_MARK = " [… clipped by cairn: {n} more characters]"


class LimitExceeded(Exception):
    """A source file past one of these limits; the message says which, in words."""


def looks_binary(data: bytes) -> bool:
    """A NUL byte early on means a binary file (git's heuristic)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def source_text(data: bytes) -> str | None:
    """Text of a source file, or None for binary and oversized files (nothing to index)."""
    if len(data) > MAX_FILE_BYTES or looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")


def read_source(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of the regular file at `path` (links followed), or `LimitExceeded`
    for anything else: a FIFO, a device (`/dev/zero`), a folder, or more than `limit`
    bytes. The kind is decided from `stat`, before the file is opened, so a FIFO
    cannot block the reader; the read stops at `limit` bytes whatever the file grows to.
    `OSError` and `UnicodeDecodeError` reach the caller as they are."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise LimitExceeded("not a regular file (a FIFO, a device or a folder); not read")
    if info.st_size > limit:
        raise LimitExceeded(f"{info.st_size:,} bytes, over the {limit:,}-byte limit")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped since the stat
            raise LimitExceeded("not a regular file (a FIFO, a device or a folder); not read")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise LimitExceeded(f"over the {limit:,}-byte limit")
    return data.decode("utf-8")


def nesting_within(
    root: object, children: Callable[[Any], Iterable[object]], limit: int = MAX_NESTING
) -> None:
    """`LimitExceeded` when a tree goes deeper than `limit` levels. Iterative, so a tree
    too deep for Python's stack is measured rather than crashing the measurer."""
    stack: list[tuple[object, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            raise LimitExceeded(f"nested deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children(node))


class Steps:
    """A budget of work for one source file (calls an unrolled migration makes)."""

    def __init__(self, limit: int = MAX_STEPS) -> None:
        self.limit = limit
        self.used = 0

    def spend(self, count: int = 1) -> None:
        """Count work done; `LimitExceeded` once the file has used its budget."""
        self.used += count
        if self.used > self.limit:
            raise LimitExceeded(f"expands to over {self.limit:,} calls (nested loops)")


def capped(text: str, limit: int = MAX_STORED_TEXT) -> tuple[str, bool]:
    """(`text` cut to `limit` characters with a marker saying how much went, whether it
    was cut)."""
    if len(text) <= limit:
        return text, False
    return text[:limit] + CLIPPED_MARK.format(n=f"{len(text) - limit:,}"), True
