"""The generic layer: query matches -> captures -> canonical entity paths -> symbols.

Kinds that name code (function, class, method) are qualified by nesting: a definition
inside another takes its name as a prefix (`Session.login`), and a function directly
inside a class or a `@container` (a Rust `impl`) is a method. Everything else becomes an
entity through the store's builders, so there is one canonicaliser.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from cairn.indexer.capture import Capture, FileContext, literal, node_text
from cairn.indexer.frameworks import RESOLVERS
from cairn.indexer.model import Range, Role, Symbol
from cairn.indexer.queries import KINDS, CompiledQuery
from cairn.indexer.text import LineIndex
from cairn.store.paths import (
    EntityPathError,
    column_path,
    dependency_path,
    env_path,
    route_path,
    symbol_path,
    table_path,
)
from tree_sitter import Node, QueryCursor, Tree

_CODE_KINDS = frozenset({"function", "class", "method", "symbol"})
_ROLE = {
    "introduce": Role.INTRODUCE,
    "define": Role.INTRODUCE,
    "reference": Role.REFERENCE,
    "remove": Role.REMOVE,
}
_PRIMARY = {f"{k}.{r}": (k, _ROLE[r]) for k in KINDS for r in _ROLE}


def extract(
    tree: Tree, ctx: FileContext, lines: LineIndex, queries: Iterable[CompiledQuery]
) -> list[Symbol]:
    """All symbols the queries find in `tree`, sorted by position."""
    captures: list[Capture] = []
    containers: list[tuple[Node, str]] = []
    root = tree.root_node
    for compiled in queries:
        for pattern, nodes in QueryCursor(compiled.query).matches(root):
            settings = compiled.settings[pattern]
            files = settings.get("files")
            if files and not any(fnmatch.fnmatchcase(ctx.basename, g) for g in files.split()):
                continue
            if "container" in nodes and "container.name" in nodes:
                containers.append((nodes["container"][0], node_text(nodes["container.name"][0])))
            for capture in _captures(nodes, settings):
                resolver = settings.get("resolver")
                if resolver is None:
                    captures.append(capture)
                else:
                    captures.extend(RESOLVERS[resolver](capture, ctx))
    symbols = _code_symbols(ctx, lines, [c for c in captures if c.kind in _CODE_KINDS], containers)
    for capture in captures:
        if capture.kind not in _CODE_KINDS:
            entity = _entity(capture)
            if entity is not None:
                symbols.append(_symbol(ctx, lines, capture, entity, capture.kind))
    return _settle(symbols)


def _settle(symbols: list[Symbol]) -> list[Symbol]:
    """Drop duplicates, and a reference where another pattern saw the same name
    introduced or removed (`ALTER TABLE t RENAME TO u` removes `t`, it does not just
    mention it); then sort by position."""
    unique = {(s.name_range, s.entity, s.role): s for s in symbols}
    decided = {(s.name_range, s.entity) for s in unique.values() if s.role is not Role.REFERENCE}
    kept = [
        s
        for s in unique.values()
        if s.role is not Role.REFERENCE or (s.name_range, s.entity) not in decided
    ]
    return sorted(kept, key=lambda s: (s.name_range, s.range, s.entity, s.role.value))


def _captures(nodes: dict[str, list[Node]], settings: dict[str, str | None]) -> list[Capture]:
    out: list[Capture] = []
    for capture_name, found in nodes.items():
        primary = _PRIMARY.get(capture_name)
        if primary is None:
            continue
        kind, role = primary
        for name_node in found:
            name_override = nodes.get("name")
            text_node = name_override[0] if name_override else name_node
            name = _text(text_node)
            if name is None or name_node.is_missing:
                continue
            range_nodes = nodes.get("range")
            table = nodes.get("table")
            method = nodes.get("http.method")
            scope = nodes.get("scope")
            out.append(
                Capture(
                    kind=kind,
                    role=role,
                    name=name,
                    name_node=text_node,
                    range_node=range_nodes[0] if range_nodes else name_node,
                    nodes=nodes,
                    settings=settings,
                    table=_text(table[0]) if table else None,
                    method=node_text(method[0]) if method else settings.get("method"),
                    scope=node_text(scope[0]) if scope else None,
                )
            )
    return out


def _text(node: Node) -> str | None:
    value = literal(node)
    if value is None:
        if node.type in ("string", "template_string"):
            return None  # an interpolated string names nothing fixed
        value = node_text(node)
    value = value.strip()
    return value or None


def _entity(capture: Capture) -> str | None:
    try:
        if capture.kind == "table":
            return table_path(capture.name)
        if capture.kind == "column":
            if not capture.table:
                return None
            return column_path(capture.table, capture.name)
        if capture.kind == "route":
            if not capture.method or not capture.name.startswith("/"):
                return None
            return route_path(capture.method.upper(), capture.name)
        if capture.kind == "dependency":
            return dependency_path(capture.name)
        if capture.kind == "env":
            return env_path(capture.name)
    except EntityPathError:
        return None
    return None


def _code_symbols(
    ctx: FileContext,
    lines: LineIndex,
    definitions: list[Capture],
    containers: list[tuple[Node, str]],
) -> list[Symbol]:
    # (start, -end) order puts every scope before what it contains, so one stack walk
    # finds each definition's innermost enclosing scope.
    scopes: list[tuple[int, int, str, str, Capture | None]] = [
        (n.start_byte, n.end_byte, name, "container", None) for n, name in containers
    ]
    for capture in definitions:
        node = capture.range_node
        scopes.append((node.start_byte, node.end_byte, capture.name, capture.kind, capture))
    scopes.sort(key=lambda s: (s[0], -s[1], s[4] is not None))
    stack: list[tuple[int, str, str]] = []  # (end byte, qualified name, kind)
    out: list[Symbol] = []
    for start, end, name, kind, capture in scopes:
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1] if stack else None
        if capture is not None and capture.scope:
            qualified = f"{capture.scope}.{name}"
            if kind == "function":
                kind = "method"
        elif parent is not None:
            qualified = f"{parent[1]}.{name}"
            if kind == "function" and parent[2] in ("class", "container"):
                kind = "method"
        else:
            qualified = name
        stack.append((end, qualified, kind))
        if capture is None:
            continue
        try:
            entity = symbol_path(ctx.path, qualified)
        except EntityPathError:
            continue
        out.append(_symbol(ctx, lines, capture, entity, kind))
    return out


def _symbol(ctx: FileContext, lines: LineIndex, capture: Capture, entity: str, kind: str) -> Symbol:
    return Symbol(
        file=ctx.path,
        entity=entity,
        kind=kind,
        role=capture.role,
        name_range=node_range(lines, capture.name_node),
        range=node_range(lines, capture.range_node),
    )


def node_range(lines: LineIndex, node: Node) -> Range:
    """The node's LSP range (UTF-16 columns)."""
    start = node.start_point
    end = node.end_point
    return Range(
        start.row,
        lines.utf16_column(start.row, start.column),
        end.row,
        lines.utf16_column(end.row, end.column),
    )
