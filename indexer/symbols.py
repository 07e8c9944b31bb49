"""From a query match's captures to canonical entity paths and symbols.

Names that code defines are qualified by nesting (`code_symbols`); every other kind
becomes an entity through the store's builders (`entity_of`), so there is one
canonicaliser. `direct_symbols` is the same for patterns of entity kinds alone, without
the `Capture` in between.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from cairn.indexer.capture import STRING_TYPES, Capture, FileContext, literal, node_text
from cairn.indexer.model import Range, Role, Symbol
from cairn.indexer.queries import Patterns
from cairn.indexer.text import LineIndex
from cairn.store.paths import (
    EntityPathError,
    canonicalise,
    column_path,
    dependency_path,
    env_path,
    route_path,
    symbol_path,
    table_path,
)

__all__ = [
    "capture_entity",
    "capture_symbol",
    "captures_of",
    "code_entity",
    "code_symbols",
    "direct_symbols",
    "entity_of",
    "file_prefix",
    "node_range",
    "widen",
]

# Dotted ASCII identifiers are already canonical symbol names (the grammar only checks
# them), so `file::name` is assembled directly; anything else goes through symbol_path.
_PLAIN_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


def direct_symbols(
    compiled: Patterns,
    pattern: int,
    nodes: dict[str, list[Node]],
    ctx: FileContext,
    lines: LineIndex,
) -> list[tuple[int, Symbol]]:
    """A match's symbols, each with its name's start byte, for a pattern that needs
    neither a resolver nor the scope walk (`Patterns.direct`: entity kinds only).

    The same symbols `match_captures` then `build_symbols` make of the match, without
    the `Capture` in between and the second pass over it (measured: a 5,000-line
    migration's 500 matches, 8.9 -> 7.7 ms of symbols)."""
    settings = compiled.settings[pattern]
    data = ctx.data
    override, range_nodes, table, version, method = match_helpers(nodes, settings, data)
    range_node = widen(range_nodes[0], ctx.language) if range_nodes else None
    out: list[tuple[int, Symbol]] = []
    path = ctx.path
    for capture_name, kind, role in compiled.primaries[pattern]:
        found = nodes.get(capture_name)
        if not found:
            continue
        for name_node in found:
            text_node = override[0] if override else name_node
            name = name_text(text_node, data)
            if name is None or name_node.is_missing:
                continue
            entity = entity_of(
                kind,
                name,
                table if kind == "column" else None,
                method if kind == "route" else None,
            )
            if entity is None:
                continue
            name_range = node_range(lines, text_node)
            whole_node = range_node if range_node is not None else name_node
            whole = name_range if whole_node is text_node else node_range(lines, whole_node)
            symbol = Symbol(
                path, entity, kind, role, name_range, whole, version if kind == "dependency" else ""
            )
            out.append((text_node.start_byte, symbol))
    return out


def match_helpers(
    nodes: dict[str, list[Node]], settings: dict[str, str | None], data: bytes
) -> tuple[list[Node] | None, list[Node] | None, str | None, str, str | None]:
    """What a match's helper captures say: the name override, the range nodes, the
    table, the version and the HTTP method (both the direct path and `captures_of`)."""
    if len(nodes) == 1:  # the match holds the name alone: no helper to read
        return None, None, None, "", settings.get("method") if settings else None
    table_nodes = nodes.get("table")
    version_nodes = nodes.get("version")
    method_nodes = nodes.get("http.method")
    return (
        nodes.get("name"),
        nodes.get("range"),
        name_text(table_nodes[0], data) if table_nodes else None,
        (name_text(version_nodes[0], data) or "") if version_nodes else "",
        node_text(method_nodes[0]) if method_nodes else settings.get("method"),
    )


def captures_of(
    nodes: dict[str, list[Node]],
    capture_name: str,
    kind: str,
    role: Role,
    settings: dict[str, str | None],
    data: bytes,
    language: str | None = None,
) -> list[Capture]:
    found = nodes.get(capture_name)
    if not found:
        return []
    override, range_nodes, table, version, method = match_helpers(nodes, settings, data)
    scope_nodes = nodes.get("scope") if len(nodes) > 1 else None
    scope = node_text(scope_nodes[0]) if scope_nodes else None
    range_node = widen(range_nodes[0], language) if range_nodes else None
    out: list[Capture] = []
    for name_node in found:
        text_node = override[0] if override else name_node
        name = name_text(text_node, data)
        if name is None or name_node.is_missing:
            continue
        out.append(
            Capture(
                kind,
                role,
                name,
                text_node,
                range_node if range_node is not None else name_node,
                nodes,
                settings,
                table,
                method,
                scope,
                version,
            )
        )
    return out


# Nodes that wrap a definition without being one: the definition's full range is the
# wrapper's, so a changed decorator or `export` keyword belongs to what it decorates.
# Each is its language's own construct, named per language: asking a node for its parent
# walks down from the root (past every earlier top-level node), so a language without
# any wrapper never asks.
_WRAPPERS = frozenset({"decorated_definition", "export_statement"})
# Go declarations that hold one spec are the spec's whole definition (`const X = 1`).
_ONE_SPEC = frozenset({"const_declaration", "var_declaration", "type_declaration"})
_WRAPPING = frozenset({"python", "javascript", "typescript", "tsx", "go"})


def widen(node: Node, language: str | None = None) -> Node:
    """The whole definition a construct belongs to: a decorated Python definition with
    its decorators, an exported JS/TS declaration with `export`, a single Go spec with
    its `const`/`var`/`type` keyword. Nodes of other languages (`language` given and
    none of these) are their own whole definition."""
    if language is not None and language not in _WRAPPING:
        return node
    parent = node.parent
    if parent is None:
        return node
    kind = parent.type
    if kind in _WRAPPERS:
        return parent
    if kind in _ONE_SPEC and parent.named_child_count == 1:
        return parent
    return node


def name_text(node: Node, data: bytes) -> str | None:
    """The name a node spells: a literal's value, else its text (sliced from the file's
    bytes, which is what `node.text` copies out, at half the cost)."""
    if node.type in STRING_TYPES:
        value = literal(node)
        if value is not None:
            return value.strip()  # may be "" (Django's root path); builders reject the rest
        if node.type in ("string", "template_string"):
            return None  # an interpolated string names nothing fixed
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace").strip() or None


def capture_entity(capture: Capture) -> str | None:
    kind = capture.kind
    table = capture.table if kind == "column" else None
    method = capture.method if kind == "route" else None
    return entity_of(kind, capture.name, table, method)


def entity_of(kind: str, name: str, table: str | None, method: str | None) -> str | None:
    """The entity path of a non-code kind's name (remembered: the builders are pure)."""
    key = (kind, name, table, method)
    try:
        return _ENTITIES[key]
    except KeyError:
        pass
    entity = _build_entity(*key)
    if len(_ENTITIES) >= _ENTITIES_KEPT:
        _ENTITIES.clear()  # bounded; the builders are pure, so forgetting is safe
    _ENTITIES[key] = entity
    return entity


# The builders canonicalise (fold, check, escape) each name; a file names its tables,
# columns and variables many times (a migration's 250 `ALTER TABLE t ...` name 37 tables)
_ENTITIES: dict[tuple[str, str, str | None, str | None], str | None] = {}
_ENTITIES_KEPT = 65536


def _build_entity(kind: str, name: str, table: str | None, method: str | None) -> str | None:
    try:
        if kind == "table":
            return table_path(name)
        if kind == "column":
            if not table:
                return None
            return column_path(table, name)
        if kind == "route":
            if not method or not name.startswith("/"):
                return None
            return route_path(method.upper(), name)
        if kind == "dependency":
            return dependency_path(name)
        if kind == "env":
            return env_path(name)
    except EntityPathError:
        return None
    return None


def file_prefix(path: str) -> str | None:
    """`file::` canonicalised once per file, or None when the path is no valid file."""
    try:
        return canonicalise(path) + "::"
    except EntityPathError:
        return None


def code_entity(path: str, prefix: str | None, qualified: str) -> str | None:
    """`file::Qualified.name`, as `symbol_path` builds it, or None if invalid."""
    if prefix is not None and _PLAIN_SYMBOL.match(qualified):
        return prefix + qualified
    try:
        return symbol_path(path, qualified)
    except EntityPathError:
        return None


def code_symbols(
    ctx: FileContext,
    lines: LineIndex,
    prefix: str | None,
    definitions: list[Capture],
    containers: list[tuple[Node, str]],
    outer: tuple[str, str] | None = None,
) -> list[Symbol]:
    if not definitions:
        return []
    # (start, -end) order puts every scope before what it contains, so one stack walk
    # finds each definition's innermost enclosing scope.
    scopes: list[tuple[int, int, str, str, Capture | None]] = [
        (n.start_byte, n.end_byte, name, "container", None) for n, name in containers
    ]
    for definition in definitions:
        node = definition.range_node
        scopes.append(
            (node.start_byte, node.end_byte, definition.name, definition.kind, definition)
        )
    scopes.sort(key=lambda s: (s[0], -s[1], s[4] is not None))
    stack: list[tuple[int, int, str, str]] = []  # (start, end byte, qualified name, kind)
    if outer is not None:
        stack.append((-1, 1 << 62, *outer))
    out: list[Symbol] = []
    for start, end, name, kind, capture in scopes:
        while stack and stack[-1][1] <= start:
            stack.pop()
        # names declared together (`A, B = 1, 2`, `int X = 1, Y = 2;`) share one range:
        # they are siblings, not one inside the other
        parent = None
        for scope in reversed(stack):
            if scope[0] != start or scope[1] != end:
                parent = scope
                break
        if capture is not None and capture.scope:
            qualified = f"{capture.scope}.{name}"
            if kind == "function":
                kind = "method"
        elif parent is not None:
            qualified = f"{parent[2]}.{name}"
            if kind == "function" and parent[3] in ("class", "container"):
                kind = "method"
        else:
            qualified = name
        stack.append((start, end, qualified, kind))
        if capture is None:
            continue
        entity = code_entity(ctx.path, prefix, qualified)
        if entity is not None:
            out.append(capture_symbol(ctx, lines, capture, entity, kind))
    return out


def capture_symbol(
    ctx: FileContext, lines: LineIndex, capture: Capture, entity: str, kind: str
) -> Symbol:
    name_node = capture.name_node
    name = node_range(lines, name_node)
    range_node = capture.range_node
    whole = name if range_node is name_node else node_range(lines, range_node)  # frozen: shared
    return Symbol(
        ctx.path,
        entity,
        kind,
        capture.role,
        name,
        whole,
        capture.version if kind == "dependency" else "",
    )


def node_range(lines: LineIndex, node: Node) -> Range:
    """The node's LSP range (UTF-16 columns)."""
    start_row, start_column = node.start_point
    end_row, end_column = node.end_point
    if lines.ascii:
        return Range(start_row, start_column, end_row, end_column)
    return Range(
        start_row,
        lines.utf16_column(start_row, start_column),
        end_row,
        lines.utf16_column(end_row, end_column),
    )
