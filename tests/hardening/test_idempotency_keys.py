"""Item 6 (part): `--key` makes a write idempotent. A second write with the same key
returns the first event and appends nothing (exit 0); the same key with different
content is one line and exit 2; the key is found after a rebuild and after a crash
between the append and the index."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cairn.store import EventDraft, KeyReused, Store, ValidationError

from .cli import Run


def _log(project: Path) -> bytes:
    return (project / ".cairn" / "decisions.jsonl").read_bytes()


def _id(out: str) -> str:
    return str(json.loads(out)["id"])


def _twice(run: Run, project: Path, *argv: str) -> str:
    """Run a write, then the same again: the second appends nothing, same event."""
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    first = json.loads(out)
    assert first["replayed"] is False
    before = _log(project)
    code, out, err = run(*argv, "--json")
    assert code == 0, err
    again = json.loads(out)
    assert again["replayed"] is True
    assert _log(project) == before
    assert again["id"] == first["id"]
    return str(first["id"])


def test_every_write_command_is_idempotent_with_a_key(run: Run, project: Path) -> None:
    added = _twice(run, project, "log", "users.email", "add", "-r", "login", "--key", "k-add")
    reverted = _twice(
        run, project, "revert", "users.email", "-r", "broke signup", "--reverts", added[:8],
        "--key", "k-revert",
    )  # fmt: skip
    # A retried supersede still answers although its verdict is no longer open.
    _twice(run, project, "supersede", "users.email", "-r", "fixed", "--key", "k-sup")
    rejected = _twice(run, project, "reject", "deps/celery", "-r", "no broker", "--key", "k-rej")
    _twice(run, project, "annotate", added, "-r", "context", "--key", "k-note")
    assert len({added, reverted, rejected}) == 3
    code, out, err = run("redact", rejected, "-r", "pii", "--key", "k-red", "--json")
    assert code == 0, err
    recorded = json.loads(out)["redact_event"]
    before = _log(project)
    code, out, err = run("redact", rejected, "-r", "pii", "--key", "k-red", "--json")
    assert code == 0, err
    assert json.loads(out)["redact_event"] == recorded and json.loads(out)["replayed"] is True
    assert _log(project) == before
    # Without a key, redacting again is still refused.
    assert run("redact", rejected, "-r", "pii")[0] == 2


def test_human_output_says_nothing_was_written(run: Run, project: Path) -> None:
    assert run("log", "users.email", "add", "-r", "x", "--key", "k1")[0] == 0
    code, out, _ = run("log", "users.email", "add", "-r", "x", "--key", "k1")
    assert code == 0
    assert out.startswith("already logged add on users.email") and "nothing written" in out


@pytest.mark.parametrize(
    "changed",
    [
        ["log", "users.email", "add", "-r", "another reason", "--key", "k1"],
        ["log", "users.email", "modify", "-r", "login", "--key", "k1"],
        ["log", "users.name", "add", "-r", "login", "--key", "k1"],
        ["log", "users.email", "add", "-r", "login", "--author", "Bo <b@x.org>", "--key", "k1"],
        ["reject", "users.email", "-r", "login", "--key", "k1"],
    ],
)
def test_the_same_key_for_different_content_is_refused(
    run: Run, project: Path, changed: list[str]
) -> None:
    code, out, _ = run("log", "users.email", "add", "-r", "login", "--key", "k1", "--json")
    assert code == 0
    before = _log(project)
    code, out, err = run(*changed)
    assert code == 2
    assert err.count("\n") == 1 and "key 'k1' was already used for add" in err
    assert _id_prefix(err) and "Traceback" not in err and out == ""
    assert _log(project) == before


def _id_prefix(err: str) -> bool:
    return any(len(w) == 12 and all(c in "0123456789abcdef" for c in w) for w in err.split())


@pytest.mark.parametrize("key", ["", " ", "has space", "x" * 201, "caf\u00e9", "a\nb"])
def test_a_key_that_is_not_one_is_refused(run: Run, project: Path, key: str) -> None:
    if not key:  # `--key ''` means no key: an ordinary write
        assert run("log", "users.email", "add", "-r", "x", "--key", key)[0] == 0
        return
    before = _log(project)
    code, _, err = run("log", "users.email", "add", "-r", "x", "--key", key)
    assert code == 2 and "is not a usable key" in err and err.count("\n") == 1
    assert _log(project) == before


def test_a_key_that_looks_like_a_secret_is_refused(run: Run, project: Path) -> None:
    code, _, err = run("log", "users.email", "add", "-r", "x", "--key", "AKIAIOSFODNN7EXAMPLE")
    assert code == 2 and "looks like it holds a secret" in err
    assert _log(project) == b""


def test_a_retry_with_a_secret_in_the_reason_is_still_the_same_request(
    run: Run, project: Path
) -> None:
    argv = ["log", "env/DB", "add", "-r", "url redis://:hunter2@db:6379", "--key", "k", "--json"]
    first = run(*argv)
    again = run(*argv)
    assert first[0] == again[0] == 0
    assert _id(first[1]) == _id(again[1]) and json.loads(again[1])["replayed"] is True
    assert b"hunter2" not in _log(project)  # neither the text nor a digest of it alone


def test_the_key_is_found_after_the_index_is_rebuilt(run: Run, project: Path) -> None:
    code, out, _ = run("log", "users.email", "add", "-r", "x", "--key", "k1", "--json")
    assert code == 0
    for path in (project / ".cairn").glob("index.db*"):
        path.unlink()
    before = _log(project)
    code, again, err = run("log", "users.email", "add", "-r", "x", "--key", "k1", "--json")
    assert code == 0, err
    assert _id(again) == _id(out) and _log(project) == before


def test_the_key_is_found_when_the_index_missed_the_write(run: Run, project: Path) -> None:
    """The index as it was before the write, the line in the log: what a crash between
    the append and the index leaves. The retry catches the index up and finds the key."""
    assert run("log", "users.name", "add", "-r", "x")[0] == 0
    saved = project / "saved"
    saved.mkdir()
    for path in (project / ".cairn").glob("index.db*"):
        shutil.copy2(path, saved / path.name)
    code, out, _ = run("log", "users.email", "add", "-r", "x", "--key", "k1", "--json")
    assert code == 0
    for path in (project / ".cairn").glob("index.db*"):
        path.unlink()
    for path in saved.iterdir():
        shutil.copy2(path, project / ".cairn" / path.name)
    before = _log(project)
    code, again, err = run("log", "users.email", "add", "-r", "x", "--key", "k1", "--json")
    assert code == 0, err
    assert _id(again) == _id(out) and _log(project) == before


def test_a_process_killed_between_append_and_index(project: Path) -> None:
    """A real crash: the process dies right after the line is durable."""
    crash = (
        "import os, sys\n"
        "import cairn.store.write as w\n"
        "w._index_written = lambda *a, **k: os._exit(9)\n"
        "from cairn.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    argv = ["log", "users.email", "add", "-r", "x", "--key", "crash-1", "--json"]
    env = {**os.environ, "CAIRN_AUTHOR": "Ada <ada@example.org>"}
    died = subprocess.run(
        [sys.executable, "-P", "-c", crash, *argv], cwd=project, env=env, capture_output=True
    )
    assert died.returncode == 9
    assert _log(project).count(b"\n") == 1  # the line is durable, the index never saw it
    before = _log(project)
    again = subprocess.run(
        [sys.executable, "-P", "-m", "cairn.cli", *argv],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["replayed"] is True
    assert _id(again.stdout) == json.loads(before)["id"]
    assert _log(project) == before


def test_one_batch_with_a_key_twice_writes_it_once(store: Store) -> None:
    draft = EventDraft(type="add", entity="users.email", reasoning="x", key="k")
    events = store.append_many([draft, draft])
    assert events[0].id == events[1].id and len(store) == 1
    other = EventDraft(type="add", entity="users.email", reasoning="y", key="k")
    with pytest.raises(KeyReused):
        store.append_many([other])
    assert isinstance(KeyReused("x"), ValidationError)  # exit 2 everywhere a store error is
