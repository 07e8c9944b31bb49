"""`cairn check` and `cairn status` answered by a running gate daemon (cairn.cli.entry,
cairn.cli.warm) print what the cold command prints, byte for byte, with its exit code;
anything wrong with the daemon means the cold command. Real `cairn` processes, a real
daemon, a real git repository with a reverted column and a rejected dependency."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.claude_code import cairn_pretooluse as wire

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "editors"))
from check_fixtures import CAIRN, MIGRATION, git, make_project  # noqa: E402
from daemon_fixtures import exchange, gate_daemon, runtime_dir, socket_of  # noqa: E402

# The console script's own function, with a note of whether the cold CLI was imported:
# the only sign, from outside, that the daemon answered rather than the cold path.
PROBE = """\
import atexit, os, sys
before = set(sys.modules)  # the interpreter's own start (site's .pth hooks): not ours
def note():
    path = "cold" if "cairn.cli.app" in sys.modules else "warm"
    ours = sorted(
        m for m in set(sys.modules) - before if m.split(".")[0] not in sys.stdlib_module_names
    )
    open(os.environ["WARM_PROBE"], "w").write(" ".join([path, *ours]))
atexit.register(note)
from cairn.cli.entry import main
main()
"""
# All a warm call imports beyond the standard library: no click, no store, no indexer.
WARM_IMPORTS = [
    "cairn",
    "cairn.claude_code",
    "cairn.claude_code.cairn_pretooluse",
    "cairn.cli",
    "cairn.cli.entry",
]

Run = tuple[int, bytes, bytes]


@pytest.fixture
def runtime() -> Iterator[str]:
    with runtime_dir() as folder:
        yield folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    root = make_project(tmp_path / "proj")
    (root / "db" / "003_verify.sql").write_text(MIGRATION)
    git(root, "add", "db/003_verify.sql")  # staged, not committed: the diff's change
    return root


def env_of(runtime: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CAIRN_DIR", "CAIRN_DEBUG")}
    return {**env, "XDG_RUNTIME_DIR": runtime, "CAIRN_GATE_DAEMON": "1", **extra}


def run(
    cwd: Path, env: dict[str, str], *args: str, stdin: bytes = b"", merged: bool = False
) -> Run:
    proc = subprocess.run(
        [CAIRN, *args],
        cwd=cwd,
        env=env,
        input=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merged else subprocess.PIPE,
        timeout=120,
    )
    return proc.returncode, proc.stdout, proc.stderr or b""


def probe(cwd: Path, env: dict[str, str], *args: str, stdin: bytes = b"") -> tuple[Run, str]:
    """The entry run as `python -c`, and which path answered ("warm" or "cold")."""
    note = cwd / ".probe"
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env={**env, "WARM_PROBE": str(note)},
        input=stdin,
        capture_output=True,
        timeout=120,
    )
    path, *imported = note.read_text().split()
    note.unlink()
    assert path == "cold" or imported == WARM_IMPORTS, imported
    return (proc.returncode, proc.stdout, proc.stderr), path


CASES: list[tuple[str, tuple[str, ...], bytes, int]] = [
    ("a path re-adding a reverted column", ("check", "db/003_verify.sql"), b"", 1),
    ("a path with nothing to find", ("check", "db/001_users.sql"), b"", 0),
    ("the working tree (git status)", ("check",), b"", 1),
    ("a one-file diff (git diff)", ("check", "--diff", "HEAD", "--", "db/003_verify.sql"), b"", 1),
    ("findings as JSON", ("check", "--json", "db/003_verify.sql"), b"", 1),
    ("findings as SARIF", ("check", "--format", "sarif", "db/003_verify.sql"), b"", 1),
    ("findings as annotations", ("check", "--format=github", "db/003_verify.sql"), b"", 1),
    (
        "a proposed edit on stdin",
        ("check", "--stdin-filename", "db/004.sql"),
        MIGRATION.encode(),
        1,
    ),
    (
        "a harmless edit on stdin",
        ("check", "--stdin-filename=db/001_users.sql"),
        b"CREATE TABLE users (id integer primary key, name text);\n",
        0,
    ),
    ("exclusive options", ("check", "--diff", "HEAD", "--staged"), b"", 2),
    ("an option out of range", ("check", "--threshold", "7"), b"", 2),
    ("an unknown option", ("check", "--bogus"), b"", 2),
    ("a revision that is none", ("check", "--diff", "no-such-rev"), b"", 2),
    ("a path that is not there", ("check", "db/nope.sql"), b"", 2),
    ("the help", ("check", "--help"), b"", 0),
    ("a reverted entity's status", ("status", "users.email_verified"), b"", 0),
    ("a rejected entity's status as JSON", ("status", "--json", "deps/stripe"), b"", 0),
    ("an unknown entity, with a suggestion", ("status", "users.email_verifed"), b"", 0),
    ("status without its argument", ("status",), b"", 2),
]


def test_warm_answers_are_the_cold_ones_byte_for_byte(project: Path, runtime: str) -> None:
    cold_env = env_of(runtime, CAIRN_GATE_DAEMON="0")
    cold = {name: run(project, cold_env, *args, stdin=data) for name, args, data, _ in CASES}
    for name, _args, _data, code in CASES:
        assert cold[name][0] == code, (name, cold[name])
    assert b"users.email_verified" in cold["a path re-adding a reverted column"][1]
    assert cold["an unknown option"][2].count(b"\n") == 1  # bad input: one line
    env = env_of(runtime)
    with gate_daemon(project, runtime):
        for name, args, data, _code in CASES:
            assert run(project, env, *args, stdin=data) == cold[name], name
            answered, path = probe(project, env, *args, stdin=data)
            assert (answered, path) == (cold[name], "warm"), name


def test_the_order_of_stdout_and_stderr_is_kept(project: Path, runtime: str) -> None:
    # a damaged log line: a warning on stderr before the findings on stdout
    with (project / ".cairn" / "decisions.jsonl").open("a") as log:
        log.write('{"not": "an event"}\n')
    args = ("check", "db/003_verify.sql")
    cold = run(project, env_of(runtime, CAIRN_GATE_DAEMON="0"), *args, merged=True)
    assert b"warning" in cold[1] and b"users.email_verified" in cold[1]
    with gate_daemon(project, runtime):
        assert run(project, env_of(runtime), *args, merged=True) == cold


def test_from_a_subfolder_and_after_a_new_decision(project: Path, runtime: str) -> None:
    env = env_of(runtime)
    with gate_daemon(project, runtime):
        _, path = probe(project / "db", env, "check", "003_verify.sql")
        assert path == "warm"
        assert run(project / "db", env, "check", "003_verify.sql") == run(
            project / "db", env_of(runtime, CAIRN_GATE_DAEMON="0"), "check", "003_verify.sql"
        )
        # a decision logged after the daemon started counts at once, as it does cold
        superseded = run(
            project, env, "supersede", "users.email_verified", "-r", "verification is back"
        )
        assert superseded[0] == 0, superseded
        answered, path = probe(project, env, "check", "db/003_verify.sql")
        assert path == "warm" and answered[0] == 0, answered
        assert answered == run(
            project, env_of(runtime, CAIRN_GATE_DAEMON="0"), "check", "db/003_verify.sql"
        )


def test_turned_off_it_runs_cold_and_cold_starts_no_daemon(project: Path, runtime: str) -> None:
    args = ("check", "db/003_verify.sql")
    answered, path = probe(project, env_of(runtime), *args)
    assert path == "cold" and answered[0] == 1
    assert not socket_of(project, runtime).exists()  # no daemon was started
    with gate_daemon(project, runtime):
        answered_off, path = probe(project, env_of(runtime, CAIRN_GATE_DAEMON="0"), *args)
        assert (answered_off, path) == (answered, "cold")
        # CAIRN_DIR names the log: the daemon (which serves the walk's project) is not asked
        named = env_of(runtime, CAIRN_DIR=str(project / ".cairn"))
        assert probe(project, named, *args) == (answered, "cold")
        # another command never goes to the daemon
        assert probe(project, env_of(runtime), "--version")[1] == "cold"


def test_a_dead_daemons_socket_means_cold(project: Path, runtime: str) -> None:
    args = ("status", "users.email_verified")
    cold = run(project, env_of(runtime, CAIRN_GATE_DAEMON="0"), *args)
    with gate_daemon(project, runtime) as daemon:
        daemon.send_signal(signal.SIGKILL)  # no clean-up: its socket file stays behind
        daemon.wait(timeout=60)
        assert socket_of(project, runtime).exists()
        answered, path = probe(project, env_of(runtime), *args)
        assert (answered, path) == (cold, "cold")


def test_a_daemon_of_another_project_is_not_used(
    project: Path, runtime: str, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    make_project(other)
    git(other, "rm", "-q", "db/001_users.sql")  # a change of its own to report
    args = ("check", "--diff", "HEAD")
    cold = run(other, env_of(runtime, CAIRN_GATE_DAEMON="0"), *args)
    with gate_daemon(project, runtime):
        # other's socket name leading to project's daemon: it refuses, the CLI runs cold
        socket_of(other, runtime).symlink_to(socket_of(project, runtime))
        assert probe(other, env_of(runtime), *args) == (cold, "cold")
        request = {
            "protocol": wire.GATE_PROTOCOL,
            "version": wire.CAIRN_VERSION,
            "root": str(other.resolve()),
            "cli": {"argv": ["status", "x"]},
        }
        reply = exchange(socket_of(project, runtime), wire.request_line(request))
        assert reply is not None and "serves" in reply["error"]


@pytest.mark.parametrize(
    "cli",
    [
        {"argv": ["log", "x", "-r", "y"]},  # not a warm command: no writes through the daemon
        {"argv": ["status", "x"], "cwd": "/", "env": {}, "umask": 18},  # no streams
        "status x",
    ],
)
def test_a_request_it_must_not_run_gets_an_error(project: Path, runtime: str, cli: object) -> None:
    request = {
        "protocol": wire.GATE_PROTOCOL,
        "version": wire.CAIRN_VERSION,
        "root": str(project.resolve()),
        "cli": cli,
    }
    with gate_daemon(project, runtime):
        reply = exchange(socket_of(project, runtime), wire.request_line(request))
        assert reply is not None and "error" in reply and "cli" not in reply
    assert not (project / ".cairn" / "decisions.jsonl").read_text().count('"entity":"x"')
