"""workspace/didRenameFiles: when the editor renames or moves a file or folder that has
decisions, the server *offers* — never silently writes — a `rename` event so the
history follows it (`window/showMessageRequest`: "Move its history" / "Not now").

The capability is declared for `file:` URIs when the client says it sends file
operations (VS Code does; Neovim through file-explorer plugins that declare it). Only
renames inside one Cairn project whose old path has decisions are offered. The command
`cairn.rename` ({"from", "to", "reason"?, "key"?, "uri"?}: project-relative paths)
records one directly, for plugins and agents that ask the user their own way. What a rename means
(`cairn.core.aliases`) is the core's; this module only asks and relays.

`willRenameFiles` is not used: it would hold up the editor's rename while the user reads
a question, and a `WorkspaceEdit` cannot append to the log anyway.

**Symbols** renamed in the editor are offered the same way, on save: no notification
tells a server that is not the language's rename provider (`textDocument/rename` goes
to the Java or Python server, and Cairn must not take it over), so the text at open or
at the last save is compared with the saved one, and a declaration with decisions that
left is matched with one the save added, by the importer's rule
(`cairn.importers.declarations.best`: kind, container, body tokens, parameters). A
class renamed with decisions is offered once, not once per member.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from cairn.core.project import Project
from cairn.lsp.context import Context
from cairn.lsp.conversions import relative_to, uri_path
from cairn.lsp.drafts_flow import AGENT
from cairn.lsp.features.commands import command_project  # one rule for where commands write
from cairn.lsp.server import CairnServer
from cairn.lsp.stores import StoreUnavailable

ALLOWED = frozenset({"from", "to", "reason", "key", "uri"})
MAX_OFFERED = 200  # renamed paths looked at per notification (a huge move asks once)
MAX_COMPARED_BYTES = 1_000_000  # a bigger file is not parsed twice on each save
MOVE = "Move its history"
NOT_NOW = "Not now"
FILTERS = types.FileOperationRegistrationOptions(
    filters=[
        types.FileOperationFilter(scheme="file", pattern=types.FileOperationPattern(glob="**/*"))
    ]
)


def register(server: CairnServer) -> None:
    """Add the didRenameFiles offer and the `cairn.rename` command."""

    @server.handle(types.WORKSPACE_DID_RENAME_FILES, FILTERS, empty=None, name="rename offer")
    async def did_rename(ctx: Context, params: types.RenameFilesParams) -> None:
        await _offer(ctx, [(f.old_uri, f.new_uri) for f in params.files])

    @server.handle_command("cairn.rename")
    async def rename(ctx: Context, *args: Any) -> dict[str, Any]:
        options = _one_object(args)
        unknown = sorted(set(options) - ALLOWED)
        if unknown:
            raise JsonRpcInvalidParams(
                f"cairn.rename: unknown {', '.join(unknown)}; it takes {', '.join(sorted(ALLOWED))}"
            )
        old, new = options.get("from"), options.get("to")
        reason, key = options.get("reason"), options.get("key")
        if not isinstance(old, str) or not isinstance(new, str):
            raise JsonRpcInvalidParams(
                'cairn.rename: give "from" and "to" as project-relative paths, such as '
                '{"from": "src/auth.py", "to": "src/session.py"}'
            )
        if not isinstance(reason, str | None) or not isinstance(key, str | None):
            raise JsonRpcInvalidParams("cairn.rename: 'reason' and 'key' must be strings")
        project = command_project(ctx, options)
        return await _record(ctx, project, old, new, reason or _reason(old, new), key or "")


async def _offer(ctx: Context, renamed: list[tuple[str, str]]) -> None:
    """Ask once whether to move the history of the renamed paths that have decisions;
    record them on yes."""
    offers: list[tuple[Project, str, str, int]] = []
    for old_uri, new_uri in renamed[:MAX_OFFERED]:
        found = _paths(ctx, old_uri, new_uri)
        if found is None:
            continue
        project, old, new = found
        count = await ctx.hub.call(project.cairn_dir, partial(_decisions, path=old))
        if count:  # nothing to carry: no question to ask
            offers.append((project, old, new, count))
    await _ask(ctx, offers)


async def _ask(ctx: Context, offers: list[tuple[Project, str, str, int]]) -> None:
    """One question for the renamed paths that have decisions; record them on yes."""
    if not offers:
        return
    if len(offers) == 1:
        _, old, new, count = offers[0]
        noun = "decision" if count == 1 else "decisions"
        message = f"Cairn: {old} has {count} {noun}. Move its history to {new}?"
    else:
        listed = ", ".join(f"{old} -> {new}" for _, old, new, _ in offers[:3])
        more = f" and {len(offers) - 3} more" if len(offers) > 3 else ""
        message = f"Cairn: {len(offers)} renamed paths have decisions ({listed}{more}). "
        message += "Move their history?"
    if await ctx.client.ask(message, [MOVE, NOT_NOW]) != MOVE:
        return
    from cairn.store.errors import StoreError  # loaded on first use

    for project, old, new, _ in offers:
        try:
            await _record(ctx, project, old, new, _reason(old, new))
        except (ValueError, StoreUnavailable, StoreError) as exc:
            # A notification has no response to carry the error: the person is told,
            # and the other renames are still recorded.
            ctx.client.show(f"Cairn: cairn.rename: {exc}", types.MessageType.Error)


# uri -> the text at open or at the last save: what a save is compared with.
_saved: dict[str, str] = {}


def remember(uri: str, text: str) -> None:
    """Keep a document's text as opened, to compare the next save with."""
    _saved[uri] = text


def forget(uri: str) -> None:
    _saved.pop(uri, None)


async def offer_symbol_renames(ctx: Context, uri: str, text: str) -> None:
    """On save: the declarations with decisions that left the file since it was opened
    or last saved, each matched with one the edit added, are offered as renames."""
    before = _saved.get(uri)
    _saved[uri] = text
    if before is None or before == text or len(text) > MAX_COMPARED_BYTES:
        return
    path = uri_path(uri)
    project = ctx.projects.for_path(path) if path is not None else None
    rel = relative_to(path, project.root) if path is not None and project is not None else None
    if project is None or rel is None:
        return
    from cairn.importers.declarations import best, declarations  # loaded on first use

    old, new = declarations(before, rel), declarations(text, rel)
    arrived = [d for q, ds in new.items() if q not in old for d in ds]
    if not arrived:
        return
    offers: list[tuple[Project, str, str, int]] = []
    moved: list[str] = []
    for q in sorted(q for q in old if q not in new)[:MAX_OFFERED]:
        if any(q.startswith(f"{m}.") for m in moved):
            continue  # its class's rename carries it
        gone = max(old[q], key=lambda d: d.size)
        count = await ctx.hub.call(project.cairn_dir, partial(_decisions, path=gone.entity))
        found = best(gone, arrived) if count else None
        if found is not None:
            offers.append((project, gone.entity, found[0].entity, count))
            moved.append(q)
    await _ask(ctx, offers)


def _paths(ctx: Context, old_uri: str, new_uri: str) -> tuple[Project, str, str] | None:
    """The project and the two project-relative paths of one rename, or None when it is
    not one entity's new name (another scheme, outside a project, across projects)."""
    old_path, new_path = uri_path(old_uri), uri_path(new_uri)
    if old_path is None or new_path is None:
        return None
    project = ctx.projects.for_path(new_path)
    if project is None or ctx.projects.for_path(old_path.parent) != project:
        return None
    old = relative_to(old_path, project.root)
    new = relative_to(new_path, project.root)
    if old is None or new is None:
        return None
    if new_path.is_dir():
        old, new = old.rstrip("/") + "/", new.rstrip("/") + "/"
    return project, old, new


def _decisions(session: Any, *, path: str) -> int:
    from cairn.store.paths import EntityPathError

    try:
        return int(session.decisions_under(path))
    except (EntityPathError, ValueError):
        return 0  # not an entity path (a dot-file folder, …): nothing logged on it


async def _record(
    ctx: Context, project: Project, old: str, new: str, reason: str, key: str = ""
) -> dict[str, Any]:
    events = await ctx.hub.write(
        project.cairn_dir, lambda s: s.record_rename(old, new, reason, agent=AGENT, key=key)
    )
    ctx.documents.refresh({project.cairn_dir})
    return {"events": [e.to_dict() for e in events]}


def _reason(old: str, new: str) -> str:
    return f"Renamed in the editor: {old} -> {new}"


def _one_object(args: tuple[Any, ...]) -> Mapping[str, Any]:
    if len(args) == 1 and isinstance(args[0], Mapping):
        return args[0]
    raise JsonRpcInvalidParams(
        'cairn.rename: expected one JSON object argument such as {"from": "a.py", "to": "b.py"}'
    )


__all__ = ["MOVE", "NOT_NOW", "forget", "offer_symbol_renames", "register", "remember"]
