"""Cairn's blocks in plain git hooks (`.git/hooks/pre-commit`, `post-commit`).

A hook may already hold the user's own commands (or another tool's), so Cairn never
owns the file: it writes one block between marker lines, replaces only that block on
a later run, and appends it to a hook that exists. The block calls `cairn` by its full
path, since a commit from a GUI client or a shell without the venv has another PATH.

- pre-commit: `cairn check --staged`; fails closed: when that `cairn` cannot run, the
  commit stops with exit 2 and says what to fix (re-run `cairn setup`).
- post-commit: `cairn link-commit HEAD` (cairn.core.commits); a commit cannot be
  undone from here, so a failure only says how to link by hand.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import sys
from pathlib import Path

from cairn import git as gitcmd

__all__ = ["BEGIN", "END", "block", "cairn_executable", "hook_file", "merged", "read_block"]

BEGIN = "# >>> cairn (written by `cairn setup`; edit outside these lines) >>>"
END = "# <<< cairn <<<"


def cairn_executable() -> str:
    """The full path of the `cairn` that is running (else the one on PATH). A symlink
    is kept as it is: re-pointing `~/.local/bin/cairn` re-points the hooks too."""
    here = Path(sys.argv[0])
    if here.name == "cairn" and here.is_file():
        return str(here.absolute())
    found = shutil.which("cairn")
    if found:
        return str(Path(found).absolute())
    # `python -m cairn`: the console script beside this interpreter
    return str(Path(sys.executable).parent / "cairn")


def block(hook: str, cairn: str) -> str:
    """Cairn's block for the hook `hook` (pre-commit or post-commit). Its messages hold
    no backquote: inside the shell's double quotes one would run a command."""
    exe = shlex.quote(cairn)
    missing = (
        f'echo "cairn: {hook} hook: {cairn} cannot run; reinstall Cairn and run '
        f'cairn setup again (see its README, Install)" >&2'
    )
    if hook == "pre-commit":
        body = [
            f"if [ ! -x {exe} ]; then",
            f"  {missing}",
            "  exit 2",
            "fi",
            f"{exe} check --staged || exit $?",
        ]
    elif hook == "post-commit":
        body = [
            f"if [ -x {exe} ]; then",
            f"  {exe} link-commit --quiet HEAD || echo \"cairn: link this commit's decisions "
            'with: cairn link-commit HEAD" >&2',
            "else",
            f"  {missing}",
            "fi",
        ]
    else:
        raise ValueError(f"no Cairn block for the {hook} hook")
    return "\n".join([BEGIN, *body, END]) + "\n"


def read_block(text: str) -> str | None:
    """The Cairn block in a hook's text (markers included), or None."""
    start = text.find(BEGIN)
    if start < 0:
        return None
    end = text.find(END, start)
    if end < 0:
        return None
    stop = end + len(END)
    if text[stop : stop + 1] == "\n":
        stop += 1
    return text[start:stop]


def merged(existing: str | None, new_block: str) -> str:
    """The hook's text with Cairn's block in it: the user's lines kept byte for byte."""
    if existing is None or not existing.strip():
        return "#!/bin/sh\n" + new_block
    current = read_block(existing)
    if current is not None:
        return existing.replace(current, new_block, 1)
    sep = "" if existing.endswith("\n") else "\n"
    return existing + sep + new_block


def hook_file(root: Path, hook: str) -> Path | None:
    """Where git runs the hook `hook` for the repository at `root` (it follows
    `core.hooksPath` and worktrees), or None outside a repository."""
    try:
        proc = gitcmd.run(root, "rev-parse", "--git-path", f"hooks/{hook}")
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    path = Path(proc.stdout.decode("utf-8", "replace").strip())
    return path if path.is_absolute() else (root / path)


def make_executable(path: Path) -> None:
    """chmod +x for whoever may read it (git skips a hook that is not executable)."""
    mode = path.stat().st_mode
    path.chmod(mode | ((mode & 0o444) >> 2) | stat.S_IXUSR)


def is_executable(path: Path) -> bool:
    return os.access(path, os.X_OK)
