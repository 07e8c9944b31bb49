"""The editor's markdown (hover cards, lens titles, the history view) now lives with the
other presentation words in `cairn.core.present`, so `cairn show` prints what the editor
shows; this module keeps the old import path."""

from __future__ import annotations

from cairn.core.present import (
    MAX_LINES,
    MAX_NEWEST,
    MAX_VERDICTS,
    VERDICT_LABEL,
    command_link,
    formerly_note,
    found_by,
    history_markdown,
    hover_markdown,
    lens_title,
    no_decisions_markdown,
    quiet_hover_markdown,
    rollup_line,
)

__all__ = [
    "MAX_LINES",
    "MAX_NEWEST",
    "MAX_VERDICTS",
    "VERDICT_LABEL",
    "command_link",
    "formerly_note",
    "found_by",
    "history_markdown",
    "hover_markdown",
    "lens_title",
    "no_decisions_markdown",
    "quiet_hover_markdown",
    "rollup_line",
]
