"""A `cairn check` or `cairn status` run inside the gate daemon, for `cairn.cli.entry`.

The daemon has Cairn imported and its queries compiled; a warm command costs the client
an interpreter and a socket, not the imports. The command runs through the very function
the cold `cairn` runs (`cairn.cli.app.main`), with the client's arguments, working
folder, environment, umask and standard input put in place for the call, and its output
captured write by write: the client replays the writes in the same order on its own
file descriptors, so stdout, stderr (and `2>&1`) and the exit code are the cold run's.

Only what the client cannot make differ is sent: the client goes cold when a standard
stream is a terminal (colour and width come from it), when CAIRN_DIR or CAIRN_DEBUG is
set, and for any other command. The daemon runs one request at a time, which is what
makes swapping the process-wide state (os.environ, the cwd, sys.std*) safe.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from typing import Any

from cairn.cli.entry import WARM_COMMANDS as WARM_COMMANDS  # (the client's rule)

# (fd, bytes) in the order the cold process would have written them.
Writes = list[tuple[int, bytes]]


class _Raw(io.RawIOBase):
    """One captured file descriptor: each write is logged with its descriptor number."""

    def __init__(self, fd: int, log: Writes) -> None:
        self._fd = fd
        self._log = log

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        if chunk:
            self._log.append((self._fd, chunk))
        return len(chunk)


def _stream(fd: int, log: Writes, coding: Sequence[str]) -> io.TextIOWrapper:
    """A text stream buffered as Python buffers a pipe: stdout in blocks, stderr by line
    (since 3.9); click flushes after each echo, as it does in the cold process."""
    return io.TextIOWrapper(
        io.BufferedWriter(_Raw(fd, log)),
        encoding=coding[0],
        errors=coding[1],
        line_buffering=fd == 2,
    )


def warm_up() -> None:
    """Import what the warm commands run, so the first call is as quick as the next."""
    from cairn.cli import COMMANDS
    from cairn.cli.app import load_module_commands

    for module in {COMMANDS[name] for name in WARM_COMMANDS}:
        load_module_commands(module)


def run(
    argv: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
    stdin: bytes,
    streams: Mapping[str, Sequence[str]],
    umask: int,
) -> tuple[int, Writes]:
    """Run `cairn ARGV` as the client would have, cold: (exit code, its writes)."""
    from cairn.cli.app import main

    log: Writes = []
    out = _stream(1, log, streams["stdout"])
    err = _stream(2, log, streams["stderr"])
    encoding, errors = streams["stdin"]
    inp = io.TextIOWrapper(io.BytesIO(stdin), encoding=encoding, errors=errors)
    code = 0
    with _swapped(cwd, env, umask, inp, out, err):
        try:
            main(list(argv))
        except SystemExit as exc:
            code = _exit_code(exc.code, err)
        finally:
            for stream in (out, err):
                with suppress(OSError, ValueError):  # closed by the command (a broken pipe)
                    stream.flush()
    return code, log


def _exit_code(value: object, err: io.TextIOWrapper) -> int:
    """The status Python's own exit gives a SystemExit carrying `value`."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=err)  # sys.exit("message"): printed, status 1
    return 1


@contextmanager
def _swapped(
    cwd: str,
    env: Mapping[str, str],
    umask: int,
    stdin: io.TextIOWrapper,
    stdout: io.TextIOWrapper,
    stderr: io.TextIOWrapper,
) -> Iterator[None]:
    """The client's process state for one call, the daemon's own back afterwards."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_mask = os.umask(umask)
    try:
        os.environ.clear()
        os.environ.update(env)  # putenv too: git, run by `check --diff`, sees the client's
        os.chdir(cwd)
        _forget_git_config()
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        os.umask(saved_mask)


def _forget_git_config() -> None:
    """The git config a cold process reads afresh (which filters to turn off) may have
    changed since the daemon's last call."""
    git = sys.modules.get("cairn.git")
    if git is not None:
        git._filters_off.cache_clear()
