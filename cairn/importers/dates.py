"""When a file came into the world: its first commit if git knows it, else its mtime."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from cairn import git as gitcmd
from cairn.importers.base import SourceError, iso
from cairn.importers.git_history import Commit, log_commits


def git_root(path: Path) -> Path | None:
    """The work tree containing `path`, or None outside git (or without git)."""
    where = path if path.is_dir() else path.parent
    try:
        out = gitcmd.run(where, "rev-parse", "--show-toplevel")
    except OSError:
        return None
    text = out.stdout.decode("utf-8", "replace").strip()
    return Path(text).resolve() if out.returncode == 0 else None


def absolute(path: Path) -> Path:
    """`path` made absolute, resolving symlinks only when it is relative (resolve is slow)."""
    return path if path.is_absolute() else path.resolve()


def _by_root(paths: list[Path]) -> dict[Path, dict[str, Path]]:
    """Work tree -> {path relative to it: absolute path} (one `git rev-parse` a folder)."""
    roots: dict[Path, list[Path]] = {}
    by_dir: dict[Path, Path | None] = {}
    for p in paths:
        folder = absolute(p).parent
        if folder not in by_dir:
            by_dir[folder] = git_root(folder)
        root = by_dir[folder]
        if root is not None:
            roots.setdefault(root, []).append(absolute(p))
    return {
        root: {f.relative_to(root).as_posix(): f for f in files if f.is_relative_to(root)}
        for root, files in roots.items()
    }


def _adding_commits(root: Path, wanted: dict[str, Path]) -> dict[Path, Commit]:
    """Absolute path -> the commit that added it, from one `git log` over their folders
    (read as `cairn import git` reads history: NUL-separated, messages by length)."""
    folders = sorted({str(Path(w).parent) for w in wanted})
    try:
        commits = log_commits(root, "--reverse", "--diff-filter=A", "--", *folders)
    except SourceError:
        return {}
    found: dict[Path, Commit] = {}
    for commit in commits:
        for change in commit.changes:
            path = wanted.get(change.path)
            if path is not None and path not in found:
                found[path] = commit
    return found


def added_dates(paths: list[Path]) -> dict[Path, tuple[str, str]]:
    """Absolute path -> (committer date in UTC ISO, author) of the commit that added it.

    One `git log` per work tree, not one per file: a thousand migrations date in one go.
    """
    dates: dict[Path, tuple[str, str]] = {}
    for root, wanted in _by_root(paths).items():
        for path, commit in _adding_commits(root, wanted).items():
            dates[path] = (commit.date, commit.author)
    return dates


def added_messages(paths: list[Path]) -> dict[Path, str]:
    """Absolute path -> the message of the commit that added it (subject and body): the
    reason a migration was written, where people actually wrote it down.

    One `git log` per work tree whatever the number of files.
    """
    messages: dict[Path, str] = {}
    for root, wanted in _by_root(paths).items():
        for path, commit in _adding_commits(root, wanted).items():
            if commit.message:
                messages[path] = commit.message
    return messages


def file_date(path: Path, git_dates: dict[Path, tuple[str, str]]) -> tuple[str, str]:
    """(occurred_at, where it came from) for one file."""
    found = git_dates.get(absolute(path))
    if found:
        return found[0], "git"
    mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    return iso(mtime), "mtime"


UNKNOWN_AUTHOR = "unknown"


def file_author(path: Path, git_dates: dict[Path, tuple[str, str]]) -> str:
    """Who committed the file first (`Name <email>`) when git knows, else `unknown`:
    never the person running the import, who did not write the migration."""
    found = git_dates.get(absolute(path))
    return (found[1] if found else "") or UNKNOWN_AUTHOR
