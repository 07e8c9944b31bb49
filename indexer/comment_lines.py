"""Runs of whole comment lines between SQL statements, which the parser need not read.

tree-sitter spends ~1.5 µs on every comment token, so a migration that is mostly `--`
lines (a 5,000-line file with 250 statements: 7 of its 10 ms of parse) pays for them
again on every open. No built-in query looks at a comment, and a comment line after a
statement's `;` is a child of the program (or of the block holding the statements):
leaving it out of the parser's included ranges yields the same tree without that
comment node, in the same coordinates.

Only lines that are certainly comments are left out. The pre-lexer below follows the
grammar's tokens that can hide a `--` or span lines (strings `'…'` with `''`, quoted
identifiers `"…"`, `/* … */`), and gives up at the first byte it does not model (a
backslash, as in `E'…\\'…'`; a `$`, which may open a dollar-quoted body; a backtick):
nothing is left out after it. A tree with a syntax error is parsed again whole by the
caller (`Document`), since error recovery may weigh the comments it skips.
"""

from __future__ import annotations

import re

from tree_sitter import Point, Range

# Fewer whole comment lines than this: the pre-lexing costs about what it saves.
MIN_LINES = 64
_NOT_MODELLED = (b"\\", b"$", b"`")
_TOKEN = re.compile(rb"--|/\*|'|\"")
_BLOCK = re.compile(rb"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/")
_SINGLE = re.compile(rb"'(?:[^']|'')*'")
_DOUBLE = re.compile(rb'"[^"]*"')
_SEMICOLON = ord(";")
# a newline whose next line is no comment line (indented by what `bytes.isspace` calls
# space; searching for it finds where a run of comment lines ends, at C speed)
_RUN_END = re.compile(rb"\n(?![ \t\r\x0b\x0c]*--)")


def sql_code_ranges(data: bytes) -> list[Range] | None:
    """The ranges to parse: all of `data` but the runs of whole `--` lines that follow a
    `;` (or open the file); None when there are too few such lines to be worth it."""
    if data.count(b"\n--") < MIN_LINES:
        return None
    skipped = _comment_runs(data)
    if sum(line_count for _, _, line_count in skipped) < MIN_LINES:
        return None
    ranges: list[Range] = []
    start = row = 0  # every bound but the file's end is a line's first byte: column 0
    for skip_start, skip_end, line_count in skipped:
        if skip_start > start:
            end_row = row + data.count(b"\n", start, skip_start)
            ranges.append(Range(Point(row, 0), Point(end_row, 0), start, skip_start))
            row = end_row
        start = skip_end
        row += line_count
    if start < len(data):
        end_row = row + data.count(b"\n", start)
        last_newline = data.rfind(b"\n", start)
        column = len(data) - (start if last_newline == -1 else last_newline + 1)
        ranges.append(Range(Point(row, 0), Point(end_row, column), start, len(data)))
    if not ranges:  # nothing but comments: parse it all (the tree is a program of them)
        return None
    return ranges


def _comment_runs(data: bytes) -> list[tuple[int, int, int]]:
    """(start, end, lines) of each run of whole comment lines after a `;` or at the top,
    from a line's first byte to the next line's first byte."""
    limit = len(data)
    for byte in _NOT_MODELLED:
        found = data.find(byte)
        if found != -1:
            limit = min(limit, found)
    runs: list[tuple[int, int, int]] = []
    after_statement = True  # the file's top, or a `;` as the last code seen
    pos = 0
    search = _TOKEN.search
    while True:
        match = search(data, pos, limit)
        if match is None:
            break
        start = match.start()
        code = data[pos:start].rstrip()
        if code:
            after_statement = code[-1] == _SEMICOLON
        token = match.group()
        if token == b"--":
            line_start = data.rfind(b"\n", 0, start) + 1
            indent = data[line_start:start]
            if after_statement and (not indent or indent.isspace()):
                # the run ends after the first newline not followed by a comment line
                after = _RUN_END.search(data, start)
                end = len(data) if after is None else after.end()
                if end <= limit:
                    runs.append((line_start, end, data.count(b"\n", line_start, end)))
                    pos = end
                    continue
            end = data.find(b"\n", start)
            pos = len(data) if end == -1 else end + 1
            continue
        if token == b"/*":
            block = _BLOCK.match(data, start)
            if block is None or block.end() > limit:
                break  # unterminated (or past what is modelled): stop here
            pos = block.end()  # a comment: what came before it still decides
            continue
        quoted = (_SINGLE if token == b"'" else _DOUBLE).match(data, start)
        if quoted is None or quoted.end() > limit:
            break
        pos = quoted.end()
        after_statement = False
    return runs
