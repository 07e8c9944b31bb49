"""The Neovim plugin, driven in real headless Neovim against the real `cairn serve`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from nvim_harness import PLUGIN, cairn_binary, nvim_binary, run_scenario

MIGRATION = """\
-- 003: bring back e-mail verification
ALTER TABLE users ADD COLUMN email_verified boolean NOT NULL DEFAULT false;
"""
REVERT_REASON = "Verification mails bounced for 30% of users; reverted in 002"


def cairn(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a project."""
    proc = subprocess.run(
        [cairn_binary(), *args], cwd=cwd, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project whose log says users.email_verified was added, then reverted."""
    cairn(tmp_path, "init")
    cairn(tmp_path, "log", "users.email_verified", "add", "--reason", "Verify e-mails")
    cairn(tmp_path, "revert", "users.email_verified", "--reason", REVERT_REASON)
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "003_verify.sql").write_text(MIGRATION)
    return tmp_path


def events(project: Path) -> list[dict[str, object]]:
    """The decision log as written."""
    lines = (project / ".cairn" / "decisions.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_the_venv_neovim_is_recent_enough() -> None:
    out = subprocess.run(
        [nvim_binary(), "--version"], capture_output=True, text=True, timeout=30
    ).stdout
    major, minor = out.split()[1].lstrip("v").split(".")[:2]
    assert (int(major), int(minor)) >= (0, 10)


@pytest.mark.parametrize("legacy", [False, True], ids=["vim.lsp.enable", "vim.lsp.start"])
def test_reverted_column_warning_hover_and_quick_fix(project: Path, legacy: bool) -> None:
    report = run_scenario("e2e", project, file=project / "db" / "003_verify.sql", legacy=legacy)
    assert report["mode"] == ("vim.lsp.start" if legacy else "vim.lsp.enable")
    assert report["filetype"] == "sql"
    assert Path(report["root_dir"]).resolve() == project.resolve()

    # The warning sits on the column name in the ADD COLUMN line.
    line = MIGRATION.splitlines()[1]
    warnings = [d for d in report["diagnostics"] if d["severity"] == 2]
    assert len(warnings) == 1
    warning = warnings[0]
    assert warning["source"] == "cairn"
    assert (warning["lnum"], warning["col"]) == (1, line.index("email_verified"))
    assert warning["end_col"] == line.index("email_verified") + len("email_verified")
    assert "users.email_verified" in warning["message"]
    assert warning["data"]["entity"] == "users.email_verified"
    revert_id = next(e["id"] for e in events(project) if e["type"] == "revert")
    assert warning["code"] == revert_id
    assert report["cursor_context"] == {"entity": "users.email_verified", "verdict": revert_id}

    # A lens over the column opens its history.
    lens = next(lens for lens in report["lenses"] if lens["line"] == 1)
    assert lens["command"] == "cairn.history"
    assert lens["title"].startswith("2 decisions · reverted")  # the add and the revert

    # Hover shows the entity, its status and the reasoning of the revert.
    assert "users.email_verified" in report["hover"]
    assert "revert" in report["hover"].lower()
    assert "bounced" in report["hover"]

    # The quick fix prompted for the reasoning and the supersede reached the log.
    assert len(report["applied"]) == 1 and "supersede" in report["applied"][0].lower()
    assert [p["kind"] for p in report["fix_prompts"]] == ["input"]
    assert not [d for d in report["after_fix"] if d["severity"] == 2]
    supersede = [e for e in events(project) if e["type"] == "supersede"]
    assert len(supersede) == 1
    assert supersede[0]["supersedes"] == revert_id
    assert supersede[0]["reasoning"] == "Product asked for verification again; see ticket 42"

    # :CairnReject asked for the alternative and the reason; :CairnHistory shows the log.
    assert [p["kind"] for p in report["reject_prompts"]] == ["input", "input"]
    reject = next(e for e in events(project) if e["type"] == "reject")
    assert reject["entity"] == "deps/stripe"
    assert reject["alternative"] == "stripe-python v1"
    assert "bounced" in report["history"] and "supersede" in report["history"].lower()
    # The lens opened the history once: the server showed it, the plugin did not repeat it.
    assert report["lens_history_buffers"] == 1


def test_checkhealth_reports_version_server_and_project(tmp_path: Path) -> None:
    cairn(tmp_path, "init")
    report = run_scenario("health", tmp_path)
    health = report["health"]
    version = cairn(tmp_path, "--version").stdout.strip()
    assert "OK Neovim 0.11" in health
    assert "OK require('cairn').setup() was called" in health
    assert f"OK {cairn_binary()}: {version}" in health
    assert f"OK Cairn project: {tmp_path.resolve()}" in health
    for command in ("CairnLog", "CairnReject", "CairnRevert", "CairnSupersede", "CairnHistory"):
        assert command in report["commands"]
    for name in ("cairn.log", "cairn.reject", "cairn.revert", "cairn.supersede", "cairn.history"):
        assert name in report["lsp_commands"]


def test_checkhealth_flags_a_missing_server_and_project(tmp_path: Path) -> None:
    report = run_scenario(
        "health", tmp_path, extra_env={"CAIRN_NVIM_CMD": json.dumps(["cairn-missing", "serve"])}
    )
    assert "ERROR `cairn-missing` is not executable" in report["health"]
    assert "WARNING No .cairn/ folder" in report["health"]


def test_prompts_fill_the_arguments_and_cancel_on_a_missing_answer(tmp_path: Path) -> None:
    report = run_scenario("prompts", tmp_path)
    # The reject was cancelled (empty alternative); only the log went out, complete.
    assert report["sent"] == [
        {
            "name": "cairn.log",
            "args": {"entity": "users.email", "type": "modify", "reason": "Moved to a view"},
        }
    ]
    kinds = [(p["kind"], p["prompt"]) for p in report["prompts"]]
    assert kinds[:2] == [("input", "Entity: "), ("input", "Rejected alternative: ")]
    assert kinds[2:4] == [("input", "Entity: "), ("select", "Decision type")]


def test_installs_as_a_builtin_start_package(tmp_path: Path) -> None:
    # The README's steps: link editors/nvim into pack/*/start under the data directory.
    start = tmp_path / ".xdg" / "data" / "nvim" / "site" / "pack" / "cairn" / "start"
    start.mkdir(parents=True)
    (start / "cairn").symlink_to(PLUGIN, target_is_directory=True)
    report = run_scenario("package", tmp_path, extra_env={"CAIRN_NVIM_PLUGIN": ""})
    assert report["module_path"] == str((PLUGIN / "lua" / "cairn" / "init.lua").resolve())
    assert "OK require('cairn').setup() was called" in report["health"]
