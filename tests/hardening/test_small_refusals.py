"""Item 12: the smaller holes: a target-less redact, a log hidden by a nested init, a
history command that coerced non-strings. (The reasoning limit is in
test_secret_fields.py.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cairn.store import EventDraft, Store, StoreError

from .cli import Run
from .lsp_raw import RawServer, make_project


def test_redact_cannot_be_logged_by_hand(run: Run, project: Path) -> None:
    log = project / ".cairn" / "decisions.jsonl"
    assert run("log", "users.email", "add", "-r", "x")[0] == 0
    before = log.read_bytes()
    code, _, err = run("log", "users.email", "redact", "-r", "oops")
    assert code == 2 and "cairn redact ID" in err and err.count("\n") == 1
    assert log.read_bytes() == before


def test_the_store_refuses_a_redact_without_a_real_target(store: Store) -> None:
    for metadata in ({}, {"redacts": "abc"}, {"redacts": 42}, {"redacts": "z" * 64}):
        with pytest.raises(StoreError, match="cairn redact"):
            store.append(
                EventDraft(type="redact", entity="users.email", reasoning="x", metadata=metadata)
            )


def test_the_real_redact_still_works(run: Run, project: Path) -> None:
    code, out, _ = run("log", "users.email", "add", "-r", "secret plan", "--json")
    event_id = __import__("json").loads(out)["id"]
    code, _, err = run("redact", event_id, "-r", "pasted by mistake")
    assert code == 0, err
    assert "secret plan" not in (project / ".cairn" / "decisions.jsonl").read_text()


def test_init_inside_a_project_needs_nested(run: Run, project: Path) -> None:
    inner = project / "services" / "billing"
    inner.mkdir(parents=True)
    code, _, err = run("init", str(inner))
    assert code == 2 and "--nested" in err and str(project) in err
    assert not (inner / ".cairn").exists()
    assert run("init", str(inner), "--nested")[0] == 0
    assert (inner / ".cairn" / "decisions.jsonl").exists()
    # Running init again where a log exists stays harmless.
    assert run("init", str(inner))[0] == 0
    assert run("init")[0] == 0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RawServer]:
    running = RawServer(make_project(tmp_path / "shop"))
    yield running
    running.close()


@pytest.mark.parametrize("entity", [42, ["users.email"], {"x": 1}, None, True])
def test_history_command_rejects_non_string_entities(server: RawServer, entity: object) -> None:
    answer = server.request(
        "workspace/executeCommand",
        {"command": "cairn.history", "arguments": [{"entity": entity}]},
    )
    assert "error" in answer, answer
    assert "must be a string" in answer["error"]["message"]
    ok = server.request(
        "workspace/executeCommand",
        {"command": "cairn.history", "arguments": [{"entity": "users.email_verified"}]},
    )
    assert ok["result"]["entity"] == "users.email_verified"


@pytest.mark.parametrize(
    "argv", [["check", "\x00"], ["scan", "a\x00b"], ["which", "\x00"], ["init", "x\x00"]]
)
def test_a_nul_character_in_an_argument_is_bad_input(run: Run, argv: list[str]) -> None:
    """`make fuzz`, 2026-11-30: `cairn check $'\\0'` was an internal error (exit 3):
    the OS refuses a NUL in a path with ValueError, whichever command meets it."""
    code, _, err = run(*argv)
    assert code == 2, err
    assert err.count("\n") == 1 and "internal error" not in err
    assert "NUL character" in err or "'\\x00'" in err  # `which` names what it expected
