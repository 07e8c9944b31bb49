"""initialize / initialized / configuration / shutdown.

Settings come from `initializationOptions` first, then `workspace/configuration`
(section `cairn`) when the client supports it, again on every
`workspace/didChangeConfiguration`. After `initialized` the server says once per
workspace folder without a `.cairn/` how to start one, and starts the log watcher.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from cairn.lsp.conversions import uri_path
from cairn.lsp.server import CairnServer
from cairn.lsp.settings import Settings
from cairn.lsp.watch_loop import start_watching


def register(server: CairnServer) -> None:
    """Add the lifecycle handlers."""
    init_options: list[object] = [None]  # initializationOptions: the base of later settings

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        init_options[0] = params.initialization_options
        apply_settings(server, params.initialization_options, base=Settings())
        found = [server.projects.for_path(p) for p in folder_paths(server)]
        projects = {p.cairn_dir: p for p in found if p is not None}
        if projects:  # open the store while the client sends the first file
            server.hub.preload(sorted(projects))

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await pull_configuration(server, init_options[0])
        offer_init(server)
        await start_watching(server)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: types.DidChangeConfigurationParams) -> None:
        if server.capability("workspace.configuration"):
            await pull_configuration(server, init_options[0])
        else:
            base, _ = Settings.from_options(init_options[0])
            apply_settings(server, params.settings, base=base)
        server.documents.refresh(None)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def did_change_workspace_folders(params: types.DidChangeWorkspaceFoldersParams) -> None:
        server.projects.forget()
        offer_init(server)  # pygls has already updated the folder list

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        server.scheduler.cancel_all()


def apply_settings(server: CairnServer, raw: object, base: Settings) -> None:
    """Replace the settings, reporting every ignored value to the client's log."""
    settings, problems = Settings.from_options(raw, base=base)
    server.configure(settings)
    for problem in problems:
        server.log(problem, types.MessageType.Warning)


async def pull_configuration(server: CairnServer, init_options: object) -> None:
    """Ask the client for the `cairn` section and apply it over initializationOptions."""
    if not server.capability("workspace.configuration"):
        return
    try:
        result = await server.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="cairn")])
        )
    except Exception as exc:
        server.log(f"workspace/configuration failed: {exc}", types.MessageType.Warning)
        return
    base, _ = Settings.from_options(init_options)
    if result and result[0] is not None:
        before = server.settings
        apply_settings(server, result[0], base=base)
        if server.settings != before and len(server.documents):
            server.documents.refresh(None)  # documents opened meanwhile


def folder_paths(server: CairnServer) -> list[Path]:
    """The workspace folders (or the root) that exist on disk."""
    folders = list(server.workspace.folders.values())
    uris = [f.uri for f in folders] or (
        [server.workspace.root_uri] if server.workspace.root_uri else []
    )
    paths = [uri_path(uri) for uri in uris]
    return [p for p in paths if p is not None and p.is_dir()]


def offer_init(server: CairnServer) -> None:
    """One message per workspace folder that has no `.cairn/` (not an error)."""
    if server.projects.problem:
        server.warn_once("cairn-dir", f"Cairn: {server.projects.problem}")
        return
    for path in folder_paths(server):
        if server.projects.for_path(path) is not None:
            continue
        server.warn_once(
            f"no-project:{path}",
            f"Cairn: {path.name or path} has no .cairn/ folder, so there are no decisions to "
            f"show yet. Run `cairn init` in {path} to start recording them.",
        )
