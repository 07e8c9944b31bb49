"""`cairn doctor`: the set-up checks that keep the log trustworthy and travelling with git.

Each check says what it found and how to fix it; `fix=True` applies the safe fixes
(attribute and ignore lines, a partial tail, a stale index). Nothing here edits the log's
content.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cairn import git as gitcmd
from cairn.core.project import Project
from cairn.store.errors import StoreError
from cairn.store.index import INDEX_NAME, read_meta
from cairn.store.init import GITATTRIBUTES_LINE, GITIGNORE
from cairn.store.log import (
    LOCK_NAME,
    LOG_NAME,
    QUARANTINE_NAME,
    LogFile,
    lock_is_free,
    write_lock,
)
from cairn.store.search_index import SEARCH_NAME

__all__ = ["Check", "run_checks"]

OK, WARN, FAIL = "ok", "warn", "fail"
LOCK_WAIT_S = 2.0


@dataclass(slots=True)
class Check:
    """One check's outcome: what was found and, when wrong, how to fix it."""

    name: str
    level: str
    detail: str
    fix: str = ""
    fixed: bool = False

    @property
    def ok(self) -> bool:
        """Warnings are worth reading but do not fail the doctor."""
        return self.level != FAIL

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "name": self.name,
            "level": self.level,
            "ok": self.ok,
            "detail": self.detail,
            "fix": self.fix or None,
            "fixed": self.fixed,
        }


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # through cairn.git: doctor runs in a cloned repository whose config may name
    # programs (core.fsmonitor runs on check-attr's and ls-files' index refresh)
    done = gitcmd.run(root, *args, timeout=30)
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode("utf-8", "replace"), ""
    )


def _in_git(root: Path) -> bool:
    try:
        done = _git(root, "rev-parse", "--is-inside-work-tree")
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"


def _rel(project: Project, path: Path) -> str:
    return os.path.relpath(path, project.root)


def _append_line(path: Path, line: str) -> None:
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    if line in existing.splitlines():
        return
    sep = "" if not existing or existing.endswith("\n") else "\n"
    path.write_text(existing + sep + line + "\n", encoding="utf-8")


def check_log(project: Project, fix: bool) -> Check:
    """The log exists and ends with a whole line."""
    log = LogFile(project.cairn_dir)
    st = log.stat()
    if st is None:
        return Check("log", FAIL, f"{_rel(project, log.path)} is missing", "run `cairn init`")
    if st.st_size:
        with open(log.path, "rb") as fh:
            fh.seek(st.st_size - 1)
            whole = fh.read(1) == b"\n"
        if not whole:
            check = Check(
                "log",
                FAIL,
                "the last line is partial (an interrupted write)",
                f"`cairn doctor --fix` moves it to {QUARANTINE_NAME} (so does the next write)",
            )
            if fix:
                with write_lock(project.cairn_dir):
                    log.repair_tail()
                check.fixed = True
                check.level = OK
            return check
    return Check("log", OK, f"{_rel(project, log.path)} ends with a whole line")


def check_quarantine(project: Project) -> Check:
    """Fragments of interrupted writes are kept for a human to look at."""
    path = project.cairn_dir / QUARANTINE_NAME
    if path.is_file() and path.stat().st_size:
        return Check(
            "quarantine",
            WARN,
            f"{_rel(project, path)} holds {path.stat().st_size} bytes from interrupted writes",
            "read it, re-log anything you still need, then delete the file",
        )
    return Check("quarantine", OK, "no interrupted writes")


def check_merge_driver(project: Project, fix: bool) -> Check:
    """Git merges the log with the union driver, so two branches' decisions both survive."""
    rel = _rel(project, project.cairn_dir / LOG_NAME)
    done = _git(project.root, "check-attr", "merge", "--", rel)
    value = done.stdout.rsplit(":", 1)[-1].strip() if done.returncode == 0 else ""
    if value == "union":
        return Check("merge driver", OK, f"{rel} merges with merge=union")
    check = Check(
        "merge driver",
        FAIL,
        f"{rel} has merge={value or 'unset'}; branches that both log decisions will conflict",
        f"add `{GITATTRIBUTES_LINE}` to {_rel(project, project.cairn_dir / '.gitattributes')}",
    )
    if fix:
        _append_line(project.cairn_dir / ".gitattributes", GITATTRIBUTES_LINE)
        check.fixed = True
        check.level = OK
    return check


_LOCAL_ONLY = (
    INDEX_NAME,
    f"{INDEX_NAME}-wal",
    SEARCH_NAME,
    f"{SEARCH_NAME}-wal",
    LOCK_NAME,
    QUARANTINE_NAME,
)


def check_ignores(project: Project, fix: bool) -> Check:
    """The index, search index, lock and quarantine are local: ignored and untracked. The
    log is not."""
    paths = [_rel(project, project.cairn_dir / n) for n in _LOCAL_ONLY]
    done = _git(project.root, "check-ignore", "--no-index", "--", *paths)
    ignored = set(done.stdout.split())
    missing = [p for p in paths if p not in ignored]
    tracked = _git(project.root, "ls-files", "--", *paths).stdout.split()
    log_rel = _rel(project, project.cairn_dir / LOG_NAME)
    log_ignored = _git(project.root, "check-ignore", "-q", "--no-index", "--", log_rel)
    problems = []
    fixes = []
    if missing:
        problems.append("not git-ignored: " + ", ".join(missing))
        fixes.append(f"add them to {_rel(project, project.cairn_dir / '.gitignore')}")
    if tracked:
        problems.append("committed to git: " + ", ".join(tracked))
        fixes.append("git rm --cached " + " ".join(tracked))
    if log_ignored.returncode == 0:
        problems.append(f"{log_rel} is git-ignored, so decisions never reach your team")
        fixes.append(f"remove the rule that ignores it (`git check-ignore -v {log_rel}`)")
    if not problems:
        done_text = "index, search index, lock and quarantine are ignored; the log is not"
        return Check("git ignores", OK, done_text)
    check = Check("git ignores", FAIL, "; ".join(problems), "; ".join(fixes))
    if fix and missing and not tracked and log_ignored.returncode != 0:
        for line in GITIGNORE.splitlines():
            if line and not line.startswith("#"):
                _append_line(project.cairn_dir / ".gitignore", line)
        check.fixed = True
        check.level = OK
    return check


def _lock_holders(path: Path) -> list[str]:
    """Pids holding a lock on `path`, from /proc/locks (Linux); empty elsewhere."""
    try:
        inode = os.stat(path).st_ino
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return []
    pids = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5].endswith(f":{inode}"):
            pids.append(parts[4])
    return pids


def check_lock(project: Project) -> Check:
    """The lock file is a plain writable file that no process holds for long."""
    path = project.cairn_dir / LOCK_NAME
    if path.is_symlink() or (path.exists() and not path.is_file()):
        return Check(
            "lock",
            FAIL,
            f"{_rel(project, path)} is not a regular file",
            f"remove it (`rm -r {_rel(project, path)}`); writers recreate it",
        )
    if not path.exists():
        return Check("lock", OK, "no lock file yet (the first write creates it)")
    try:
        fd = os.open(path, os.O_RDWR)
    except OSError as exc:
        return Check(
            "lock",
            FAIL,
            f"cannot open {_rel(project, path)} for writing ({exc.strerror})",
            f"fix its permissions (`chmod u+rw {_rel(project, path)}`)",
        )
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while not (free := lock_is_free(fd)) and time.monotonic() <= deadline:
            time.sleep(0.05)
    finally:
        os.close(fd)
    if free:
        return Check("lock", OK, "the write lock is free")
    holders = _lock_holders(path)
    who = f" by pid {', '.join(holders)}" if holders else ""
    return Check(
        "lock",
        FAIL,
        f"the write lock has been held{who} for over {LOCK_WAIT_S:.0f}s",
        "find the stuck process (a hung editor or agent) and stop it; the lock is released "
        "when it exits",
    )


def check_index(project: Project, fix: bool) -> Check:
    """The index is readable and has caught up with the log."""
    path = project.cairn_dir / INDEX_NAME
    log = LogFile(project.cairn_dir)
    st = log.stat()
    if not path.exists():
        check = Check("index", WARN, "no index yet", "any cairn command builds it")
    else:
        try:
            meta = read_meta(project.cairn_dir)
        except StoreError as exc:
            meta = None
            check = Check("index", FAIL, str(exc), "`cairn doctor --fix`")
        if meta is not None:
            recorded = json.loads(meta["stat"]) if "stat" in meta else None
            current = [st.st_size, st.st_mtime_ns, st.st_ino] if st else None
            if recorded == current or (current is not None and current[0] == 0 and not recorded):
                return Check("index", OK, "fresh: it has read the whole log")
            check = Check(
                "index",
                WARN,
                "behind the log (another process or git changed it); the next read catches up",
                "`cairn doctor --fix` or any cairn command",
            )
    if fix and st is not None:
        from cairn.store.store import Store

        Store.open_or_rebuild(project.cairn_dir).close()
        check.fixed = True
        check.level = OK
    return check


def run_checks(project: Project, *, fix: bool = False) -> list[Check]:
    """Every check, in the order a human would fix them."""
    checks = [check_log(project, fix), check_quarantine(project), check_lock(project)]
    if _in_git(project.root):
        checks.append(check_merge_driver(project, fix))
        checks.append(check_ignores(project, fix))
    else:
        checks.append(
            Check(
                "git",
                WARN,
                f"{project.root} is not a git repository: decisions will not travel with the code",
                "`git init` and commit .cairn/",
            )
        )
    checks.append(check_index(project, fix))
    checks.extend(check_integrations(project))
    return checks


def check_integrations(project: Project) -> list[Check]:
    """Each tool `cairn setup` wired: still wired as this Cairn would write it (hooks,
    settings, the copied Claude Code scripts), and able to run `cairn`."""
    import shutil

    from cairn.githooks import is_executable
    from cairn.integrations import INTEGRATIONS, Context, MergeRefused, wired

    ctx = Context.for_project(project.root)
    checks: list[Check] = []
    for integration in INTEGRATIONS:
        if not wired(ctx, integration):
            continue
        name = f"setup: {integration.name}"
        try:
            stale = integration.plan(ctx)
        except MergeRefused as exc:
            checks.append(Check(name, FAIL, str(exc), "fix the file, then `cairn setup`"))
            continue
        if stale:
            files = ", ".join(sorted({_rel(project, c.path) for c in stale}))
            fix = f"`cairn setup --only {integration.name}`"
            checks.append(Check(name, FAIL, f"{files} differ from what setup writes", fix))
            continue
        if integration.needs_cairn_on_path and shutil.which("cairn") is None:
            checks.append(
                Check(
                    name,
                    FAIL,
                    "its config runs `cairn` from PATH, and `cairn` is not on PATH",
                    f"put {ctx.cairn} on PATH (e.g. ln -s it into ~/.local/bin)",
                )
            )
            continue
        if integration.name in ("git-hooks", "husky") and not is_executable(Path(ctx.cairn)):
            checks.append(Check(name, FAIL, f"the hooks run {ctx.cairn}, which cannot run", ""))
            continue
        checks.append(Check(name, OK, integration.what))
    return checks
