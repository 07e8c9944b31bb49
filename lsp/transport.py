"""The transport, and the one module that touches pygls beyond its documented API.

pygls serves the protocol; three things it does not do are added here:

* **A frame limit.** pygls' read loop (`pygls.io_.run_async`) reads whatever length a
  header declares. It is given a `FrameReader` (`cairn.lsp.frames`) instead of its own
  reader, which skips absurd or lying frames without reading them into memory.
* **stdin read on the event loop** (`StdinReader`): pygls reads stdin through a thread
  pool; here a readiness callback and one `os.read` do it, so the process has the loop,
  the store's worker and the stderr writer, and no other thread.
* **Malformed requests answered** (`CairnProtocol.structure_message`): pygls only logs a
  request whose params do not fit the protocol, and the client waits forever; here it
  gets InvalidParams. And positions are pinned to UTF-16 (`lsp_initialize`).

Everything this needs from pygls that is not its public API is listed in
`PRIVATE_SURFACE`, with a digest of the pygls source it was written against;
tests/lsp/test_transport.py fails when any of it changes, so a pygls upgrade (pinned to
one minor version in pyproject.toml) is read here before it ships.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import sys
import threading
from collections.abc import Awaitable, Callable, Generator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.protocol import LanguageServerProtocol, lsp_method

from cairn.lsp.frames import FrameReader

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger("cairn.lsp")

# pygls' non-public names this module relies on: (qualified name, the first 16 hex digits
# of the sha256 of its source in the pygls version pyproject.toml pins). What each is used for:
# * `JsonRPCProtocol.__init__`: sets `_server`, read by `CairnProtocol.lsp_initialize`;
# * `JsonRPCProtocol._send_response`: answering a malformed request (structure_message);
# * `JsonRPCProtocol.structure_message` and `LanguageServerProtocol.lsp_initialize`:
#   overridden (their behaviour is extended, so a change to them must be read);
# * `run_async`: the read loop, given our reader;
# * `JsonRPCServer._start_io_async` and `.start_tcp`: what `serve_stdio` and `serve_tcp`
#   stand in for, setting the same private `_stop_event` and `_server` that
#   `JsonRPCServer.shutdown` reads.
PRIVATE_SURFACE: dict[str, str] = {
    "pygls.protocol.json_rpc.JsonRPCProtocol.__init__": "5cce12d1c378a085",
    "pygls.protocol.json_rpc.JsonRPCProtocol._send_response": "b799bb966ca7ebb1",
    "pygls.protocol.json_rpc.JsonRPCProtocol.structure_message": "ac66b961a32acb07",
    "pygls.protocol.language_server.LanguageServerProtocol.lsp_initialize": "25d45da16abef004",
    "pygls.io_.run_async": "f488270939ce916b",
    "pygls.server.JsonRPCServer._start_io_async": "22f42491d202610a",
    "pygls.server.JsonRPCServer.start_tcp": "8aba774edb1f5b25",
    "pygls.server.JsonRPCServer.shutdown": "2900e9bb22f7f7b1",
}


class CairnProtocol(LanguageServerProtocol):
    """pygls' protocol, pinned to UTF-16 positions (what the indexer computes), which
    answers a request it cannot structure instead of leaving the client waiting."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        # A client offering utf-8 first (Neovim does) would otherwise get utf-8.
        if params.capabilities.general is not None:
            params.capabilities.general.position_encodings = None
        result = yield from super().lsp_initialize(params)
        decide = getattr(self._server, "decide_diagnostic_mode", None)
        if decide is not None and not decide():
            # We push: a client that also pulled would show a second, stale copy.
            result.capabilities.diagnostic_provider = None
        return result

    def structure_message(self, data: Any) -> Any:
        """Answer a request whose params do not fit the protocol with InvalidParams.

        pygls would only log it, leaving the client waiting for a response forever.
        """
        try:
            return super().structure_message(data)
        except Exception as exc:
            if not (isinstance(data, dict) and "jsonrpc" in data and "method" in data):
                raise
            if "id" in data:
                error = JsonRpcInvalidParams(f"invalid params for {data['method']}: {exc}")
                self._send_response(data["id"], error=error.to_response_error())
            return SimpleNamespace(jsonrpc="ignored")  # handle_message drops it


class StdinReader:
    """Reads stdin on the event loop, without a thread.

    A pipe, socket or terminal is awaited until readable (the loop's selector), then
    read with one `os.read`, which returns what is there. A regular file, /dev/null
    or a stream without a descriptor never blocks, so it is read directly.
    """

    def __init__(self, source: BinaryIO) -> None:
        self._read1 = getattr(source, "read1", source.read)
        self._fd = -1
        try:
            fd = source.fileno()
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                self._fd = fd
        except (AttributeError, OSError, ValueError):
            pass  # io.UnsupportedOperation is an OSError and a ValueError

    async def read_some(self, n: int) -> bytes:
        """Up to `n` bytes, once some are available; b"" at end of input."""
        if self._fd < 0:
            return bytes(self._read1(n))
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()
        try:
            loop.add_reader(self._fd, _resolve, ready)
        except OSError:  # the selector cannot watch it (a character device): never blocks
            self._fd = -1
            return bytes(self._read1(n))
        try:
            await ready
        finally:
            loop.remove_reader(self._fd)
        return os.read(self._fd, n)


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _serve_frames(
    server: LanguageServer,
    read_some: Callable[[int], Awaitable[bytes]],
    limit: Callable[[], int],
    report: Callable[[str], None],
) -> None:
    """pygls' own read loop over a reader that enforces the frame limit."""
    stop = server._stop_event
    assert stop is not None  # set by serve_stdio / serve_tcp
    reader = FrameReader(read_some, limit=limit, report=report)
    await run_async(
        stop_event=stop,
        reader=reader,
        protocol=server.protocol,
        logger=log,
        error_handler=server.report_server_error,
    )


def serve_stdio(
    server: LanguageServer,
    limit: Callable[[], int],
    report: Callable[[str], None],
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
) -> None:
    """`server.start_io()`, with frames read through `FrameReader` (`limit()` bytes at
    most, read at each frame; `report` tells the client about a refused one) and stdin
    read on the loop."""
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    reader = StdinReader(stdin or sys.stdin.buffer)
    try:
        asyncio.run(_serve_frames(server, reader.read_some, limit, report))
    except BrokenPipeError:
        log.error("the client closed the connection; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


def serve_tcp(
    server: LanguageServer,
    host: str,
    port: int,
    limit: Callable[[], int],
    report: Callable[[str], None],
) -> None:
    """`server.start_tcp(host, port)` with the same frame limit as stdio."""
    server._stop_event = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await _serve_frames(server, reader.read, limit, report)
        server.shutdown()

    async def listen() -> None:
        listening = await asyncio.start_server(connection, host, port)
        server._server = listening
        async with listening:
            await listening.serve_forever()

    try:
        asyncio.run(listen())
    except asyncio.CancelledError:
        log.debug("the TCP server was cancelled")
