"""`cairn check`: the decision log as a gate for CI, pre-commit and agent hooks.

Exit 1 when the checked change *introduces* an entity with an open verdict (re-adds a
reverted column, re-declares a rejected dependency); exit 0 otherwise. This module
only gathers what to check (files, a git diff, a proposed edit on stdin) and prints
the report: the findings and what blocks come from `cairn.core.gate`, the same rules
the language server's diagnostics and the agent tools use. Agents call this on every
edit, so the heavy imports (store, indexer) happen only once there is something to
check.
"""

from __future__ import annotations

import codecs
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from cairn import git as gitcmd
from cairn.cli._common import (
    CairnError,
    emit_json,
    json_option,
    plural,
    say,
    warn_if_damaged,
)
from cairn.core.gate import (
    EditRefused,
    OutsideProject,
    Report,
    Target,
    changed_lines,
    edit_target,
    refusal,
    relpath_in,
)
from cairn.core.present import finding_line, next_step
from cairn.core.project import Project
from cairn.gitrev import RevisionError, verify_range
from cairn.limits import MAX_FILE_BYTES

if TYPE_CHECKING:
    from cairn.core.session import Session

__all__ = ["changed_lines", "check", "parse_added_lines", "parse_diff", "register"]


def register(group: click.Group) -> None:
    """Add `check` to the root group."""
    group.add_command(check)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--diff",
    "rev",
    metavar="REV",
    help="Check only lines changed since REV (`main`, `HEAD~1`, `A..B`; working tree vs REV).",
)
@click.option("--staged", is_flag=True, help="Check only the lines staged for commit.")
@click.option(
    "--stdin-filename",
    "stdin_name",
    metavar="PATH",
    type=click.Path(path_type=Path),
    help="Read PATH's proposed content from stdin; only lines that differ from PATH on "
    "disk count (agent hooks).",
)
@click.option(
    "--threshold",
    type=click.FloatRange(0.05, 1.0),
    default=None,
    metavar="SHARE",
    help="Share of a revert's lines a change must bring back to count as that change "
    "returning (default 0.6).",
)
@click.option(
    "--strict-removed",
    is_flag=True,
    help="Fail when the change re-introduces an entity whose status is removed "
    "(default: a notice, exit 0).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "sarif", "github", "gitlab"]),
    default=None,
    help="Output: text (default), json (as --json), sarif (SARIF 2.1.0, code scanning), "
    "github (Actions annotations), gitlab (Code Quality JSON).",
)
@json_option
def check(
    paths: tuple[Path, ...],
    rev: str | None,
    staged: bool,
    stdin_name: Path | None,
    threshold: float | None,
    strict_removed: bool,
    fmt: str | None,
    as_json: bool,
) -> None:
    """Fail (exit 1) when the code re-introduces an entity with an open revert or reject.

    \b
    cairn check                           the working tree's changes against HEAD
                                          (staged, unstaged and untracked files)
    cairn check db/migrations/            every symbol in these files counts
    cairn check --staged                  only staged added/changed lines (pre-commit)
    cairn check --diff origin/main        lines changed since a branch (CI)
    cairn check --stdin-filename F < new  a proposed edit of F (agent hooks)
    cairn check --diff origin/main --format github   annotations on a pull request
    """
    if as_json and fmt not in (None, "json"):
        raise CairnError(f"--json and --format {fmt} are exclusive: pick one")
    fmt = "json" if as_json else (fmt or "text")
    if rev is not None and staged:
        raise CairnError("--diff and --staged are exclusive: pick one")
    if stdin_name is not None and (rev is not None or staged or paths):
        raise CairnError("--stdin-filename checks one file from stdin; drop PATHs/--diff/--staged")
    if stdin_name is not None:
        report = check_stdin(stdin_name, sys.stdin.buffer.read(), threshold)
    elif rev is not None or staged:
        report = check_diff(rev, staged, paths, threshold)
    elif not paths:
        report = check_worktree(threshold)
    else:
        report = check_paths(paths, threshold)
    if strict_removed:
        report.make_removed_blocking()
    emit(report, fmt)
    if report.blocking:
        sys.exit(1)


# --- what to check ---------------------------------------------------------------------


def _project() -> Project:
    from cairn.cli._common import current_project

    return current_project()


def _relpath(project: Project, path: Path) -> str:
    try:
        return relpath_in(project, path)
    except OutsideProject as exc:
        raise CairnError(str(exc)) from None


def _readable(rel: str, data: bytes, skipped: list[dict[str, str]] | None) -> str | None:
    """A named or changed file's text, or None (binary or over the size limit). One
    over the limit is named in `skipped`, for the report to say: a file the gate passes
    unread must not pass in silence. It does not fail the gate by itself (generated
    files are often that big; docs/threat-model.md says so)."""
    if len(data) > MAX_FILE_BYTES and skipped is not None:
        reason = f"over the {MAX_FILE_BYTES:,}-byte limit: not checked"
        skipped.append({"file": rel, "reason": reason})
    return _decode(data)


def _decode(data: bytes) -> str | None:
    """Text of a source file, or None for binary and oversized files (the one limit)."""
    from cairn.limits import source_text  # loads the indexer: only with files to read

    return source_text(data)


def _git(args: list[str], cwd: Path) -> str:
    try:
        proc = gitcmd.run(cwd, *args)  # neutralised: the repository's config runs nothing
    except FileNotFoundError:
        raise CairnError("git is not installed; --diff and --staged need it") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace")
        first = (err.strip().splitlines() or ["unknown error"])[0]
        raise CairnError(f"git {args[0]} failed: {first}")
    return proc.stdout.decode("utf-8", "replace")


def _walk(directory: Path) -> list[Path]:
    """Files below a directory: git's view (tracked + untracked, not ignored) when in a repo."""
    try:
        out = subprocess.run(
            gitcmd.argv(
                None, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."
            ),
            cwd=directory,
            capture_output=True,
        )
    except FileNotFoundError:
        out = None
    if out is not None and out.returncode == 0:
        names = sorted({n for n in out.stdout.decode("utf-8", "replace").split("\0") if n})
        return [directory / n for n in names if (directory / n).is_file()]
    found: list[Path] = []
    for path in sorted(directory.rglob("*")):
        parts = path.relative_to(directory).parts
        if path.is_file() and not any(p.startswith(".") for p in parts):
            found.append(path)
    return found


def collect_paths(
    project: Project, paths: tuple[Path, ...], skipped: list[dict[str, str]] | None = None
) -> list[Target]:
    """Every line of the named files (directories are walked); files over the size
    limit are added to `skipped`."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(_walk(path))
        elif path.is_file():
            files.append(path)
        else:
            raise CairnError(f"no such file or directory: {path}")
    targets: dict[str, Target] = {}
    for file in files:
        rel = _relpath(project, file)
        if rel in targets:
            continue
        text = _readable(rel, _read_at_most(file, MAX_FILE_BYTES + 1), skipped)
        if text is not None:
            targets[rel] = Target(rel, text, None)
    return list(targets.values())


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _unquote(name: str) -> str:
    """A path as git prints it: C-quoted when it holds unusual characters."""
    if name.startswith('"') and name.endswith('"'):
        raw = name[1:-1].encode("utf-8")  # octal escapes become bytes; raw UTF-8 stays
        return codecs.escape_decode(raw)[0].decode("utf-8", "replace")
    return name


def parse_added_lines(diff: str) -> dict[str, set[int]]:
    """`git diff -U0` output -> new-side path -> 1-based added/changed line numbers."""
    return parse_diff(diff)[0]


def parse_diff(diff: str) -> tuple[dict[str, set[int]], dict[str, list[str]]]:
    """`git diff -U0` output -> (new-side path -> 1-based added/changed line numbers,
    path -> the text of the lines it removed). A deleted file's removed lines are under
    its old path; a renamed file's under its new one."""
    added: dict[str, set[int]] = {}
    removed: dict[str, list[str]] = {}
    current: str | None = None
    old: str | None = None
    in_header = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            in_header, current, old = True, None, None
        elif in_header and line.startswith("--- "):
            source = _unquote(line[4:].rstrip("\t"))
            old = source[2:] if source.startswith("a/") else None
        elif in_header and line.startswith("+++ "):
            target = _unquote(line[4:].rstrip("\t"))
            current = target[2:] if target.startswith("b/") else None
        elif line.startswith("@@"):
            in_header = False
            match = _HUNK.match(line)
            if match and current is not None:
                start = int(match.group(1))
                count = int(match.group(2)) if match.group(2) is not None else 1
                if count:
                    added.setdefault(current, set()).update(range(start, start + count))
        elif not in_header and line.startswith("-"):
            where = current or old
            if where is not None:
                removed.setdefault(where, []).append(line[1:])
    return added, removed


def _new_side(rev: str | None, staged: bool) -> str | None:
    """The git object prefix holding the new content; None for the working tree."""
    if staged:
        return ":"
    if rev is not None:
        for sep in ("...", ".."):
            if sep in rev:
                right = rev.split(sep, 1)[1]
                return f"{right or 'HEAD'}:"
    return None


def collect_diff(
    project: Project,
    rev: str | None,
    staged: bool,
    paths: tuple[Path, ...],
    skipped: list[dict[str, str]] | None = None,
) -> list[Target]:
    """Added and changed lines of a diff, with each file's new content; files over the
    size limit are added to `skipped`."""
    top = Path(_git(["rev-parse", "--show-toplevel"], Path.cwd()).strip())
    # Deletions too: a file taken out again is a re-removal's lines (`Target.removed`).
    args = ["diff", "-U0", "--no-color", "--no-ext-diff", "-M", "--diff-filter=ACDMRT"]
    args += ["--src-prefix=a/", "--dst-prefix=b/"]
    if staged:
        args.append("--cached")
    if rev is not None:
        # git gets the resolved commit ids, never the user's text (`--output=/tmp/x`).
        try:
            rev = verify_range(top, rev, what="--diff")
        except RevisionError as exc:
            raise CairnError(str(exc)) from None
        args += ["--end-of-options", rev]
    args += ["--", *[str((Path.cwd() / p).resolve()) for p in paths]]
    added, removed = parse_diff(_git(args, top))
    side = _new_side(rev, staged)
    targets: list[Target] = []
    for name in sorted(added.keys() | removed.keys()):
        lines = added.get(name, set())
        taken_out = tuple(removed.get(name, ()))
        absolute = top / name
        try:
            rel = absolute.resolve().relative_to(project.root.resolve()).as_posix()
        except ValueError:
            continue  # a change outside this Cairn project is not ours to judge
        if not lines:
            data = b""  # only lines taken out (a deleted file): no new content to read
        elif side is None:
            data = _read_at_most(absolute, MAX_FILE_BYTES + 1) if absolute.is_file() else b""
        else:
            data = gitcmd.run(top, "show", "--end-of-options", f"{side}{name}").stdout
        text = _readable(rel, data, skipped)
        if text is not None:
            targets.append(Target(rel, text, frozenset(lines), removed=taken_out))
    return _not_the_log(project, targets)


def _not_the_log(project: Project, targets: list[Target]) -> list[Target]:
    """The log itself (`.cairn/`) is Cairn's data, not code to judge: a commit that
    records a decision with the change it explains checks only the change."""
    own = _own_prefix(project)
    return [t for t in targets if not t.relpath.startswith(own)]


def _not_the_log_skipped(project: Project, skipped: list[dict[str, str]]) -> list[dict[str, str]]:
    """The skipped files, less the log's own (a long log is not code left unchecked)."""
    own = _own_prefix(project)
    return [s for s in skipped if not s["file"].startswith(own)]


def _own_prefix(project: Project) -> str:
    return project.cairn_dir.resolve().relative_to(project.root.resolve()).as_posix() + "/"


# --- checking --------------------------------------------------------------------------


def analyse(
    project: Project,
    targets: list[Target],
    threshold: float | None = None,
    session: Session | None = None,
) -> Report:
    """The core's gate over the targets; a damaged or locked log is a one-line error.
    `session`: an open one to reuse (the MCP server's), else the gate opens its own."""
    from cairn.core.gate import check as gate_check
    from cairn.store import StoreError

    try:
        report = gate_check(project, targets, session, threshold=threshold)
    except StoreError as exc:  # do not pass silently
        raise CairnError(refusal(exc)) from None
    warn_if_damaged(report.damage)
    return report


def check_paths(paths: tuple[Path, ...], threshold: float | None = None) -> Report:
    """`cairn check PATH...`."""
    project = _project()
    skipped: list[dict[str, str]] = []
    report = analyse(project, collect_paths(project, paths, skipped), threshold)
    report.skipped = skipped
    return report


def check_diff(
    rev: str | None, staged: bool, paths: tuple[Path, ...], threshold: float | None = None
) -> Report:
    """`cairn check --diff REV` / `--staged`."""
    project = _project()
    skipped: list[dict[str, str]] = []
    report = analyse(project, collect_diff(project, rev, staged, paths, skipped), threshold)
    report.skipped = _not_the_log_skipped(project, skipped)
    return report


def check_worktree(threshold: float | None = None) -> Report:
    """`cairn check` alone: what `git diff HEAD` shows (staged and unstaged), plus
    untracked files in full, since a new migration is usually not staged yet."""
    project = _project()
    try:
        inside = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], cwd=Path.cwd(), capture_output=True, text=True
        )
    except FileNotFoundError:
        inside = None
    if inside is None or inside.returncode != 0:
        raise CairnError(
            "nothing to check: not in a git repository; give PATHs, --diff REV, --staged "
            "or --stdin-filename"
        )
    top = Path(inside.stdout.strip())
    has_head = (
        subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"], cwd=top, capture_output=True
        ).returncode
        == 0
    )
    skipped: list[dict[str, str]] = []
    targets = collect_diff(project, "HEAD", False, (), skipped) if has_head else []
    seen = {t.relpath for t in targets}
    # Before the first commit everything tracked is new as well.
    listing = ["ls-files", "-z", "--others", "--exclude-standard"]
    if not has_head:
        listing.append("--cached")
    names = [n for n in _git([*listing, "--", "."], top).split("\0") if n]
    for name in sorted(set(names)):
        absolute = top / name
        if not absolute.is_file():
            continue
        try:
            rel = absolute.resolve().relative_to(project.root.resolve()).as_posix()
        except ValueError:
            continue
        if rel in seen:
            continue
        text = _readable(rel, _read_at_most(absolute, MAX_FILE_BYTES + 1), skipped)
        if text is not None:
            targets.append(Target(rel, text, None))
    report = analyse(project, _not_the_log(project, targets), threshold)
    report.skipped = _not_the_log_skipped(project, skipped)
    return report


def check_stdin(
    name: Path,
    data: bytes,
    threshold: float | None = None,
    project: Project | None = None,
    session: Session | None = None,
) -> Report:
    """`cairn check --stdin-filename PATH`: a proposed edit against the file on disk
    (also the MCP `cairn_check` tool, which passes the project and session it serves)."""
    project = project or _project()
    try:
        target = edit_target(project, _relpath(project, name), data)
    except EditRefused as exc:  # the gate fails closed: refused, never passed unchecked
        raise CairnError(str(exc)) from None
    return analyse(project, [target], threshold, session)


def _repo_prefix() -> str:
    """The project's folder within its git repository ("" at the top, "sub/dir/"):
    CI systems place findings by repository-relative path."""
    project = _project()
    try:
        proc = gitcmd.run(project.root, "rev-parse", "--show-prefix")
    except OSError:
        return ""
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""


def _read_at_most(path: Path, limit: int) -> bytes:
    """Up to `limit` bytes of a file (a file growing meanwhile cannot exhaust memory)."""
    with open(path, "rb") as handle:
        return handle.read(limit)


# --- output ----------------------------------------------------------------------------


def emit(report: Report, fmt: str) -> None:
    """A compiler-style report for people, one JSON document for machines, or a CI
    system's own format (`cairn.core.ci_formats`)."""
    if fmt == "json":
        emit_json(report.to_dict())
        return
    if fmt in ("sarif", "github", "gitlab"):
        from importlib.metadata import version

        from cairn.core.ci_formats import render

        text = render(fmt, report.findings, version("cairn-lsp"), _repo_prefix())
        if text:
            click.echo(text)
        if fmt != "github":
            return  # a document: nothing else on stdout
    for f in report.findings:
        say(finding_line(f))
    for s in report.skipped:
        say(f"{s['file']}: skipped: {s['reason']}")
    files = plural(report.files_checked, "file")
    unread = f" ({plural(len(report.skipped), 'file')} skipped, named above)"
    unread = unread if report.skipped else ""
    blocking = report.blocking
    if not blocking:
        extra = f" ({len(report.findings)} informational)" if report.findings else ""
        say(f"cairn check: ok, {files} checked{extra}{unread}")
        return
    entities = sorted({f["entity"] for f in blocking})
    say(
        f"cairn check: {plural(len(blocking), 'blocking finding')} in {files}{unread}: "
        f"the change re-introduces {', '.join(entities)}."
    )
    say(next_step(blocking))
