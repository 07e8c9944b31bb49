"""Noticing the log change underneath (a CLI write, another editor, `git pull`).

Where the client can watch files (dynamic registration of
`workspace/didChangeWatchedFiles`), the server registers a watcher for every
`.cairn/decisions.jsonl` and reacts to its events. A background task also asks
every open store to `refresh()` (a stat of the JSONL: cheap) every `pollIntervalMs`,
watcher or not: a client may accept the registration and still miss events (a
`.cairn/` created after start, a watcher that drops events under load). Either way,
changed projects get their documents re-analysed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from cairn.lsp.server import CairnServer

LOG_GLOB = "**/.cairn/decisions.jsonl"


async def start_watching(server: CairnServer) -> None:
    """Register the file watcher if the client can; start the poll otherwise."""
    if server.capability("workspace.did_change_watched_files.dynamic_registration"):
        try:
            await asyncio.wait_for(
                server.client_register_capability_async(
                    types.RegistrationParams(
                        registrations=[
                            types.Registration(
                                id="cairn-log-watcher",
                                method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                    watchers=[types.FileSystemWatcher(glob_pattern=LOG_GLOB)]
                                ),
                            )
                        ]
                    )
                ),
                timeout=10,
            )
        except Exception as exc:
            server.log(f"file watching unavailable, polling instead: {exc}")
    server.scheduler.spawn(poll(server))


async def poll(server: CairnServer) -> None:
    """The cheap check: the only one without a file watcher, a safety net with one."""
    while True:
        interval = server.settings.poll_interval_ms
        await asyncio.sleep(max(interval, 250) / 1000)
        if interval == 0:
            continue
        server.documents.adopt_new_projects()
        await check_now(server)


async def check_now(server: CairnServer, hinted: set[Path] | None = None) -> None:
    """Catch the stores up; re-analyse the projects whose log changed."""
    try:
        changed = await server.hub.refresh_all()
    except Exception as exc:
        server.log(f"checking the log failed: {exc}", types.MessageType.Warning)
        return
    changed |= hinted or set()
    if changed:
        server.projects.forget()
        server.documents.refresh(changed)
