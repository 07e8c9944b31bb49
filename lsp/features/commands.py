"""workspace/executeCommand: cairn.log, cairn.reject, cairn.revert, cairn.supersede,
cairn.history. Each takes one JSON object.

Besides the documented keys every command accepts `uri` (the document the request
came from) to pick the project in a multi-root workspace; `cairn.history` accepts
`show: true` to open the history as a document (code actions and hover links set it;
a plugin that renders the returned markdown itself leaves it out). Invalid arguments
get an InvalidParams error and nothing is written. Redact and delete are not here:
they are human acts on the CLI.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from cairn.core.decisions import COMMANDS, request_from_command
from cairn.core.present import clip, history_markdown, short_id
from cairn.core.project import Project
from cairn.lsp.context import Context
from cairn.lsp.conversions import path_uri, uri_path
from cairn.lsp.drafts_flow import open_draft, record
from cairn.lsp.server import CairnServer


def register(server: CairnServer) -> None:
    """Add the five commands. Their errors (a bad request, a store that cannot write)
    become LSP errors where they are registered (`CairnServer.handle_command`)."""
    for name in COMMANDS:
        server.handle_command(name)(_decision_handler(name))

    @server.handle_command("cairn.history")
    async def history(ctx: Context, *args: Any) -> dict[str, Any]:
        from cairn.store.paths import canonicalise  # loaded on first use

        options = _one_object("cairn.history", args)
        project = command_project(ctx, options)
        raw = options.get("entity")
        if not isinstance(raw, str):  # not str(): 42 or ["a"] must not become an entity
            raise JsonRpcInvalidParams(
                f"cairn.history: 'entity' must be a string such as users.email, "
                f"not {type(raw).__name__}"
            )
        entity = canonicalise(raw)
        events = await ctx.hub.call(
            project.cairn_dir, lambda s: s.history(entity, include_children=True)
        )
        markdown = history_markdown(entity, events)
        shown = False
        if options.get("show") and ctx.client.capability("window.show_document.support"):
            shown = await _show_markdown(ctx, entity, markdown)
        return {
            "entity": entity,
            "markdown": markdown,
            "events": [e.to_dict() for e in events],
            "shown": shown,
        }


def _decision_handler(command: str) -> Any:
    async def handler(ctx: Context, *args: Any) -> dict[str, Any]:
        options = dict(_one_object(command, args))
        project = command_project(ctx, options)
        options.pop("uri", None)
        request = request_from_command(command, options)
        if request.reason is None:
            context = await _draft_context(ctx, project, request.supersedes)
            return await open_draft(ctx, project, request, context)
        return await record(ctx, project, request)

    handler.__name__ = command.replace(".", "_")
    return handler


def _one_object(command: str, args: tuple[Any, ...]) -> Mapping[str, Any]:
    if len(args) == 1 and isinstance(args[0], Mapping):
        return args[0]
    raise JsonRpcInvalidParams(
        f"{command}: expected one JSON object argument such as "
        '{"entity": "users.email", "reason": "..."}'
    )


def command_project(ctx: Context, options: Mapping[str, Any]) -> Project:
    """The project a command writes to: the `uri`'s, else the only one in sight."""
    uri = options.get("uri")
    if uri is not None:
        path = uri_path(uri) if isinstance(uri, str) else None
        project = ctx.projects.for_path(path) if path is not None else None
        if project is None:
            raise JsonRpcInvalidParams(f"{uri!r} is not inside a Cairn project (no .cairn/)")
        return project
    candidates: dict[Path, Project] = {p.cairn_dir: p for p in ctx.documents.projects()}
    for folder_uri in ctx.client.folder_uris():
        path = uri_path(folder_uri)
        project = ctx.projects.for_path(path) if path is not None else None
        if project is not None:
            candidates[project.cairn_dir] = project
    root = ctx.client.root_uri()
    if not candidates and root:
        path = uri_path(root)
        project = ctx.projects.for_path(path) if path is not None else None
        if project is not None:
            candidates[project.cairn_dir] = project
    if len(candidates) == 1:
        return next(iter(candidates.values()))
    if not candidates:
        raise JsonRpcInvalidParams("no Cairn project in this workspace; run `cairn init` first")
    roots = ", ".join(str(p.root) for p in candidates.values())
    raise JsonRpcInvalidParams(f"several Cairn projects are open ({roots}); pass 'uri'")


async def _draft_context(ctx: Context, project: Project, target: str | None) -> str:
    """For a supersede draft: quote the verdict being re-opened (nothing when it cannot
    be read: the draft still opens, and saving it reports the problem)."""
    if not target:
        return ""
    try:
        event = await ctx.hub.call(project.cairn_dir, lambda s: s.store.get(target))
    except Exception:
        return ""
    return (
        f"Re-opens the {event.type} `{short_id(event.id)}` of {event.entity}: "
        f"{clip(event.reasoning, 300)}"
    )


async def _show_markdown(ctx: Context, entity: str, markdown: str) -> bool:
    """Write the history to a temporary file (never into the repository) and show it."""
    folder = Path(tempfile.gettempdir()) / "cairn-history"
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(entity.encode()).hexdigest()[:10]
    slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in entity)[:50]
    path = folder / f"{slug}-{digest}.md"
    path.write_text(markdown, encoding="utf-8")
    return await ctx.client.show_document(path_uri(path))
