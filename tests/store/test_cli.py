"""The store's CLI commands, run through the real entry point (exit codes, JSON, errors)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from cairn.cli import main


class Run:
    def __init__(self, capsys: pytest.CaptureFixture[str]) -> None:
        self.capsys = capsys

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        try:
            main(list(argv))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        out, err = self.capsys.readouterr()
        return code, out, err


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CAIRN_DIR", raising=False)
    monkeypatch.setenv("CAIRN_AUTHOR", "Grace <grace@example.org>")
    return Run(capsys)


def test_outside_a_project_every_command_fails_cleanly(run: Run) -> None:
    for argv in (["status", "users"], ["log", "users", "add", "-r", "x"], ["review"]):
        code, _out, err = run(*argv)
        assert code == 2, argv
        assert err.count("\n") == 1 and "cairn init" in err and "Traceback" not in err


def test_init_log_status_history_json(run: Run, tmp_path: Path) -> None:
    assert run("init")[0] == 0
    assert (tmp_path / ".cairn" / ".gitattributes").exists()
    code, out, _ = run("log", "Users.Email", "add", "-r", "login needs it", "--json")
    assert code == 0
    added = json.loads(out)
    assert added["entity"] == "users.email" and added["author"] == "Grace <grace@example.org>"
    code, out, _ = run("revert", "users.email", "-r", "broke [signup]")
    assert code == 0 and "logged revert on users.email" in out
    code, out, _ = run("status", "users.email", "--json")
    st = json.loads(out)
    assert st["entity"] == "users.email" and st["status"] == "reverted"
    assert st["open_verdicts"][0]["reasoning"] == "broke [signup]"
    assert len(st["open_verdicts"][0]["id"]) == 64
    code, out, _ = run("status", "users.email")
    assert "reverted" in out and "broke [signup]" in out  # brackets are not markup
    code, out, _ = run("history", "users.email", "--json")
    events = json.loads(out)
    assert [e["type"] for e in events] == ["add", "revert"]
    assert {"id", "type", "entity", "reasoning", "parents", "recorded_at"} <= set(events[0])
    assert events[1]["parents"] == [added["id"]]


def test_bad_input_exits_2_and_writes_nothing(run: Run, tmp_path: Path) -> None:
    run("init")
    log = tmp_path / ".cairn" / "decisions.jsonl"
    cases = [
        ["log", "users.email", "add", "-r", "   "],
        ["log", "users.email", "frobnicate", "-r", "x"],
        ["log", "../x", "add", "-r", "x"],
        ["log", "t", "add", "-r", "x", "--occurred-at", "someday"],
        ["log", "t", "add", "-r", "x", "--expires-when", "when pigs fly"],
        ["log", "t", "add", "-r", "x", "--revisit-after", "soonish"],
        ["supersede", "deps/x", "-r", "nothing to supersede"],
        ["history", "t", "--as-of", "not-a-date"],
    ]
    for argv in cases:
        code, _, err = run(*argv)
        assert code == 2, argv
        assert err.startswith("cairn: error:") and err.count("\n") == 1, (argv, err)
    assert log.read_bytes() == b""
    _, _, err = run("log", "t", "add", "-r", "x", "--expires-when", "when pigs fly")
    assert "date:YYYY-MM-DD | entity:PATH:changes | manual:LABEL" in err


def test_supersede_lists_candidates_when_ambiguous(run: Run) -> None:
    run("init")
    run("reject", "deps/stripe", "--alternative", "raw cards", "-r", "pci")
    run("reject", "deps/stripe", "--alternative", "adyen", "-r", "cost")
    ids = [e["id"] for e in json.loads(run("history", "deps/stripe", "--json")[1])]
    code, _, err = run("supersede", "deps/stripe", "-r", "changed our mind")
    assert code == 2 and all(i in err for i in ids)
    code, out, _ = run("supersede", "deps/stripe", "-r", "adyen is fine now", "--of", ids[1][:8])
    assert code == 0 and f"re-opens {ids[1][:12]}" in out
    st = json.loads(run("status", "deps/stripe", "--json")[1])
    assert st["status"] == "rejected" and [v["id"] for v in st["open_verdicts"]] == [ids[0]]


def test_prior_attempts_search_review(run: Run) -> None:
    run("init")
    run("log", "t.c", "add", "-r", "first")
    run("revert", "t.c", "-r", "bad idea")
    run("log", "t.c", "modify", "-r", "tune", "--revisit-after", "2020-01-01")
    code, out, _ = run("prior-attempts", "t.c", "--json")
    assert [(a["outcome"], a["confidence"]) for a in json.loads(out)] == [("reverted", "exact")]
    code, out, _ = run("prior-attempts", "t.c", "--all", "--json")
    assert [a["outcome"] for a in json.loads(out)] == ["reverted", "active"]
    code, out, _ = run("search", "bad", "idea", "--json")
    assert code == 0 and json.loads(out)[0]["reasoning"] == "bad idea"
    code, out, _ = run("review", "--json")
    assert code == 1 and json.loads(out)[0]["event"]["reasoning"] == "tune"
    code, out, _ = run("review", "--today", "2019-06-01")
    assert code == 0 and "nothing is due" in out


def test_search_shows_one_line_a_decision_and_keeps_every_id(run: Run, tmp_path: Path) -> None:
    from cairn.store import EventDraft, Store

    run("init")
    with Store.open(tmp_path / ".cairn") as store:
        events = store.append_many(
            EventDraft(type="revert", entity=f"app/pay.py::f{i}", commit="c" * 40,
                       reasoning="Revert the payment retry storm", recorded_at="2026-01-01")
            for i in range(3)
        )  # fmt: skip
        for i in range(6):  # other decisions give the words a rarity (a positive score)
            store.append(EventDraft(type="add", entity=f"t.c{i}", reasoning=f"other {i}"))
    code, out, _ = run("search", "why", "did", "we", "revert", "the", "payment", "retries")
    assert code == 0 and len(out.strip().splitlines()) == 1
    assert out.startswith("app/pay.py::f") and "(+2 more entities) revert" in out
    code, out, _ = run("search", "payment retries", "--json")
    (hit,) = json.loads(out)
    assert sorted(hit["ids"]) == sorted(e.id for e in events) and hit["score"] > 0


def test_the_installed_cairn_command_works_in_a_subdirectory(tmp_path: Path) -> None:
    cairn = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "cairn"
    env = {**os.environ, "CAIRN_AUTHOR": "ci"}
    env.pop("CAIRN_DIR", None)
    subprocess.run([str(cairn), "init"], cwd=tmp_path, check=True, env=env, capture_output=True)
    sub = tmp_path / "src" / "deep"
    sub.mkdir(parents=True)
    done = subprocess.run(
        [str(cairn), "log", "env/STRIPE_KEY", "add", "-r", "payments"],
        cwd=sub, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [str(cairn), "status", "env/STRIPE_KEY", "--json"],
        cwd=sub, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert json.loads(done.stdout)["status"] == "active"
    assert "\x1b[" not in done.stdout  # no colour codes when piped
