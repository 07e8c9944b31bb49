"""The same words on every surface (issue 29, item 6): the real Claude Code hook, the
real `cairn mcp` through the SDK's client, and the real CLI give a blocking finding's
reason, suggest the same entities, and name their own arguments in errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import CAIRN, log_lines, make_project, mcp_session, text_of
from real_cli import env as real_env

REPO = Path(__file__).resolve().parents[2]
HOOK = REPO / "editors" / "claude-code" / "hooks" / "cairn_pretooluse.py"

V1 = """\
class JWTManager:
    def encode(self, payload, key):
        headers = {"alg": "HS256"}
        return sign(headers, payload, key)
"""
CRIT = """\
        headers["crit"] = ["b64"]
        headers["b64"] = False
        payload = canonical_json(payload, sort_keys=True)
"""
V2 = V1.replace('"HS256"}\n', '"HS256"}\n' + CRIT)
# The same reverted lines typed again, in a method with another name: found by content.
AGAIN = V2.replace("def encode", "def sign_token")
SUBJECT = "Take the crit header out again"


def _run(root: Path, *args: str, date: str = "2024-02-01T10:00:00Z") -> str:
    env = real_env(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    proc = subprocess.run(args, cwd=root, env=env, check=True, capture_output=True, text=True)
    return proc.stdout


@pytest.fixture
def reverted(tmp_path: Path) -> Path:
    """A JWT manager whose crit header was added, then taken out by hand (no marker),
    imported from git: a revert known by its lines' fingerprint."""
    root = tmp_path / "auth"
    root.mkdir()
    _run(root, "git", "init", "-q", "-b", "main")
    for text, message, date in (
        (V1, "JWT manager", "2024-01-10T10:00:00Z"),
        (V2, "Add crit header to jwt/jws", "2024-02-01T10:00:00Z"),
        (V1, SUBJECT, "2024-02-23T10:00:00Z"),
    ):
        (root / "jwt.py").write_text(text)
        _run(root, "git", "add", "-A")
        _run(root, "git", "commit", "-q", "-m", message, date=date)
    _run(root, CAIRN, "init")
    _run(root, CAIRN, "import", "git")
    return root


def _revert_reason(root: Path) -> str:
    [revert] = [e for e in log_lines(root) if e["type"] == "revert"]
    assert str(revert["reasoning"]).startswith(SUBJECT)
    return str(revert["reasoning"])


def _quoted(reason: str) -> str:
    """How a message quotes a reason: on one line."""
    return 'reasoning: "' + " ".join(reason.split()) + '"'


def _hook(root: Path, tool_input: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    payload = {
        "session_id": "abc123",
        "transcript_path": str(root / ".claude" / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": tool_input,
        "tool_use_id": "toolu_01ABC",
    }
    env = {**real_env(), "CAIRN_BIN": CAIRN, "CAIRN_GATE_DAEMON": "0"}  # cold: no daemon left
    return subprocess.run(
        [sys.executable, str(HOOK)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd="/",
    )


def test_a_revert_found_by_content_blocks_with_its_reason_in_check_and_the_hook(
    reverted: Path,
) -> None:
    reason = _revert_reason(reverted)
    check = subprocess.run(
        [CAIRN, "check", "--json", "--stdin-filename", "jwt.py"],
        cwd=reverted,
        input=AGAIN,
        capture_output=True,
        text=True,
        timeout=120,
        env=real_env(),
    )
    assert check.returncode == 1, check.stderr
    report = json.loads(check.stdout)
    [finding] = [f for f in report["findings"] if f["blocking"]]
    assert finding["kind"] == "fingerprint"
    assert finding["reasoning"] == reason  # was null: the gate blocked without saying why
    assert _quoted(reason) in report["explanation"]

    hook = _hook(reverted, {"file_path": str(reverted / "jwt.py"), "content": AGAIN})
    assert hook.returncode == 2, hook.stderr
    assert hook.stderr.strip() == report["explanation"]  # the CLI's words, unchanged
    assert "jwt.py::JWTManager.encode (revert " in hook.stderr
    assert "(no reasoning recorded)" not in hook.stderr
    assert "`cairn supersede jwt.py::JWTManager.encode --reason" in hook.stderr


async def test_mcp_check_gives_the_reason_and_names_its_own_tool(reverted: Path) -> None:
    reason = _revert_reason(reverted)
    async with mcp_session(reverted) as session:
        answer = await session.call_tool("cairn_check", {"path": "jwt.py", "content": AGAIN})
    text = text_of(answer)
    assert not answer.is_error
    assert _quoted(reason) in text
    assert "cairn_record type=supersede entity=jwt.py::JWTManager.encode" in text
    assert "--reason" not in text  # an agent over MCP has arguments, not flags
    [finding] = answer.structured_content["findings"]  # type: ignore[index]
    assert finding["reasoning"] == reason


async def test_cairn_why_suggests_what_cairn_status_suggests(tmp_path: Path) -> None:
    project = make_project(tmp_path)  # requirements.txt names requests; no decision does
    cli = subprocess.run(
        [CAIRN, "status", "requests", "--json"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env=real_env(),
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["did_you_mean"][0] == "deps/requests"
    async with mcp_session(project) as session:
        answer = await session.call_tool("cairn_why", {"entities": ["requests"]})
    text = text_of(answer)
    # The CLI's footnote is `cairn: <hint>`; MCP answers the same hint.
    assert cli.stderr.strip() == f"cairn: {text.strip()}"
    assert text.startswith("no decisions recorded on requests; did you mean deps/requests")
    data = answer.structured_content
    assert data is not None
    assert data["did_you_mean"]["requests"] == json.loads(cli.stdout)["did_you_mean"]


async def test_mcp_errors_name_mcp_arguments_and_types(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    before = log_lines(project)
    async with mcp_session(project) as session:
        empty = await session.call_tool(
            "cairn_record", {"entity": "users.email", "type": "revert", "reasoning": " "}
        )
        bogus = await session.call_tool(
            "cairn_record", {"entity": "users.email", "type": "bogus", "reasoning": "why"}
        )
        annotate = await session.call_tool(
            "cairn_record", {"entity": "users.email", "type": "annotate", "reasoning": "why"}
        )
        bad_of = await session.call_tool(
            "cairn_record",
            {"entity": "users.email_verified", "type": "supersede", "reasoning": "ok", "of": "x"},
        )
        listed = await session.list_tools()
    for answer in (empty, bogus, annotate, bad_of):
        assert answer.is_error
        line = text_of(answer)
        assert "\n" not in line
        assert "--" not in line, line  # no CLI flag
    assert "'reasoning'" in text_of(empty)
    assert "'of'" in text_of(bad_of)
    types_named = text_of(bogus).split("one of ", 1)[1].split(", ")
    assert "revert" in types_named and "supersede" in types_named
    assert "redact" not in types_named and "annotate" not in types_named
    assert "annotate" in text_of(annotate) and "needs its id" in text_of(annotate)
    [record] = [t for t in listed.tools if t.name == "cairn_record"]
    enum = record.input_schema["properties"]["type"]["enum"]
    assert "annotate" not in enum and "redact" not in enum
    assert log_lines(project) == before  # nothing written by any of them
