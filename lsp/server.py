"""The Cairn language server: the server object and the one place features are registered.

Execution model
---------------
* pygls dispatches every message on one asyncio event loop. Handlers (one module per
  LSP method under `features/`) are plain functions that only touch in-memory state
  (document edits, code actions) or coroutines that await the store.
* The rooms: `state` (`Documents`, the one owner of open documents: open, change,
  close, schedule, publish), `analysis` (the diagnostics pipeline over an immutable
  `DocumentSnapshot`), `scheduling` (the one worker thread, background tasks,
  debouncing: what runs where is written down there), `stores` (the project sessions
  on that worker), `conversions` (LSP <-> core types), `render` (markdown).
* The store (SQLite) is only ever used from the one worker thread: the loop awaits
  it, so a slow `git pull` catch-up never blocks typing. stdin is read by the loop
  itself (a readiness callback, then one `os.read`); the only other thread writes log
  records to stderr (`log_to_stderr`).
* Diagnostics are debounced per document (`Settings.debounce_ms`): each `didChange`
  replaces the document's pending analysis; an analysis whose document changed while
  it awaited the store drops its result, so only the newest text is ever published.
  Cancelled LSP requests cancel their task (pygls).
* A background task notices the log changing underneath (watched-file events when the
  client can send them, a cheap `refresh()` poll otherwise) and re-analyses every open
  document of the affected project, then asks the client to refresh code lenses and
  pulled diagnostics.
* Start-up (`cairn.lsp.startup`): the entry points call `prepare()` before importing
  this module (the GC paused, generated code from `cairn.lsp.codegen_cache`); the
  server settles once its first diagnostics are out, or `STARTUP_S` after initialize
  (`CairnServer.settle`: `gc.freeze()`, so the LSP types' thousands of long-lived
  objects are never scanned by the cyclic collector again, and the GC resumes; from
  then on it waits while a document is analysed: `cairn.lsp.gc_hold`).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import inspect
import logging
import logging.handlers
import os
import queue
import re
import stat
import sys
import threading
from collections.abc import Awaitable, Callable, Generator
from importlib import import_module
from types import SimpleNamespace
from typing import Any, BinaryIO

import orjson
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol, lsp_method

from cairn.core.project import ProjectFinder
from cairn.lsp import codegen_cache
from cairn.lsp.bootstrap import Handover, installed_version
from cairn.lsp.conversions import converter
from cairn.lsp.frames import FrameReader, decode
from cairn.lsp.gc_hold import GcHold
from cairn.lsp.scheduling import Scheduler, Worker
from cairn.lsp.settings import Settings, pulls_diagnostics
from cairn.lsp.startup import settle
from cairn.lsp.state import Documents
from cairn.lsp.stores import StoreHub
from cairn.lsp.wire import notification

log = logging.getLogger("cairn.lsp")
STARTUP_S = 10.0  # at the latest, start-up is over this long after initialize
_writes: set[asyncio.Future[Any]] = set()  # writes in flight on an awaiting writer

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
    "cairn.lsp.features.renames",
)


class CairnProtocol(LanguageServerProtocol):
    """pygls' protocol, pinned to UTF-16 positions (what the indexer computes), which
    does not send twice what the start-up bootstrap already sent (`cairn.lsp.bootstrap`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._answered: dict[Any, Any] = {}  # request id -> the bootstrap's result
        self._published: dict[str, Any] = {}  # uri -> the bootstrap's publish params

    def carry_on(self, handover: Handover) -> None:
        """What the bootstrap sent: the server's own copies are dropped, once each."""
        self._answered = dict(handover.answered)
        self._published = dict(handover.published)

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if self._answered and _hashable(msg_id) and msg_id in self._answered:
            sent = self._answered.pop(msg_id)
            self._result_types.pop(msg_id, None)
            if error is not None or self._converter.unstructure(result) != sent:
                self._went_stale(f"the start-up answer to request {msg_id!r}")
            return
        super()._send_response(msg_id, result, error)

    def notify(self, method: str, params: Any = None) -> None:
        if self._published and method == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            sent = self._published.pop(getattr(params, "uri", ""), None)
            if sent is not None:
                if self._converter.unstructure(params) == sent:
                    return  # the client shows exactly this already
                self._went_stale(f"the start-up publish for {params.uri}")
        super().notify(method, params)

    def publish(self, params: dict[str, Any]) -> None:
        """A publishDiagnostics from its params in wire form (`cairn.lsp.wire`): what
        `notify` does with lsprotocol's params, without building and then unstructuring
        a file's hundreds of diagnostics as objects. The same bytes go out."""
        if self._published:
            sent = self._published.pop(params["uri"], None)
            if sent is not None:
                if params == sent:
                    return  # the client shows exactly this already
                self._went_stale(f"the start-up publish for {params['uri']}")
        self._send_data(notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params))

    def _went_stale(self, what: str) -> None:
        """What the bootstrap sent differs from what the server finds now: the log (or
        the settings) changed while the server started. The client is told as after
        any change of the log: new code lenses, and new diagnostics if it pulls (a
        push is sent anyway). An initialize result cannot be replaced: that would be a
        bug (tests/lsp/test_bootstrap.py holds them equal)."""
        log.info("%s differs from the server's now", what)
        server = self._server
        if isinstance(server, CairnServer):
            server.documents.ask_to_refresh()

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
            server._pull_offered = False
        return result

    def _send_data(self, data: Any) -> None:
        """pygls' own, encoding with orjson (several times faster than `json.dumps` on a
        file's hundreds of diagnostics); whatever orjson refuses (a non-string key, an
        integer beyond 64 bits) takes pygls' path unchanged. The body is UTF-8 as the
        protocol says, so its length is counted in bytes."""
        if not data or self.writer is None:
            super()._send_data(data)  # nothing to send, or pygls logs the missing writer
            return
        try:
            body = orjson.dumps(data, default=self._serialize_message)
        except TypeError:  # orjson.JSONEncodeError is one
            super()._send_data(data)
            return
        if self._include_headers:
            header = (
                f"Content-Length: {len(body)}\r\n"
                f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            )
            body = header.encode("ascii") + body
        try:
            written = self.writer.write(body)
            if inspect.isawaitable(written):  # a writer that needs awaiting (not stdio's)
                task = asyncio.ensure_future(written)
                _writes.add(task)
                task.add_done_callback(_writes.discard)
        except BrokenPipeError:
            log.error("could not send: the client closed the connection")
            raise
        except Exception as error:
            log.exception("could not send a message")
            self._server._report_server_error(error, JsonRpcInternalError)

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
    """The server: the client connection plus Cairn's parts, each owning its state.

    `documents` (open documents), `scheduler` (background tasks, debouncing and the
    one worker thread), `hub` (project sessions on that worker), `projects` (which
    `.cairn/` a path belongs to), `settings` (replaced whole by `configure`).
    """

    def __init__(self) -> None:
        super().__init__(
            "cairn", installed_version(), protocol_cls=CairnProtocol, converter_factory=converter
        )
        self._settings = Settings()
        worker = Worker()
        self.scheduler = Scheduler(worker, report=self._report_failure)
        self.hub = StoreHub(worker)
        self.projects = ProjectFinder()
        self.documents = Documents(self)
        self._warned: set[str] = set()  # one-time messages already shown
        self._settled = False  # start-up is over (see `settle`)
        self.gc_hold = GcHold()  # the cyclic GC waits while a document is analysed
        self._pull_offered = True  # False once initialize decided to push (no pull provider)

    def settle(self) -> None:
        """Start-up is over: the first diagnostics are out (or the client took its time).

        The GC stays paused until then (`cairn.lsp.startup`): the first analysis only
        builds what the session keeps (the document's tree and symbols, the statuses),
        and collections during it found nothing to free.
        """
        if not self._settled:
            self._settled = True
            settle()

    def publish_diagnostics(self, params: dict[str, Any]) -> None:
        """Push a document's diagnostics, given as wire-form params (`cairn.lsp.wire`)."""
        protocol = self.protocol
        assert isinstance(protocol, CairnProtocol)  # protocol_cls (see __init__)
        protocol.publish(params)

    @property
    def settings(self) -> Settings:
        """The current settings (immutable; `configure` replaces them)."""
        return self._settings

    def configure(self, settings: Settings) -> None:
        """Use new settings from now on (initialize, configuration changes)."""
        self._settings = settings

    # --- transport: pygls' read loop over a reader that enforces the frame limit --------

    def carry_on(self, handover: Handover) -> None:
        """Continue where the start-up bootstrap stopped (`cairn.lsp.bootstrap`): its
        open project sessions go to the store thread, and what it already sent is not
        sent again. `start_io(preread=handover.preread)` then reads what it read."""
        protocol = self.protocol
        assert isinstance(protocol, CairnProtocol)  # protocol_cls (see __init__)
        protocol.carry_on(handover)
        if handover.sessions:
            self.hub.adopt(handover.sessions)

    def start_io(
        self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None, preread: bytes = b""
    ) -> None:
        """Serve on stdio; frames are read through `FrameReader` (see cairn.lsp.frames),
        starting with `preread` (what the bootstrap read from stdin before)."""
        self._stop_event = threading.Event()
        source = stdin or sys.stdin.buffer
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._serve_frames(StdinReader(source, preread).read_some))
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
        await _read_loop(self._stop_event, reader, self.protocol, self.report_server_error)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors (a malformed message, a failed notification) go to the log.

        pygls would pop a message up; a stray bad message is not the user's problem.
        """
        self.log(f"ignored a bad message or failed handler: {error}", types.MessageType.Warning)

    # --- talking to the person -------------------------------------------------------

    def _report_failure(self, message: str) -> None:
        self.log(message, types.MessageType.Error)

    def log(self, message: str, level: types.MessageType = types.MessageType.Log) -> None:
        """A line in the client's output panel (and in our own log)."""
        log.info("%s", message)
        try:
            self.window_log_message(types.LogMessageParams(type=level, message=message))
        except Exception:  # before initialize, or the client is gone
            log.debug("could not log to the client: %s", message)

    def warn_once(self, key: str, message: str) -> bool:
        """A message shown to the user once per session; True when shown now."""
        if key in self._warned:
            return False
        self._warned.add(key)
        self.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=message)
        )
        return True

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
        """True when diagnostics are served on pull instead of pushed
        (`cairn.lsp.settings.pulls_diagnostics`)."""
        if not self._pull_offered:
            return False  # the client was told we push; it will never pull
        return pulls_diagnostics(
            self.settings.diagnostic_mode,
            can_pull=self.capability("text_document.diagnostic") is not None,
            can_refresh=bool(self.capability("workspace.diagnostics.refresh_support")),
        )


class StdinReader:
    """Reads stdin on the event loop, without a thread.

    A pipe, socket or terminal is awaited until readable (the loop's selector), then
    read with one `os.read`, which returns what is there. A regular file, /dev/null
    or a stream without a descriptor never blocks, so it is read directly.
    """

    def __init__(self, source: BinaryIO, preread: bytes = b"") -> None:
        self._preread = preread  # read from the source before (by the bootstrap): first
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
        if self._preread:
            data, self._preread = self._preread[:n], self._preread[n:]
            return data
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


_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")


async def _read_loop(
    stop_event: threading.Event,
    reader: FrameReader,
    protocol: JsonRPCProtocol,
    error_handler: Callable[[Exception, type[JsonRpcException]], Any],
) -> None:
    """pygls' read loop (`pygls.io_.run_async`, pygls 2.1), with the body decoded by
    `frames.decode` (orjson when it reads the same) instead of `json.loads`."""
    content_length = 0
    while not stop_event.is_set():
        header = await reader.readline()
        if not header:
            break
        if not content_length:
            match = _CONTENT_LENGTH.fullmatch(header)
            if match:
                content_length = int(match.group(1))
        if content_length and not header.strip():
            body = await reader.readexactly(content_length)
            if not body:
                break
            try:
                protocol.handle_message(decode(body, protocol.structure_message))
            except Exception as exc:
                log.exception("Unable to handle message")
                error_handler(exc, JsonRpcException)
            finally:
                content_length = 0


def _hashable(value: Any) -> bool:
    return isinstance(value, (int, str))


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


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


class _DroppingQueueHandler(logging.handlers.QueueHandler):
    """Hands records to the stderr thread; drops them when it is too far behind."""

    def enqueue(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(queue.Full):
            self.queue.put_nowait(record)


def log_to_stderr(level: str) -> Callable[[], None]:
    """Log to stderr from a thread of its own, so logging can never block the server;
    returns what flushes it at exit.

    A client that does not read the server's stderr lets the pipe fill (64 KB on Linux);
    a write to it then blocks until someone reads. Bad input is logged (pygls logs a
    traceback for each message it cannot structure, a few KB each), so a few dozen bad
    messages made the server block inside a log call and stop answering: fuzz finding
    (3). Records now queue to a writer thread; when it is stuck, new ones are dropped.
    """
    records: queue.Queue[logging.LogRecord] = queue.Queue(maxsize=1000)
    stream = logging.StreamHandler(sys.stderr)
    stream.setFormatter(logging.Formatter("cairn-lsp %(levelname)s %(message)s"))
    listener = logging.handlers.QueueListener(records, stream)
    listener.start()  # a daemon thread: a stuck write cannot keep the process alive
    root = logging.getLogger()
    root.setLevel(level.upper())
    root.addHandler(_DroppingQueueHandler(records))

    def flush() -> None:
        # Give the writer a moment for the last records, without waiting on a full pipe.
        with contextlib.suppress(queue.Full):
            records.put_nowait(listener._sentinel)  # type: ignore[attr-defined]
        thread = getattr(listener, "_thread", None)
        if thread is not None:
            thread.join(timeout=2)

    return flush


def serve(
    tcp: str | None = None, log_level: str = "WARNING", handover: Handover | None = None
) -> None:
    """Run the server until the client says exit (on stdio, after the `handover` of the
    start-up bootstrap when there was one: `cairn.lsp.bootstrap`)."""
    flush_log = log_to_stderr(log_level)
    server = build_server()  # settles after the first diagnostics (CairnServer.settle)
    try:
        if tcp:
            host, port = parse_hostport(tcp)
            server.start_tcp(host, port)
        elif handover is not None:
            log.debug("start-up bootstrap: %s", handover.reason)
            server.carry_on(handover)
            server.start_io(preread=handover.preread)
        else:
            server.start_io()
    finally:
        server.hub.shutdown()
        cache = codegen_cache.installed()
        if cache is not None:
            cache.save()  # what the session compiled (hooks built after start-up too)
        flush_log()
