"""Item 6 (part): a read-only `.cairn/`, an immutable log, an index that is a directory.
Writes exit 2 saying what to fix (never "internal error ... this is a bug") and write
nothing; reads still answer, from the log.

Tests may run as root, where `chmod` stops nothing. Then the path is made read-only for
real by a read-only bind mount in a private mount namespace (`unshare -m`), and every
test first proves the mechanism works (a write through it fails) so it cannot pass by
accident. Without root, `chmod` is the real mechanism.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .cli import Run

ENV = {**os.environ, "PYTHONSAFEPATH": "1", "CAIRN_AUTHOR": "Ada <ada@example.org>"}
ENV.pop("CAIRN_DIR", None)
ROOT = os.geteuid() == 0


class ReadOnly:
    """Runs commands with one path read-only (chmod, or a read-only bind mount as root)."""

    def __init__(self, project: Path, path: Path) -> None:
        self.project = project
        self.path = path
        self._modes: list[tuple[Path, int]] = []
        if not ROOT:
            for p in [path, *(path.rglob("*") if path.is_dir() else [])]:
                self._modes.append((p, p.stat().st_mode))
                p.chmod(stat.S_IMODE(p.stat().st_mode) & ~0o222)
        elif shutil.which("unshare") is None:
            pytest.fail("running as root without unshare: no way to make a path read-only")
        probe = self.shell(f"touch {shlex.quote(str(path if path.is_file() else path / 'x'))}")
        assert probe.returncode != 0, "the path is still writable: the test would prove nothing"

    def shell(self, command: str) -> subprocess.CompletedProcess[str]:
        if ROOT:
            target = shlex.quote(str(self.path))
            command = f"mount --bind -o ro {target} {target} && {command}"
            argv = ["unshare", "-m", "sh", "-c", command]
        else:
            argv = ["sh", "-c", command]
        return subprocess.run(
            argv, cwd=self.project, env=ENV, capture_output=True, text=True, timeout=120
        )

    def cairn(self, *args: str) -> subprocess.CompletedProcess[str]:
        line = " ".join(shlex.quote(a) for a in [sys.executable, "-P", "-m", "cairn.cli", *args])
        return self.shell(line)

    def restore(self) -> None:
        for p, mode in reversed(self._modes):
            p.chmod(mode)


@pytest.fixture
def decided(run: Run, project: Path) -> Path:
    """A project whose users.email was added then reverted (the index built)."""
    code, out, err = run("log", "users.email", "add", "-r", "login needs it", "--json")
    assert code == 0, err
    added = json.loads(out)["id"]
    assert run("revert", "users.email", "-r", "broke signup", "--reverts", added)[0] == 0
    return project


def _read_only(project: Path, path: Path) -> Iterator[ReadOnly]:
    guard = ReadOnly(project, path)
    try:
        yield guard
    finally:
        guard.restore()


@pytest.fixture
def read_only_cairn(decided: Path) -> Iterator[ReadOnly]:
    yield from _read_only(decided, decided / ".cairn")


@pytest.fixture
def immutable_log(decided: Path) -> Iterator[ReadOnly]:
    yield from _read_only(decided, decided / ".cairn" / "decisions.jsonl")


def _refused_write(guard: ReadOnly, fix: str) -> None:
    log = guard.project / ".cairn" / "decisions.jsonl"
    before = log.read_bytes()
    for argv in (
        ["log", "users.email", "add", "-r", "again"],
        ["reject", "deps/celery", "-r", "no broker", "--key", "k1"],
    ):
        done = guard.cairn(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert "internal error" not in done.stderr and "Traceback" not in done.stderr
        assert fix in done.stderr, done.stderr
        assert done.stderr.strip().splitlines()[-1].startswith("cairn: error: ")
    assert log.read_bytes() == before


def _reads_answer(guard: ReadOnly) -> None:
    status = guard.cairn("status", "users.email", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["status"] == "reverted"
    history = guard.cairn("history", "users.email", "--json")
    assert history.returncode == 0 and len(json.loads(history.stdout)) == 2
    search = guard.cairn("search", "signup", "--json")
    assert search.returncode == 0 and len(json.loads(search.stdout)) == 1
    verify = guard.cairn("verify")
    assert verify.returncode == 0, verify.stderr


def test_a_read_only_cairn_folder_refuses_writes_and_still_answers(
    read_only_cairn: ReadOnly,
) -> None:
    _refused_write(read_only_cairn, "make .cairn/ and its files writable")
    _reads_answer(read_only_cairn)


def test_a_read_only_cairn_folder_answers_what_was_appended_since_the_index(
    decided: Path,
) -> None:
    """The index is behind the log (a `git pull` brought a line): the answer is caught
    up in memory, since the index file cannot be."""
    log = decided / ".cairn" / "decisions.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    (decided / "keep").write_bytes(lines[-1])
    log.write_bytes(lines[0])
    first = subprocess.run(
        [sys.executable, "-P", "-m", "cairn.cli", "status", "users.email", "--json"],
        cwd=decided,
        env=ENV,
        capture_output=True,
        text=True,
    )
    assert json.loads(first.stdout)["status"] == "active"  # the index saw one line
    log.write_bytes(lines[0] + (decided / "keep").read_bytes())
    for guard in _read_only(decided, decided / ".cairn"):
        status = guard.cairn("status", "users.email", "--json")
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["status"] == "reverted"
        assert "answering without the index" in status.stderr


def test_an_immutable_log_refuses_writes_and_still_answers(immutable_log: ReadOnly) -> None:
    _refused_write(immutable_log, "decisions.jsonl")
    _reads_answer(immutable_log)


def test_an_index_that_is_a_directory_refuses_writes_and_still_answers(
    run: Run, decided: Path
) -> None:
    index = decided / ".cairn" / "index.db"
    for path in (decided / ".cairn").glob("index.db*"):
        path.unlink()
    index.mkdir()
    log = decided / ".cairn" / "decisions.jsonl"
    before = log.read_bytes()
    code, _, err = run("log", "users.email", "add", "-r", "x")
    assert code == 2 and "internal error" not in err
    assert "index.db is a directory" in err and "delete it" in err
    assert log.read_bytes() == before
    code, out, err = run("status", "users.email", "--json")
    assert code == 0, err
    assert json.loads(out)["status"] == "reverted" and "index.db is a directory" in err


def test_a_read_only_cairn_folder_searches_what_its_search_index_has_not_seen(
    run: Run, decided: Path
) -> None:
    """The search index was built by an earlier search, then a decision was logged: in a
    read-only `.cairn/` the search catches a copy of it up in memory and finds both; the
    file is left as it was."""
    code, out, err = run("search", "signup", "--json")
    assert code == 0 and len(json.loads(out)) == 1, err
    search_db = decided / ".cairn" / "index.db-search"
    assert search_db.is_file()
    assert run("log", "payments.card_token", "add", "-r", "signup needs a card")[0] == 0
    before = {p.name: p.read_bytes() for p in (decided / ".cairn").glob("index.db-search*")}
    for guard in _read_only(decided, decided / ".cairn"):
        search = guard.cairn("search", "signup", "--json")
        assert search.returncode == 0, search.stderr
        assert "Traceback" not in search.stderr
        found = {hit["entity"] for hit in json.loads(search.stdout)}
        assert found == {"users.email", "payments.card_token"}
    assert {p.name: p.read_bytes() for p in (decided / ".cairn").glob("index.db-search*")} == before


def test_a_search_index_that_is_a_directory_still_answers(run: Run, decided: Path) -> None:
    (decided / ".cairn" / "index.db-search").mkdir()
    code, out, err = run("search", "signup", "--json")
    assert code == 0, err
    assert len(json.loads(out)) == 1
