"""`cairn doctor`: each broken set-up is named with its fix, and `--fix` repairs the safe ones."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cairn.store import EventDraft

from .harness import append_events, cairn, env_for, git, log_path


def doctor(repo: Path, *args: str) -> tuple[int, dict[str, dict[str, Any]]]:
    done = cairn(repo, "doctor", "--json", *args)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] == (done.returncode == 0)
    return done.returncode, {c["name"]: c for c in report["checks"]}


def failing(checks: dict[str, dict[str, Any]]) -> list[str]:
    return sorted(name for name, c in checks.items() if c["level"] == "fail")


def test_fresh_project_is_healthy(repo: Path, cairn_dir: Path) -> None:
    append_events(cairn_dir, [EventDraft(type="add", entity="users.email", reasoning="x")])
    rc, checks = doctor(repo)
    assert rc == 0
    assert {c["level"] for c in checks.values()} == {"ok"}
    assert set(checks) == {"log", "quarantine", "lock", "merge driver", "git ignores", "index"}
    human = cairn(repo, "doctor")
    assert human.returncode == 0 and "ok   merge driver" in human.stdout


def test_missing_union_merge_is_reported_and_fixed(repo: Path, cairn_dir: Path) -> None:
    (cairn_dir / ".gitattributes").write_text("", encoding="utf-8")
    rc, checks = doctor(repo)
    assert (rc, failing(checks)) == (1, ["merge driver"])
    assert "decisions.jsonl merge=union" in checks["merge driver"]["fix"]
    human = cairn(repo, "doctor")
    assert "FAIL merge driver" in human.stdout and "fix: add `decisions.jsonl merge=union`" in (
        human.stdout
    )
    rc, checks = doctor(repo, "--fix")
    assert rc == 0 and checks["merge driver"]["fixed"]
    attr = git(repo, "check-attr", "merge", "--", ".cairn/decisions.jsonl").stdout
    assert attr.strip().endswith("union")
    assert doctor(repo)[0] == 0


def test_unignored_index_is_reported_and_fixed(repo: Path, cairn_dir: Path) -> None:
    append_events(cairn_dir, [EventDraft(type="add", entity="users.email", reasoning="x")])
    (cairn_dir / ".gitignore").unlink()
    rc, checks = doctor(repo)
    assert (rc, failing(checks)) == (1, ["git ignores"])
    assert ".cairn/index.db" in checks["git ignores"]["detail"]
    rc, checks = doctor(repo, "--fix")
    assert rc == 0
    assert git(repo, "check-ignore", "-q", ".cairn/index.db").returncode == 0
    assert git(repo, "check-ignore", "-q", ".cairn/decisions.jsonl", check=False).returncode == 1


def test_committed_index_and_ignored_log(repo: Path, cairn_dir: Path) -> None:
    append_events(cairn_dir, [EventDraft(type="add", entity="users.email", reasoning="x")])
    git(repo, "add", "-f", ".cairn/index.db")
    (repo / ".gitignore").write_text("*.jsonl\n", encoding="utf-8")
    rc, checks = doctor(repo)
    assert (rc, failing(checks)) == (1, ["git ignores"])
    detail, fix = checks["git ignores"]["detail"], checks["git ignores"]["fix"]
    assert "committed to git: .cairn/index.db" in detail
    assert "decisions.jsonl is git-ignored" in detail
    assert "git rm --cached .cairn/index.db" in fix


def test_lock_held_too_long_names_the_holder(repo: Path, cairn_dir: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
            str(cairn_dir / "lock"),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=env_for(),
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        rc, checks = doctor(repo)
        assert (rc, failing(checks)) == (1, ["lock"])
        assert f"pid {holder.pid}" in checks["lock"]["detail"]
    finally:
        holder.kill()
        holder.wait()
    assert doctor(repo)[0] == 0


def test_lock_that_is_not_a_file(repo: Path, cairn_dir: Path) -> None:
    (cairn_dir / "lock").mkdir()
    rc, checks = doctor(repo)
    assert (rc, failing(checks)) == (1, ["lock"])
    assert "not a regular file" in checks["lock"]["detail"]


def test_stale_index_is_a_warning_and_fix_catches_up(repo: Path, cairn_dir: Path) -> None:
    append_events(cairn_dir, [EventDraft(type="add", entity="users.email", reasoning="x")])
    with open(log_path(cairn_dir), "ab") as fh:  # what a `git pull` does behind our back
        fh.write(log_path(cairn_dir).read_bytes())
    time.sleep(0.01)
    rc, checks = doctor(repo)
    assert rc == 0 and checks["index"]["level"] == "warn"
    rc, checks = doctor(repo, "--fix")
    assert rc == 0 and checks["index"]["fixed"]
    assert doctor(repo)[1]["index"]["level"] == "ok"


def test_partial_tail_fails_and_fix_quarantines_it(repo: Path, cairn_dir: Path) -> None:
    append_events(cairn_dir, [EventDraft(type="add", entity="users.email", reasoning="x")])
    with open(log_path(cairn_dir), "ab") as fh:
        fh.write(b'{"id":"12')
    rc, checks = doctor(repo)
    assert (rc, failing(checks)) == (1, ["log"])
    rc, checks = doctor(repo, "--fix")
    assert rc == 0 and checks["log"]["fixed"]
    assert (cairn_dir / "decisions.jsonl.quarantine").read_bytes() == b'{"id":"12\n'
    assert checks["quarantine"]["level"] == "warn"


def test_outside_git_only_warns(tmp_path: Path) -> None:
    done = cairn(tmp_path, "init")
    assert done.returncode == 0, done.stderr
    rc, checks = doctor(tmp_path)
    assert rc == 0
    assert checks["git"]["level"] == "warn" and "git init" in checks["git"]["fix"]


def test_a_search_leaves_git_clean_under_the_first_releases_ignore_file(
    repo: Path, cairn_dir: Path
) -> None:
    """A project made before the search index existed keeps its `.cairn/.gitignore`: the
    index a first search writes must be ignored by it, not show up as an untracked file
    that `git add -A` would commit."""
    (cairn_dir / ".gitignore").write_text(
        "index.db\nindex.db-*\nlock\ndrafts/\ndecisions.jsonl.quarantine\n", encoding="utf-8"
    )
    append_events(cairn_dir, [EventDraft(type="add", entity="users.email", reasoning="login")])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "decisions")
    found = cairn(repo, "search", "login", "--json")
    assert found.returncode == 0, found.stderr
    assert [p.name for p in cairn_dir.iterdir() if "search" in p.name]  # it was written
    assert git(repo, "status", "--porcelain").stdout == ""
    assert doctor(repo)[1]["git ignores"]["level"] == "ok"
