"""The `cairn` console script: `cairn check` and `cairn status` answered warm when it can.

Cold, most of a `cairn check` is the interpreter importing Cairn (docs/performance.md).
When the project's gate daemon (`cairn gate-daemon`, cairn.agents.gate_daemon) is
running, this asks it to run the command (cairn.cli.warm) and replays its output: the
same stdout, stderr and exit code, as the daemon runs the cold code with this process's
arguments, folder, environment, umask and stdin. Anything else, or no daemon, a daemon
of another version or project, any error, no answer within the hook module's
CLI_TIMEOUT_S: the cold `cairn.cli.main`, exactly as before. This never starts a daemon;
CAIRN_GATE_DAEMON=0 never asks one.

Only the standard library is imported on the way to the socket (the socket's name and
the wire format are the Claude Code hook's, which imports nothing of Cairn either).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

# The commands a daemon may answer: read-only, and called on every commit and edit.
WARM_COMMANDS = ("check", "status")
# A reply bigger than this is not read: the command runs cold.
MAX_REPLY_BYTES = 64 << 20


def main() -> None:
    """`cairn ...`: warm for check/status when a daemon answers, else the cold CLI."""
    argv = sys.argv[1:]
    stdin: bytes | None = None
    if argv and argv[0] in WARM_COMMANDS and _may_go_warm():
        stdin = _stdin_for(argv)
        reply = _ask(argv, stdin or b"")
        if reply is not None:
            _replay(*reply)
    if stdin is not None:  # read for the daemon: the cold command reads it from here
        sys.stdin = _text_over(stdin, sys.stdin)
    from cairn.cli import main as cold

    cold(argv)


def _may_go_warm() -> bool:
    """Not when turned off, nor where the output would depend on what a daemon cannot
    see: a terminal on any standard stream (colour, width), CAIRN_DEBUG (tracebacks),
    CAIRN_DIR (the daemon serves the project the walk finds)."""
    from cairn.claude_code import cairn_pretooluse as wire

    if not wire.daemon_wanted() or os.environ.get("CAIRN_DEBUG"):
        return False
    streams = (sys.stdin, sys.stdout, sys.stderr)
    return all(s is not None for s in streams) and not any(os.isatty(fd) for fd in (0, 1, 2))


def _stdin_for(argv: list[str]) -> bytes | None:
    """The bytes the command would read from stdin (only `check --stdin-filename`
    reads it), None when it reads none."""
    reads = any(a == "--stdin-filename" or a.startswith("--stdin-filename=") for a in argv)
    return sys.stdin.buffer.read() if reads and argv[0] == "check" else None


def _ask(argv: list[str], stdin: bytes) -> tuple[int, list[tuple[int, bytes]]] | None:
    """The daemon's (exit code, writes) for this command, None when none answered."""
    import _socket
    import binascii

    from cairn.claude_code import cairn_pretooluse as wire

    try:
        root = wire.project_root(os.getcwd())
    except OSError:  # the working folder is gone: the cold command says so
        return None
    sock = wire.socket_path(root) if root is not None else None
    if sock is None or not os.path.exists(sock):
        return None
    mask = os.umask(0)
    os.umask(mask)
    request = {
        "protocol": wire.GATE_PROTOCOL,
        "version": wire.CAIRN_VERSION,
        "root": str(root),
        "cli": {
            "argv": argv,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "stdin": binascii.b2a_base64(stdin, newline=False).decode("ascii"),
            "streams": {name: _coding(name) for name in ("stdin", "stdout", "stderr")},
            "umask": mask,
        },
    }
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(wire.CONNECT_TIMEOUT_S)
        conn.connect(str(sock))
        conn.settimeout(wire.CLI_TIMEOUT_S)
        conn.sendall(wire.request_line(request))
        line = wire.read_line(conn, MAX_REPLY_BYTES)
    except (OSError, ValueError, UnicodeError):  # TimeoutError is an OSError
        return None
    finally:
        conn.close()
    return _parse(line)


def _coding(name: str) -> list[str]:
    stream: TextIO = getattr(sys, name)
    return [stream.encoding, stream.errors or "strict"]


def _parse(line: bytes | None) -> tuple[int, list[tuple[int, bytes]]] | None:
    """(code, writes) from a reply line; None for an error reply or anything malformed,
    checked whole before a byte is written (after that there is no going back)."""
    import binascii
    import json

    if line is None:
        return None
    try:
        cli = json.loads(line)["cli"]
        code, writes = cli["code"], cli["writes"]
        if not isinstance(code, int) or not isinstance(writes, list):
            return None
        out = []
        for fd, chunk in writes:
            if fd not in (1, 2):
                return None
            out.append((fd, binascii.a2b_base64(chunk.encode("ascii"))))
    except (ValueError, TypeError, KeyError, AttributeError, binascii.Error):
        return None
    return code, out


def _replay(code: int, writes: list[tuple[int, bytes]]) -> None:
    """Write the daemon's output in its order, and exit with its code."""
    try:
        for fd, chunk in writes:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
    except BrokenPipeError:
        code = 0  # the reader left (`cairn check | head`), as the cold CLI takes it
    sys.exit(code)


def _text_over(data: bytes, like: TextIO) -> TextIO:
    """A stdin holding `data`, decoded as `like` decodes."""
    import io

    return io.TextIOWrapper(io.BytesIO(data), like.encoding, like.errors)
