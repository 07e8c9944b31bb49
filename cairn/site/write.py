"""Writing the site to disk whole or not at all, and only over a folder an export on
this machine wrote: an export never deletes what it did not write."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["MARKER", "SiteError", "remember", "write_site"]

MARKER = ".cairn-site"  # marks a folder this command wrote, so it may replace it


class SiteError(ValueError):
    """The output folder cannot be used; the message says why and what to do."""


def _records() -> Path:
    """Where this machine remembers the sites it wrote: the user's state folder, which
    no repository can ship (a marker inside the site can be committed by anyone)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "cairn" / "sites"


def _record_path(place: Path) -> Path:
    return _records() / hashlib.sha256(os.fsencode(place)).hexdigest()[:32]


def _identity(info: os.stat_result) -> str:
    # ctime moves when an entry is added to or removed from the folder's top, so a
    # folder someone put a file in after the export is no longer the one we wrote
    return f"{info.st_dev} {info.st_ino} {info.st_ctime_ns}"


def remember(place: Path) -> bool:
    """Record that this machine's export wrote the folder now at `place` (False when
    the state folder cannot be written: the next export then refuses to replace it)."""
    try:
        info = os.lstat(place)
        record = _record_path(place)
        record.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".site.", dir=record.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"{_identity(info)}\n{os.fsdecode(place)}\n")
        os.replace(tmp, record)
    except OSError:
        return False
    return True


def _written_here(place: Path, info: os.stat_result) -> bool:
    """Did an export on this machine write the folder at `place`, as it is now?"""
    try:
        marker = os.lstat(place / MARKER)
        first, _, named = _record_path(place).read_text(encoding="utf-8").partition("\n")
    except (OSError, UnicodeDecodeError):
        return False
    return (
        stat.S_ISREG(marker.st_mode)
        and first == _identity(info)
        and named.rstrip("\n") == os.fsdecode(place)
    )


def write_site(
    files: Mapping[str, str] | Iterable[tuple[str, str]],
    out: Path,
    cairn_dir: Path,
    root: Path | None = None,
) -> Path:
    """Write the site to `out` whole or not at all: built in a fresh folder beside it,
    then swapped in.

    `out` may be missing, an empty folder, or a folder an export on this machine wrote
    and nobody changed since (remembered outside the project: a `.cairn-site` marker
    alone proves nothing, a cloned repository can ship one). Anything else is refused,
    and so is a link, or a target that is, holds or lies in the project's root, `.git`
    or `.cairn/`: an export never deletes what it did not write.
    """
    from cairn.export import UnsafeTarget, refuse_project_target

    try:
        resolved = refuse_project_target(out, root or cairn_dir.parent, cairn_dir)
    except UnsafeTarget as exc:
        raise SiteError(str(exc)) from None
    parent = resolved.parent
    if not parent.is_dir():
        raise SiteError(f"{parent} does not exist; create it first")
    try:
        before: os.stat_result | None = os.lstat(resolved)
    except FileNotFoundError:
        before = None
    if before is not None and stat.S_ISLNK(before.st_mode):
        raise SiteError(
            f"{out} is a symbolic link; give the folder itself (an export never follows "
            "a link to a folder it then replaces)"
        )
    if before is not None and not stat.S_ISDIR(before.st_mode):
        raise SiteError(f"{out} is a file; give a folder (it is created if missing)")
    replaces = False
    if before is not None:
        with os.scandir(resolved) as entries:
            replaces = any(entries)
    if replaces and before is not None and not _written_here(resolved, before):
        raise SiteError(
            f"{out} is not empty and was not written by `cairn export html` on this machine "
            "(a .cairn-site marker alone is not proof); give a new or empty folder"
        )
    # every file is written inside a folder this call just created (mode 0700, so
    # nobody else can plant a link in it), by names the site makes itself
    staging = Path(tempfile.mkdtemp(prefix=f".{resolved.name}.", dir=parent))
    try:
        for name, text in files.items() if isinstance(files, Mapping) else files:
            if name.startswith("/") or ".." in name.split("/"):
                raise SiteError(f"refusing a site file name outside the site: {name!r}")
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        os.chmod(staging, 0o755)
        old = None
        if before is not None:
            old = Path(tempfile.mkdtemp(prefix=f".{resolved.name}.old.", dir=parent))
            old.rmdir()
            resolved.rename(old)
            moved = os.lstat(old)
            if (moved.st_dev, moved.st_ino) != (before.st_dev, before.st_ino):
                # something swapped the folder between the check and the rename: put
                # back what was moved and delete nothing
                old.rename(resolved)
                raise SiteError(f"{out} changed while the site was written; run the export again")
        staging.rename(resolved)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return resolved
