"""Limits every surface applies the same way.

`MAX_FILE_BYTES` is the one file-size limit: the indexer refuses larger text (it is
generated, vendored or data, and parsing it would stall an editor), so `cairn check`,
the language server (whose `maxFileBytes` setting can only lower it) and workspace
symbol lookups skip such files too. It is defined where it is enforced, in the
indexer, which cannot import this package.
"""

from __future__ import annotations

from cairn.indexer.text import MAX_BYTES as MAX_FILE_BYTES
from cairn.indexer.text import looks_binary

__all__ = ["MAX_FILE_BYTES", "source_text"]


def source_text(data: bytes) -> str | None:
    """Text of a source file, or None for binary and oversized files (nothing to index)."""
    if len(data) > MAX_FILE_BYTES or looks_binary(data):
        return None
    return data.decode("utf-8", errors="replace")
