"""Re-indexing after one small edit inside a function: query only that function.

Chunk caching (extract.py) makes an edit cost one top-level node, but one top-level
node can be a 3,000-line class. When a single edit lies inside a function or method,
its symbols depend only on that function and its ancestors (resolvers read ancestors
from the complete tree; sibling context such as `__tablename__` lives outside
functions), so only the function is queried again; every other symbol is carried over,
its positions moved by the edit. Anything less clear-cut returns None and the caller
falls back to the chunk path.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

import msgspec
from tree_sitter import Node, Tree

from cairn.indexer.capture import Capture, FileContext
from cairn.indexer.extract import CODE_KINDS, build_symbols, match_captures
from cairn.indexer.model import Range, Symbol
from cairn.indexer.queries import Patterns
from cairn.indexer.symbols import file_prefix, widen
from cairn.indexer.text import LineIndex

# Nodes whose body has no sibling context: re-indexing one alone is exact.
FUNCTION_TYPES = frozenset(
    {
        "function_definition",
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "method_declaration",
        "constructor_declaration",
        "function_item",
        "method",
        "singleton_method",
    }
)


class EditRecord(msgspec.Struct, frozen=True):
    """One applied edit: bytes in the new text, LSP positions old and new, and the byte
    ranges whose syntax tree-sitter says changed."""

    start_byte: int
    new_end_byte: int
    start: tuple[int, int]
    old_end: tuple[int, int]
    new_end: tuple[int, int]
    changed: tuple[tuple[int, int], ...]


def splice(
    tree: Tree,
    ctx: FileContext,
    lines: LineIndex,
    queries: Sequence[Patterns],
    previous: list[Symbol],
    edit: EditRecord,
) -> list[Symbol] | None:
    """The new symbols after `edit`, or None when the edit is not confined to a function."""
    function = _enclosing_function(tree.root_node, edit)
    if function is None:
        return None
    # the function's symbol spans its decorators / `export` too (symbols.widen)
    unit = widen(function, ctx.language)
    new_start = (unit.start_point.row, lines.utf16_column(*unit.start_point))
    new_end = (unit.end_point.row, lines.utf16_column(*unit.end_point))
    old_start, old_end = new_start, _unmap(new_end, edit)
    own = [
        s
        for s in previous
        if s.kind in CODE_KINDS
        and (s.range.start_line, s.range.start_character) == old_start
        and (s.range.end_line, s.range.end_character) == old_end
    ]
    if len(own) != 1:
        return None
    qualified = own[0].entity.partition("::")[2]
    parent = qualified.rpartition(".")[0]
    outer = (parent, "class" if own[0].kind == "method" else "function") if parent else None

    captures: list[Capture] = []
    for compiled in queries:
        for pattern, nodes in compiled.matches(tree.root_node, (unit.start_byte, unit.end_byte)):
            for capture in match_captures(compiled, pattern, nodes, ctx):
                node = capture.name_node
                if unit.start_byte <= node.start_byte and node.end_byte <= unit.end_byte:
                    captures.append(capture)
    fresh = build_symbols(ctx, lines, file_prefix(ctx.path), captures, [], outer)

    keys = [(s.name_range.start_line, s.name_range.start_character) for s in previous]
    first = bisect_left(keys, old_start)
    last = bisect_right(keys, old_end)
    before = previous[:first]
    after = previous[last:]
    return [_moved(s, edit) for s in before] + fresh + [_moved(s, edit) for s in after]


def _enclosing_function(root: Node, edit: EditRecord) -> Node | None:
    low = min([edit.start_byte, *(a for a, _ in edit.changed)])
    high = max([edit.new_end_byte, *(b for _, b in edit.changed)])
    node = root.descendant_for_byte_range(low, high)
    while node is not None:
        if node.type in FUNCTION_TYPES and node.start_byte < low and high < node.end_byte:
            return node
        node = node.parent
    return None


def _unmap(position: tuple[int, int], edit: EditRecord) -> tuple[int, int]:
    """A position after the edit, in the text before it."""
    if position < edit.new_end:
        return position
    line, character = position
    if line == edit.new_end[0]:
        character = character - edit.new_end[1] + edit.old_end[1]
    return line - edit.new_end[0] + edit.old_end[0], character


def _map(line: int, character: int, edit: EditRecord) -> tuple[int, int]:
    if (line, character) < edit.old_end:
        return line, character
    if line == edit.old_end[0]:
        character = character - edit.old_end[1] + edit.new_end[1]
    return line - edit.old_end[0] + edit.new_end[0], character


def _moved(symbol: Symbol, edit: EditRecord) -> Symbol:
    r = symbol.range
    if (r.end_line, r.end_character) < edit.start:
        return symbol  # wholly before the edit
    row = edit.old_end[0]
    if edit.new_end[0] == row and row not in (
        r.start_line,
        r.end_line,
        symbol.name_range.start_line,
        symbol.name_range.end_line,
    ):
        return symbol  # the edit kept the line count and this symbol is on other lines
    return Symbol(
        symbol.file,
        symbol.entity,
        symbol.kind,
        symbol.role,
        _moved_range(symbol.name_range, edit),
        _moved_range(symbol.range, edit),
        symbol.version,
    )


def _moved_range(r: Range, edit: EditRecord) -> Range:
    return Range(
        *_map(r.start_line, r.start_character, edit), *_map(r.end_line, r.end_character, edit)
    )
