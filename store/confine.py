"""Links that lead out of the project are not written through.

A cloned repository can carry `.cairn/decisions.jsonl` as a symbolic link to any file
on the machine (`~/.bashrc`); `cairn log` would then append to that file, and `cairn
redact` would replace the link with a regular file and leave the erased text in the
target. Before the store opens anything, `check_confined` resolves `.cairn/` and every
file Cairn writes in it; a link whose target lies outside the project root is refused
with a message saying which link and what to do. Links that stay inside the project
(a log kept in another folder of the same repository) are followed, and the writers
that replace files (redaction) replace the link's target, never the link.

The check resolves and then opens, so a link swapped in between is not caught: the
threat model (docs/threat-model.md) is accidents and hostile *content*, not a local
attacker racing the process.
"""

from __future__ import annotations

from pathlib import Path

from cairn.store.errors import StoreError

__all__ = ["WRITTEN_FILES", "LinkOutsideProject", "check_confined", "real_path"]

# Every name Cairn creates or rewrites inside `.cairn/`.
WRITTEN_FILES = (
    "decisions.jsonl",
    "decisions.jsonl.quarantine",
    "lock",
    "index.db",
    "index.db-wal",
    "index.db-shm",
    "index.db-journal",
    "index.db-search",
    "index.db-search-wal",
    "index.db-search-shm",
    "index.db-search-journal",
    "drafts",
    ".gitignore",
    ".gitattributes",
)


class LinkOutsideProject(StoreError):
    """A file Cairn would write is a symbolic link to somewhere outside the project."""


def check_confined(cairn_dir: Path) -> None:
    """Raise `LinkOutsideProject` if `.cairn/` or a file Cairn writes in it is a link
    that leaves the project (the folder holding `.cairn/`)."""
    root = cairn_dir.absolute().parent.resolve()
    for path in (cairn_dir, *(cairn_dir / name for name in WRITTEN_FILES)):
        if not path.is_symlink():
            continue
        target = path.resolve()
        if target != root and root not in target.parents:
            raise LinkOutsideProject(
                f"{path} is a symbolic link to {target}, outside the project at {root}; "
                "Cairn does not write through it. Replace the link with a regular file "
                f"(for example `rm {path}` and restore it with `git checkout`), or move "
                "the target into the project"
            )


def real_path(path: Path) -> Path:
    """Where a write to `path` lands: a link (already confined) is replaced at its target."""
    return path.resolve() if path.is_symlink() else path
