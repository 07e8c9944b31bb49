"""The real CLI and real git, run as a user would, for every test that drives them
(the importer, safety and hostile-input tests): one identity, one environment."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from cairn.testing.gitenv import isolated_env

BIN = Path(sys.executable).parent
CAIRN = str(BIN / "cairn")


def env(**extra: str) -> dict[str, str]:
    """`isolated_env` (a fixed git identity, none of the machine's settings), with
    Cairn's author fixed too and no colour; `extra` may override any of them."""
    fixed = {"PYTHONSAFEPATH": "1", "NO_COLOR": "1", "CAIRN_AUTHOR": "Ada <ada@example.com>"}
    return isolated_env(**(fixed | extra))


def cairn(
    cwd: Path, *args: str, stdin: str | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run the installed `cairn` in `cwd` (exit code not checked)."""
    return subprocess.run(
        [CAIRN, *args],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        input=stdin,
        timeout=timeout,
    )


def cairn_json(cwd: Path, *args: str) -> Any:
    """`cairn ARGS --json` in `cwd`, which must succeed; its parsed output."""
    proc = cairn(cwd, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def git(cwd: Path, *args: str, date: str | None = None, stdin: str | None = None) -> str:
    """Run git in `cwd` (optionally at a fixed date); its stripped stdout. A failure
    fails the test."""
    extra = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {}
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=env(**extra),
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout.strip()


def commit(
    root: Path, message: str, date: str, files: dict[str, str | None], *, verbatim: bool = False
) -> str:
    """Write `files` (None deletes one), commit them all at `date`, return the new sha.
    `verbatim` keeps the message byte for byte (git otherwise tidies its whitespace)."""
    for name, text in files.items():
        path = root / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "add", "-A")
    cleanup = "--cleanup=verbatim" if verbatim else "--cleanup=strip"
    git(root, "commit", "-q", cleanup, "-F", "-", date=date, stdin=message)
    return git(root, "rev-parse", "HEAD")


def one_line_error(proc: subprocess.CompletedProcess[str]) -> None:
    """Exit 2 with a single `cairn: error:` line and no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("cairn: error: "), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def check_diff(root: Path) -> tuple[int, dict]:
    """`cairn check --diff HEAD --json` in `root`: its exit code (0 or 1) and report."""
    proc = cairn(root, "check", "--diff", "HEAD", "--json")
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def blocking(report: dict) -> list[dict]:
    """The findings of a `cairn check` report that block."""
    return [f for f in report["findings"] if f["blocking"]]
