"""Run the real CLI and real git from the importer tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

BIN = Path(sys.executable).parent
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
    out["PYTHONSAFEPATH"] = "1"
    out.update(extra)
    return out


def cairn(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed `cairn` in `cwd`."""
    return subprocess.run(
        [str(BIN / "cairn"), *args], cwd=cwd, env=env(), capture_output=True, text=True
    )


def cairn_json(cwd: Path, *args: str) -> Any:
    proc = cairn(cwd, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def git(cwd: Path, *args: str, date: str | None = None) -> str:
    """Run git with a fixed identity (CI may have none) and, optionally, a fixed date."""
    extra = {"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date} if date else {}
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env(**extra), capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def commit(root: Path, message: str, date: str, files: dict[str, str | None]) -> str:
    """Write `files` (None deletes one), commit them all at `date`, return the new sha."""
    for name, text in files.items():
        path = root / name
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, date=date)
    return git(root, "rev-parse", "HEAD")
