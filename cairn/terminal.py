"""Stored text made safe for a terminal: the one escaping helper of every human output.

Text in the log is whatever someone wrote (or a merge, or a hand edit, put there). Sent
raw to a terminal, an ESC sequence sets the window title (OSC 0), plants a hyperlink
(OSC 8) or clears the screen (CSI 2J); a newline in a reason prints what looks like
another history entry; a bidi override reorders what the reader sees. Every human
output of stored text goes through `for_terminal`: control and bidi characters become
visible escapes (`\\x1b`, `\\u202e`) and continuation lines are indented under their
entry. `--json` output is not touched (JSON escapes control characters itself).
"""

from __future__ import annotations

import re

__all__ = ["for_terminal", "one_line", "printable"]

# C0 controls but tab and newline, DEL, C1 controls, and the characters that reorder or
# hide text on screen (bidi embeddings, overrides, isolates and marks; line and
# paragraph separators, which some terminals break lines at).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every control or bidi character shown as an escape; newlines kept
    (a `\\r\\n` counts as one newline)."""
    text = text.replace("\r\n", "\n")
    return _UNSAFE.sub(_visible, text)


def for_terminal(text: str, indent: str = "    ") -> str:
    """`printable(text)` with each continuation line indented by `indent`, so a newline
    in a reason can never start a line that looks like another entry."""
    return printable(text).replace("\n", "\n" + indent)


def one_line(text: str) -> str:
    """`printable(text)` on one line: line breaks become ` ⏎ ` (labels, table cells)."""
    return printable(text).replace("\n", " ⏎ ")
