"""User-supplied git revisions, checked before git sees them.

Any text a user types that reaches git as a revision (`cairn check --diff REV`) is
first proven to be one: `git rev-parse --verify --end-of-options REV^{commit}`. A
value such as `--output=/tmp/x` is then refused instead of being read by git as an
option, and the caller passes git the resolved commit id, never the user's text.
Paths always follow `--`. The audit of every subprocess call is in docs/security.md.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

__all__ = ["RevisionError", "verify_range", "verify_revision"]

_RANGE_SEPARATORS = ("...", "..")


class RevisionError(ValueError):
    """Text that is not a commit in this repository; the message says what to give."""


def verify_revision(root: Path, rev: str, *, what: str = "revision") -> str:
    """The full commit id `rev` names in the repository at `root`, or RevisionError."""
    text = rev.strip()
    if not text or text.startswith("-") or any(c in text for c in "\0\n\r"):
        raise RevisionError(
            f"{what} {rev!r} is not a git revision; give a commit, branch or tag "
            "such as HEAD~1 or origin/main"
        )
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{text}^{{commit}}"],
            cwd=root,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=30,
            check=False,
        )
    except FileNotFoundError:
        raise RevisionError("git is not installed; a revision needs it") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise RevisionError(f"cannot run git to check {what} {rev!r}: {exc}") from None
    sha = proc.stdout.strip()
    if proc.returncode != 0 or not sha:
        raise RevisionError(f"{what} {rev!r} is not a commit in the repository at {root}")
    return sha


def verify_range(root: Path, spec: str, *, what: str = "revision") -> str:
    """`A`, `A..B` or `A...B` with each side resolved to a commit id (an empty side is
    HEAD, as git reads it); RevisionError when a side is not a commit."""
    for sep in _RANGE_SEPARATORS:
        if sep in spec:
            left, right = spec.split(sep, 1)
            return (
                verify_revision(root, left or "HEAD", what=what)
                + sep
                + verify_revision(root, right or "HEAD", what=what)
            )
    return verify_revision(root, spec, what=what)
