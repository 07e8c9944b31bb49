"""workspace/symbol: search over the decisions of every project in sight, ranked as
`cairn search` ranks them (`Store.search`): one symbol a decision, the best first.

Each hit is located at its entity's definition when it can be found cheaply: an open
document that introduces the entity, else (for files and code symbols) the file the
entity path names, indexed on the spot. Otherwise the hit points at the log itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from cairn.core.present import clip, day, more_entities
from cairn.core.project import Project
from cairn.indexer import index_text
from cairn.limits import MAX_FILE_BYTES
from cairn.lsp.context import Context
from cairn.lsp.conversions import lsp_range, path_uri, uri_path
from cairn.lsp.server import CairnServer

if TYPE_CHECKING:
    from cairn.indexer.model import Symbol

LIMIT = 50
KIND = {
    "table": types.SymbolKind.Struct,
    "column": types.SymbolKind.Field,
    "file": types.SymbolKind.File,
    "directory": types.SymbolKind.Package,
    "function": types.SymbolKind.Function,
    "method": types.SymbolKind.Method,
    "class": types.SymbolKind.Class,
    "constant": types.SymbolKind.Constant,
    "symbol": types.SymbolKind.Function,
    "route": types.SymbolKind.Interface,
    "dependency": types.SymbolKind.Package,
    "env": types.SymbolKind.Constant,
}
ORIGIN = types.Range(
    start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
)


def register(server: CairnServer) -> None:
    """Add the workspace-symbol handler."""

    @server.handle(types.WORKSPACE_SYMBOL, empty=[], name="search")
    async def workspace_symbol(
        ctx: Context, params: types.WorkspaceSymbolParams
    ) -> list[types.SymbolInformation]:
        query = params.query.strip()
        if not query:
            return []
        out: list[types.SymbolInformation] = []
        for project in projects_in_sight(ctx):
            # A half-typed query FTS5 cannot parse is a store error: no hits (logged).
            hits = await ctx.hub.call(
                project.cairn_dir, lambda s: s.store.search(query, limit=LIMIT)
            )
            located: dict[str, types.Location] = {}
            for hit in hits:
                event = hit.event
                if event.entity not in located:
                    located[event.entity] = locate(ctx, project, event.entity)
                out.append(
                    types.SymbolInformation(
                        name=f"{event.entity}{more_entities(hit)} · {event.type} {day(event.when)}",
                        kind=KIND.get(event.entity_kind, types.SymbolKind.Key),
                        location=located[event.entity],
                        container_name=clip(event.reasoning, 80) or None,
                    )
                )
        return out[:LIMIT]


def projects_in_sight(ctx: Context) -> list[Project]:
    """Projects of the workspace folders and of the open documents."""
    found: dict[Path, Project] = {}
    uris = ctx.client.folder_uris()
    root = ctx.client.root_uri()
    if root:
        uris.append(root)
    for uri in uris:
        path = uri_path(uri)
        project = ctx.projects.for_path(path) if path is not None else None
        if project is not None:
            found.setdefault(project.cairn_dir, project)
    for project in ctx.documents.projects():
        found.setdefault(project.cairn_dir, project)
    return list(found.values())


def locate(ctx: Context, project: Project, entity: str) -> types.Location:
    """Where the entity is defined, as well as can be told without a full scan."""
    for doc in ctx.documents:
        if doc.project != project or not doc.fresh:
            continue
        for symbol in doc.analysis.symbols:
            if symbol.entity == entity and str(symbol.role) == "introduce":
                return types.Location(uri=doc.uri, range=lsp_range(symbol.name_range))
    file_part = entity.split("::", 1)[0]
    candidate = project.root / file_part
    if "/" in entity.split("::", 1)[0] or "::" in entity or candidate.suffix:
        found = _in_file(project, candidate, file_part, entity)
        if found is not None:
            return found
    log = project.cairn_dir / "decisions.jsonl"
    return types.Location(uri=_uri(log), range=ORIGIN)


def _in_file(project: Project, path: Path, relpath: str, entity: str) -> types.Location | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        if not path.resolve().is_relative_to(project.root.resolve()):
            return None
        data = path.read_bytes()
    except OSError:
        return None
    symbols: list[Symbol] = index_text(data, relpath) if "::" in entity else []
    for symbol in symbols:
        if symbol.entity == entity and str(symbol.role) == "introduce":
            return types.Location(uri=_uri(path), range=lsp_range(symbol.name_range))
    return types.Location(uri=_uri(path), range=ORIGIN)


def _uri(path: Path) -> str:
    return path_uri(path)
