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
    from cairn.lsp.context import Context

LOG_GLOB = "**/.cairn/decisions.jsonl"


async def start_watching(ctx: Context) -> None:
    """Register the file watcher if the client can; start the poll otherwise."""
    if ctx.client.capability("workspace.did_change_watched_files.dynamic_registration"):
        try:
            await ctx.client.register(
                types.Registration(
                    id="cairn-log-watcher",
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[types.FileSystemWatcher(glob_pattern=LOG_GLOB)]
                    ),
                )
            )
        except Exception as exc:  # refused or never answered: the poll is enough
            ctx.client.log(f"file watching unavailable, polling instead: {exc}")
    ctx.scheduler.spawn(poll(ctx))


async def poll(ctx: Context) -> None:
    """The cheap check: the only one without a file watcher, a safety net with one."""
    while True:
        interval = ctx.configuration.workspace.poll_interval_ms  # the newest settings
        await asyncio.sleep(max(interval, 250) / 1000)
        if interval == 0:
            continue
        ctx.documents.adopt_new_projects()
        await check_now(ctx)


async def check_now(ctx: Context, hinted: set[Path] | None = None) -> None:
    """Catch the stores up; re-analyse the projects whose log changed."""
    try:
        changed = await ctx.hub.refresh_all()
    except Exception as exc:  # a background check: logged, and the next one tries again
        ctx.client.log(f"checking the log failed: {exc}", types.MessageType.Warning)
        return
    changed |= hinted or set()
    if changed:
        ctx.projects.forget()
        ctx.documents.refresh(changed)
