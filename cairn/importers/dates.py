"""When a file came into the world: its first commit if git knows it, else its mtime."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Added:
    """The commit that added a file: the reason a migration was written, and by whom."""

    date: str  # committer date, UTC ISO
    author: str  # `Name <email>`
    message: str  # subject and body


MAX_MOVES = 4  # moves of a file followed back to the commit that wrote it


def added_commits(paths: list[Path]) -> dict[Path, Added]:
    """Absolute path -> the commit that first added it (the one place for this rule).

    A file moved into its folder (`git mv`, a package renamed) counts from the commit
    that wrote it, followed back through at most MAX_MOVES moves: the move's message
    ("Move wagtail.core to wagtail") says nothing about why the migration exists.
    Within a folder git's default rename detection hid the file's addition altogether
    (an `unknown` author where git knows one); renames are therefore looked for
    explicitly. A few `git` calls per work tree, whatever the number of files.
    """
    found: dict[Path, Added] = {}
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
        commit_of = _first_added(root, set(wanted), MAX_MOVES)
        shas = sorted(set(commit_of.values()))
        if not shas:
            continue
        fmt = "--format=%H%x1f%cI%x1f%an <%ae>%x1f%B%x1e"
        shown = _git(root, ["show", "-s", fmt, *shas])
        of_sha: dict[str, Added] = {}
        for record in shown.split("\x1e"):
            parts = record.strip("\n").split("\x1f", 3)
            if len(parts) == 4 and parts[0]:
                sha, date, author, body = parts
                of_sha[sha] = Added(normalise_time(date), author, body.strip())
        for rel, sha in commit_of.items():
            if sha in of_sha:
                found[wanted[rel]] = of_sha[sha]
    return found


def _git(root: Path, args: list[str]) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), "-c", "core.quotePath=false", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout if out.returncode == 0 else ""


def _first_added(root: Path, rels: set[str], moves: int) -> dict[str, str]:
    """Repository-relative path -> sha of the commit that wrote it, moves followed."""
    if not rels:
        return {}
    folders = sorted({str(Path(r).parent) for r in rels})
    log = ["log", "--reverse", "--no-renames", "--diff-filter=A", "--name-only", "--format=@@%H"]
    commit_of: dict[str, str] = {}
    current = ""
    for line in _git(root, [*log, "--", *folders]).split("\n"):
        if line.startswith("@@"):
            current = line[2:]
        elif line in rels and line not in commit_of:
            commit_of[line] = current
    if moves <= 0 or not commit_of:
        return commit_of
    # Which of those additions were moves: one `git show` with rename detection over
    # the adding commits (whole commits: the old path may be anywhere).
    shas = sorted(set(commit_of.values()))
    show = ["show", "-M", "-l50000", "--name-status", "--diff-filter=R", "--format=@@%H", *shas]
    moved: dict[str, str] = {}  # new path -> old path
    current = ""
    for line in _git(root, show).split("\n"):
        if line.startswith("@@"):
            current = line[2:]
        elif line.startswith("R"):
            parts = line.split("\t")
            if len(parts) == 3 and commit_of.get(parts[2]) == current:
                moved[parts[2]] = parts[1]
    earlier = _first_added(root, set(moved.values()), moves - 1)
    for new, old in moved.items():
        if old in earlier:
            commit_of[new] = earlier[old]
    return commit_of


def dated(added: dict[Path, Added]) -> dict[Path, tuple[str, str]]:
    """path -> (date, author), what `file_date` and `file_author` read."""
    return {p: (a.date, a.author) for p, a in added.items()}


def added_dates(paths: list[Path]) -> dict[Path, tuple[str, str]]:
    """Absolute path -> (committer date in UTC ISO, author) of the commit that added it."""
    return dated(added_commits(paths))


def commit_reason(added: dict[Path, Added], path: Path, fallback: str) -> str:
    """Why a migration was written: the subject and body of the commit that added it
    (where people write why; the file's name only says what), else `fallback`."""
    found = added.get(absolute(path))
    return found.message if found is not None and found.message else fallback


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
