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
  itself (`transport.StdinReader`); the only other thread writes log records to
  stderr (`log_to_stderr`).
* Diagnostics are debounced per document (`Settings.debounce_ms`): each `didChange`
  replaces the document's pending analysis; an analysis whose document changed while
  it awaited the store drops its result, so only the newest text is ever published.
  Cancelled LSP requests cancel their task (pygls).
* A background task notices the log changing underneath (watched-file events when the
  client can send them, a cheap `refresh()` poll otherwise) and re-analyses every open
  document of the affected project, then asks the client to refresh code lenses and
  pulled diagnostics.
* The transport (`cairn.lsp.transport`) is pygls' own read loop over a reader that
  enforces a frame limit, and the one module that touches pygls beyond its public API.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import queue
import sys
import threading
from collections.abc import Callable
from importlib import import_module
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from cairn import __version__
from cairn.core.project import ProjectFinder
from cairn.lsp.command import parse_hostport
from cairn.lsp.context import Client, Context
from cairn.lsp.conversions import converter, uri_path
from cairn.lsp.scheduling import Scheduler, Worker
from cairn.lsp.settings import Settings, SettingsByFolder, pulls_diagnostics
from cairn.lsp.state import Documents
from cairn.lsp.stores import StoreHub, StoreUnavailable
from cairn.lsp.transport import CairnProtocol, serve_stdio, serve_tcp

log = logging.getLogger("cairn.lsp")

# One module per LSP method or feature; each has `register(server)`, which adds its
# handlers with `server.handle` / `server.handle_command`.
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


Handler = Callable[[Context, Any], Any]
_RAISE: Any = object()  # `handle(..., empty=_RAISE)`: a store failure is an error response


class CairnServer(LanguageServer):
    """The server: pygls' `LanguageServer` plus Cairn's parts, each owning its state.

    `documents` (open documents), `scheduler` (background tasks, debouncing and the
    one worker thread), `hub` (project sessions on that worker), `projects` (which
    `.cairn/` a path belongs to), `configuration` (the settings, per workspace folder),
    `client` (the facade handlers talk to the editor through). Handlers are registered
    with `handle` and get a `Context`, not the server.
    """

    def __init__(self) -> None:
        super().__init__(
            "cairn", __version__, protocol_cls=CairnProtocol, converter_factory=converter
        )
        self.configuration = SettingsByFolder()
        self.client = Client(self)
        worker = Worker()
        self.scheduler = Scheduler(worker, report=self._report_failure)
        self.hub = StoreHub(worker)
        self.projects = ProjectFinder()
        self.documents = Documents(self)
        self._pull_offered = True  # False once initialize decided to push (no pull provider)

    # --- registration ---------------------------------------------------------------------

    def handle(
        self, method: str, options: Any = None, *, empty: Any = _RAISE, name: str = ""
    ) -> Callable[[Handler], Handler]:
        """Register `handler(ctx, params)` for an LSP method.

        The one place errors become LSP errors: a bad request (the core's or the store's
        validation) is InvalidParams, a store that cannot answer is InternalError, each
        message prefixed with `name`. With `empty`, a store that cannot answer is
        logged and `empty` is the answer instead (reads degrade, writes fail loudly).
        """
        return self._register(self.feature(method, options), name or method, empty)

    def handle_command(
        self, command: str, *, empty: Any = _RAISE
    ) -> Callable[[Callable[..., Any]], Any]:
        """Register `handler(ctx, *arguments)` for a `workspace/executeCommand` command."""
        return self._register(self.command(command), command, empty, command=True)

    def _register(
        self, add: Callable[[Any], Any], name: str, empty: Any, command: bool = False
    ) -> Callable[[Any], Any]:
        def register(handler: Any) -> Any:
            if inspect.iscoroutinefunction(handler):

                async def run_async(*args: Any) -> Any:
                    ctx = self.context(None if command else args[0])
                    try:
                        return await handler(ctx, *args)
                    except Exception as exc:
                        return self._failed(name, exc, empty)

                run: Callable[..., Any] = run_async
            else:

                def run(*args: Any) -> Any:
                    ctx = self.context(None if command else args[0])
                    try:
                        return handler(ctx, *args)
                    except Exception as exc:
                        return self._failed(name, exc, empty)

            run.__name__ = getattr(handler, "__name__", name.replace(".", "_"))
            add(run)
            return handler

        return register

    def _failed(self, name: str, exc: Exception, empty: Any) -> Any:
        """The LSP error a handler's exception maps to (or, for reads, the empty answer)."""
        from cairn.core.decisions import InvalidRequest
        from cairn.store.errors import AmbiguousTarget, StoreError, UnknownEvent, ValidationError
        from cairn.store.paths import EntityPathError

        if isinstance(exc, JsonRpcException):
            raise exc
        message = str(exc) if str(exc).startswith(f"{name}:") else f"{name}: {exc}"
        invalid = (InvalidRequest, ValidationError, AmbiguousTarget, UnknownEvent, EntityPathError)
        if isinstance(exc, invalid):
            raise JsonRpcInvalidParams(message) from None
        if isinstance(exc, (StoreUnavailable, StoreError)):
            if empty is _RAISE:
                raise JsonRpcInternalError(message) from None
            self.client.log(message, types.MessageType.Warning)
            return empty
        raise exc

    def context(self, params: Any = None) -> Context:
        """A handler's view: its request's document (if it names one) and that
        document's settings."""
        uri = _document_uri(params)
        document = self.documents.get(uri) if uri is not None else None
        return Context(
            client=self.client,
            documents=self.documents,
            hub=self.hub,
            projects=self.projects,
            scheduler=self.scheduler,
            settings=self.settings_for(uri),
            configuration=self.configuration,
            document=document,
        )

    # --- state the parts share --------------------------------------------------------------

    def decide_diagnostic_mode(self) -> bool:
        """At initialize: True when diagnostics will be pulled. When they are pushed, the
        client is not offered pulling (`CairnProtocol.lsp_initialize`), for good."""
        pulls = self.pulls_diagnostics
        self._pull_offered = pulls
        return pulls

    def publish_diagnostics(self, uri: str, version: int, diagnostics: list[Any]) -> None:
        """Push a document's diagnostics, given in wire form (`conversions.diagnostic`:
        the converter writes them as they are)."""
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    @property
    def settings(self) -> Settings:
        """The workspace's settings (a document's may be its folder's: `settings_for`)."""
        return self.configuration.workspace

    def settings_for(self, uri: str | None) -> Settings:
        """The settings of the workspace folder holding `uri`, else the workspace's."""
        return self.configuration.for_path(uri_path(uri) if uri else None)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band errors (a malformed message, a failed notification) go to the log.

        pygls would pop a message up; a stray bad message is not the user's problem.
        A message nested too deeply for JSON to be read (a 200,000-deep array) cannot be
        answered, as its id is never read: it is dropped like any unreadable frame.
        """
        if isinstance(error, RecursionError):
            message = "dropped a message nested deeper than its JSON can be read"
        else:
            message = f"ignored a bad message or failed handler: {error}"
        self.client.log(message, types.MessageType.Warning)

    def _report_failure(self, message: str) -> None:
        self.client.log(message, types.MessageType.Error)

    @property
    def pulls_diagnostics(self) -> bool:
        """True when diagnostics are served on pull instead of pushed
        (`cairn.lsp.settings.pulls_diagnostics`)."""
        if not self._pull_offered:
            return False  # the client was told we push; it will never pull
        return pulls_diagnostics(
            self.settings.diagnostic_mode,
            can_pull=self.client.capability("text_document.diagnostic") is not None,
            can_refresh=bool(self.client.capability("workspace.diagnostics.refresh_support")),
        )


def _document_uri(params: Any) -> str | None:
    """The URI of the document a request names (`textDocument.uri`), if any."""
    document = getattr(params, "text_document", None)
    uri = getattr(document, "uri", None)
    return uri if isinstance(uri, str) else None


def build_server() -> CairnServer:
    """A server with every feature registered."""
    server = CairnServer()
    for name in FEATURES:
        import_module(name).register(server)
    return server


class _DroppingHandler(logging.Handler):
    """Hands formatted lines to the stderr thread; drops them when it is too far behind."""

    def __init__(self, lines: queue.Queue[str | None]) -> None:
        super().__init__()
        self.lines = lines

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = self.format(record)
        except Exception:
            self.handleError(record)
            return
        with contextlib.suppress(queue.Full):
            self.lines.put_nowait(line)


def log_to_stderr(level: str) -> Callable[[], None]:
    """Log to stderr from a thread of its own, so logging can never block the server;
    returns what flushes it at exit.

    A client that does not read the server's stderr lets the pipe fill (64 KB on Linux);
    a write to it then blocks until someone reads. Bad input is logged (pygls logs a
    traceback for each message it cannot structure, a few KB each), so a few dozen bad
    messages made the server block inside a log call and stop answering: fuzz finding
    (3). Records are formatted where they are logged and queue as lines to a writer
    thread; when it is stuck, new ones are dropped.
    """
    lines: queue.Queue[str | None] = queue.Queue(maxsize=1000)

    def write() -> None:
        while (line := lines.get()) is not None:
            with contextlib.suppress(OSError, ValueError):  # a closed stderr: nowhere to say so
                sys.stderr.write(line + "\n")
                sys.stderr.flush()

    # a daemon thread: a stuck write cannot keep the process alive
    writer = threading.Thread(target=write, name="cairn-log", daemon=True)
    writer.start()
    handler = _DroppingHandler(lines)
    handler.setFormatter(logging.Formatter("cairn-lsp %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.setLevel(level.upper())
    root.addHandler(handler)

    def flush() -> None:
        # Give the writer a moment for the last lines, without waiting on a full pipe.
        with contextlib.suppress(queue.Full):
            lines.put_nowait(None)
        writer.join(timeout=2)

    return flush


def serve(tcp: str | None = None, log_level: str = "WARNING") -> None:
    """Run the server until the client says exit."""
    flush_log = log_to_stderr(log_level)
    server = build_server()

    def limit() -> int:
        return server.settings.max_message_bytes

    def report(message: str) -> None:
        server.client.log(message, types.MessageType.Warning)

    try:
        if tcp:
            host, port = parse_hostport(tcp)
            serve_tcp(server, host, port, limit, report)
        else:
            serve_stdio(server, limit, report)
    finally:
        server.hub.shutdown()
        flush_log()
