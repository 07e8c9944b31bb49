"""`cairn check`: the decision log as a gate for CI, pre-commit and agent hooks.

Exit 1 when the checked change *introduces* an entity with an open verdict (re-adds a
reverted column, re-declares a rejected dependency); exit 0 otherwise. Findings come
from `cairn.findings`, the same place the language server's diagnostics come from.
Agents call this on every edit, so the heavy imports (store, indexer) happen only
once there is something to check.
"""

from __future__ import annotations

import codecs
import difflib
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from cairn.cli._common import (
    CairnError,
    emit_json,
    json_option,
    plural,
    say,
    warn_if_damaged,
)
from cairn.gitrev import RevisionError, verify_range

if TYPE_CHECKING:
    from cairn.project import Project

MAX_FILE_BYTES = 4_000_000  # the language server's default limit; larger files are generated


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
@json_option
def check(
    paths: tuple[Path, ...],
    rev: str | None,
    staged: bool,
    stdin_name: Path | None,
    threshold: float | None,
    strict_removed: bool,
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
    """
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
    emit(report, as_json)
    if report.blocking:
        sys.exit(1)


# --- what to check ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Target:
    """One file's new content and the 1-based lines that count (None: every line)."""

    relpath: str
    text: str
    lines: frozenset[int] | None


@dataclass(slots=True)
class Report:
    """What `check` found, in file order."""

    files_checked: int
    findings: list[dict[str, Any]] = field(default_factory=list)

    def make_removed_blocking(self) -> None:
        """`--strict-removed`: re-introducing a removed entity fails the gate too."""
        for f in self.findings:
            if f["kind"] == "removed" and f["role"] == "introduce":
                f["blocking"], f["severity"] = True, "error"

    @property
    def blocking(self) -> list[dict[str, Any]]:
        """Findings that fail the gate."""
        return [f for f in self.findings if f["blocking"]]


def _project() -> Project:
    from cairn.cli._common import current_project

    return current_project()


def _relpath(project: Project, path: Path) -> str:
    absolute = (Path.cwd() / path).resolve() if not path.is_absolute() else path.resolve()
    try:
        return absolute.relative_to(project.root.resolve()).as_posix()
    except ValueError:
        raise CairnError(f"{path} is outside the project at {project.root}") from None


def _decode(data: bytes) -> str | None:
    """Text of a source file, or None for binary and oversized files (nothing to index)."""
    if len(data) > MAX_FILE_BYTES or b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def _git(args: list[str], cwd: Path) -> str:
    try:
        proc = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
    except FileNotFoundError:
        raise CairnError("git is not installed; --diff and --staged need it") from None
    if proc.returncode != 0:
        first = (proc.stderr.strip().splitlines() or ["unknown error"])[0]
        raise CairnError(f"git {args[0]} failed: {first}")
    return proc.stdout


def _walk(directory: Path) -> list[Path]:
    """Files below a directory: git's view (tracked + untracked, not ignored) when in a repo."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
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


def collect_paths(project: Project, paths: tuple[Path, ...]) -> list[Target]:
    """Every line of the named files (directories are walked)."""
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
        text = _decode(file.read_bytes())
        if text is not None and rel not in targets:
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
    added: dict[str, set[int]] = {}
    current: str | None = None
    in_header = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            in_header, current = True, None
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
    return added


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
    project: Project, rev: str | None, staged: bool, paths: tuple[Path, ...]
) -> list[Target]:
    """Added and changed lines of a diff, with each file's new content."""
    top = Path(_git(["rev-parse", "--show-toplevel"], Path.cwd()).strip())
    args = ["diff", "-U0", "--no-color", "--no-ext-diff", "-M", "--diff-filter=ACMRT"]
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
    added = parse_added_lines(_git(args, top))
    side = _new_side(rev, staged)
    targets: list[Target] = []
    for name, lines in sorted(added.items()):
        absolute = top / name
        try:
            rel = absolute.resolve().relative_to(project.root.resolve()).as_posix()
        except ValueError:
            continue  # a change outside this Cairn project is not ours to judge
        if side is None:
            data = absolute.read_bytes() if absolute.is_file() else b""
        else:
            data = subprocess.run(
                ["git", "show", "--end-of-options", f"{side}{name}"], cwd=top, capture_output=True
            ).stdout
        text = _decode(data)
        if text is not None:
            targets.append(Target(rel, text, frozenset(lines)))
    return _not_the_log(project, targets)


def _not_the_log(project: Project, targets: list[Target]) -> list[Target]:
    """The log itself (`.cairn/`) is Cairn's data, not code to judge: a commit that
    records a decision with the change it explains checks only the change."""
    own = project.cairn_dir.resolve().relative_to(project.root.resolve()).as_posix() + "/"
    return [t for t in targets if not t.relpath.startswith(own)]


def changed_lines(old: str, new: str) -> frozenset[int]:
    """1-based lines of `new` that are inserted or replaced relative to `old`."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    lines: set[int] = set()
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "insert"):
            lines.update(range(j1 + 1, j2 + 1))
    return frozenset(lines)


# --- checking --------------------------------------------------------------------------


def _start(rng: Any) -> tuple[int, int]:
    """(line, character) of a range's start, 0-based, whatever shape the indexer used."""
    if hasattr(rng, "start_line"):
        return rng.start_line, rng.start_character
    if hasattr(rng, "start"):
        return rng.start.line, rng.start.character
    return rng["start"]["line"], rng["start"]["character"]


def _end(rng: Any) -> tuple[int, int]:
    if hasattr(rng, "end_line"):
        return rng.end_line, rng.end_character
    if hasattr(rng, "end"):
        return rng.end.line, rng.end.character
    return rng["end"]["line"], rng["end"]["character"]


def analyse(project: Project, targets: list[Target], threshold: float | None = None) -> Report:
    """Index each target, keep symbols on counted lines, turn them into findings.

    Three things are found: a counted line that *names* an entity with an open verdict
    (the gate: it re-introduces it), a changed line inside such an entity (shown, not
    blocking), and added lines that bring back most of what one revert took out
    (`cairn.fingerprints`; blocking, wherever they land).
    """
    from dataclasses import replace

    from cairn.findings import FindingKind, findings_for, latest_removal, removed
    from cairn.fingerprints import bring_back_findings
    from cairn.indexer import Role, index_text
    from cairn.indexer.enclosing import innermost_symbol

    per_file: list[tuple[Target, list[Any], list[Any]]] = []
    entities: set[str] = set()
    for target in targets:
        all_symbols = index_text(target.text, target.relpath)
        symbols = [
            s
            for s in all_symbols
            if target.lines is None or _start(s.name_range)[0] + 1 in target.lines
        ]
        if target.lines is not None:
            # A change inside an entity's body is history of that entity: shown (as a
            # reference), never blocking. A whole file already names every entity.
            named = {s.entity for s in symbols}
            enclosing: dict[str, Any] = {}
            for number in sorted(target.lines):
                around = innermost_symbol(all_symbols, number - 1)
                if around is not None and around.entity not in named:
                    enclosing.setdefault(around.entity, around)
            symbols += [replace(s, role=Role.REFERENCE) for s in enclosing.values()]
        per_file.append((target, symbols, all_symbols))
        entities.update(s.entity for s in symbols)
    report = Report(files_checked=len(targets))
    if not targets:
        return report
    from cairn.store import Store, StoreError

    try:
        with Store.open(project.cairn_dir) as store:
            warn_if_damaged(store)
            statuses = store.status_many(sorted(entities)) if entities else {}
            backs = _bring_backs(store, per_file, threshold)
            removals = {e: latest_removal(store.history(e)) for e in removed(statuses)}
    except StoreError as exc:  # a damaged or locked log: say so, do not pass silently
        raise CairnError(f"cannot read the decision log: {exc}") from None
    for target, symbols, _all in per_file:
        for finding in findings_for(symbols, statuses, removals=removals):
            verdict = _verdict(statuses.get(finding.entity), finding.verdict_id)
            quoted = verdict or removals.get(finding.entity)
            line, col = _start(finding.name_range)
            end_line, end_col = _end(finding.name_range)
            blocking = finding.role == "introduce" and finding.kind not in (
                FindingKind.REVIEW,
                FindingKind.REMOVED,
            )
            # One vocabulary: what fails the gate is an error in text and JSON alike.
            severity = "error" if blocking else finding.severity.value
            report.findings.append(
                {
                    "file": target.relpath,
                    "line": line + 1,
                    "column": col + 1,
                    "end_line": end_line + 1,
                    "end_column": end_col + 1,
                    "entity": finding.entity,
                    "role": finding.role,
                    "kind": finding.kind.value,
                    "severity": severity,
                    "blocking": blocking,
                    "message": finding.message,
                    "verdict_id": finding.verdict_id,
                    "verdict_types": finding.data.get("verdict_types", []),
                    "reasoning": getattr(quoted, "reasoning", None),
                    "alternative": getattr(verdict, "alternative", None),
                }
            )
    for finding in bring_back_findings(backs):
        rng = finding.name_range
        report.findings.append(
            {
                "file": finding.data["file"],
                "line": rng.start_line + 1,
                "column": 1,
                "end_line": rng.end_line + 1,
                "end_column": rng.end_character + 1,
                "entity": finding.entity,
                "role": finding.role,
                "kind": finding.kind.value,
                "severity": "error",
                "blocking": True,
                "message": finding.message,
                "verdict_id": finding.verdict_id,
                "verdict_types": ["revert"],
                "reasoning": None,
                "alternative": None,
                "lines": [n + 1 for n in finding.data["lines"]],
                "hits": finding.data["hits"],
                "total": finding.data["total"],
            }
        )
    return report


def _bring_backs(
    store: Any, per_file: list[tuple[Target, list[Any], list[Any]]], threshold: float | None
) -> list[Any]:
    """Reverts whose fingerprinted lines this change brings back (most of them)."""
    from cairn.fingerprints import (
        DEFAULT_THRESHOLD,
        all_hashes,
        candidate_lines,
        match_prints,
        prints_from_statuses,
    )

    prints = prints_from_statuses(store.status_many(store.entities()))
    wanted = all_hashes(prints)
    if not wanted:
        return []
    added = []
    for target, _symbols, all_symbols in per_file:
        lines = target.text.split("\n")
        numbers = range(1, len(lines) + 1) if target.lines is None else sorted(target.lines)
        numbered = [(n - 1, lines[n - 1]) for n in numbers if n <= len(lines)]
        added += candidate_lines(target.relpath, numbered, all_symbols, wanted)
    return match_prints(added, prints, DEFAULT_THRESHOLD if threshold is None else threshold)


def _verdict(status: Any, verdict_id: str) -> Any:
    for event in getattr(status, "open_verdicts", None) or ():
        if getattr(event, "id", None) == verdict_id:
            return event
    return None


def check_paths(paths: tuple[Path, ...], threshold: float | None = None) -> Report:
    """`cairn check PATH...`."""
    project = _project()
    return analyse(project, collect_paths(project, paths), threshold)


def check_diff(
    rev: str | None, staged: bool, paths: tuple[Path, ...], threshold: float | None = None
) -> Report:
    """`cairn check --diff REV` / `--staged`."""
    project = _project()
    return analyse(project, collect_diff(project, rev, staged, paths), threshold)


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
    targets = collect_diff(project, "HEAD", False, ()) if has_head else []
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
        text = _decode(absolute.read_bytes())
        if text is not None and rel not in seen:
            targets.append(Target(rel, text, None))
    return analyse(project, _not_the_log(project, targets), threshold)


def check_stdin(
    name: Path, data: bytes, threshold: float | None = None, project: Project | None = None
) -> Report:
    """`cairn check --stdin-filename PATH`: a proposed edit against the file on disk
    (also the MCP `cairn_check` tool, which passes the project it serves)."""
    project = project or _project()
    rel = _relpath(project, name)
    text = _decode(data)
    if text is None:
        return Report(files_checked=0)
    on_disk = project.root / rel
    lines = None
    if on_disk.is_file():
        old = _decode(on_disk.read_bytes())
        lines = changed_lines(old, text) if old is not None else None
    return analyse(project, [Target(rel, text, lines)], threshold)


# --- output ----------------------------------------------------------------------------


def emit(report: Report, as_json: bool) -> None:
    """A compiler-style report for people, or one JSON document for machines."""
    if as_json:
        emit_json(
            {
                "blocking": bool(report.blocking),
                "files_checked": report.files_checked,
                "findings": report.findings,
            }
        )
        return
    for f in report.findings:
        label = f["severity"]
        kinds = "/".join(t for t in f["verdict_types"] if t) or f["kind"]
        say(
            f"{f['file']}:{f['line']}:{f['column']}: {label}: {f['message']} "
            f"[{kinds} {f['verdict_id'][:8]}]"
        )
    files = plural(report.files_checked, "file")
    blocking = report.blocking
    if not blocking:
        extra = f" ({len(report.findings)} informational)" if report.findings else ""
        say(f"cairn check: ok, {files} checked{extra}")
        return
    entities = sorted({f["entity"] for f in blocking})
    say(
        f"cairn check: {plural(len(blocking), 'blocking finding')} in {files}: "
        f"the change re-introduces {', '.join(entities)}."
    )
    name = entities[0] if len(entities) == 1 else "ENTITY"
    if all(f["kind"] == "removed" for f in blocking):
        say(
            f'If that is intended, record why: `cairn log {name} add --reason "..."`; '
            f"see the history with `cairn history {name}`."
        )
        return
    say(
        f'If that is intended, record why: `cairn supersede {name} --reason "..."`; '
        f"see the history with `cairn history {name}`."
    )
