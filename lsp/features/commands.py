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

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams

from cairn.core.decisions import COMMANDS, InvalidRequest, request_from_command
from cairn.core.present import clip, history_markdown, short_id
from cairn.core.project import Project
from cairn.lsp.conversions import path_uri, uri_path
from cairn.lsp.drafts_flow import open_draft, record
from cairn.lsp.server import CairnServer
from cairn.lsp.stores import StoreUnavailable


def register(server: CairnServer) -> None:
    """Add the five commands."""
    for name in COMMANDS:
        server.command(name)(_decision_handler(server, name))

    @server.command("cairn.history")
    async def history(*args: Any) -> dict[str, Any]:
        from cairn.store.paths import EntityPathError, canonicalise  # loaded on first use

        options = _one_object("cairn.history", args)
        project = command_project(server, options)
        raw = options.get("entity")
        if not isinstance(raw, str):  # not str(): 42 or ["a"] must not become an entity
            raise JsonRpcInvalidParams(
                f"cairn.history: 'entity' must be a string such as users.email, "
                f"not {type(raw).__name__}"
            )
        try:
            entity = canonicalise(raw)
        except EntityPathError as exc:
            raise JsonRpcInvalidParams(f"cairn.history: {exc}") from None
        events = await _store(server, project, lambda s: s.history(entity, include_children=True))
        markdown = history_markdown(entity, events)
        shown = False
        if options.get("show") and server.capability("window.show_document.support"):
            shown = await _show_markdown(server, entity, markdown)
        return {
            "entity": entity,
            "markdown": markdown,
            "events": [e.to_dict() for e in events],
            "shown": shown,
        }


def _decision_handler(server: CairnServer, command: str) -> Any:
    async def handler(*args: Any) -> dict[str, Any]:
        from cairn.store.errors import AmbiguousTarget, StoreError, UnknownEvent, ValidationError
        from cairn.store.paths import EntityPathError

        options = dict(_one_object(command, args))
        project = command_project(server, options)
        options.pop("uri", None)
        try:
            request = request_from_command(command, options)
        except InvalidRequest as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        if request.reason is None:
            context = await _draft_context(server, project, request.supersedes)
            return await open_draft(server, project, request, context)
        try:
            return await record(server, project, request)
        except (ValidationError, AmbiguousTarget, UnknownEvent, EntityPathError) as exc:
            raise JsonRpcInvalidParams(f"{command}: {exc}") from None
        except StoreError as exc:
            raise JsonRpcInternalError(f"{command}: {exc}") from None
        except StoreUnavailable as exc:
            raise JsonRpcInternalError(f"{command}: {exc}") from None

    handler.__name__ = command.replace(".", "_")
    return handler


def _one_object(command: str, args: tuple[Any, ...]) -> Mapping[str, Any]:
    if len(args) == 1 and isinstance(args[0], Mapping):
        return args[0]
    raise JsonRpcInvalidParams(
        f"{command}: expected one JSON object argument such as "
        '{"entity": "users.email", "reason": "..."}'
    )


def command_project(server: CairnServer, options: Mapping[str, Any]) -> Project:
    """The project a command writes to: the `uri`'s, else the only one in sight."""
    uri = options.get("uri")
    if uri is not None:
        path = uri_path(uri) if isinstance(uri, str) else None
        project = server.projects.for_path(path) if path is not None else None
        if project is None:
            raise JsonRpcInvalidParams(f"{uri!r} is not inside a Cairn project (no .cairn/)")
        return project
    candidates: dict[Path, Project] = {p.cairn_dir: p for p in server.documents.projects()}
    for folder in server.workspace.folders.values():
        path = uri_path(folder.uri)
        project = server.projects.for_path(path) if path is not None else None
        if project is not None:
            candidates[project.cairn_dir] = project
    root = server.workspace.root_uri
    if not candidates and root:
        path = uri_path(root)
        project = server.projects.for_path(path) if path is not None else None
        if project is not None:
            candidates[project.cairn_dir] = project
    if len(candidates) == 1:
        return next(iter(candidates.values()))
    if not candidates:
        raise JsonRpcInvalidParams("no Cairn project in this workspace; run `cairn init` first")
    roots = ", ".join(str(p.root) for p in candidates.values())
    raise JsonRpcInvalidParams(f"several Cairn projects are open ({roots}); pass 'uri'")


async def _store(server: CairnServer, project: Project, fn: Any) -> Any:
    try:
        return await server.hub.call(project.cairn_dir, fn)
    except StoreUnavailable as exc:
        raise JsonRpcInternalError(str(exc)) from None


async def _draft_context(server: CairnServer, project: Project, target: str | None) -> str:
    """For a supersede draft: quote the verdict being re-opened."""
    if not target:
        return ""
    try:
        event = await server.hub.call(project.cairn_dir, lambda s: s.store.get(target))
    except Exception:
        return ""
    return (
        f"Re-opens the {event.type} `{short_id(event.id)}` of {event.entity}: "
        f"{clip(event.reasoning, 300)}"
    )


async def _show_markdown(server: CairnServer, entity: str, markdown: str) -> bool:
    """Write the history to a temporary file (never into the repository) and show it."""
    folder = Path(tempfile.gettempdir()) / "cairn-history"
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(entity.encode()).hexdigest()[:10]
    slug = "".join(c if c.isalnum() or c in "._-" else "_" for c in entity)[:50]
    path = folder / f"{slug}-{digest}.md"
    path.write_text(markdown, encoding="utf-8")
    try:
        result = await server.window_show_document_async(
            types.ShowDocumentParams(uri=path_uri(path), take_focus=True)
        )
    except Exception:
        return False
    return bool(result and result.success)
