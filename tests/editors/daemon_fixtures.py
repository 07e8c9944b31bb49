"""A real gate daemon (`cairn gate-daemon`) for the hook's tests, in a runtime folder of
the test's own, so its socket is no one else's and the path stays short."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cairn.claude_code import cairn_pretooluse as wire

CAIRN = str(Path(sys.executable).parent / "cairn")


def socket_of(root: Path, runtime: str) -> Path:
    """Where the daemon of `root` listens when XDG_RUNTIME_DIR is `runtime`."""
    was = os.environ.get("XDG_RUNTIME_DIR")
    os.environ["XDG_RUNTIME_DIR"] = runtime
    try:
        found = wire.socket_path(str(root.resolve()))
    finally:
        if was is None:
            os.environ.pop("XDG_RUNTIME_DIR")
        else:
            os.environ["XDG_RUNTIME_DIR"] = was
    assert found is not None
    return Path(found)


def exchange(sock: Path, line: bytes) -> dict[str, Any] | None:
    """Send one raw request line to the daemon; its reply, or None when none came."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(60)
    try:
        conn.connect(str(sock))
        conn.sendall(line)
        reply = wire.read_line(conn, 1 << 20)
    except OSError:
        return None
    finally:
        conn.close()
    return json.loads(reply) if reply is not None else None


def hello(sock: Path) -> dict[str, Any] | None:
    """The daemon's answer to a hello of this version."""
    message = {"protocol": wire.GATE_PROTOCOL, "version": wire.CAIRN_VERSION, "hello": True}
    return exchange(sock, wire.request_line(message))


def wait_until_serving(sock: Path, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Until the daemon answers a hello (it is up), whatever the machine's load; fails
    only when it died or never came up within a minute."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if sock.exists() and hello(sock) == {"hello": wire.CAIRN_VERSION}:
            return
        assert proc is None or proc.poll() is None, "the daemon exited"
        time.sleep(0.05)
    raise AssertionError(f"no daemon answered at {sock}")


@contextmanager
def runtime_dir() -> Iterator[str]:
    """A short private XDG_RUNTIME_DIR (pytest's tmp paths overflow a socket's 108 bytes)."""
    folder = tempfile.mkdtemp(prefix="cg-", dir="/tmp")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def gate_daemon(
    root: Path, runtime: str, *, idle_timeout: float = 120
) -> Iterator[subprocess.Popen[bytes]]:
    """`cairn gate-daemon` serving `root`, up and answering; stopped afterwards."""
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime}
    proc = subprocess.Popen(
        [CAIRN, "gate-daemon", "--root", str(root), "--idle-timeout", str(idle_timeout)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_serving(socket_of(root, runtime), proc)
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=60)
