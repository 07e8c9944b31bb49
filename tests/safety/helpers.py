"""The real CLI and real git, run as a user would, for the safety tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CAIRN = str(Path(sys.executable).with_name("cairn"))
IDENTITY = {
    "GIT_AUTHOR_NAME": "Ann Example",
    "GIT_AUTHOR_EMAIL": "ann@example.com",
    "GIT_COMMITTER_NAME": "Ann Example",
    "GIT_COMMITTER_EMAIL": "ann@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CAIRN_"))}
    out.update(IDENTITY)
    out.update({"PYTHONSAFEPATH": "1", "NO_COLOR": "1", "CAIRN_AUTHOR": "Ada <ada@example.com>"})
    out.update(extra)
    return out


def cairn(cwd: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed `cairn` in `cwd` (exit code not checked)."""
    return subprocess.run(
        [CAIRN, *args],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
    )


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd`; its stdout (fails the test on an error)."""
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env(), capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def one_line_error(proc: subprocess.CompletedProcess[str]) -> None:
    """Exit 2 with a single `cairn: error:` line and no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("cairn: error: "), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
