"""The entity tree, paged: tables with their columns, files with their classes and
functions, then routes, dependencies, environment variables and the rest, nested.
`tree.html`, `tree-2.html`... each hold whole top-level subtrees up to about `PAGE`
nodes (a subtree larger than that gets a page of its own), so no page grows with the
log; parents that have no history of their own are shown as plain text."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from cairn.site.markup import badge, entity_link, esc, pager
from cairn.site.model import Entity, kind_of
from cairn.store.paths import EntityKind

__all__ = ["PAGE", "tree_name", "tree_pages"]

PAGE = 1000  # nodes a tree page holds, whole subtrees at a time
GROUPS = ("Tables", "Files", "Routes", "Dependencies", "Environment", "Other")


def tree_name(number: int) -> str:
    return "tree.html" if number == 1 else f"tree-{number}.html"


def tree_pages(
    entities: dict[str, Entity], children: dict[str, list[str]]
) -> Iterator[tuple[str, str]]:
    """(file name, the page's tree HTML with its pager) for every page of the tree."""
    groups: dict[str, list[str]] = defaultdict(list)
    for top in children.get("", []):
        groups[_group(top, entities)].append(top)
    chunks: list[list[tuple[str, str]]] = [[]]  # each page's (group, top) in order
    held = 0
    for title in GROUPS:
        for top in groups.get(title, []):
            size = _size(top, children)
            if chunks[-1] and held + size > PAGE:
                chunks.append([])
                held = 0
            chunks[-1].append((title, top))
            held += size
    for number, chunk in enumerate(chunks, start=1):
        parts: list[str] = []
        for title in GROUPS:
            tops = [top for group, top in chunk if group == title]
            if tops:
                items = "".join(_tree_node(p, entities, children) for p in tops)
                parts.append(f"<h3>{title}</h3><ul>{items}</ul>")
        body = "\n".join(parts) or "<p>No entities.</p>"
        yield (
            tree_name(number),
            body + pager(number, len(chunks), "", tree_name, ("previous", "next")),
        )


def _size(path: str, children: dict[str, list[str]]) -> int:
    return 1 + sum(_size(k, children) for k in children.get(path, []))


def _group(path: str, entities: dict[str, Entity]) -> str:
    kind = entities[path].kind if path in entities else kind_of(path)
    if kind in (EntityKind.TABLE.value, EntityKind.COLUMN.value):
        return "Tables"
    if kind == EntityKind.ROUTE.value:
        return "Routes"
    if kind == EntityKind.DEPENDENCY.value:
        return "Dependencies"
    if kind == EntityKind.ENV.value:
        return "Environment"
    if kind == EntityKind.FILE.value or "::" in path:
        return "Files"
    return "Other"


def _tree_node(path: str, entities: dict[str, Entity], children: dict[str, list[str]]) -> str:
    entity = entities.get(path)
    label = (
        f"{entity_link(entity, '')} {badge(entity.status.status.value)}"
        if entity is not None
        else f'<code class="plain">{esc(path)}</code>'
    )
    kids = children.get(path, [])
    if not kids:
        return f"<li>{label}</li>"
    inner = "".join(_tree_node(k, entities, children) for k in kids)
    return f"<li>{label}<ul>{inner}</ul></li>"
