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


def added_dates(paths: list[Path]) -> dict[Path, str]:
    """Resolved path -> committer date (UTC ISO) of the commit that first added it.

    One `git log` per work tree, not one per file: a thousand migrations date in one go.
    """
    dates: dict[Path, str] = {}
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
                "--format=@@%cI",
                "--",
                *sorted({str(Path(w).parent) for w in wanted}),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        current = ""
        for line in out.stdout.splitlines():
            if line.startswith("@@"):
                current = normalise_time(line[2:])
            elif line and line in wanted and wanted[line] not in dates:
                dates[wanted[line]] = current
    return dates


def file_date(path: Path, git_dates: dict[Path, str]) -> tuple[str, str]:
    """(occurred_at, where it came from) for one file."""
    found = git_dates.get(absolute(path))
    if found:
        return found, "git"
    mtime = datetime.fromtimestamp(path.stat().st_mtime, tz=timezone.utc)
    return iso(mtime), "mtime"
