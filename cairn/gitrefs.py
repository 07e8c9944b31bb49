"""Git lookups the store does not make itself: which branches still hold a log line, and
who the writer is (git's user) when nobody said."""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from cairn import git as gitcmd
from cairn.store.author import AuthorLookup
from cairn.store.log import LOG_NAME

if TYPE_CHECKING:  # verify's modules are not needed to open a project (the server's start)
    from cairn.store.verify import RefsHolding

__all__ = ["git_author", "refs_holding"]


def refs_holding(cairn_dir: Path) -> RefsHolding:
    """`verify`'s question for this project: which of these ids does some branch's log
    hold ({id: branch})? A head gone from the working log but on another branch means a
    branch switch, not a truncation."""

    def lookup(ids: list[str]) -> dict[str, str]:
        return _on_other_refs(cairn_dir, ids)

    return lookup


def _on_other_refs(cairn_dir: Path, ids: list[str]) -> dict[str, str]:
    root = cairn_dir.parent
    try:
        refs = (
            gitcmd.run(
                root,
                "for-each-ref",
                "--format=%(refname:short)",
                "refs/heads",
                "refs/remotes",
                timeout=30,
            )
            .stdout.decode("utf-8", "replace")
            .split()
        )
        if not refs or not ids:
            return {}
        args = ["grep", "-F", "-o", *(x for i in ids for x in ("-e", i)), *refs]
        found = (
            gitcmd.run(root, *args, "--", f"{cairn_dir.name}/{LOG_NAME}", timeout=60)
            .stdout.decode("utf-8", "replace")
            .splitlines()
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    where: dict[str, str] = {}
    for line in found:
        ref, _, rest = line.partition(":")
        where.setdefault(rest.rsplit(":", 1)[-1], ref)
    return where


def git_author(root: Path) -> AuthorLookup:
    """The store's author lookup for this project: git's `user.name <user.email>` in
    `root` (asked once, when a draft without an author is written), or ""."""

    def lookup() -> str:
        return _git_author(str(root))

    return lookup


@lru_cache(maxsize=8)
def _git_author(root: str) -> str:
    values = []
    for key in ("user.name", "user.email"):
        try:
            out = gitcmd.run(Path(root), "config", "--get", key, timeout=5)
        except (OSError, subprocess.SubprocessError):
            return ""
        values.append(out.stdout.decode("utf-8", "replace").strip() if out.returncode == 0 else "")
    name, email = values
    if name and email:
        return f"{name} <{email}>"
    return name or email
