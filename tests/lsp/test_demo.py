"""`cairn demo` end to end: a real server, piped output (no terminal), and --keep."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

CAIRN = str(Path(sys.executable).with_name("cairn"))
ENV = {**os.environ, "PYTHONSAFEPATH": "1"}


def test_demo_prints_what_an_editor_shows_without_a_terminal(tmp_path: Path) -> None:
    keep = tmp_path / "shop"
    out = subprocess.run(
        [CAIRN, "demo", "--keep", str(keep)], env=ENV, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "\x1b[" not in out.stdout  # no colour codes when piped
    # Panels wrap lines; compare words, not layout.
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", out.stdout).split())
    assert "users.email_verified was reverted on 2026-03-05 by maria" in text
    assert "⛔ Reverted 2026-03-05 by maria" in text
    assert "reopened · 3 decisions" in text
    assert "deps/stripe was rejected (take payouts through" in text
    assert "Supersede the revert of users.email_verified…" in text
    assert "Diagnostics in the migration now: none" in text
    assert "2 decisions · reverted 2026-03-05" in text and "3 decisions · reopened" in text
    assert "nvim " + str(keep.resolve()) in text
    # The quick fix ran on a copy: the kept log has no supersede of the column.
    events = [json.loads(x) for x in (keep / ".cairn" / "decisions.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events if e["entity"] == "users.email_verified"] == [
        "add",
        "revert",
    ]


def test_kept_folder_is_a_git_repository_where_the_warning_still_stands(tmp_path: Path) -> None:
    keep = tmp_path / "shop"
    out = subprocess.run(
        [CAIRN, "demo", "--keep", str(keep)], env=ENV, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", out.stdout).split())
    assert "The quick fix below runs on a copy" in text
    steps = ["1. cairn check:", "2. cairn ls:", '3. cairn supersede users.email_verified -r "']
    assert all(step in text for step in steps), text
    assert "cd " + str(keep.resolve()) in text

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, cwd=keep, env=ENV, capture_output=True, text=True)

    assert run("git", "status", "--porcelain").stdout.splitlines() == [
        "?? db/migrations/0007_email_verified.sql"
    ]
    assert run("git", "log", "--oneline").stdout.count("\n") == 1
    # The three commands the demo prints, as printed.
    check = run(CAIRN, "check")
    assert check.returncode == 1
    assert "db/migrations/0007_email_verified.sql:2:30: error: users.email_verified" in check.stdout
    listing = run(CAIRN, "ls")
    assert listing.returncode == 0
    assert ["users.email_verified", "reverted"] in [
        r.split()[:2] for r in listing.stdout.splitlines()
    ]
    fixed = run(CAIRN, "supersede", "users.email_verified", "-r", "why it is back")
    assert fixed.returncode == 0, fixed.stderr
    assert run(CAIRN, "check").returncode == 0
    # What the pre-commit hook runs.
    run("git", "add", "-A")
    assert run(CAIRN, "check", "--staged").returncode == 0


def test_demo_refuses_a_non_empty_keep_folder(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "file.txt").write_text("mine")
    out = subprocess.run(
        [CAIRN, "demo", "--keep", str(tmp_path / "busy")], env=ENV, capture_output=True, text=True
    )
    assert out.returncode == 2
    assert out.stderr.startswith("cairn: error: demo failed:") and "is not empty" in out.stderr
    assert (tmp_path / "busy" / "file.txt").read_text() == "mine"
