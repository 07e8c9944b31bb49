"""initialize / initialized / configuration / workspace folders / shutdown.

Settings come from `initializationOptions` first, then `workspace/configuration`
(section `cairn`) when the client supports it, again on every
`workspace/didChangeConfiguration` and change of workspace folders: one item without a
scope (the workspace's settings) and one per workspace folder (`scopeUri`: that
folder's, over the workspace's). After `initialized` the server says once per
workspace folder without a `.cairn/` how to start one, and starts the log watcher.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from cairn.lsp.context import Context
from cairn.lsp.conversions import uri_path
from cairn.lsp.server import CairnServer
from cairn.lsp.settings import Settings
from cairn.lsp.watch_loop import start_watching


def register(server: CairnServer) -> None:
    """Add the lifecycle handlers."""
    init_options: list[object] = [None]  # initializationOptions: the base of later settings

    @server.handle(types.INITIALIZE)
    def initialize(ctx: Context, params: types.InitializeParams) -> None:
        init_options[0] = params.initialization_options
        workspace = checked(ctx, params.initialization_options, Settings())
        ctx.configuration.replace(workspace, {})
        found = [ctx.projects.for_path(p) for p in folder_paths(ctx)]
        projects = {p.cairn_dir: p for p in found if p is not None}
        if projects:  # open the store while the client sends the first file
            ctx.hub.preload(sorted(projects))

    @server.handle(types.INITIALIZED)
    async def initialized(ctx: Context, params: types.InitializedParams) -> None:
        await pull_configuration(ctx, init_options[0])
        offer_init(ctx)
        await start_watching(ctx)

    @server.handle(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ctx: Context, params: types.DidChangeConfigurationParams
    ) -> None:
        if ctx.client.capability("workspace.configuration"):
            await pull_configuration(ctx, init_options[0])
        else:
            base, _ = Settings.from_options(init_options[0])
            ctx.configuration.replace(checked(ctx, params.settings, base), {})
        ctx.documents.refresh(None)

    @server.handle(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_workspace_folders(
        ctx: Context, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        ctx.projects.forget()
        offer_init(ctx)  # pygls has already updated the folder list
        await pull_configuration(ctx, init_options[0])  # the new folders' own settings

    @server.handle(types.SHUTDOWN)
    def shutdown(ctx: Context, params: None) -> None:
        ctx.scheduler.cancel_all()


def checked(ctx: Context, raw: object, base: Settings, where: str = "") -> Settings:
    """Settings from a client's object over `base`, every ignored value reported to the
    client's log (prefixed with the folder they were set for)."""
    settings, problems = Settings.from_options(raw, base=base)
    for problem in problems:
        ctx.client.log(f"{where}{problem}", types.MessageType.Warning)
    return settings


async def pull_configuration(ctx: Context, init_options: object) -> None:
    """Ask the client for the `cairn` section, for the workspace and for each folder,
    and apply them over initializationOptions."""
    folders = ctx.client.folder_uris()
    items = [types.ConfigurationItem(section="cairn")]
    items += [types.ConfigurationItem(scope_uri=uri, section="cairn") for uri in folders]
    result = await ctx.client.configuration(items)
    if not result or result[0] is None:
        return
    base, _ = Settings.from_options(init_options)
    before = ctx.configuration.workspace
    workspace = checked(ctx, result[0], base)
    scoped: dict[Path, Settings] = {}
    for uri, raw in zip(folders, result[1:], strict=False):
        path = uri_path(uri)
        if raw is None or path is None or raw == result[0]:
            continue  # nothing of its own (clients answer a folder with the workspace's)
        scoped[path] = checked(ctx, raw, workspace, where=f"{path.name}: ")
    ctx.configuration.replace(workspace, scoped)
    if (workspace != before or scoped) and len(ctx.documents):
        ctx.documents.refresh(None)  # documents opened meanwhile


def folder_paths(ctx: Context) -> list[Path]:
    """The workspace folders (or the root) that exist on disk."""
    root = ctx.client.root_uri()
    uris = ctx.client.folder_uris() or ([root] if root else [])
    paths = [uri_path(uri) for uri in uris]
    return [p for p in paths if p is not None and p.is_dir()]


def offer_init(ctx: Context) -> None:
    """One message per workspace folder that has no `.cairn/` (not an error)."""
    if ctx.projects.problem:
        ctx.client.warn_once("cairn-dir", f"Cairn: {ctx.projects.problem}")
        return
    for path in folder_paths(ctx):
        if ctx.projects.for_path(path) is not None:
            continue
        ctx.client.warn_once(
            f"no-project:{path}",
            f"Cairn: {path.name or path} has no .cairn/ folder, so there are no decisions to "
            f"show yet. Run `cairn init` in {path} to start recording them.",
        )
