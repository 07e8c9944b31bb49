"""When a file came into the world: its first commit if git knows it, else its mtime."""

from __future__ import annotations

import subprocess
from datetime import datetime, timezone
from pathlib import Path

from cairn.importers.base import iso, normalise_time


def git_root(path: Path) -> Path | None:
    """The work tree containing `path`, or None outside git (or without git)."""
    where = path if path.is_dir() else path.parent
    try:
        out = subprocess.run(
            ["git", "-C", str(where), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return None
    return Path(out.stdout.strip()).resolve() if out.returncode == 0 else None


def absolute(path: Path) -> Path:
    """`path` made absolute, resolving symlinks only when it is relative (resolve is slow)."""
    return path if path.is_absolute() else path.resolve()


def added_dates(paths: list[Path]) -> dict[Path, tuple[str, str]]:
    """Absolute path -> (committer date in UTC ISO, author) of the commit that added it.

    One `git log` per work tree, not one per file: a thousand migrations date in one go.
    """
    dates: dict[Path, tuple[str, str]] = {}
    roots: dict[Path, list[Path]] = {}
    by_dir: dict[Path, Path | None] = {}  # one `git rev-parse` per folder, not per file
    for p in paths:
        folder = absolute(p).parent
        if folder not in by_dir:
            by_dir[folder] = git_root(folder)
        root = by_dir[folder]
        if root is not None:
            roots.setdefault(root, []).append(absolute(p))
    for root, files in roots.items():
        wanted = {f.relative_to(root).as_posix(): f for f in files if f.is_relative_to(root)}
        out = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "log",
                "--reverse",
                "--diff-filter=A",
                "--name-only",
                "--format=@@%cI%x1f%an <%ae>",
                "--",
                *sorted({str(Path(w).parent) for w in wanted}),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        current = ("", "")
        for line in out.stdout.split("\n"):
            if line.startswith("@@"):
                date, _, author = line[2:].partition("\x1f")
                current = (normalise_time(date), author)
            elif line and line in wanted and wanted[line] not in dates:
                dates[wanted[line]] = current
    return dates


def added_messages(paths: list[Path]) -> dict[Path, str]:
    """Absolute path -> the message of the commit that added it (subject and body): the
    reason a migration was written, where people actually wrote it down.

    Two `git log` calls per work tree whatever the number of files.
    """
    messages: dict[Path, str] = {}
    roots: dict[Path, list[Path]] = {}
    by_dir: dict[Path, Path | None] = {}
    for p in paths:
        folder = absolute(p).parent
        if folder not in by_dir:
            by_dir[folder] = git_root(folder)
        root = by_dir[folder]
        if root is not None:
            roots.setdefault(root, []).append(absolute(p))
    for root, files in roots.items():
        wanted = {f.relative_to(root).as_posix(): f for f in files if f.is_relative_to(root)}
        folders = sorted({str(Path(w).parent) for w in wanted})
        log = ["log", "--reverse", "--diff-filter=A", "--name-only", "--format=@@%H"]
        added = subprocess.run(
            ["git", "-C", str(root), *log, "--", *folders],
            capture_output=True,
            text=True,
            check=False,
        )
        commit_of: dict[Path, str] = {}
        current = ""
        for line in added.stdout.split("\n"):
            if line.startswith("@@"):
                current = line[2:]
            elif line and line in wanted and wanted[line] not in commit_of:
                commit_of[wanted[line]] = current
        shas = sorted(set(commit_of.values()))
        if not shas:
            continue
        shown = subprocess.run(
            ["git", "-C", str(root), "show", "-s", "--format=%H%x1f%B%x1e", *shas],
            capture_output=True,
            text=True,
            check=False,
        )
        text_of: dict[str, str] = {}
        for record in shown.stdout.split("\x1e"):
            sha, _, body = record.strip("\n").partition("\x1f")
            if sha:
                text_of[sha] = body.strip()
        for path, sha in commit_of.items():
            if text_of.get(sha):
                messages[path] = text_of[sha]
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
