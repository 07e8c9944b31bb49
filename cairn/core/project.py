"""Finding the project a command, a workspace folder or an open document belongs to.

A project is the nearest directory, walking up from where you stand, that holds a
`.cairn/` folder. `CAIRN_DIR` names the `.cairn/` folder explicitly, for the CLI and
the language server alike. There is no global fallback: outside a project, callers
get `ProjectNotFound` (or None from `ProjectFinder`) and say so.

There is one walk (`_walk`); `find_project` asks it once, `ProjectFinder` (the
language server's, which asks for every opened file) remembers its answers per
directory.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

CAIRN_DIRNAME = ".cairn"
LOG_NAME = "decisions.jsonl"


class ProjectNotFound(LookupError):
    """No `.cairn/` folder here or above; the message says how to create one."""


@dataclass(frozen=True, slots=True)
class Project:
    """A repository root and its `.cairn/` folder."""

    root: Path
    cairn_dir: Path

    @property
    def log(self) -> Path:
        """The decision log (`decisions.jsonl`)."""
        return self.cairn_dir / LOG_NAME

    @property
    def drafts(self) -> Path:
        """Where the language server writes decision drafts."""
        return self.cairn_dir / "drafts"

    @property
    def queries(self) -> Path:
        """The user's tree-sitter queries (`<language>.scm`), run after the built-in ones."""
        return self.cairn_dir / "queries"

    def relpath(self, path: Path) -> str | None:
        """`path` relative to the root in POSIX form, or None when it lies outside."""
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None


def find_project(start: Path | None = None, *, env: Mapping[str, str] | None = None) -> Project:
    """The project containing `start` (default: the current directory)."""
    override = _override(env)
    if override is not None:
        return override
    here = (start or Path.cwd()).resolve()
    found = _walk(here, {})
    if found is None:
        raise ProjectNotFound(
            f"not inside a Cairn project (no {CAIRN_DIRNAME}/ in {here} or any parent); "
            "run `cairn init` at the repository root, or set CAIRN_DIR"
        )
    return found


class ProjectFinder:
    """The project of any path, remembered per directory (the language server's view).

    `CAIRN_DIR`, read once when the finder is made, wins over the walk exactly as in
    `find_project`; when it names no directory, `problem` says so and no path has a
    project (the CLI refuses to run in that case; a server keeps serving).
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self._by_dir: dict[Path, Project | None] = {}
        self.problem: str | None = None
        self._override: Project | None = None
        self._pinned = False
        try:
            self._override = _override(env)
            self._pinned = self._override is not None
        except ProjectNotFound as exc:
            self.problem = str(exc)
            self._pinned = True

    def for_path(self, path: Path) -> Project | None:
        """The project whose `.cairn/` is nearest above `path`, if any."""
        if self._pinned:
            return self._override
        start = path if path.is_dir() else path.parent
        return _walk(start, self._by_dir)

    def forget(self) -> None:
        """Drop what was remembered (a `.cairn/` folder appeared or vanished)."""
        self._by_dir.clear()


def _override(env: Mapping[str, str] | None) -> Project | None:
    """The project `CAIRN_DIR` names, None when unset; ProjectNotFound when it is wrong."""
    environ = os.environ if env is None else env
    override = environ.get("CAIRN_DIR")
    if not override:
        return None
    cairn_dir = Path(override).expanduser().resolve()
    if not cairn_dir.is_dir():
        raise ProjectNotFound(
            f"CAIRN_DIR={override} is not a directory; point it at a project's .cairn/ "
            "folder or unset it"
        )
    check_cairn_dir(cairn_dir, override)
    return Project(root=cairn_dir.parent, cairn_dir=cairn_dir)


def check_cairn_dir(cairn_dir: Path, given: str) -> None:
    """`CAIRN_DIR` must name a `.cairn/` folder: one holding a log, or an empty one
    named `.cairn`. A project root (or any other folder) would silently get a second log."""
    if (cairn_dir / "decisions.jsonl").is_file():
        return
    if cairn_dir.name == CAIRN_DIRNAME and not any(cairn_dir.iterdir()):
        return
    expected = cairn_dir / CAIRN_DIRNAME
    hint = (
        f"set CAIRN_DIR={expected}"
        if expected.is_dir()
        else f"point it at a project's {CAIRN_DIRNAME}/ folder (e.g. {expected}) or unset it"
    )
    raise ProjectNotFound(
        f"CAIRN_DIR={given} is not a Cairn folder (no decisions.jsonl in it, and it is not an "
        f"empty folder named {CAIRN_DIRNAME}); {hint}"
    )


def _walk(directory: Path, seen: dict[Path, Project | None]) -> Project | None:
    """The one walk: `directory` and its parents, nearest `.cairn/` first."""
    visited: list[Path] = []
    found: Project | None = None
    for current in (directory, *directory.parents):
        if current in seen:
            found = seen[current]
            break
        visited.append(current)
        candidate = current / CAIRN_DIRNAME
        if candidate.is_dir():
            found = Project(root=current, cairn_dir=candidate)
            break
    for current in visited:
        seen[current] = found
    return found
