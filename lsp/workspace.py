"""Open documents and the projects they belong to.

A document belongs to the nearest directory above it that holds a `.cairn/` folder
(`cairn.core.project.ProjectFinder`, which honours `CAIRN_DIR` as the CLI does), so a
multi-root workspace (or a monorepo with several projects) gets one log per root
without configuration. Each open document keeps one indexer `Document`, edited
incrementally from `didChange` content changes on the event loop (tree-sitter's
incremental reparse is fast enough to stay there), plus the results of its last
analysis, tagged with the version they were computed for.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from cairn.core.findings import Finding
from cairn.core.project import Project
from cairn.indexer import Document

log = logging.getLogger(__name__)


@dataclass
class OpenDocument:
    """One open file: its text model, its project and its last analysis."""

    uri: str
    path: Path | None
    project: Project | None
    relpath: str | None  # repository-relative path, as the indexer and entity paths want it
    version: int
    doc: Document | None  # None when the file is not analysed (binary, huge, outside a project)
    skipped: str | None = None  # why it is not analysed
    is_draft: bool = False
    save_failed: bool = False  # a save of this draft was refused: show its problems as errors
    analysed_version: int | None = None
    symbols: list[Any] = field(default_factory=list)
    statuses: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    diagnostics: list[types.Diagnostic] = field(default_factory=list)
    _by_line: dict[int, list[Any]] = field(default_factory=dict, repr=False)
    _lines_of: object = field(default=None, repr=False)  # the symbol list _by_line indexes

    @property
    def fresh(self) -> bool:
        """True when the cached analysis matches the current text."""
        return self.analysed_version == self.version

    def symbol_at(self, line: int, character: int) -> Any:
        """The symbol under a position: names by line first (a dict lookup), else the
        indexer's rule (the innermost enclosing range)."""
        if self.doc is None:
            return None
        symbols = self.doc.symbols
        if self._lines_of is not symbols:
            by_line: dict[int, list[Any]] = {}
            for symbol in symbols:
                r = symbol.name_range
                for number in range(r.start_line, r.end_line + 1):
                    by_line.setdefault(number, []).append(symbol)
            self._by_line, self._lines_of = by_line, symbols
        hits = [s for s in self._by_line.get(line, ()) if s.name_range.contains(line, character)]
        if hits:
            return min(hits, key=_name_size)
        return self.doc.symbol_at(line, character)

    def invalidate(self) -> None:
        """Forget the analysis (the log changed underneath)."""
        self.analysed_version = None


def _name_size(symbol: Any) -> tuple[int, int]:
    r = symbol.name_range
    return (r.end_line - r.start_line, r.end_character - r.start_character)


def uri_path(uri: str) -> Path | None:
    """The file-system path of a `file:` URI; None for other schemes."""
    try:
        fs = to_fs_path(uri)
    except Exception:
        return None
    return Path(fs) if fs else None


def relative_to(path: Path, root: Path) -> str | None:
    """`path` relative to `root` in POSIX form, or None when it lies outside."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
