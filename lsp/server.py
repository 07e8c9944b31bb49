"""The Cairn language server: state, and the one place features are registered.

Execution model
---------------
* pygls runs every handler on one asyncio event loop. Handlers here are either plain
  functions that only touch in-memory state (document edits, code actions) or
  coroutines that await the store.
* The store (SQLite) is only ever used from one worker thread (`stores.StoreHub`):
  the loop awaits it, so a slow `git pull` catch-up never blocks typing.
* Diagnostics are debounced per document (`Settings.debounce_ms`): each `didChange`
  cancels the document's pending analysis task and schedules a new one; an analysis
  whose document changed while it awaited the store drops its result, so only the
  newest text is ever published. Cancelled LSP requests cancel their task (pygls).
* A background task notices the log changing underneath (watched-file events when the
  client can send them, a cheap `refresh()` poll otherwise) and re-analyses every open
  document of the affected project, then asks the client to refresh code lenses and
  pulled diagnostics.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Generator
from importlib import import_module
from pathlib import Path
from types import SimpleNamespace
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.io_ import StdoutWriter, run_async
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from cairn.core.project import ProjectFinder
from cairn.lsp.frames import FrameReader
from cairn.lsp.settings import Settings
from cairn.lsp.stores import StoreHub, settle
from cairn.lsp.workspace import OpenDocument

log = logging.getLogger("cairn.lsp")

# One module per LSP method or feature; each has `register(server)`.
FEATURES = (
    "cairn.lsp.features.lifecycle",
    "cairn.lsp.features.documents",
    "cairn.lsp.features.diagnostics",
    "cairn.lsp.features.hover",
    "cairn.lsp.features.code_actions",
    "cairn.lsp.features.commands",
    "cairn.lsp.features.code_lens",
    "cairn.lsp.features.workspace_symbols",
    "cairn.lsp.features.watch",
)


class CairnProtocol(LanguageServerProtocol):
    """pygls' protocol, pinned to UTF-16 positions (what the indexer computes)."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        # A client offering utf-8 first (Neovim does) would otherwise get utf-8.
        if params.capabilities.general is not None:
            params.capabilities.general.position_encodings = None
        result = yield from super().lsp_initialize(params)
        server = self._server
        if isinstance(server, CairnServer) and not server.pulls_diagnostics:
            # We push: a client that also pulled would show a second, stale copy.
            result.capabilities.diagnostic_provider = None
            server.pull_offered = False
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


class CairnServer(LanguageServer):
    """The server plus Cairn's state: settings, stores, open documents."""

    def __init__(self) -> None:
        super().__init__("cairn", installed_version(), protocol_cls=CairnProtocol, max_workers=2)
        self.settings = Settings()
        self.init_options: object = None
        self.hub = StoreHub()
        self.projects = ProjectFinder()
        self.documents: dict[str, OpenDocument] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}  # uri -> debounced analysis
        self.background: set[asyncio.Task[Any]] = set()  # keeps fire-and-forget tasks alive
        self.watching = False  # the client sends didChangeWatchedFiles for the log
        self.warned: set[str] = set()  # one-time messages already shown
        self.pull_offered = True  # False once initialize decided to push (no pull provider)

    # --- transport: pygls' read loop over a reader that enforces the frame limit --------

    def start_io(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve on stdio; frames are read through `FrameReader` (see cairn.lsp.frames)."""
        self._stop_event = threading.Event()
        source = stdin or sys.stdin.buffer
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        read1 = getattr(source, "read1", source.read)

        def read_some(n: int) -> Awaitable[bytes]:
            return asyncio.get_running_loop().run_in_executor(self.thread_pool, read1, n)

        try:
            asyncio.run(self._serve_frames(read_some))
        except BrokenPipeError:
            log.error("the client closed the connection; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client at a time on TCP, with the same frame limit as stdio."""
        self._stop_event = threading.Event()

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.protocol.set_writer(writer)
            await self._serve_frames(reader.read)
            self.shutdown()

        async def listen() -> None:
            self._server = await asyncio.start_server(connection, host, port)
            async with self._server:
                await self._server.serve_forever()

        try:
            asyncio.run(listen())
        except asyncio.CancelledError:
            log.debug("the TCP server was cancelled")

    async def _serve_frames(self, read_some: Callable[[int], Awaitable[bytes]]) -> None:
        assert self._stop_event is not None  # set by start_io / start_tcp
        reader = FrameReader(
            read_some,
            limit=lambda: self.settings.max_message_bytes,
            report=lambda message: self.log(message, types.MessageType.Warning),
        )
        await run_async(
            stop_event=self._stop_event,
            reader=reader,
            protocol=self.protocol,
            logger=log,
            error_handler=self.report_server_error,
        )

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors (a malformed message, a failed notification) go to the log.

        pygls would pop a message up; a stray bad message is not the user's problem.
        """
        self.log(f"ignored a bad message or failed handler: {error}", types.MessageType.Warning)

    # --- small helpers shared by features ----------------------------------------------

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Run a coroutine in the background, logging (never raising) its failure."""
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        self.background.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self.background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self.log(f"background task failed: {task.exception()!r}", types.MessageType.Error)

    def log(self, message: str, level: types.MessageType = types.MessageType.Log) -> None:
        """A line in the client's output panel (and in our own log)."""
        log.info("%s", message)
        try:
            self.window_log_message(types.LogMessageParams(type=level, message=message))
        except Exception:  # before initialize, or the client is gone
            log.debug("could not log to the client: %s", message)

    def warn_once(self, key: str, message: str) -> None:
        """A message shown to the user once per session."""
        if key in self.warned:
            return
        self.warned.add(key)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )

    def capability(self, path: str) -> Any:
        """A client capability by dotted path (`text_document.diagnostic`), or None."""
        node: Any = self.client_capabilities
        for part in path.split("."):
            node = getattr(node, part, None)
            if node is None:
                return None
        return node

    @property
    def pulls_diagnostics(self) -> bool:
        """True when diagnostics are served on pull instead of pushed.

        `auto` pulls only when the client can also be asked to re-pull
        (`workspace/diagnostic/refresh`): without it (Neovim 0.11) pulled warnings
        would stay stale after the log changes until the next edit, so we push.
        """
        if not self.pull_offered:
            return False  # the client was told we push; it will never pull
        mode = self.settings.diagnostic_mode
        if mode == "auto":
            return self.capability("text_document.diagnostic") is not None and bool(
                self.capability("workspace.diagnostics.refresh_support")
            )
        return mode == "pull"


def installed_version() -> str:
    """The installed cairn-lsp version, from its dist-info folder's name.

    What `importlib.metadata.version` finds, without importing it: it pulls in the
    `email` package, a tenth of a second of start-up.
    """
    for entry in sys.path:
        try:
            found = sorted(Path(entry or ".").glob("cairn_lsp-*.dist-info"))
        except OSError:
            continue
        if found:
            return found[-1].name.removeprefix("cairn_lsp-").removesuffix(".dist-info")
    return "0.0.0"


def build_server() -> CairnServer:
    """A server with every feature registered."""
    server = CairnServer()
    for name in FEATURES:
        import_module(name).register(server)
    return server


def main(argv: list[str] | None = None) -> int:
    """`python -m cairn.lsp [--tcp HOST:PORT]`: serve on stdio (default) or TCP."""
    parser = argparse.ArgumentParser(prog="cairn serve", description=__doc__.splitlines()[0])
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    parser.add_argument("--stdio", action="store_true", help="stdin/stdout (the default)")
    parser.add_argument("--log-level", default="WARNING", help="log level on stderr")
    args = parser.parse_args(argv)
    serve(tcp=args.tcp, log_level=args.log_level)
    return 0


def parse_hostport(text: str) -> tuple[str, int]:
    """`HOST:PORT` (or `:PORT`, or `PORT`) -> (host, port); ValueError says what is valid."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    try:
        number = int(port)
    except ValueError:
        raise ValueError(
            f"invalid --tcp {text!r}; expected HOST:PORT such as 127.0.0.1:2087"
        ) from None
    if not 0 < number < 65536:
        raise ValueError(f"invalid port {number} in --tcp {text!r}; expected 1-65535")
    return host or "127.0.0.1", number


def serve(tcp: str | None = None, log_level: str = "WARNING") -> None:
    """Run the server until the client says exit."""
    logging.basicConfig(
        stream=sys.stderr, level=log_level.upper(), format="cairn-lsp %(levelname)s %(message)s"
    )
    server = build_server()
    settle()  # the LSP types' thousands of objects live as long as the process
    try:
        if tcp:
            host, port = parse_hostport(tcp)
            server.start_tcp(host, port)
        else:
            server.start_io()
    finally:
        server.hub.shutdown()
