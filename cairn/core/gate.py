"""The gate: proposed code in, findings and a verdict (blocking or not) out.

`cairn check` (files, a git diff, a proposed edit on stdin) and the agent tools'
check gather `Target`s their own way and hand them here, so both give the same
findings, in the same JSON shape, as the language server's diagnostics (the findings
come from `cairn.core.findings`; what blocks is `Finding.blocking`), plus the
change-fingerprint matches (`cairn.fingerprints`) only a whole change can show.

    report = check(project, [Target("db/002.sql", text, lines=None)])
    report.blocking            # the findings that fail the gate
    report.to_dict()           # {"blocking": bool, "files_checked": n, "findings": [...]}
    changed_lines(old, new)    # the 1-based lines of `new` an edit inserted or replaced

Heavy imports (indexer, store) happen only once there is something to check: agent
hooks call this on every edit.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace

from cairn.core.present import blocked_explanation
from cairn.core.project import Project

if TYPE_CHECKING:
    from cairn.core.findings import Finding
    from cairn.core.session import Session
    from cairn.fingerprints import AddedLine, BringBack
    from cairn.indexer.model import Symbol


@dataclass(frozen=True, slots=True)
class Target:
    """One file's new content and the 1-based lines that count (None: every line)."""

    relpath: str
    text: str
    lines: frozenset[int] | None
    removed: tuple[str, ...] = ()  # the lines the change took out of it (a re-removal's)


@dataclass(slots=True)
class Report:
    """What a check found, in file order (each finding as its JSON object)."""

    files_checked: int
    findings: list[dict[str, Any]] = field(default_factory=list)
    damage: str = ""  # what is wrong with the log (lines verification rejects), for a warning
    # files named or changed but not read: [{"file", "reason"}] (over the size limit)
    skipped: list[dict[str, str]] = field(default_factory=list)

    def make_removed_blocking(self) -> None:
        """`--strict-removed`: re-introducing a removed entity fails the gate too
        (`blocks(finding, strict_removed=True)`)."""
        for f in self.findings:
            if f["kind"] == "removed" and f["role"] == "introduce":
                f["blocking"], f["severity"] = True, "error"

    @property
    def blocking(self) -> list[dict[str, Any]]:
        """Findings that fail the gate."""
        return [f for f in self.findings if f["blocking"]]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document `cairn check --json` prints."""
        out: dict[str, Any] = {
            "blocking": bool(self.blocking),
            "files_checked": self.files_checked,
            "findings": self.findings,
        }
        if self.skipped:
            out["files_skipped"] = self.skipped
        if self.blocking:
            # What the Claude Code hook shows (it imports no Cairn, so it takes the words)
            out["explanation"] = blocked_explanation(self.findings, "cli")
        return out


def changed_lines(old: str, new: str) -> frozenset[int]:
    """1-based lines of `new` that are inserted or replaced relative to `old`."""
    return edit(old, new)[0]


def removed_lines(old: str, new: str) -> tuple[str, ...]:
    """The lines of `old` that `new` deletes or replaces, in order."""
    return edit(old, new)[1]


def edit(old: str, new: str) -> tuple[frozenset[int], tuple[str, ...]]:
    """(1-based lines of `new` inserted or replaced, the lines of `old` deleted or
    replaced): one diff for both."""
    before, after = old.splitlines(), new.splitlines()
    lines: set[int] = set()
    gone: list[str] = []
    for i1, i2, j1, j2 in differing(before, after):
        lines.update(range(j1 + 1, j2 + 1))
        gone.extend(before[i1:i2])
    return frozenset(lines), tuple(gone)


class EditRefused(ValueError):
    """A proposed edit the gate cannot read (over the size limit, or binary): refused,
    never passed unchecked (the gate fails closed)."""


def edit_target(project: Project, relpath: str, data: bytes) -> Target:
    """A proposed edit of `relpath` as a target: its text, with the lines it changes
    against the file on disk counted (all of them for a new file). `cairn check
    --stdin-filename` and the agents' `cairn_check` both ask this. What it cannot read
    raises `EditRefused` (a proposed edit over the limit used to pass with
    `files_checked: 0`)."""
    from cairn.limits import MAX_FILE_BYTES, looks_binary, source_text

    if len(data) > MAX_FILE_BYTES:
        raise EditRefused(
            f"{relpath} would be {len(data):,} bytes, over the {MAX_FILE_BYTES:,}-byte limit "
            "Cairn checks; split the file or write it outside the agent"
        )
    if looks_binary(data):
        raise EditRefused(f"{relpath} would hold a NUL byte; Cairn checks text files only")
    text = source_text(data)
    if text is None:  # (both cases above; kept for the type)
        raise EditRefused(f"{relpath} cannot be read as text")
    on_disk = project.root / relpath
    lines = None
    taken_out: tuple[str, ...] = ()
    if on_disk.is_file():  # (a regular file: never a FIFO or a device, which never end)
        with open(on_disk, "rb") as handle:  # at most the limit: it may grow meanwhile
            old = source_text(handle.read(MAX_FILE_BYTES + 1))
        if old is not None:
            lines, taken_out = edit(old, text)  # one diff for both
    return Target(relpath, text, lines, removed=taken_out)


class OutsideProject(ValueError):
    """A file that is not under the project's root: no decision log of it governs it."""


def relpath_in(project: Project, path: Path) -> str:
    """`path` (absolute, or relative to the current directory) relative to the project's
    root; `OutsideProject` when it is not under it."""
    absolute = (Path.cwd() / path).resolve() if not path.is_absolute() else path.resolve()
    try:
        return absolute.relative_to(project.root.resolve()).as_posix()
    except ValueError:
        raise OutsideProject(f"{path} is outside the project at {project.root}") from None


def check_edit(path: Path, data: bytes, start: Path) -> Report:
    """`cairn check --stdin-filename PATH` in one call, for a caller that is no command
    line (the Claude Code hook, in its own process): the project is the one `start` (a
    folder) is in. Raises what that command reports as an error (`refusal` words it):
    `ProjectNotFound`, `OutsideProject`, `EditRefused`, the store's errors."""
    from cairn.core.project import find_project

    project = find_project(start)
    return check(project, [edit_target(project, relpath_in(project, path), data)])


def edit_verdict(path: Path, data: bytes, start: Path) -> dict[str, Any]:
    """`check_edit` as a reply either caller of the Claude Code hook passes on: the hook
    running it in its own process and the gate daemon (`cairn.agents.gate_daemon`) answering
    over a socket. `{"report": <cairn check --json's document>}`, or `{"refusal": <the
    one line cairn check reports for an error>}`: one path, so both give the same words."""
    try:
        return {"report": check_edit(path, data, start).to_dict()}
    except Exception as exc:  # whatever stops the check is the hook's to refuse, in words
        return {"refusal": refusal(exc)}


def refusal(error: Exception) -> str:
    """The one line `cairn check` reports for an error of a check (the hook's words too)."""
    from cairn.store.errors import StoreError

    if isinstance(error, StoreError):
        return f"cannot read the decision log: {error}"
    return str(error) or type(error).__name__


# difflib's matcher without its junk heuristic is cubic on repetitive text (a file of
# 500 small functions, every body edited: 21 s; 8,000 never ended, and the hook's
# timeout let the edit through). It only gets regions up to this many cells (lines x
# lines); larger ones are first cut at lines that occur once on each side.
_SMALL_REGION = 10_000
# Lines visited while cutting, in all; past it every region left counts as changed
# whole: more lines checked, never fewer, whatever the input's shape.
_CUT_BUDGET = 4_000_000


def differing(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """The regions (i1, i2, j1, j2) where `a[i1:i2]` became `b[j1:j2]`, in order.

    Patience diff: common ends are stripped, lines unique on both sides and in the
    same order (their longest increasing run) are matched and the gaps between them
    handled the same way; a small gap goes to difflib. Near-linear on real edits; a
    region nothing can cut counts as changed whole (fails closed).
    """
    out: list[tuple[int, int, int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    budget = _CUT_BUDGET
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        if (ahi - alo) * (bhi - blo) <= _SMALL_REGION:  # (a small file: difflib's answer)
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag != "equal":
                    out.append((alo + i1, alo + i2, blo + j1, blo + j2))
            continue
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
        if alo == ahi and blo == bhi:
            continue
        if alo == ahi or blo == bhi:
            out.append((alo, ahi, blo, bhi))
            continue
        if (ahi - alo) * (bhi - blo) <= _SMALL_REGION:
            stack.append((alo, ahi, blo, bhi))  # small once its ends are stripped
            continue
        budget -= (ahi - alo) + (bhi - blo)
        anchors = _unique_matches(a, alo, ahi, b, blo, bhi) if budget > 0 else []
        if not anchors:
            out.append((alo, ahi, blo, bhi))
            continue
        gaps = []
        i0, j0 = alo, blo
        for i, j in anchors:
            gaps.append((i0, i, j0, j))
            i0, j0 = i + 1, j + 1
        gaps.append((i0, ahi, j0, bhi))
        stack.extend(reversed(gaps))  # popped in order, so `out` stays in order
    return out


def _unique_matches(
    a: list[str], alo: int, ahi: int, b: list[str], blo: int, bhi: int
) -> list[tuple[int, int]]:
    """(i, j) pairs of lines that occur once in `a[alo:ahi]` and once in `b[blo:bhi]`,
    the longest run of them increasing on both sides."""
    seen_a: dict[str, int] = {}
    for i in range(alo, ahi):
        seen_a[a[i]] = -1 if a[i] in seen_a else i
    seen_b: dict[str, int] = {}
    for j in range(blo, bhi):
        seen_b[b[j]] = -1 if b[j] in seen_b else j
    pairs = [(i, j) for line, j in seen_b.items() if j >= 0 and (i := seen_a.get(line, -1)) >= 0]
    pairs.sort(key=lambda pair: pair[1])
    # longest increasing subsequence of i (patience sorting), with back links
    tops: list[int] = []  # i of the smallest tail of each run length
    tails: list[int] = []  # index into pairs of that tail
    back = [-1] * len(pairs)
    for k, (i, _j) in enumerate(pairs):
        at = bisect.bisect_left(tops, i)
        if at:
            back[k] = tails[at - 1]
        if at == len(tops):
            tops.append(i)
            tails.append(k)
        else:
            tops[at], tails[at] = i, k
    run: list[tuple[int, int]] = []
    k = tails[-1] if tails else -1
    while k >= 0:
        run.append(pairs[k])
        k = back[k]
    return run[::-1]


def check(
    project: Project,
    targets: list[Target],
    session: Session | None = None,
    *,
    threshold: float | None = None,
) -> Report:
    """Index each target, keep symbols on counted lines, turn them into findings.

    Three things are found: a counted line that *names* an entity with an open verdict
    (the gate: it re-introduces it), a changed line inside such an entity (shown, not
    blocking), and added lines that bring back most of what one revert took out
    (`cairn.fingerprints`; blocking, wherever they land; `threshold` is the share of a
    revert's lines that must come back). Opens the project's log (and closes it again)
    unless an open `session` is given. Store errors propagate.
    """
    from cairn.indexer import Role, app_model_tables, index_text
    from cairn.indexer.enclosing import innermost_by_line

    per_file: list[tuple[Target, list[Symbol], list[Symbol]]] = []
    entities: set[str] = set()
    django_apps: dict[Path, object] = {}  # each Django app's files parsed once a check
    for target in targets:
        tables = app_model_tables(project.root, target.relpath, django_apps)
        all_symbols = index_text(target.text, target.relpath, model_tables=tables)
        symbols = [
            s
            for s in all_symbols
            if target.lines is None or s.name_range.start_line + 1 in target.lines
        ]
        if target.removed:
            symbols = _version_changes(symbols, target.removed)
        if target.lines is not None:
            # A change inside an entity's body is history of that entity: shown (as a
            # reference), never blocking. A whole file already names every entity.
            named = {s.entity for s in symbols}
            enclosing: dict[str, Symbol] = {}
            around_line = innermost_by_line(all_symbols, (n - 1 for n in target.lines))
            for number in sorted(around_line):
                around = around_line[number]
                if around.entity not in named:
                    enclosing.setdefault(around.entity, around)
            symbols += [replace(s, role=Role.REFERENCE) for s in enclosing.values()]
        per_file.append((target, symbols, all_symbols))
        entities.update(s.entity for s in symbols)
    report = Report(files_checked=len(targets))
    if not targets:
        return report
    if session is None:
        from cairn.core.session import Session

        with Session.open(project, few=True) as opened:
            _judge(opened, report, per_file, entities, threshold)
    else:
        _judge(session, report, per_file, entities, threshold)
    return report


def _version_changes(symbols: list[Symbol], removed: tuple[str, ...]) -> list[Symbol]:
    """A dependency whose declaration the change also took out was there already: the
    change moves its version, it does not introduce it. Its name is then a reference
    (shown, never blocking); whether the version a revert took back returns is the
    change fingerprint's to say (the line's hash), so any other version passes."""
    from cairn.indexer import Role

    out = []
    for s in symbols:
        if s.entity.startswith("deps/") and s.role is Role.INTRODUCE and _declared(s, removed):
            s = replace(s, role=Role.REFERENCE)
        out.append(s)
    return out


def _declared(symbol: Symbol, removed: tuple[str, ...]) -> bool:
    """Whether a removed line names the dependency (`-`, `_`, `.` alike, any case)."""
    name = re.sub(r"[-_.]+", "-", symbol.entity.removeprefix("deps/").lower())
    pattern = re.compile(r"(?<![\w@/-])" + re.escape(name) + r"(?![\w/-])")
    return any(pattern.search(re.sub(r"[-_.]+", "-", line.lower())) for line in removed)


def _judge(
    session: Session,
    report: Report,
    per_file: list[tuple[Target, list[Symbol], list[Symbol]]],
    entities: set[str],
    threshold: float | None,
) -> None:
    from cairn.core.findings import findings_for
    from cairn.fingerprints import bring_back_findings

    report.damage = session.damage()
    statuses = session.statuses(sorted(entities)) if entities else {}
    backs = _bring_backs(session, per_file, threshold)
    removals = session.removals(statuses)
    for target, symbols, _all in per_file:
        for finding in findings_for(symbols, statuses, removals=removals):
            status = statuses.get(finding.entity)
            verdict = (
                next((v for v in status.open_verdicts if v.id == finding.verdict_id), None)
                if status is not None
                else None
            )
            quoted = verdict or removals.get(finding.entity)
            report.findings.append(
                _row(
                    finding,
                    target.relpath,
                    verdict_types=finding.data.get("verdict_types", []),
                    reasoning=quoted.reasoning if quoted is not None else None,
                    alternative=verdict.alternative if verdict is not None else None,
                )
            )
    for finding in bring_back_findings(backs):
        # Found by content, not by name: the reason is the revert event's, else the
        # reverted commit's subject, so no surface blocks without saying why.
        row = _row(
            finding,
            finding.data["file"],
            verdict_types=["revert"],
            reasoning=_verdict_reason(session, finding.verdict_id, finding.data.get("subject")),
            column=1,
        )
        if finding.data.get("removal"):
            # Lines taken out are in no new text: the row names the file, not a line.
            row["line"] = row["end_line"] = 1
            row["column"] = row["end_column"] = 1
            report.findings.append(row)
            continue
        row["lines"] = [n + 1 for n in finding.data["lines"]]
        row["hits"] = finding.data["hits"]
        row["total"] = finding.data["total"]
        report.findings.append(row)


def _verdict_reason(session: Session, verdict_id: str, fallback: object) -> str | None:
    """The reasoning of the event `verdict_id`, else `fallback` (a commit subject)."""
    from cairn.store import StoreError

    try:
        reasoning = session.store.get(verdict_id).reasoning
    except (StoreError, LookupError):
        reasoning = ""
    return reasoning or (str(fallback) if fallback else None)


def _row(
    finding: Finding,
    file: str,
    *,
    verdict_types: list[str],
    reasoning: str | None = None,
    alternative: str | None = None,
    column: int | None = None,
) -> dict[str, Any]:
    """A finding as `cairn check --json` reports it (1-based lines and columns).

    One vocabulary: what fails the gate is an error in text and JSON alike.
    """
    r = finding.name_range
    return {
        "file": file,
        "line": r.start_line + 1,
        "column": r.start_character + 1 if column is None else column,
        "end_line": r.end_line + 1,
        "end_column": r.end_character + 1,
        "entity": finding.entity,
        "role": finding.role,
        "kind": finding.kind.value,
        "severity": "error" if finding.blocking else finding.severity.value,
        "blocking": finding.blocking,
        "message": finding.message,
        "verdict_id": finding.verdict_id,
        "verdict_types": verdict_types,
        "reasoning": reasoning,
        "alternative": alternative,
    }


def _bring_backs(
    session: Session,
    per_file: list[tuple[Target, list[Symbol], list[Symbol]]],
    threshold: float | None,
) -> list[BringBack]:
    """Reverts whose fingerprinted lines this change brings back (most of them)."""
    from cairn.fingerprints import (
        DEFAULT_THRESHOLD,
        all_hashes,
        candidate_lines,
        match_prints,
        match_removals,
        print_words,
    )
    from cairn.significance import trivial_change

    numbered_per_file: list[tuple[Target, list[Symbol], list[tuple[int, str]]]] = []
    removed_per_file: list[list[str]] = []
    for target, _symbols, all_symbols in per_file:
        lines = target.text.split("\n")
        numbers = range(1, len(lines) + 1) if target.lines is None else sorted(target.lines)
        numbered = [(n - 1, lines[n - 1]) for n in numbers if n <= len(lines)]
        # A file this change only reformats (re-indents, re-wraps: "Linted
        # wagtailadmin"; `cairn.significance`) keeps the lines it had: it brings nothing
        # back and takes nothing out again, whatever a revert once did with them.
        if target.removed and target.lines is not None:
            texts = [t for _n, t in numbered]
            if trivial_change({target.relpath: (target.removed, texts)}):
                numbered_per_file.append((target, all_symbols, []))
                removed_per_file.append([])
                continue
        numbered_per_file.append((target, all_symbols, numbered))
        removed_per_file.append(list(target.removed))
    # Only reverts that hold one of these lines' hashes can match: found by hash.
    prints = session.revert_prints_for(
        print_words(
            (text for _t, _s, numbered in numbered_per_file for _n, text in numbered),
            (line for removed in removed_per_file for line in removed),
        )
    )
    share = DEFAULT_THRESHOLD if threshold is None else threshold
    wanted = all_hashes(prints)
    found: list[BringBack] = []
    if wanted:
        added: list[AddedLine] = []
        for target, all_symbols, numbered in numbered_per_file:
            added += candidate_lines(target.relpath, numbered, all_symbols, wanted)
        found += match_prints(added, prints, share)
    # A re-removal: the lines a revert put back, taken out again. Where they were is
    # in no new text, so they count as the file's (`match_removals` then needs three).
    put_back = all_hashes(prints, restored=True)
    if put_back:
        taken: list[AddedLine] = []
        for (target, _symbols, _all), removed in zip(per_file, removed_per_file, strict=True):
            taken += candidate_lines(target.relpath, enumerate(removed), (), put_back)
        found += match_removals(taken, prints, share)
    return found
