"""The gate daemon (`cairn gate-daemon`) and the hook as its client: a real daemon
process, a real project (a git repository with a reverted column), the hook fed Claude
Code's JSON. The verdicts themselves run both ways in test_claude_hook.py."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cairn
from cairn.claude_code import cairn_pretooluse as wire

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "check"))
from check_fixtures import CAIRN, MIGRATION, REVERT_REASON, make_project  # noqa: E402
from check_fixtures import cairn as run_cairn  # noqa: E402
from daemon_fixtures import (  # noqa: E402
    exchange,
    gate_daemon,
    hello,
    runtime_dir,
    socket_of,
    wait_until_serving,
)

HOOK = REPO / "editors" / "claude-code" / "hooks" / "cairn_pretooluse.py"
NOTHING = "no-cairn-here"  # a CAIRN_BIN that cannot run: only a daemon can answer


@pytest.fixture
def runtime() -> Iterator[str]:
    with runtime_dir() as folder:
        yield folder


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    root = make_project(tmp_path)
    yield root
    # A daemon the hook started (detached, not ours to signal) stops once .cairn/ is gone.
    shutil.rmtree(root / ".cairn", ignore_errors=True)


def write(project: Path, name: str, content: str) -> dict[str, Any]:
    return {
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(project / "db" / name), "content": content},
    }


def run_hook(
    data: dict[str, Any], runtime: str, hook: Path = HOOK, **env: str
) -> subprocess.CompletedProcess[str]:
    full_env = {
        **os.environ,
        "XDG_RUNTIME_DIR": runtime,
        "CAIRN_GATE_DAEMON": "1",
        "CAIRN_BIN": NOTHING,
        **env,
    }
    full_env.pop("CAIRN_DIR", None)
    return subprocess.run(
        [sys.executable, str(hook)],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        timeout=120,
        env=full_env,
        cwd="/",
    )


def test_the_hook_knows_the_version_of_the_cairn_it_ships_with() -> None:
    assert cairn.__version__ == wire.CAIRN_VERSION


def test_a_decision_logged_after_the_daemon_started_is_seen(project: Path, runtime: str) -> None:
    content = "ALTER TABLE users ADD COLUMN nickname text;\n"
    with gate_daemon(project, runtime):
        assert run_hook(write(project, "004.sql", content), runtime).returncode == 0
        logged = run_cairn(project, "revert", "users.nickname", "-r", "Nobody filled it in")
        assert logged.returncode == 0, logged.stderr
        proc = run_hook(write(project, "004.sql", content), runtime)
    assert proc.returncode == 2
    assert "db/004.sql:1: users.nickname (revert " in proc.stderr
    assert "Nobody filled it in" in proc.stderr


def test_a_dead_daemons_socket_falls_back_and_a_new_daemon_is_started(
    project: Path, runtime: str
) -> None:
    with gate_daemon(project, runtime) as daemon:
        daemon.send_signal(signal.SIGKILL)  # no clean-up: its socket file stays
        daemon.wait(timeout=60)
    sock = socket_of(project, runtime)
    assert sock.exists()
    stale = run_hook(write(project, "003.sql", MIGRATION), runtime)
    assert stale.returncode == 2 and "check did not run" in stale.stderr  # no daemon answered
    proc = run_hook(write(project, "003.sql", MIGRATION), runtime, CAIRN_BIN=CAIRN)
    assert proc.returncode == 2
    assert f'reasoning: "{REVERT_REASON}"' in proc.stderr
    # ... and the cold call left a daemon for the next edit, which answers it
    wait_until_serving(sock)
    warm = run_hook(write(project, "003.sql", MIGRATION), runtime)
    assert (warm.returncode, warm.stderr) == (proc.returncode, proc.stderr)


def test_a_hook_of_another_version_falls_back(
    project: Path, runtime: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    older = tmp_path_factory.mktemp("older") / "cairn_pretooluse.py"
    source, line = HOOK.read_text(), f'CAIRN_VERSION = "{wire.CAIRN_VERSION}"'
    assert line in source
    older.write_text(source.replace(line, 'CAIRN_VERSION = "0.0.1"'))
    with gate_daemon(project, runtime):
        same = run_hook(write(project, "003.sql", MIGRATION), runtime)
        other = run_hook(write(project, "003.sql", MIGRATION), runtime, hook=older)
        reply = exchange(
            socket_of(project, runtime),
            wire.request_line({"protocol": wire.GATE_PROTOCOL, "version": "0.0.1", "hello": True}),
        )
    assert same.returncode == 2 and "Cairn blocked this edit" in same.stderr
    assert other.returncode == 2 and "check did not run" in other.stderr  # the cold path's
    assert reply is not None and reply["error"] == "another Cairn version"


@pytest.mark.parametrize(
    "line",
    [
        b"{not json\n",
        b"[1, 2]\n",
        b'{"protocol": 1}\n',
        json.dumps({"protocol": wire.GATE_PROTOCOL, "version": wire.CAIRN_VERSION}).encode()
        + b"\n",
        b"\xff\xfe\n",
        b"x" * (wire.MAX_REQUEST_BYTES + 10) + b"\n",
    ],
    ids=["not-json", "not-object", "old-protocol", "no-fields", "not-utf8", "too-big"],
)
def test_a_malformed_request_gets_an_error_and_the_daemon_serves_on(
    project: Path, runtime: str, line: bytes
) -> None:
    with gate_daemon(project, runtime) as daemon:
        sock = socket_of(project, runtime)
        reply = exchange(sock, line)
        assert reply is not None and isinstance(reply.get("error"), str)
        assert hello(sock) == {"hello": wire.CAIRN_VERSION}
        proc = run_hook(write(project, "003.sql", MIGRATION), runtime)
        assert daemon.poll() is None
    assert proc.returncode == 2 and "Cairn blocked this edit" in proc.stderr


def test_a_request_for_another_project_is_not_answered(project: Path, runtime: str) -> None:
    with gate_daemon(project, runtime):
        request = {
            "protocol": wire.GATE_PROTOCOL,
            "version": wire.CAIRN_VERSION,
            "root": "/elsewhere",
            "path": str(project / "db" / "003.sql"),
            "folder": str(project),
            "data": "",
        }
        reply = exchange(socket_of(project, runtime), wire.request_line(request))
    assert reply is not None and "this daemon serves" in reply["error"]


def test_the_socket_lives_in_a_private_folder_and_a_shared_one_is_not_used(
    project: Path, runtime: str
) -> None:
    with gate_daemon(project, runtime):
        sock = socket_of(project, runtime)
        assert stat.S_IMODE(os.stat(sock.parent).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(sock).st_mode) & 0o077 == 0
        os.chmod(sock.parent, 0o755)  # as if someone else could reach the socket
        try:
            proc = run_hook(write(project, "003.sql", MIGRATION), runtime)
        finally:
            os.chmod(sock.parent, 0o700)
    assert proc.returncode == 2 and "check did not run" in proc.stderr  # daemon not asked


def test_turned_off_the_hook_neither_asks_nor_starts_a_daemon(project: Path, runtime: str) -> None:
    with gate_daemon(project, runtime):
        off = run_hook(write(project, "003.sql", MIGRATION), runtime, CAIRN_GATE_DAEMON="0")
    assert off.returncode == 2 and "check did not run" in off.stderr
    sock = socket_of(project, runtime)
    sock.unlink(missing_ok=True)
    cold = run_hook(
        write(project, "003.sql", MIGRATION), runtime, CAIRN_GATE_DAEMON="0", CAIRN_BIN=CAIRN
    )
    assert cold.returncode == 2 and "Cairn blocked this edit" in cold.stderr
    assert not sock.exists()


def test_the_daemon_stops_when_idle_and_when_its_project_is_gone(
    project: Path, runtime: str
) -> None:
    with gate_daemon(project, runtime, idle_timeout=0.5) as idle:
        assert idle.wait(timeout=60) == 0
    assert not socket_of(project, runtime).exists()
    with gate_daemon(project, runtime) as orphan:
        shutil.rmtree(project / ".cairn")
        assert orphan.wait(timeout=60) == 0


def test_a_second_daemon_for_the_same_project_leaves_the_first_serving(
    project: Path, runtime: str
) -> None:
    with gate_daemon(project, runtime) as first:
        second = subprocess.run(
            [CAIRN, "gate-daemon", "--root", str(project)],
            env={**os.environ, "XDG_RUNTIME_DIR": runtime},
            capture_output=True,
            timeout=120,
        )
        assert second.returncode == 0
        assert first.poll() is None and hello(socket_of(project, runtime)) is not None


def test_a_folder_that_is_no_project_is_refused_in_one_line(tmp_path: Path) -> None:
    proc = run_cairn(tmp_path, "gate-daemon", "--root", str(tmp_path))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not a Cairn project" in proc.stderr


def test_a_warm_call_imports_only_what_the_way_to_the_socket_needs(
    project: Path, runtime: str, tmp_path: Path
) -> None:
    # As hooks.json runs it (`python3 -S`), and as an edit under a folder not made yet:
    # the warm path walks up with os.path alone. pathlib (and the urllib.parse and
    # ipaddress it imports) was most of a warm call's own time.
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import runpy, sys\n"
        "before = set(sys.modules)\n"
        f"try:\n    runpy.run_path({str(HOOK)!r}, run_name='__main__')\n"
        "finally:\n"
        f"    open({str(tmp_path / 'mods')!r}, 'w').write(' '.join(set(sys.modules) - before))\n"
    )
    data = write(project, "new/deeper/003.sql", MIGRATION)
    env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "CAIRN_GATE_DAEMON": "1"}
    env["CAIRN_BIN"] = NOTHING
    with gate_daemon(project, runtime):
        proc = subprocess.run(
            [sys.executable, "-S", str(probe)],
            input=json.dumps(data),
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd="/",
        )
    # the daemon answered (CAIRN_BIN cannot run): the column's revert, with its reason
    assert proc.returncode == 2, proc.stderr
    assert f'reasoning: "{REVERT_REASON}"' in proc.stderr
    imported = set((tmp_path / "mods").read_text().split())
    assert not {"pathlib", "urllib.parse", "ipaddress", "site", "cairn"} & imported, imported
