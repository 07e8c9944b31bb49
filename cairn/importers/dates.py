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


MAX_MOVES = 4  # moves of a file followed back to the commit that wrote it


def added_commits(paths: list[Path]) -> dict[Path, Commit]:
    """Absolute path -> the commit that first added it (the one place for this rule):
    its date and author date the file, its message is every migration importer's reason.

    A file moved into its folder (`git mv`, a package renamed) counts from the commit
    that wrote it, followed back through at most MAX_MOVES moves: the move's message
    ("Move wagtail.core to wagtail") says nothing about why the migration exists.
    Within a folder git's default rename detection hid the file's addition altogether
    (an `unknown` author where git knows one), so additions are read without it and
    moves looked for explicitly. A few `git` calls per work tree, whatever the number
    of files.
    """
    found: dict[Path, Commit] = {}
    for root, wanted in _by_root(paths).items():
        for rel, commit in _first_added(root, set(wanted), MAX_MOVES).items():
            found[wanted[rel]] = commit
    return found


def _first_added(root: Path, rels: set[str], moves: int) -> dict[str, Commit]:
    """Repository-relative path -> the commit that wrote it, moves followed."""
    if not rels:
        return {}
    folders = sorted({str(Path(r).parent) for r in rels})
    try:
        commits = log_commits(root, "--reverse", "--no-renames", "--diff-filter=A", "--", *folders)
    except SourceError:
        return {}
    commit_of: dict[str, Commit] = {}
    for commit in commits:
        for change in commit.changes:
            if change.path in rels and change.path not in commit_of:
                commit_of[change.path] = commit
    if moves <= 0 or not commit_of:
        return commit_of
    # Which of those additions were moves: the adding commits again, with rename
    # detection over the whole commit (the old path may be anywhere).
    shas = sorted({c.sha for c in commit_of.values()})
    try:
        shown = log_commits(root, "--no-walk", "-M", "-l50000", "--diff-filter=R", *shas)
    except SourceError:
        return commit_of
    moved: dict[str, str] = {}  # new path -> old path
    for commit in shown:
        for change in commit.changes:
            adder = commit_of.get(change.path)
            if change.old_path and adder is not None and adder.sha == commit.sha:
                moved[change.path] = change.old_path
    earlier = _first_added(root, set(moved.values()), moves - 1)
    for new, old in moved.items():
        if old in earlier:
            commit_of[new] = earlier[old]
    return commit_of


def dated(added: dict[Path, Commit]) -> dict[Path, tuple[str, str]]:
    """path -> (date, author), what `file_date` and `file_author` read."""
    return {p: (c.date, c.author) for p, c in added.items()}


def file_history(paths: list[Path]) -> tuple[dict[Path, Commit], dict[Path, tuple[str, str]]]:
    """The commits that added these files (`added_commits`: their messages are the
    reasons) and, read from them, each file's (date, author) (`dated`)."""
    added = added_commits(paths)
    return added, dated(added)


def added_dates(paths: list[Path]) -> dict[Path, tuple[str, str]]:
    """Absolute path -> (committer date in UTC ISO, author) of the commit that added it."""
    return dated(added_commits(paths))


def commit_reason(added: dict[Path, Commit], path: Path, fallback: str) -> str:
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
