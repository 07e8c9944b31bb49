"""Limits every surface applies the same way.

`MAX_FILE_BYTES` is the one file-size limit: larger text is generated, vendored or
data, and parsing it would stall an editor. The indexer refuses it, so `cairn check`,
the language server (whose `maxFileBytes` setting can only lower it), workspace-symbol
lookups and the agent tools skip such files too. `looks_binary` is the one binary
sniff (git's: a NUL byte early on).

This module imports nothing of Cairn: it is the base layer below the store and the
indexer (the indexer enforces the limit), and a surface can read the limit without
loading the indexer (a contract in pyproject.toml keeps it so).
"""

from __future__ import annotations

__all__ = ["BINARY_SNIFF_BYTES", "MAX_FILE_BYTES", "looks_binary", "source_text"]

MAX_FILE_BYTES = 4_000_000
BINARY_SNIFF_BYTES = 8192


def looks_binary(data: bytes) -> bool:
    """A NUL byte early on means a binary file (git's heuristic)."""
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def source_text(data: bytes) -> str | None:
    """Text of a source file, or None for binary and oversized files (nothing to index)."""
    if len(data) > MAX_FILE_BYTES or looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")
