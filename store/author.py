"""Who is writing: `--author`, else CAIRN_AUTHOR, else git's user, else $USER."""

from __future__ import annotations

import getpass
import os
import subprocess
from functools import lru_cache
from pathlib import Path

__all__ = ["default_author"]


def default_author(root: Path | None = None) -> str:
    """The author to stamp on an event when the writer did not name one."""
    env = os.environ.get("CAIRN_AUTHOR", "").strip()
    if env:
        return env
    return _git_author(str(root) if root else None) or _user()


@lru_cache(maxsize=8)
def _git_author(root: str | None) -> str:
    values = []
    for key in ("user.name", "user.email"):
        try:
            out = subprocess.run(
                ["git", "config", "--get", key],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        values.append(out.stdout.strip() if out.returncode == 0 else "")
    name, email = values
    if name and email:
        return f"{name} <{email}>"
    return name or email


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"
