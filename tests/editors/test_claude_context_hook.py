"""The Claude Code SessionStart and PreCompact hooks, fed the payloads Claude Code sends
(shapes from its hooks reference) and held to the exact JSON they answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "check"))
from check_fixtures import CAIRN, REVERT_REASON, cairn, git, make_project  # noqa: E402

HOOK = REPO / "editors" / "claude-code" / "hooks" / "cairn_context.py"
TRANSCRIPT = "/home/user/.claude/projects/shop/00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl"
MIGRATION = "ALTER TABLE users ADD COLUMN email_verified boolean;\n"


def session_start(cwd: Path, source: str) -> dict[str, Any]:
    """SessionStart input as Claude Code writes it to the hook's stdin."""
    return {
        "session_id": "abc123",
        "transcript_path": TRANSCRIPT,
        "cwd": str(cwd),
        "hook_event_name": "SessionStart",
        "source": source,
        "model": "claude-sonnet-4-6",
    }


def pre_compact(cwd: Path, trigger: str) -> dict[str, Any]:
    """PreCompact input as Claude Code writes it to the hook's stdin."""
    return {
        "session_id": "abc123",
        "transcript_path": TRANSCRIPT,
        "cwd": str(cwd),
        "hook_event_name": "PreCompact",
        "trigger": trigger,
        "custom_instructions": "" if trigger == "auto" else "keep the migration plan",
    }


def run_hook(
    data: dict[str, Any] | str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    stdin = data if isinstance(data, str) else json.dumps(data)
    full_env = {**os.environ, "CAIRN_BIN": CAIRN, **(env or {})}
    full_env.pop("CAIRN_DIR", None)
    return subprocess.run(
        [sys.executable, str(HOOK)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=full_env,
        cwd="/",
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = make_project(tmp_path)
    git(root, "checkout", "-q", "-b", "feature")
    (root / "db" / "003_verify.sql").write_text(MIGRATION)
    return root


@pytest.mark.parametrize("source", ["startup", "resume", "clear", "compact"])
def test_session_start_injects_the_digest_as_additional_context(project: Path, source: str) -> None:
    expected = cairn(project, "digest", "--max-chars", "4000")
    assert expected.returncode == 0, expected.stderr
    proc = run_hook(session_start(project, source))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert json.loads(proc.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": expected.stdout.rstrip("\n"),
        }
    }
    context = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "On the 1 file this branch touches:" in context
    assert "- users.email_verified: revert " in context
    assert REVERT_REASON in context
    assert "deps/stripe: reject of “stripe-python v1 client”" in context


@pytest.mark.parametrize("trigger", ["manual", "auto"])
def test_pre_compact_tells_the_user_what_the_digest_carries(project: Path, trigger: str) -> None:
    proc = run_hook(pre_compact(project, trigger))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert json.loads(proc.stdout) == {
        "systemMessage": (
            "Cairn: 1 open verdict on this branch's files, 1 more project-wide; "
            "the digest is re-injected after compaction."
        )
    }


def test_outside_a_project_the_hooks_say_nothing(tmp_path: Path) -> None:
    for payload in (session_start(tmp_path, "startup"), pre_compact(tmp_path, "auto")):
        proc = run_hook(payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_an_empty_log_adds_no_context(tmp_path: Path) -> None:
    assert cairn(tmp_path, "init").returncode == 0
    proc = run_hook(session_start(tmp_path, "startup"))
    assert (proc.returncode, proc.stdout) == (0, "")


def test_without_cairn_the_session_still_starts(project: Path) -> None:
    proc = run_hook(session_start(project, "startup"), env={"CAIRN_BIN": "/nonexistent/cairn"})
    assert (proc.returncode, proc.stdout) == (0, "")


def test_other_events_and_bad_input(project: Path) -> None:
    other = {**session_start(project, "startup"), "hook_event_name": "Stop"}
    assert run_hook(other).stdout == ""
    bad = run_hook("{not json")
    assert bad.returncode == 1
    assert bad.stderr.startswith("cairn hook: invalid hook input:")
