"""The gate daemon: `cairn check --stdin-filename` answered over a Unix socket, warm.

The Claude Code hook runs on every edit an agent makes. Cold, most of its cost is an
interpreter importing Cairn and compiling tree-sitter queries (docs/performance.md);
this process pays that once and answers each edit with the same function the hook runs
in its own process (`cairn.core.gate.edit_verdict`), so the verdict and the words are
the same. Each check opens the index afresh (the catch-up every command does), so a
decision logged after the daemon started counts.

One project per daemon, one socket per project: where it lives, its name and the wire
format are the hook's (`cairn.claude_code.cairn_pretooluse`), which imports nothing of
Cairn. A request is one JSON line in, one JSON line out, one per connection, handled
one at a time. It stops when idle for `idle_timeout` seconds, when the project's
`.cairn/` is gone, and when its socket file is no longer its own (another daemon took
the name over).
"""

from __future__ import annotations

import binascii
import json
import os
import signal
import socket
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, NamedTuple, TypeGuard, TypeVar

from cairn.claude_code import cairn_pretooluse as wire
from cairn.core.gate import edit_verdict
from cairn.core.project import CAIRN_DIRNAME

_T = TypeVar("_T")

DEFAULT_IDLE_S = 600.0
# How often an idle daemon looks whether it should stop (its .cairn/, its socket).
_POLL_S = 5.0
# A client that connects and then sends nothing does not hold the daemon up for long.
_READ_TIMEOUT_S = 5.0


class DaemonError(Exception):
    """The daemon cannot start (no private folder for its socket, no project)."""


class WarmCli(NamedTuple):
    """The CLI commands this daemon may also run (`cairn.cli.warm`, handed in by the
    `cairn gate-daemon` command: the agents layer does not import the CLI's)."""

    commands: tuple[str, ...]
    warm_up: Callable[[], None]
    run: Callable[..., tuple[int, list[tuple[int, bytes]]]]


def serve(root: Path, idle_timeout: float = DEFAULT_IDLE_S, cli: WarmCli | None = None) -> None:
    """Answer gate requests for the project at `root` until idle, or until it is gone;
    with `cli`, `cairn check|status` calls from `cairn.cli.entry` too."""
    root = root.resolve()
    if not (root / CAIRN_DIRNAME).is_dir():
        raise DaemonError(f"no {CAIRN_DIRNAME}/ in {root}: not a Cairn project")
    # The socket names the project a walk finds from the edited file; CAIRN_DIR, if this
    # process inherited it, must not point the checks at another log.
    os.environ.pop("CAIRN_DIR", None)
    where = wire.socket_path(str(root))
    if where is None:
        raise DaemonError(
            "no private folder for the daemon's socket (set XDG_RUNTIME_DIR to one of yours)"
        )
    sock_path = Path(where)
    if _answers(sock_path):
        return  # one of this version already serves the project
    if cli is not None:
        cli.warm_up()  # before the socket exists: until then clients take the cold path
    listener = _bind(sock_path)
    mine = _inode(sock_path)
    try:
        _loop(listener, sock_path, mine, root, idle_timeout, cli)
    finally:
        listener.close()
        if mine is not None and _inode(sock_path) == mine:  # not another daemon's by now
            sock_path.unlink(missing_ok=True)


def _answers(sock_path: Path) -> bool:
    """Whether a daemon of this version already listens at `sock_path`."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.settimeout(wire.CONNECT_TIMEOUT_S * 4)
        conn.connect(str(sock_path))
        conn.sendall(wire.request_line(_hello()))
        line = wire.read_line(conn, 4096)
    except OSError:
        return False
    finally:
        conn.close()
    try:
        return line is not None and json.loads(line).get("hello") == wire.CAIRN_VERSION
    except (ValueError, AttributeError):
        return False


def _hello() -> dict[str, Any]:
    return {"protocol": wire.GATE_PROTOCOL, "version": wire.CAIRN_VERSION, "hello": True}


def _bind(sock_path: Path) -> socket.socket:
    """A listening socket at `sock_path`, replacing a stale file (a dead daemon's, or
    another version's: that one stops once idle, as nothing reaches it any more)."""
    sock_path.unlink(missing_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)  # the socket itself 0600 too, in its 0700 folder
    try:
        listener.bind(str(sock_path))
    finally:
        os.umask(old_mask)
    listener.listen(16)
    return listener


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _loop(
    listener: socket.socket,
    sock_path: Path,
    mine: int | None,
    root: Path,
    idle_timeout: float,
    cli: WarmCli | None,
) -> None:
    import time

    listener.settimeout(min(_POLL_S, idle_timeout))
    last = time.monotonic()
    while True:
        try:
            conn, _addr = listener.accept()
        except TimeoutError:
            if time.monotonic() - last >= idle_timeout:
                return
            if not (root / CAIRN_DIRNAME).is_dir() or _inode(sock_path) != mine:
                return
            continue
        with conn:
            _handle(conn, root, cli)
        last = time.monotonic()
        if not (root / CAIRN_DIRNAME).is_dir():
            return


def _handle(conn: socket.socket, root: Path, cli: WarmCli | None) -> None:
    """Read one request, write one reply; a broken client costs only its connection."""
    conn.settimeout(_READ_TIMEOUT_S)
    try:
        line = wire.read_line(conn, wire.MAX_REQUEST_BYTES)
        reply = (
            {"error": f"not one JSON line of at most {wire.MAX_REQUEST_BYTES:,} bytes"}
            if line is None
            else answer(line, root, cli)
        )
        conn.sendall(wire.request_line(reply))
    except OSError:
        pass  # the client went away; the next one is served


def answer(line: bytes, root: Path, cli: WarmCli | None = None) -> dict[str, Any]:
    """The reply to one request line: `edit_verdict`'s, a hello, or an error saying why
    (the client then takes the cold path)."""
    try:
        request = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        return {"error": f"the request is not JSON: {exc}"}
    if not isinstance(request, dict):
        return {"error": "the request is not a JSON object"}
    if request.get("protocol") != wire.GATE_PROTOCOL or request.get("version") != (
        wire.CAIRN_VERSION
    ):
        return {
            "error": "another Cairn version",
            "protocol": wire.GATE_PROTOCOL,
            "version": wire.CAIRN_VERSION,
        }
    if request.get("hello"):
        return {"hello": wire.CAIRN_VERSION}
    if request.get("root") != str(root):
        return {"error": f"this daemon serves {root}, not {request.get('root')!r}"}
    if "cli" in request:
        if cli is None:
            return {"error": "this daemon runs no CLI commands"}
        return _cli(request["cli"], cli)
    path, folder, encoded = (request.get(name) for name in ("path", "folder", "data"))
    if not (_clean(path) and _clean(folder) and isinstance(encoded, str)):
        return {"error": "path and folder must be non-empty strings, data a string"}
    try:
        data = binascii.a2b_base64(encoded.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError):
        return {"error": "data is not base64"}
    return _timed(Path(path), data, Path(folder))


def _cli(call: object, cli: WarmCli) -> dict[str, Any]:
    """`cairn check|status ...` as `cairn.cli.entry` asked for it, run by `cli.run`:
    the exit code and the writes to replay, or an error (the client then runs cold)."""
    if not isinstance(call, dict):
        return {"error": "cli must be a JSON object"}
    argv, cwd, env, streams = (call.get(k) for k in ("argv", "cwd", "env", "streams"))
    stdin, umask = call.get("stdin", ""), call.get("umask")
    if not (
        isinstance(argv, list)
        and argv
        and all(isinstance(a, str) for a in argv)
        and argv[0] in cli.commands
        and _clean(cwd)
        and isinstance(env, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
        and isinstance(streams, dict)
        and all(
            isinstance(streams.get(s), list)
            and len(streams[s]) == 2
            and all(isinstance(x, str) for x in streams[s])
            for s in ("stdin", "stdout", "stderr")
        )
        and isinstance(stdin, str)
        and isinstance(umask, int)
        and 0 <= umask <= 0o777
    ):
        return {"error": f"cli asks for one of {', '.join(cli.commands)} with its process state"}
    try:
        data = binascii.a2b_base64(stdin.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError):
        return {"error": "stdin is not base64"}
    try:
        code, writes = _capped(wire.CLI_TIMEOUT_S, cli.run, argv, cwd, env, data, streams, umask)
    except (_TooLong, OSError, LookupError) as exc:  # a gone cwd, an unknown encoding
        return {"error": f"cannot run it warm: {exc}"}
    return {
        "cli": {
            "code": code,
            "writes": [[fd, binascii.b2a_base64(b, newline=False).decode()] for fd, b in writes],
        }
    }


class _TooLong(BaseException):
    """Past the client's wait: a BaseException, so the CLI's own error handling (which
    turns any Exception into an exit code) does not make it an answer."""


def _capped(seconds: int, fn: Callable[..., _T], *args: Any) -> _T:
    def too_long(_signum: int, _frame: FrameType | None) -> None:
        raise _TooLong(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)
    try:
        return fn(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _clean(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value) and "\0" not in value


def _timed(path: Path, data: bytes, folder: Path) -> dict[str, Any]:
    """`edit_verdict`, stopped after the hook's own limit with its words."""

    def too_long(_signum: int, _frame: FrameType | None) -> None:
        raise TimeoutError(f"the check took over {wire.CHECK_TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(wire.CHECK_TIMEOUT_S)
    try:
        return edit_verdict(path, data, folder)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
