"""Helpers for the trust tests: real projects in temp folders, real git, the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cairn.store import EventDraft, Store

CAIRN = str(Path(sys.executable).parent / "cairn")

# CI machines may have no git identity; every git call gets one explicitly.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Trust Test",
    "GIT_AUTHOR_EMAIL": "trust@example.com",
    "GIT_COMMITTER_NAME": "Trust Test",
    "GIT_COMMITTER_EMAIL": "trust@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def env_for(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for subprocesses: no inherited CAIRN_DIR, a git identity."""
    env = {k: v for k, v in os.environ.items() if k != "CAIRN_DIR"}
    env.update(GIT_ENV)
    env["PYTHONSAFEPATH"] = "1"
    env.update(extra or {})
    return env


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run real git in `cwd`."""
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env_for(), capture_output=True, text=True, check=check
    )


def cairn(cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """Run the real `cairn` command in `cwd`."""
    return subprocess.run(
        [CAIRN, *args], cwd=cwd, env=env_for(), capture_output=True, text=True, timeout=timeout
    )


def log_path(cairn_dir: Path) -> Path:
    """The project's JSONL log."""
    return cairn_dir / "decisions.jsonl"


def log_lines(cairn_dir: Path) -> list[str]:
    """The log's lines, without their newlines."""
    # Not str.splitlines(): it also splits on U+0085 and U+2028, which JSON keeps raw.
    return log_path(cairn_dir).read_text(encoding="utf-8").split("\n")[:-1]


def log_events(cairn_dir: Path) -> list[dict[str, Any]]:
    """The log's lines, parsed."""
    return [json.loads(line) for line in log_lines(cairn_dir) if line.strip()]


def write_lines(cairn_dir: Path, lines: list[str]) -> None:
    """Replace the log's content (the way a hand edit or an attacker would)."""
    log_path(cairn_dir).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def append_events(cairn_dir: Path, drafts: list[EventDraft]) -> list[Any]:
    """Append drafts through the real store; return the events written."""
    store = Store.open(cairn_dir)
    try:
        return [store.append(d).event for d in drafts]
    finally:
        store.close()
