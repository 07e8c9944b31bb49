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

import argparse
import contextlib
import logging
import logging.handlers
import queue
import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from cairn.core.project import ProjectFinder
from cairn.lsp.conversions import converter
from cairn.lsp.scheduling import Scheduler, Worker
from cairn.lsp.settings import Settings, pulls_diagnostics
from cairn.lsp.state import Documents
from cairn.lsp.stores import StoreHub
from cairn.lsp.transport import CairnProtocol, serve_stdio, serve_tcp

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
    "cairn.lsp.features.renames",
)


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
        self._pull_offered = True  # False once initialize decided to push (no pull provider)

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
        """The current settings (immutable; `configure` replaces them)."""
        return self._settings

    def configure(self, settings: Settings) -> None:
        """Use new settings from now on (initialize, configuration changes)."""
        self._settings = settings

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


def serve(tcp: str | None = None, log_level: str = "WARNING") -> None:
    """Run the server until the client says exit."""
    flush_log = log_to_stderr(log_level)
    server = build_server()

    def limit() -> int:
        return server.settings.max_message_bytes

    def report(message: str) -> None:
        server.log(message, types.MessageType.Warning)

    try:
        if tcp:
            host, port = parse_hostport(tcp)
            serve_tcp(server, host, port, limit, report)
        else:
            serve_stdio(server, limit, report)
    finally:
        server.hub.shutdown()
        flush_log()


def installed_version() -> str:
    """This distribution's version, as the server reports it to the client."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cairn-lsp")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0.0.0"
