#!/usr/bin/env python3
"""Claude Code PreToolUse hook: refuse an edit that re-introduces a reverted or rejected entity.

Claude Code passes the tool call as JSON on stdin. For Write, Edit and MultiEdit this
computes the file's content after the edit, runs `cairn check --stdin-filename` on it
(only the lines the edit changes count), and exits 2 with the recorded reasoning on
stderr when the check fails, which blocks the call and shows Claude why. Other tools,
files outside a Cairn project and an edit that would not apply pass.

The gate fails closed: input it cannot read (not a JSON object, not UTF-8, a path with
a NUL or a lone surrogate), a file it must not read (a FIFO, a device, one over the
size limit), a check that cannot run or times out: each blocks with one line saying
what to fix (exit 2), unless CAIRN_HOOK_FAIL_OPEN=1 says to let such edits through
(then exit 1: Claude Code shows the message and goes on).
Standard library only, so it runs with whatever `python3` is on PATH. The check runs
in this process when this interpreter can import Cairn (installed for it, or in the
virtual environment of the `cairn` on PATH, when that is the same Python version): a
second interpreter and the command line's parsing were most of the wait on a small
log. Otherwise, or when CAIRN_BIN names the `cairn` executable to run, it spawns
`cairn check`; both give the same verdict and words (tests/editors/test_claude_hook.py).

Warm path: before any of that, the hook asks the project's gate daemon (`cairn
gate-daemon`, cairn.agents.gate_daemon) over a Unix socket in a private folder; it holds
the compiled queries, so an answer costs a connect, not an interpreter full of Cairn. No
daemon, another Cairn version or any error: the check above runs as it always did, and a
daemon is started in the background for the next edit. CAIRN_GATE_DAEMON=0 turns the
daemon off (no socket is tried, none is started). Nothing of Cairn is imported on the way
to the socket, and this file is the one place its name and protocol are defined.
"""

from __future__ import annotations

import json
import os
import stat
import sys

# Only what the way to the daemon needs is imported here: a warm call is mostly this
# interpreter's start and these imports (docs/performance.md), so `signal` and `shutil`
# (enum, fnmatch, compression modules) wait for the cold path, `socket` is its C core
# and `typing` is for the type checker alone. Paths are strings and `os.path`:
# `pathlib` (with the `urllib.parse` and `ipaddress` it imports) was 40% of a warm
# call's wall time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType, ModuleType
    from typing import Any

EDIT_TOOLS = ("Write", "Edit", "MultiEdit")
# Under the 30 s hooks.json gives this hook: past it Claude Code lets the edit through,
# so the hook must give its own verdict (blocked: not checked in time) before then.
CHECK_TIMEOUT_S = 25
MAX_FILE_BYTES = 4_000_000  # cairn.limits.MAX_FILE_BYTES (this file imports no Cairn)
FAIL_OPEN_ENV = "CAIRN_HOOK_FAIL_OPEN"
DAEMON_ENV = "CAIRN_GATE_DAEMON"
# A daemon answers only a client of its own protocol and Cairn version (another version's
# analysis could give other findings); tests/editors/test_gate_daemon.py keeps
# CAIRN_VERSION equal to cairn.__version__.
GATE_PROTOCOL = 1
CAIRN_VERSION = "0.1.0"
# `cairn check`/`cairn status` asked of the daemon by cairn.cli.entry: past this, the
# client runs the command cold and the daemon stops its run.
CLI_TIMEOUT_S = 10
CONNECT_TIMEOUT_S = 0.25  # a local socket connects at once, or no one listens there
# One request: the file's bytes in base64 (4/3) and its paths; more is not a request.
MAX_REQUEST_BYTES = MAX_FILE_BYTES * 4 // 3 + 65_536
MAX_SOCKET_PATH = 100  # sun_path holds 104-108 bytes, depending on the OS


class Refused(Exception):
    """The hook cannot judge this call; the message says why and what to do."""


# `cairn check` errors that mean "no decision log governs this file", not a failure.
NOT_OURS = ("not inside a Cairn project", "is outside the project")
CLI_ERROR = "cairn: error: "  # how `cairn` begins the one line it prints for an error


def apply_edit(text: str, old: str, new: str, replace_all: bool) -> str | None:
    """The text after one Edit, or None when Claude Code would reject it (no match)."""
    if old == "" or old not in text:
        return None
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def new_content(tool: str, args: dict[str, Any], path: str) -> str | None:
    """The file's content after the tool call, or None when the edit would not apply
    (Claude Code refuses it itself). Refused for a file that must not be read."""
    if tool == "Write":
        content = args.get("content")
        if not isinstance(content, str):
            raise Refused("tool_input.content is not a string")
        return content
    text = read_current(path)
    if text is None:
        return None
    edits = args.get("edits") if tool == "MultiEdit" else [args]
    if not isinstance(edits, list):
        raise Refused("tool_input.edits is not a list")
    for edit in edits:
        if not isinstance(edit, dict):
            raise Refused("an edit in tool_input.edits is not an object")
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str):
            raise Refused("an edit's old_string or new_string is not a string")
        result = apply_edit(text, old, new, bool(edit.get("replace_all")))
        if result is None:
            return None
        text = result
    return text


def read_current(path: str) -> str | None:
    """The file as it is (None when it does not exist: the edit cannot apply). A FIFO
    would never end and a device never stops, so only a regular file is opened, and no
    more than the size limit is read."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise Refused(f"{path} is not a regular file (a FIFO, a device or a folder)")
    if info.st_size > MAX_FILE_BYTES:
        raise Refused(f"{path} is over the {MAX_FILE_BYTES:,}-byte limit Cairn checks")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # swapped since the stat
                raise Refused(f"{path} is not a regular file")
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise Refused(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise Refused(f"{path} is over the {MAX_FILE_BYTES:,}-byte limit Cairn checks")
    # bytes that are not UTF-8 survive the edit unchanged and go back to bytes as they were
    return data.decode("utf-8", "surrogateescape")


def clean_text(value: object, what: str) -> str:
    """`value` as text an OS call and UTF-8 can take (no NUL, no lone surrogate)."""
    if not isinstance(value, str) or not value:
        raise Refused(f"{what} is missing or not a string")
    if "\0" in value:
        raise Refused(f"{what} holds a NUL character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(f"{what} holds a lone surrogate, which no file name can") from None
    return value


def explain(report: dict[str, Any]) -> str:
    """What Claude reads on stderr. The words are Cairn's own (`cairn check --json`'s
    `explanation`, from cairn.core.present), so the hook, the CLI and MCP say the same;
    a report without one (an older `cairn`) still names what blocked and why."""
    explanation = report.get("explanation")
    if isinstance(explanation, str) and explanation:
        return explanation
    lines = ["Cairn blocked this edit: it re-introduces an entity the team decided against."]
    for f in report.get("findings", []):
        if isinstance(f, dict) and f.get("blocking"):
            lines.append(f"- {f.get('file')}:{f.get('line')}: {f.get('message')}")
    return "\n".join(lines)


def main() -> int:
    """Exit 0 to allow, 2 to block (stderr goes to Claude); what the hook cannot judge
    blocks too (exit 2), or passes with a message (exit 1) when the user opted in."""
    try:
        return judge(sys.stdin.buffer.read())
    except Refused as exc:
        reason = str(exc)
    except Exception as exc:  # the gate fails closed whatever went wrong
        reason = f"the hook failed: {type(exc).__name__}: {exc}"
    reason = " ".join(reason.split())  # one line, whatever the cause held
    if os.environ.get(FAIL_OPEN_ENV) == "1":
        print(f"cairn hook: edit not checked: {reason}", file=sys.stderr)
        return 1
    print(
        f"cairn hook: edit blocked, it could not be checked: {reason}. Fix that, or set "
        f"{FAIL_OPEN_ENV}=1 to let unchecked edits through",
        file=sys.stderr,
    )
    return 2


def judge(raw: bytes) -> int:
    """The verdict on one hook payload; Refused when it cannot be judged."""
    try:
        payload = json.loads(raw.decode("utf-8") or "{}")
    except UnicodeDecodeError:
        raise Refused("the hook input is not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise Refused(f"invalid hook input: {exc}") from None
    if not isinstance(payload, dict):
        raise Refused(f"the hook input is a JSON {type(payload).__name__}, not an object")
    tool = payload.get("tool_name")
    if tool not in EDIT_TOOLS:
        return 0
    args = payload.get("tool_input")
    if not isinstance(args, dict):
        raise Refused("tool_input is not an object")
    raw_path = clean_text(args.get("file_path"), "tool_input.file_path")
    raw_cwd = payload.get("cwd")
    cwd = clean_text(raw_cwd, "cwd") if raw_cwd is not None else os.getcwd()
    path = os.path.join(cwd, raw_path)  # (an absolute raw_path is kept as it is)
    content = new_content(tool, args, path)
    if content is None:
        return 0
    try:
        data = content.encode("utf-8", "surrogateescape")  # (a file's own bytes, as read)
    except UnicodeEncodeError:
        raise Refused("the new content holds a lone surrogate, which UTF-8 cannot") from None
    if len(data) > MAX_FILE_BYTES:
        raise Refused(
            f"the new content of {path} is {len(data):,} bytes, over the "
            f"{MAX_FILE_BYTES:,}-byte limit Cairn checks"
        )
    # Project discovery walks up from the file's folder, like the language server's.
    folder = nearest_folder(path, cwd)
    root = project_root(folder) if daemon_wanted() else None
    sock = socket_path(root) if root is not None else None
    if root is not None and sock is not None:
        reply = ask_daemon(sock, root, absolute(path), data, absolute(folder))
        if reply is not None:
            return settle(reply)
        start_daemon(root)  # it warms up while this call takes the cold path
    gate = None if os.environ.get("CAIRN_BIN") else cairn_gate()
    if gate is not None:
        return settle(check_in_process(gate, path, data, folder))
    cairn = os.environ.get("CAIRN_BIN") or _which("cairn")
    if not cairn:
        raise Refused("`cairn` is not on PATH (or set CAIRN_BIN)")
    import subprocess  # (only here: the in-process check needs no second process)

    try:
        proc = subprocess.run(
            [cairn, "check", "--json", f"--stdin-filename={path}"],
            input=data,
            cwd=folder,
            capture_output=True,
            timeout=CHECK_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise Refused(f"the check took over {CHECK_TIMEOUT_S} s") from None
    except OSError as exc:
        raise Refused(f"check did not run: {exc}") from None
    if proc.returncode == 0:
        return 0
    stderr = proc.stderr.decode("utf-8", errors="replace").strip()
    if proc.returncode == 2 and any(marker in stderr for marker in NOT_OURS):
        return 0  # no decision log governs this file: nothing to enforce
    if proc.returncode != 1:
        last = stderr.splitlines()[-1] if stderr else f"check exited {proc.returncode}"
        raise Refused(last.removeprefix(CLI_ERROR))  # in the words the in-process check gives
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        print(proc.stdout.decode(errors="replace"), file=sys.stderr)
        return 2
    print(explain(report), file=sys.stderr)
    return 2


def settle(reply: dict[str, Any]) -> int:
    """The exit code for a check's reply (`cairn.core.gate.edit_verdict`'s shape, whether
    this process or the daemon ran it): 2 with the explanation when it blocks, Refused
    with `cairn check`'s words when the check could not run."""
    refused = reply.get("refusal")
    if isinstance(refused, str):
        if any(marker in refused for marker in NOT_OURS):
            return 0  # no decision log governs this file: nothing to enforce
        raise Refused(refused)
    report = reply.get("report")
    if not isinstance(report, dict) or not report.get("blocking"):
        return 0
    print(explain(report), file=sys.stderr)
    return 2


def absolute(path: str) -> str:
    """`path` against this process's directory (the daemon runs in another)."""
    return os.path.join(os.getcwd(), path)


def nearest_folder(path: str, fallback: str) -> str:
    """The closest existing folder above `path` (the file may not exist yet), else
    `fallback`."""
    here = os.path.dirname(path)
    while True:
        if os.path.isdir(here or os.curdir):
            return here or os.curdir
        up = os.path.dirname(here)
        if up == here:
            return fallback
        here = up


def daemon_wanted() -> bool:
    """Whether to use (and start) a gate daemon: not when turned off, nor when CAIRN_DIR
    names the log (the daemon serves the project a walk finds), nor where there are no
    Unix sockets."""
    return (
        os.environ.get(DAEMON_ENV) != "0"
        and not os.environ.get("CAIRN_DIR")
        and hasattr(os, "getuid")
    )


def project_root(folder: str) -> str | None:
    """The nearest folder at or above `folder` holding `.cairn/` (the walk
    cairn.core.project does), resolved; None outside any project."""
    here = os.path.realpath(folder)
    while True:
        if os.path.isdir(os.path.join(here, ".cairn")):
            return here
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up


def socket_dir() -> str | None:
    """The private folder the daemons' sockets live in: `$XDG_RUNTIME_DIR/cairn`, else
    `cairn-<uid>` in the temporary folder; made 0700 when missing. None when it is not a
    folder of this user's that no one else can enter (a socket someone else could put
    there could answer "pass")."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if os.path.isabs(runtime):
        folder = os.path.join(runtime, "cairn")
    else:
        folder = os.path.join(os.environ.get("TMPDIR") or "/tmp", f"cairn-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    mine = stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
    return folder if mine and not info.st_mode & 0o077 else None


def socket_path(root: str) -> str | None:
    """Where the daemon of the project at `root` (resolved) listens: one socket per root,
    named by a hash of it. None when there is no private folder or the path is too long."""
    import zlib  # (hashlib's OpenSSL costs a warm call a tenth; the daemon checks the root)

    folder = socket_dir()
    if folder is None:
        return None
    name = os.fsencode(root)
    key = f"{zlib.crc32(name):08x}{zlib.adler32(name):08x}"
    found = os.path.join(folder, f"{key}.sock")
    return found if len(os.fsencode(found)) <= MAX_SOCKET_PATH else None


def request_line(message: dict[str, Any]) -> bytes:
    """One request or reply on the wire: a JSON object on one line."""
    return json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"


def read_line(conn: Any, limit: int) -> bytes | None:
    """One line from a socket, without its newline; None when it ends first or runs
    past `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = conn.recv(65_536)
        if not chunk:
            return None
        end = chunk.find(b"\n")
        if end >= 0:
            chunks.append(chunk[:end])
            return b"".join(chunks) if size + end <= limit else None
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return None


def ask_daemon(sock: str, root: str, path: str, data: bytes, folder: str) -> dict[str, Any] | None:
    """The daemon's reply for this edit (`settle` takes it), or None when no daemon of
    this version answered (nothing listens, it refused, it broke): then the cold path
    runs. A daemon that takes the check's whole time refuses the edit, as a cold check
    that does would."""
    import _socket  # `socket` itself builds enums on import: a tenth of a warm call
    import binascii

    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(CONNECT_TIMEOUT_S)
        conn.connect(sock)
        conn.settimeout(CHECK_TIMEOUT_S + 2)  # the daemon stops its check at CHECK_TIMEOUT_S
        request = {
            "protocol": GATE_PROTOCOL,
            "version": CAIRN_VERSION,
            "root": root,
            "path": path,
            "folder": folder,
            "data": binascii.b2a_base64(data, newline=False).decode("ascii"),
        }
        conn.sendall(request_line(request))
        line = read_line(conn, MAX_REQUEST_BYTES)
    except TimeoutError:
        if conn.gettimeout() == CONNECT_TIMEOUT_S:
            return None
        raise Refused(f"the check took over {CHECK_TIMEOUT_S} s") from None
    except OSError:
        return None
    finally:
        conn.close()
    try:
        reply = json.loads(line) if line is not None else None
    except ValueError:
        return None
    if isinstance(reply, dict) and ("report" in reply or "refusal" in reply):
        return reply
    return None  # an error reply (another version, a request it could not read)


def start_daemon(root: str) -> bool:
    """Start the project's gate daemon in the background, detached from this hook, for
    the next edit (one already serving makes the new one exit at once); False when there
    is no `cairn` to start. This edit is checked all the same, either way."""
    cairn = os.environ.get("CAIRN_BIN") or _which("cairn")
    if not cairn:
        return False
    import subprocess

    try:
        subprocess.Popen(
            [cairn, "gate-daemon", "--root", root],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            cwd=root,
        )
    except OSError:
        return False  # the next edit tries again
    return True


def _which(name: str) -> str | None:
    import shutil

    return shutil.which(name)


def cairn_gate() -> ModuleType | None:
    """Cairn's gate (`cairn.core.gate`) imported into this interpreter, or None (then
    `cairn check` is spawned). Tried: this interpreter's own packages, then the virtual
    environment whose Python runs the `cairn` on PATH, when it is this Python's version
    (compiled packages are built for one version). Where no alarm can bound the check
    (Windows), the check is spawned, with its timeout."""
    import signal

    if not hasattr(signal, "SIGALRM"):
        return None
    if sys.flags.no_site:
        import site

        # hooks.json runs this as `python3 -S`, which keeps site-packages off the warm
        # path (a third of its instructions); the cold one imports Cairn from them.
        site.main()
    try:
        from cairn.core import gate

        return gate
    except ImportError:
        pass
    site_dir = _site_of(_which("cairn"))
    if site_dir is None:
        return None
    import site

    site.addsitedir(site_dir)  # (its .pth files too: an editable install's)
    try:
        from cairn.core import gate

        return gate
    except Exception:  # an install this Python cannot load: spawn it instead
        return None


def _site_of(cairn: str | None) -> str | None:
    """The site-packages of the virtual environment running `cairn`, for this Python's
    version, when there is one."""
    if not cairn:
        return None
    try:
        with open(cairn, "rb") as handle:
            first = handle.readline(4096)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    interpreter = first[2:].decode("utf-8", "replace").strip().split(" ")[0]
    venv = os.path.dirname(os.path.dirname(interpreter))
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    found = os.path.join(venv, "lib", version, "site-packages")
    cfg = os.path.join(venv, "pyvenv.cfg")
    return found if os.path.isfile(cfg) and os.path.isdir(found) else None


def check_in_process(gate: ModuleType, path: str, data: bytes, folder: str) -> dict[str, Any]:
    """`cairn check --json --stdin-filename` without a second process, as the reply
    `settle` takes (the daemon's too): the report as that prints it, or the words it
    reports an error in. A check that runs past the timeout refuses the edit."""

    import signal
    from pathlib import Path  # (Cairn is imported by now: pathlib with it)

    def too_long(_signum: int, _frame: FrameType | None) -> None:
        raise Refused(f"the check took over {CHECK_TIMEOUT_S} s")

    previous = signal.signal(signal.SIGALRM, too_long)
    signal.alarm(CHECK_TIMEOUT_S)
    try:
        return gate.edit_verdict(Path(path), data, Path(folder))  # type: ignore[no-any-return]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


if __name__ == "__main__":
    sys.exit(main())
