"""The first answer before the framework: `cairn serve` on stdio until its first diagnostics.

Why
---
An editor that opens a file waits for the server's first diagnostics, and the budget
is 500 ms from process start. The LSP framework alone does not fit in it: importing
lsprotocol's types, cattrs and pygls costs ~300 ms of CPU with the code cache
(`cairn.lsp.codegen_cache`) and ~600 ms without, and a bare pygls server publishing
one diagnostic takes ~0.8 s on the machine the budget is measured on. The first answer
needs none of it: three or four JSON frames in, two out. So the process answers them
itself, with Cairn's own core, and only then imports the server.

Execution model
---------------
1. `serve_stdio` is the first thing `cairn serve` (and `python -m cairn.lsp`) runs on
   stdio, before any LSP import: the GC is paused (`cairn.lsp.startup`) and `Bootstrap`
   reads frames from stdin itself (`Content-Length` framing, orjson), on the main
   thread. There is no other thread.
2. It answers `initialize` with exactly the result the server would give
   (`initialize_result`: the capabilities Cairn's registered features make pygls
   declare, which depend on the client's capabilities only where pygls reads them,
   and the push/pull choice, `cairn.lsp.settings.pulls_diagnostics`); then, while the
   client reads that answer, it opens the workspace's project sessions
   (`Session.warm`, what the server's `initialize` preloads). It accepts
   `initialized` and `workspace/didChangeConfiguration`.
3. For the first `textDocument/didOpen` it computes the diagnostics as the server's
   analysis does (`cairn.lsp.analysis`): the indexer's symbols, the session's
   statuses and removals, `cairn.core.findings`, as JSON (`cairn.lsp.wire`).
   Pushing, it writes the `textDocument/publishDiagnostics` the server's first publish
   would be (what the statuses say; the bring-back check comes after it, from the
   server, as it always did). Pulling, it answers the first `textDocument/diagnostic`
   for that document with the server's full report (bring-backs included); requests
   that change nothing (`READ_ONLY`: VS Code asks for code lenses first) may come
   before it, and are left to the server.
4. Then it hands over (`Handover`): the server is imported and built, and it reads every
   byte the bootstrap read, in order, before it reads stdin itself
   (`cairn.lsp.server.StdinReader`), so its state (client capabilities, workspace,
   open documents, settings) is exactly as if it had read them; the bytes already in
   the pipe are simply read next. It answers them as always, except that what the
   bootstrap already sent is not sent twice: the responses to the requests it answered,
   and the first publish of a document when it is identical to the bootstrap's. The
   sessions the bootstrap opened go to the server's store thread, so its own analysis
   of the replayed `didOpen` finds the statuses cached.
5. Anything else ends the bootstrap at once and hands everything read so far to the
   server, which handles it as it always did, so the behaviour is never worse than
   without a bootstrap: a first message other than `initialize`, any other request or
   notification (`shutdown`, `exit`, `$/cancelRequest`...), a malformed header or body
   or one orjson refuses, a frame over the size limit, end of input, initialize params
   of an unexpected shape, `CAIRN_DIR` naming nothing, a document outside a project, a
   decision draft, a file over `maxFileBytes`, broken user queries, a store that must
   first rebuild or index much of its log (`quick_to_open`), a store that cannot open
   or reports damage, and any exception. `--tcp` never bootstraps, and
   `CAIRN_LSP_BOOTSTRAP=0` turns it off (the server then reads everything itself).

What it must agree with is tested against the server itself
(tests/lsp/test_bootstrap.py): the initialize result for several client capability
sets, the published and pulled diagnostics, and every fallback. Its phases are timed
by bench/lsp.py (`start-up CPU: bootstrap ...` rows).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from cairn.lsp.settings import Settings, pulls_diagnostics
from cairn.lsp.startup import pause_gc
from cairn.lsp.wire import diagnostic, frame, notification, publish_params, relative_to, uri_path

SWITCH = "CAIRN_LSP_BOOTSTRAP"  # "0": no bootstrap (the server reads everything itself)
CATCH_UP_BYTES = 8 * 1024 * 1024  # log not yet indexed that the first answer may index
MAX_HEADER = 8 * 1024  # header bytes before the blank line (the server's own limit)
CHUNK = 64 * 1024
PUBLISH = "textDocument/publishDiagnostics"
# What `cairn.lsp.server.FEATURES` register, as pygls declares it (the test compares).
COMMANDS = (
    "cairn.log",
    "cairn.reject",
    "cairn.revert",
    "cairn.supersede",
    "cairn.history",
    "cairn.rename",
)
CODE_ACTION_KINDS = ("quickfix", "refactor.cairn")
RENAME_FILTERS = {"filters": [{"scheme": "file", "pattern": {"glob": "**/*"}}]}
PULL_OPTIONS = {"identifier": "cairn", "interFileDependencies": True, "workspaceDiagnostics": False}
SYNC_INCREMENTAL = 2
# Requests that change no state: a pulling client may send them between its didOpen and
# its first pull; the bootstrap leaves them to the server and still answers the pull.
READ_ONLY = frozenset(
    {
        "textDocument/codeLens",
        "textDocument/codeAction",
        "textDocument/hover",
        "textDocument/documentSymbol",
        "textDocument/documentLink",
        "textDocument/documentHighlight",
        "textDocument/foldingRange",
        "textDocument/inlayHint",
        "textDocument/semanticTokens/full",
        "workspace/symbol",
    }
)


@dataclass
class Handover:
    """What the server needs from the bootstrap to carry on as if it had read it all."""

    preread: bytes = b""  # every byte read from stdin, in order: the server reads them first
    answered: dict[Any, Any] = field(default_factory=dict)  # request id -> the result sent
    published: dict[str, Any] = field(default_factory=dict)  # uri -> the params published
    sessions: dict[Path, Any] = field(default_factory=dict)  # cairn_dir -> an open Session
    reason: str = ""  # why the bootstrap stopped (logged at debug level)


def serve_stdio(log_level: str) -> None:
    """`cairn serve` on stdio: the bootstrap's first answer, then the server
    (`CAIRN_LSP_BOOTSTRAP=0`: the server alone, as before; tests compare the two)."""
    pause_gc()
    handover = None if os.environ.get(SWITCH) == "0" else run(sys.stdin, sys.stdout)
    from cairn.lsp.startup import prepare

    prepare()  # the code cache, before the LSP types are imported
    from cairn.lsp.server import serve

    serve(tcp=None, log_level=log_level, handover=handover)


def run(stdin: Any, stdout: Any) -> Handover:
    """Run the bootstrap on these streams (their binary buffers); never raises."""
    try:
        fd = stdin.buffer.fileno()
        out = stdout.buffer
    except (AttributeError, OSError, ValueError):  # no descriptor: the server reads it
        return Handover(reason="stdin or stdout has no descriptor")
    return Bootstrap(fd, out).run()


class Bootstrap:
    """Reads the first frames, answers initialize and the first document, then stops."""

    def __init__(self, fd: int, out: BinaryIO) -> None:
        self._fd = fd
        self._out = out
        self._data = bytearray()  # everything read from stdin
        self._pos = 0  # the end of the last frame consumed
        self._eof = False
        self._handover = Handover()
        self._settings = Settings()
        self._init_options: object = None
        self._capabilities: Mapping[str, Any] = {}
        self._finder: Any = None

    def run(self) -> Handover:
        """Serve until the first answer (or the first surprise); what the server needs."""
        handover = self._handover
        try:
            reason = self._serve()
        except Exception as exc:  # whatever it was, the server handles it as before
            reason = f"stopped by {exc!r}"
            for session in handover.sessions.values():  # the server opens its own
                with contextlib.suppress(Exception):
                    session.close()
            handover.sessions.clear()
        handover.preread = bytes(self._data)
        handover.reason = reason
        return handover

    # --- the conversation ----------------------------------------------------------------

    def _serve(self) -> str:
        message = self._next()
        if message is None:
            return "no well-formed first frame"
        request_id = message.get("id")
        if message.get("method") != "initialize" or not _is_id(request_id):
            return "the first message is not initialize"
        params = message.get("params")
        if not isinstance(params, dict) or not _plausible_initialize(params):
            return "initialize params of an unexpected shape"
        if not self._initialize(request_id, params):
            return "CAIRN_DIR names no project"
        self._open_workspace(params)
        initialized = False
        while True:
            message = self._next()
            if message is None:
                return "a frame it does not read"
            method = message.get("method")
            notification = "id" not in message
            if method == "initialized" and notification and not initialized:
                initialized = True
            elif method == "workspace/didChangeConfiguration" and notification and initialized:
                if not self._configure(message.get("params")):
                    return "configuration of an unexpected shape"
            elif method == "textDocument/didOpen" and notification and initialized:
                return self._first_document(message.get("params"))
            else:
                return f"{method!r} is the server's"

    def _initialize(self, request_id: Any, params: Mapping[str, Any]) -> bool:
        from cairn.core.project import ProjectFinder

        self._finder = ProjectFinder()
        if self._finder.problem:
            return False  # the server tells the person after initialized
        self._capabilities = params["capabilities"]
        self._init_options = params.get("initializationOptions")
        self._settings, _ = Settings.from_options(self._init_options)
        result = initialize_result(
            self._capabilities, pulls=self._pulls(), version=installed_version()
        )
        self._send({"id": request_id, "result": result, "jsonrpc": "2.0"})
        self._handover.answered[request_id] = result
        return True

    def _pulls(self) -> bool:
        return pulls_diagnostics(
            self._settings.diagnostic_mode,
            can_pull=isinstance(_get(self._capabilities, "textDocument", "diagnostic"), dict),
            can_refresh=bool(
                _get(self._capabilities, "workspace", "diagnostics", "refreshSupport")
            ),
        )

    def _configure(self, params: object) -> bool:
        """workspace/didChangeConfiguration as the server applies it (lifecycle)."""
        if not isinstance(params, dict):
            return False
        if _get(self._capabilities, "workspace", "configuration"):
            return True  # the server pulls the configuration itself, after the first answer
        base, _ = Settings.from_options(self._init_options)
        self._settings, _ = Settings.from_options(params.get("settings"), base=base)
        return True

    def _open_workspace(self, params: Mapping[str, Any]) -> None:
        """Open the workspace folders' projects while the client reads the answer (what
        the server's initialize preloads); a failure is left for the document to meet."""
        for path in _folder_paths(params):
            project = self._finder.for_path(path)
            if project is not None and quick_to_open(project.cairn_dir):
                try:
                    self._session(project).warm()
                except Exception:
                    session = self._handover.sessions.pop(project.cairn_dir, None)
                    if session is not None:
                        with contextlib.suppress(Exception):
                            session.close()

    def _session(self, project: Any) -> Any:
        sessions = self._handover.sessions
        session = sessions.get(project.cairn_dir)
        if session is None:
            from cairn.core.session import Session

            session = sessions[project.cairn_dir] = Session.open(project)
        return session

    def _first_document(self, params: object) -> str:
        item = params.get("textDocument") if isinstance(params, dict) else None
        if not isinstance(item, dict):
            return "didOpen params of an unexpected shape"
        uri, text, version = item.get("uri"), item.get("text"), item.get("version")
        if not (isinstance(uri, str) and isinstance(text, str) and _is_int(version)):
            return "didOpen params of an unexpected shape"
        pulls = self._pulls()
        found = self._diagnostics(uri, text, bring_backs=pulls)
        if isinstance(found, str):
            return found
        if not pulls:
            published = publish_params(uri, found, version)
            self._send(notification(PUBLISH, published))
            self._handover.published[uri] = published
            return "published the first diagnostics"
        while True:
            message = self._next()
            if message is None:
                return "a frame it does not read"
            method, request_id = message.get("method"), message.get("id")
            if (
                method == "textDocument/diagnostic"
                and _is_id(request_id)
                and _get(message.get("params"), "textDocument", "uri") == uri
            ):
                break
            if method not in READ_ONLY or not _is_id(request_id):
                return f"{method!r} is the server's"
            # A question that changes nothing (VS Code asks for code lenses first): the
            # server answers it after the handover, in order; the pull is answered now.
        report = {"kind": "full", "items": found}
        self._send({"id": request_id, "result": report, "jsonrpc": "2.0"})
        self._handover.answered[request_id] = report
        return "answered the first pull"

    def _diagnostics(self, uri: str, text: str, *, bring_backs: bool) -> list[Any] | str:
        """The document's diagnostics as the server's analysis finds them, or why not."""
        path = uri_path(uri)
        project = self._finder.for_path(path) if path is not None else None
        relpath = relative_to(path, project.root) if path is not None and project else None
        if project is None or relpath is None:
            return "the document is outside a project"
        if relpath.startswith(".cairn/drafts/") and relpath.endswith(".md"):
            return "the document is a decision draft"
        if len(text) > self._settings.max_file_bytes:
            return "the document is over maxFileBytes"
        from cairn.indexer import Document, user_query_errors

        queries = project.queries if project.queries.is_dir() else None
        if queries is not None and user_query_errors(queries):
            return "the project's user queries have errors"
        doc = Document(relpath, text, queries)
        symbols = tuple(doc.symbols)
        from cairn.core.findings import findings_for, removed

        if project.cairn_dir not in self._handover.sessions and not quick_to_open(
            project.cairn_dir
        ):
            return "the index must be rebuilt or caught up far first"
        statuses: dict[str, Any] = {}
        session = self._session(project)
        if symbols:
            statuses = session.statuses(tuple(sorted({s.entity for s in symbols})))
            if session.known_damage():
                return "the log is damaged"
        gone = {e: statuses[e] for e in removed(statuses)}
        removals = session.removals(gone) if gone else {}
        severities = self._settings.severity
        found = findings_for(symbols, statuses, severities, removals)
        if bring_backs and doc.text:
            prints = session.revert_prints()
            if prints:
                from cairn.fingerprints import document_bring_backs

                found += document_bring_backs(relpath, doc.text, symbols, prints, severities)
        return [diagnostic(f) for f in found]

    # --- frames ----------------------------------------------------------------------------

    def _send(self, message: Mapping[str, Any]) -> None:
        self._out.write(frame(orjson.dumps(message)))
        self._out.flush()

    def _fill(self) -> bool:
        if self._eof:
            return False
        chunk = os.read(self._fd, CHUNK)
        if not chunk:
            self._eof = True
            return False
        self._data += chunk
        return True

    def _next(self) -> dict[str, Any] | None:
        """The next message, or None for anything but a well-formed JSON-RPC frame
        within the limits (the server then reads it, and says what was wrong)."""
        start = self._pos
        while (end := self._data.find(b"\r\n\r\n", start)) < 0:
            if len(self._data) - start > MAX_HEADER or not self._fill():
                return None
        length = _content_length(bytes(self._data[start:end]))
        if length is None or length > self._settings.max_message_bytes:
            return None
        body = end + 4
        while len(self._data) < body + length:
            if not self._fill():
                return None
        try:
            message = orjson.loads(self._data[body : body + length])
        except orjson.JSONDecodeError:
            return None
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return None
        self._pos = body + length
        return message


def initialize_result(capabilities: Mapping[str, Any], *, pulls: bool, version: str) -> dict:
    """The server's InitializeResult for a client with these capabilities (JSON).

    pygls builds it from the registered features (`ServerCapabilitiesBuilder`); the
    positions are always UTF-16 (`CairnProtocol` ignores the client's offer, as the
    indexer computes UTF-16), and a pushing server declares no diagnostic provider.
    """
    sync: dict[str, Any] = {"openClose": True, "change": SYNC_INCREMENTAL}
    # pygls: `client's willSave and WILL_SAVE in features`: False once the client says
    # anything (Cairn registers neither), absent when it says nothing.
    for key in ("willSave", "willSaveWaitUntil"):
        if _get(capabilities, "textDocument", "synchronization", key) is not None:
            sync[key] = False
    sync["save"] = {"includeText": False}
    operations: dict[str, Any] = {}
    if _get(capabilities, "workspace", "fileOperations", "didRename"):
        operations["didRename"] = RENAME_FILTERS
    caps: dict[str, Any] = {
        "positionEncoding": "utf-16",
        "textDocumentSync": sync,
        "hoverProvider": True,
        "codeActionProvider": {
            "codeActionKinds": list(CODE_ACTION_KINDS),
            "resolveProvider": False,
        },
        "codeLensProvider": {"resolveProvider": False},
        "workspaceSymbolProvider": {"resolveProvider": False},
        "executeCommandProvider": {"commands": list(COMMANDS)},
        "workspace": {
            "workspaceFolders": {"supported": True, "changeNotifications": True},
            "fileOperations": operations,
        },
    }
    if pulls:
        caps["diagnosticProvider"] = dict(PULL_OPTIONS)
    return {"capabilities": caps, "serverInfo": {"name": "cairn", "version": version}}


def quick_to_open(cairn_dir: Path) -> bool:
    """True when opening this store means at most a short catch-up: an index of the
    current schema that has read all but `CATCH_UP_BYTES` of the log (or a small log
    and no index yet). Otherwise the store would index or rebuild first (a minute at
    1M events after a schema change): the server does that on its store thread while
    its loop keeps answering, so the bootstrap leaves it to the server."""
    from cairn.store.index import SCHEMA_VERSION, read_meta
    from cairn.store.log import LOG_NAME

    try:
        size = (cairn_dir / LOG_NAME).stat().st_size
        meta = read_meta(cairn_dir, ("schema", "consumed"))
        if meta is None:
            return size <= CATCH_UP_BYTES
        behind = size - int(meta.get("consumed", 0))
    except Exception:  # unreadable, locked, corrupt: the server says what it is
        return False
    return meta.get("schema") == SCHEMA_VERSION and 0 <= behind <= CATCH_UP_BYTES


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


def _content_length(header: bytes) -> int | None:
    """The length of a header block that holds exactly one Content-Length and nothing
    but Content-Type besides; None otherwise."""
    length = None
    for line in header.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if not sep:
            return None
        name, value = name.strip().lower(), value.strip()
        if name == b"content-length":
            if length is not None or not value.isdigit() or len(value) > 12:
                return None
            length = int(value)
        elif name != b"content-type":
            return None
    return length


def _get(node: object, *keys: str) -> Any:
    """A nested JSON value, or None when any step is missing or not an object."""
    for key in keys:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_id(value: object) -> bool:
    return _is_int(value) or isinstance(value, str)


def _plausible_initialize(params: object) -> bool:
    """The fields the server structures, with the types it accepts; anything else is
    left to the server (which answers with its own error)."""
    if not isinstance(params, dict) or not isinstance(params.get("capabilities"), dict):
        return False
    if "processId" not in params or not (
        params["processId"] is None or _is_int(params["processId"])
    ):
        return False
    for key in ("rootUri", "rootPath", "locale"):
        if params.get(key) is not None and not isinstance(params[key], str):
            return False
    if params.get("trace") not in (None, "off", "messages", "verbose"):
        return False
    info = params.get("clientInfo")
    if info is not None and not (
        isinstance(info, dict)
        and isinstance(info.get("name"), str)
        and isinstance(info.get("version", ""), str)
    ):
        return False
    folders = params.get("workspaceFolders")
    if folders is not None and not (
        isinstance(folders, list)
        and all(
            isinstance(f, dict) and isinstance(f.get("uri"), str) and isinstance(f.get("name"), str)
            for f in folders
        )
    ):
        return False
    return "workDoneToken" not in params or _is_id(params["workDoneToken"])


def _folder_paths(params: Mapping[str, Any]) -> list[Path]:
    """The workspace folders (or the root) that exist on disk, as the server sees them
    (`cairn.lsp.features.lifecycle.folder_paths` over pygls' workspace)."""
    uris = [f["uri"] for f in params.get("workspaceFolders") or []]
    if not uris:
        root = params.get("rootUri")
        if root is None and params.get("rootPath") is not None:
            from cairn.lsp.wire import path_uri

            root = path_uri(Path(params["rootPath"]))
        uris = [root] if root else []
    paths = [uri_path(uri) for uri in uris]
    return [p for p in paths if p is not None and p.is_dir()]
