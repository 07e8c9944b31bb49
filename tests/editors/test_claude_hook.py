"""The Claude Code PreToolUse hook, fed the JSON payloads Claude Code sends.

Each verdict case runs twice (the `project` fixture): cold, the check in the hook's own
process or a spawned `cairn`, and warm, answered by a real gate daemon. Warm, the hook
is given no `cairn` to fall back on, so only the daemon can have given the verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "check"))
from check_fixtures import (  # noqa: E402
    CAIRN,
    MIGRATION,
    REJECT_REASON,
    REJECTED,
    REVERT_REASON,
    make_project,
)
from daemon_fixtures import gate_daemon, runtime_dir  # noqa: E402

HOOK = REPO / "editors" / "claude-code" / "hooks" / "cairn_pretooluse.py"
# What the `project` fixture's mode adds to every run of the hook (warm: the daemon's
# runtime folder, the daemon allowed, and no `cairn` to fall back on).
MODE_ENV: dict[str, str] = {}


def payload(project: Path, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    """A PreToolUse payload as Claude Code writes it to the hook's stdin."""
    return {
        "session_id": "abc123",
        "transcript_path": str(project / ".claude" / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01ABC",
    }


def run_hook(
    data: dict[str, Any] | str,
    env: dict[str, str] | None = None,
    python: str = sys.executable,
    flags: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run the hook the way Claude Code does: a command with JSON on stdin."""
    stdin = data if isinstance(data, str) else json.dumps(data)
    full_env = {**os.environ, "CAIRN_BIN": CAIRN, **MODE_ENV, **(env or {})}
    full_env.pop("CAIRN_DIR", None)
    return subprocess.run(
        [python, *flags, str(HOOK)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=full_env,
        cwd="/",
    )


@pytest.fixture(params=["cold", "warm"])
def project(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    root = make_project(tmp_path)
    if request.param == "cold":
        yield root
        return
    with runtime_dir() as runtime, gate_daemon(root, runtime):
        MODE_ENV.update(
            XDG_RUNTIME_DIR=runtime, CAIRN_GATE_DAEMON="1", CAIRN_BIN=str(root / "no-cairn")
        )
        try:
            yield root
        finally:
            MODE_ENV.clear()


@pytest.fixture
def cold_project(tmp_path: Path) -> Path:
    """For the cases about the cold path itself (what it does without a daemon)."""
    return make_project(tmp_path)


def test_write_of_a_migration_re_adding_a_reverted_column_is_blocked(project: Path) -> None:
    target = project / "db" / "003_verify.sql"
    proc = run_hook(payload(project, "Write", {"file_path": str(target), "content": MIGRATION}))
    assert proc.returncode == 2, proc.stderr
    assert "Cairn blocked this edit" in proc.stderr
    assert "db/003_verify.sql:2: users.email_verified (revert " in proc.stderr
    assert f'reasoning: "{REVERT_REASON}"' in proc.stderr
    assert not target.exists()


def test_write_of_unrelated_code_passes(project: Path) -> None:
    target = project / "db" / "003_orders.sql"
    content = "CREATE TABLE orders (id integer primary key, total numeric);\n"
    proc = run_hook(payload(project, "Write", {"file_path": str(target), "content": content}))
    assert (proc.returncode, proc.stderr) == (0, "")


def test_edit_that_adds_a_rejected_dependency_is_blocked(project: Path) -> None:
    edit = {
        "file_path": str(project / "requirements.txt"),
        "old_string": "requests==2.32\n",
        "new_string": "requests==2.32\nstripe==2.0\n",
        "replace_all": False,
    }
    proc = run_hook(payload(project, "Edit", edit))
    assert proc.returncode == 2
    assert "requirements.txt:2: deps/stripe (reject " in proc.stderr
    assert f"rejected approach: {REJECTED}" in proc.stderr
    assert REJECT_REASON in proc.stderr


def test_edit_elsewhere_in_a_file_that_already_re_adds_passes(project: Path) -> None:
    target = project / "db" / "003_verify.sql"
    target.write_text(MIGRATION)
    edit = {"file_path": str(target), "old_string": "-- 003", "new_string": "-- 003 (reviewed)"}
    proc = run_hook(payload(project, "Edit", edit))
    assert (proc.returncode, proc.stderr) == (0, "")


def test_multiedit_is_checked_after_all_edits(project: Path) -> None:
    target = project / "db" / "001_users.sql"
    edits = [
        {
            "old_string": "id integer primary key",
            "new_string": "id integer primary key, email text",
        },
        {"old_string": "email text", "new_string": "email text, email_verified boolean"},
    ]
    proc = run_hook(payload(project, "MultiEdit", {"file_path": str(target), "edits": edits}))
    assert proc.returncode == 2
    assert "db/001_users.sql:1: users.email_verified" in proc.stderr
    # Only the first edit: no verdict on users.email.
    first = run_hook(payload(project, "MultiEdit", {"file_path": str(target), "edits": edits[:1]}))
    assert (first.returncode, first.stderr) == (0, "")


def test_replace_all_applies_to_every_occurrence(project: Path) -> None:
    target = project / "db" / "002.sql"
    target.write_text("-- PLACEHOLDER\nALTER TABLE users ADD COLUMN PLACEHOLDER text;\n")
    edit = {
        "file_path": str(target),
        "old_string": "PLACEHOLDER",
        "new_string": "email_verified",
        "replace_all": True,
    }
    assert run_hook(payload(project, "Edit", edit)).returncode == 2
    edit["replace_all"] = False  # only the comment changes: nothing re-added
    assert run_hook(payload(project, "Edit", edit)).returncode == 0


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Read", {"file_path": "db/001_users.sql"}),
        ("Bash", {"command": "echo 'ALTER TABLE users ADD COLUMN email_verified int' > x.sql"}),
        ("Edit", {"file_path": "db/001_users.sql", "old_string": "absent", "new_string": "x"}),
        ("Edit", {"file_path": "db/none.sql", "old_string": "a", "new_string": "b"}),
    ],
)
def test_calls_it_cannot_judge_pass(project: Path, tool: str, tool_input: dict[str, Any]) -> None:
    if "file_path" in tool_input:
        tool_input = {**tool_input, "file_path": str(project / tool_input["file_path"])}
    proc = run_hook(payload(project, tool, tool_input))
    assert (proc.returncode, proc.stderr) == (0, "")


def test_relative_paths_resolve_against_the_session_cwd(project: Path) -> None:
    data = payload(project, "Write", {"file_path": "db/003.sql", "content": MIGRATION})
    assert run_hook(data).returncode == 2


def test_files_outside_a_project_pass(tmp_path: Path) -> None:
    target = tmp_path / "loose.sql"
    proc = run_hook(payload(tmp_path, "Write", {"file_path": str(target), "content": MIGRATION}))
    assert (proc.returncode, proc.stderr) == (0, "")


def test_broken_input_and_a_missing_cairn_block_unless_failing_open_was_chosen(
    cold_project: Path,
) -> None:
    project = cold_project
    # the gate fails closed (issue 35): what it cannot judge is blocked, with why
    broken = run_hook("{not json")
    assert broken.returncode == 2 and "invalid hook input" in broken.stderr
    data = payload(project, "Write", {"file_path": str(project / "a.sql"), "content": MIGRATION})
    missing = run_hook(data, env={"CAIRN_BIN": str(project / "no-cairn-here")})
    assert missing.returncode == 2 and "check did not run" in missing.stderr
    opted = run_hook(
        data, env={"CAIRN_BIN": str(project / "no-cairn-here"), "CAIRN_HOOK_FAIL_OPEN": "1"}
    )
    assert opted.returncode == 1 and "edit not checked" in opted.stderr


def test_a_check_that_cannot_run_is_reported_not_passed(cold_project: Path) -> None:
    project = cold_project
    fake = project / "fake-cairn"
    fake.write_text(
        "#!/bin/sh\necho 'cairn: error: cannot read the decision log: locked' >&2\nexit 2\n"
    )
    fake.chmod(0o755)
    data = payload(project, "Write", {"file_path": str(project / "a.sql"), "content": MIGRATION})
    proc = run_hook(data, env={"CAIRN_BIN": str(fake)})
    assert proc.returncode == 2
    assert "could not be checked: cannot read the decision log: locked" in (proc.stderr)


def test_the_check_in_this_process_gives_the_spawned_checks_verdict_and_words(
    cold_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    project = cold_project
    # Without CAIRN_BIN the hook runs the check in its own interpreter when it can
    # import Cairn: directly (this venv's Python; no `cairn` on PATH, so it cannot have
    # spawned one), or through the venv of the `cairn` on PATH (the bare interpreter).
    elsewhere = tmp_path_factory.mktemp("no-project")
    cases = [
        payload(
            project, "Write", {"file_path": str(project / "db" / "9.sql"), "content": MIGRATION}
        ),
        payload(
            project, "Write", {"file_path": str(project / "db" / "9.sql"), "content": "-- x\n"}
        ),
        payload(
            project,
            "Edit",
            {
                "file_path": str(project / "requirements.txt"),
                "old_string": "requests==2.32\n",
                "new_string": "requests==2.32\nstripe==2.0\n",
            },
        ),
        payload(elsewhere, "Write", {"file_path": str(elsewhere / "a.sql"), "content": MIGRATION}),
        payload(project, "Write", {"file_path": str(project / "big.sql"), "content": "\0"}),
    ]
    venv_bin = str(Path(CAIRN).parent)
    bare = os.path.realpath(sys.executable)
    via_path = f"{venv_bin}:/usr/bin:/bin"
    outcomes = []
    for data in cases:
        spawned = run_hook(data)
        direct = run_hook(data, env={"CAIRN_BIN": "", "PATH": "/usr/bin:/bin"})
        via_venv = run_hook(data, env={"CAIRN_BIN": "", "PATH": via_path}, python=bare)
        assert (direct.returncode, direct.stderr) == (spawned.returncode, spawned.stderr)
        assert (via_venv.returncode, via_venv.stderr) == (spawned.returncode, spawned.stderr)
        # as hooks.json runs it: `python3 -S`, site-packages added back for the cold path
        for python, path in ((sys.executable, "/usr/bin:/bin"), (bare, via_path)):
            no_site = run_hook(data, {"CAIRN_BIN": "", "PATH": path}, python, ("-S",))
            assert (no_site.returncode, no_site.stderr) == (spawned.returncode, spawned.stderr)
        outcomes.append(spawned.returncode)
    assert outcomes == [2, 0, 2, 0, 2]
