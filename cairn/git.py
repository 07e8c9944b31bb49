"""The one way Cairn runs git on a repository: the repository's own config runs nothing.

A cloned repository's `.git/config` and `.gitattributes` can name programs git runs
while it reads: `core.fsmonitor` on every index refresh (`git diff`, `git status`),
`diff.external` and `diff.<driver>.command` for a diff, `diff.<driver>.textconv` for a
file's text, `filter.<driver>.clean` when a working file is compared, `gpg.program`
when a log shows signatures. `cairn import git`, `cairn digest` (the SessionStart hook
runs it) and `cairn check --diff` read history only; every call goes through `argv`,
which switches those off on the command line, where the repository cannot undo it.

Output a name can appear in is read with `-z` by the callers: a path is then bytes up
to a NUL, never C-quoted, whatever quotes, tabs or newlines it holds.
"""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path

__all__ = ["NEUTRAL_CONFIG", "argv", "run"]

NEUTRAL_CONFIG: tuple[str, ...] = (
    "-c",
    "core.fsmonitor=",
    "-c",
    "diff.external=",
    "-c",
    "log.showSignature=false",
    "-c",
    "core.quotePath=false",
)
# Subcommands that may render a diff or a blob's text: they take the switches that turn
# off external diff programs and textconv filters.
_DIFFING = frozenset({"log", "show", "diff", "diff-tree", "diff-index", "diff-files"})


def argv(root: Path | None, *args: str) -> list[str]:
    """The command line for `git ARGS...` in `root` (None: the current directory)."""
    head = ["git"]
    if root is not None:
        head += ["-C", str(root)]
    head += NEUTRAL_CONFIG
    head += _filters_off(str(root) if root is not None else ".")
    if args and args[0] in _DIFFING:
        return [*head, args[0], "--no-textconv", "--no-ext-diff", *args[1:]]
    return [*head, *args]


def run(
    root: Path | None,
    *args: str,
    timeout: float | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git neutralised; raises OSError when git cannot be started."""
    return subprocess.run(
        argv(root, *args), capture_output=True, check=False, timeout=timeout, input=stdin
    )


@lru_cache(maxsize=64)
def _filters_off(root: str) -> tuple[str, ...]:
    """`-c` switches emptying every clean, smudge and process filter the repository's
    config defines (git has no switch for all of them; an empty command means none).
    Reading config runs nothing, so asking git for the names is safe."""
    try:
        out = subprocess.run(
            ["git", "-C", root, "config", "--null", "--name-only", "--get-regexp", r"^filter\."],
            capture_output=True,
            check=False,
            timeout=30,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ()
    switches: list[str] = []
    drivers = {
        name.rpartition(b".")[0].decode("utf-8", "surrogateescape")
        for name in out.split(b"\0")
        if name.count(b".") >= 2
    }
    for driver in sorted(drivers):
        for key in ("clean", "smudge", "process"):
            switches += ["-c", f"{driver}.{key}="]
        switches += ["-c", f"{driver}.required=false"]
    return tuple(switches)
