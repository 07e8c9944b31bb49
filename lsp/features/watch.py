"""workspace/didChangeWatchedFiles: the log changed on disk (see `watch_loop`)."""

from __future__ import annotations

from lsprotocol import types

from cairn.lsp.context import Context
from cairn.lsp.conversions import uri_path
from cairn.lsp.server import CairnServer
from cairn.lsp.watch_loop import check_now


def register(server: CairnServer) -> None:
    """Add the watched-files handler."""

    @server.handle(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_watched_files(
        ctx: Context, params: types.DidChangeWatchedFilesParams
    ) -> None:
        hinted = set()
        for change in params.changes:
            path = uri_path(change.uri)
            if path is not None and path.name == "decisions.jsonl":
                hinted.add(path.parent)
        await check_now(ctx, hinted)
