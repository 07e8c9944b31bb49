"""Finding the project a command or a workspace folder belongs to.

A project is the nearest directory, walking up from where you stand, that holds a
`.cairn/` folder. `CAIRN_DIR` names the `.cairn/` folder explicitly. There is no
global fallback: outside a project, callers get `ProjectNotFound` and say so.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

CAIRN_DIRNAME = ".cairn"


class ProjectNotFound(LookupError):
    """No `.cairn/` folder here or above; the message says how to create one."""


@dataclass(frozen=True, slots=True)
class Project:
    """A repository root and its `.cairn/` folder."""

    root: Path
    cairn_dir: Path


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


def find_project(start: Path | None = None, *, env: dict[str, str] | None = None) -> Project:
    """The project containing `start` (default: the current directory)."""
    environ = os.environ if env is None else env
    override = environ.get("CAIRN_DIR")
    if override:
        cairn_dir = Path(override).expanduser().resolve()
        if not cairn_dir.is_dir():
            raise ProjectNotFound(
                f"CAIRN_DIR={override} is not a directory; point it at a project's .cairn/ "
                "folder or unset it"
            )
        check_cairn_dir(cairn_dir, override)
        return Project(root=cairn_dir.parent, cairn_dir=cairn_dir)
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / CAIRN_DIRNAME
        if candidate.is_dir():
            return Project(root=directory, cairn_dir=candidate)
    raise ProjectNotFound(
        f"not inside a Cairn project (no {CAIRN_DIRNAME}/ in {here} or any parent); "
        "run `cairn init` at the repository root, or set CAIRN_DIR"
    )
