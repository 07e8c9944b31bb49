"""`cairn verify`: recompute the log's Merkle DAG and say exactly where it is broken.

Every line's id is recomputed from its own fields; every parent must be in the log; the
heads the index last recorded must still be in the log, which catches a truncated tail
(the one edit a DAG without an outside anchor cannot see). Reordered and duplicated
lines are harmless and not reported: the DAG is a set, and git's union merge produces
both. What this does and does not promise is in docs/threat-model.md.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.store.canonical import CONTENT_FIELDS
from cairn.store.errors import StoreError
from cairn.store.fastid import loads, proves_id
from cairn.store.gcpause import gc_paused
from cairn.store.index import INDEX_NAME, TAIL_BYTES, read_meta, write_meta
from cairn.store.log import LOG_NAME, QUARANTINE_NAME
from cairn.store.model import line_id

__all__ = [
    "Anchor",
    "Finding",
    "RefsHolding",
    "VerifyReport",
    "reconcile_index",
    "recorded_anchor",
    "recorded_heads",
    "verify",
]

# Meta keys (in the index: local, derived, dropped on every rebuild) of the record of
# what the last successful verify proved.
RECORD_KEY = "verified"
RECORD_KEYS = "verified_keys"

# Which of these event ids some other version of the log holds (a git branch): {id: where}.
# The application layer supplies it (it runs git); the store itself never does.
RefsHolding = Callable[[list[str]], dict[str, str]]

# Problems make `verify` fail; notices are things a human should know that do not
# mean the log is wrong (an interrupted write that was quarantined, for instance).
PROBLEM = "problem"
NOTICE = "notice"


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing `verify` found, pinned to a line of the log and an event id when it can."""

    code: str
    message: str
    line: int | None = None
    event: str | None = None
    severity: str = PROBLEM

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "code": self.code,
            "severity": self.severity,
            "line": self.line,
            "event": self.event,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return f"{where}{self.message}"


@dataclass(slots=True)
class VerifyReport:
    """The outcome of one verification of a `.cairn/` folder."""

    log: Path
    lines: int = 0
    events: int = 0
    heads: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    index_suspect: bool = False
    keys: set[int] = field(default_factory=set)
    redacted: set[str] = field(default_factory=set)
    proven_to: tuple[int, str] | None = None
    proven_from: tuple[int, str] | None = None

    @property
    def problems(self) -> list[Finding]:
        """Findings that mean the log is not what was written."""
        return [f for f in self.findings if f.severity == PROBLEM]

    @property
    def notices(self) -> list[Finding]:
        """Findings worth knowing that do not fail verification."""
        return [f for f in self.findings if f.severity == NOTICE]

    @property
    def ok(self) -> bool:
        """True when there is no problem."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, stable for machines."""
        return {
            "ok": self.ok,
            "log": str(self.log),
            "lines": self.lines,
            "events": self.events,
            "heads": list(self.heads),
            "problems": [f.to_dict() for f in self.problems],
            "notices": [f.to_dict() for f in self.notices],
        }


@dataclass(frozen=True, slots=True)
class Anchor:
    """What the index last saw of the log: its heads, how far it read, the hash before that."""

    heads: list[str]
    consumed: int = 0
    tail: str = ""


def recorded_anchor(cairn_dir: Path) -> Anchor | None:
    """The index's record of the log, read without touching it; None when unknown.

    Read before anything opens the store: opening it catches the index up with the log
    and would move the anchor to whatever the log now says.
    """
    try:
        meta = read_meta(cairn_dir)
    except StoreError:
        return None  # an unreadable index is rebuilt from the log; it proves nothing
    if meta is None:
        return None
    try:
        heads = json.loads(meta.get("heads") or "[]")
        consumed = int(meta.get("consumed") or 0)
    except (TypeError, ValueError):
        return None
    if not isinstance(heads, list):
        return None
    return Anchor([str(h) for h in heads if h], consumed, str(meta.get("tail") or ""))


def recorded_heads(cairn_dir: Path) -> list[str] | None:
    """The heads the index last recorded, or None when there is no readable index."""
    anchor = recorded_anchor(cairn_dir)
    return anchor.heads if anchor is not None else None


def _log_extends(data: bytes, anchor: Anchor) -> bool:
    """True when the log still starts with what the index read (it only grew since)."""
    if anchor.consumed > len(data):
        return False
    if anchor.consumed == 0:
        return True
    start = max(0, anchor.consumed - TAIL_BYTES)
    return hashlib.sha256(data[start : anchor.consumed]).hexdigest() == anchor.tail


@dataclass(slots=True)
class _Line:
    """What the later checks need of one event line (not the parsed line: at a million
    events holding every parsed line cost gigabytes)."""

    number: int
    event_id: str
    parents: Any  # as the line holds it (a list of ids when sound)
    supersedes: Any
    reverts: Any
    redacted: bool
    verified: bool = False  # its id is proven


def _parse(data: bytes, report: VerifyReport, start: int = 0, first: int = 1) -> list[_Line]:
    """Read the log from byte `start` (line `first`): every event line with its id checked,
    reporting malformed lines, ids that do not match and a partial tail."""
    parsed: list[_Line] = []
    end = max(start, data.rfind(b"\n") + 1)
    find = data.find
    findings = report.findings
    pos, number = start, first
    while pos < end:
        nl = find(b"\n", pos)
        chunk = data[pos:nl]
        this, number, pos = number, number + 1, nl + 1
        if not chunk or chunk.isspace():
            continue
        report.lines += 1
        try:
            raw = loads(chunk)
        except ValueError:  # UnicodeDecodeError is one
            findings.append(
                Finding("malformed", "not a JSON object (garbled or hand-edited)", this)
            )
            continue
        ident = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(ident, str) or not raw.get("type") or not raw.get("entity"):
            findings.append(Finding("malformed", "not an event (missing id, type or entity)", this))
            continue
        line = _Line(
            this,
            ident,
            raw.get("parents") or (),
            raw.get("supersedes"),
            raw.get("reverts"),
            bool(raw.get("redacted")),
        )
        parsed.append(line)
        problem = _id_problem(raw, ident)
        if problem is None:
            line.verified = True
        else:
            findings.append(Finding(problem[0], problem[1], this, ident))
    tail = data[end:]
    if tail.strip():
        findings.append(
            Finding(
                "partial-tail",
                f"{len(tail)} bytes without a final newline: a write was interrupted; the next "
                f"write moves them to {QUARANTINE_NAME}",
                number,
                severity=NOTICE,
            )
        )
    return parsed


def _id_problem(raw: dict[str, Any], ident: str) -> tuple[str, str] | None:
    """(code, message) when a line's id is not proven by its contents, else None."""
    if raw.get("redacted") and any(raw.get(k) for k in CONTENT_FIELDS):
        return (
            "redacted-with-content",
            f"event {ident} is marked redacted but carries content its id "
            "does not cover (added after the redaction)",
        )
    if proves_id(raw):
        return None
    try:
        actual = line_id(raw)
    except (TypeError, ValueError) as exc:
        return "malformed", f"event {ident}: {exc}"
    if actual != ident:
        return (
            "id-mismatch",
            f"event {ident}: its id does not match its contents (the line was "
            f"edited after it was written; the contents hash to {actual[:12]})",
        )
    return None


def _verified(lines: Iterable[_Line]) -> dict[str, _Line]:
    """The lines whose ids are proven, by id (the first copy wins)."""
    good: dict[str, _Line] = {}
    for line in lines:
        if line.verified:
            good.setdefault(line.event_id, line)
    return good


def _check_links(good: dict[str, _Line], report: VerifyReport, all_ids: _Known) -> None:
    """Every parent and every referenced verdict must be in the log."""
    for line in good.values():
        for parent in line.parents:
            if parent not in all_ids:
                report.findings.append(
                    Finding(
                        "missing-parent",
                        f"event {line.event_id} names parent {parent}, which is not in the log "
                        "(a line was deleted, or this line was forged)",
                        line.number,
                        line.event_id,
                    )
                )
        for name, target in (("supersedes", line.supersedes), ("reverts", line.reverts)):
            if target and target not in all_ids:
                report.findings.append(
                    Finding(
                        "missing-reference",
                        f"event {line.event_id} {name} {target}, which is not in the log",
                        line.number,
                        line.event_id,
                    )
                )


def _check_redactions(lines: list[_Line], report: VerifyReport, earlier: set[str]) -> None:
    """A redacted event must not survive in full elsewhere (a merge can bring a copy back)."""
    redacted = earlier | {line.event_id for line in lines if line.redacted}
    for line in lines:
        if line.event_id in redacted and not line.redacted and line.verified:
            report.findings.append(
                Finding(
                    "unredacted-copy",
                    f"event {line.event_id} was redacted but this copy still carries its content "
                    f"(a merge brought it back); run `cairn redact {line.event_id[:12]}` again",
                    line.number,
                    line.event_id,
                )
            )


class _Known:
    """Membership in the whole log: ids parsed now plus (incrementally) the verified prefix."""

    def __init__(self, ids: set[str], prefix: set[int]) -> None:
        self.ids = ids
        self.prefix = prefix

    def __contains__(self, ident: object) -> bool:
        if ident in self.ids:
            return True
        if not self.prefix or not isinstance(ident, str) or len(ident) < 16:
            return False
        try:
            return _key(ident) in self.prefix
        except ValueError:
            return False


def _key(ident: str) -> int:
    """The 64-bit prefix an id is remembered under in the verified-prefix record."""
    return int(ident[:16], 16)


@dataclass(slots=True)
class _Record:
    """What the last successful verify proved: the log's first `offset` bytes."""

    offset: int
    sha256: str
    lines: int
    heads: list[str]
    redacted: list[str]
    keys: set[int]


def _read_record(cairn_dir: Path) -> _Record | None:
    try:
        rows = read_meta(cairn_dir, (RECORD_KEY, RECORD_KEYS))
        if rows is None:
            return None
        info = json.loads(rows[RECORD_KEY])
        blob = rows[RECORD_KEYS]
        keys = set(struct.unpack(f">{len(blob) // 8}Q", blob))
        return _Record(
            int(info["offset"]),
            str(info["sha256"]),
            int(info["lines"]),
            list(info["heads"]),
            list(info["redacted"]),
            keys,
        )
    except (StoreError, KeyError, TypeError, ValueError, struct.error):
        return None


def _write_record(cairn_dir: Path, report: VerifyReport, *, force: bool = False) -> None:
    """Remember what this verify proved, so the next one only reads what was appended."""
    if report.proven_to is None or not report.ok:
        return
    if report.proven_to == report.proven_from and not force:
        return  # nothing new was proven: keep the record as it is
    offset, digest = report.proven_to
    info = {
        "offset": offset,
        "sha256": digest,
        "lines": report.lines,
        "heads": report.heads,
        "redacted": sorted(report.redacted),
    }
    keys = sorted(report.keys)
    blob = struct.pack(f">{len(keys)}Q", *keys)
    # Only a shortcut for next time: the log itself is what was verified.
    write_meta(cairn_dir, {RECORD_KEY: json.dumps(info), RECORD_KEYS: blob})


def _report_missing_heads(
    missing: list[str], report: VerifyReport, accept: bool, refs_holding: RefsHolding | None
) -> None:
    """A head seen before and gone now: a truncation, unless a branch switch explains it."""
    elsewhere = refs_holding(missing) if missing and refs_holding is not None else {}
    for head in missing:
        if head in elsewhere:
            report.findings.append(
                Finding(
                    "head-elsewhere",
                    f"event {head} is not in this log but is on {elsewhere[head]} (you "
                    "switched to a branch without it); nothing is lost",
                    None,
                    head,
                    severity=NOTICE,
                )
            )
        elif accept:
            report.findings.append(
                Finding(
                    "head-accepted",
                    f"event {head} is gone from the log; accepted (--accept), so the log as "
                    "it is now is the new baseline",
                    None,
                    head,
                    severity=NOTICE,
                )
            )
        else:
            report.findings.append(
                Finding(
                    "missing-head",
                    f"event {head}, seen in this log before, is gone (the log was truncated "
                    "or rolled back, and no branch holds it); if you reset on purpose, "
                    "`cairn verify --accept` takes the log as it is",
                    None,
                    head,
                )
            )


def verify(
    cairn_dir: Path,
    *,
    anchor: Anchor | None = None,
    full: bool = False,
    accept: bool = False,
    refs_holding: RefsHolding | None = None,
) -> VerifyReport:
    """Verify `.cairn/decisions.jsonl` against itself and against `anchor` (default: what
    the index recorded).

    `accept` turns missing heads into notices and re-anchors on the log as it is (after
    a deliberate reset). Unless `full`, a prefix that a previous verify proved, and whose
    bytes still hash the same, is not parsed again: only the lines appended since are.
    Any change inside the prefix (an edit, a deletion, a rewrite) means a full check.
    `refs_holding` says which missing heads another branch still holds (a notice, not
    a problem); without it every missing head is one.
    """
    log = cairn_dir / LOG_NAME
    report = VerifyReport(log=log)
    seen = anchor if anchor is not None else recorded_anchor(cairn_dir)
    try:
        data = log.read_bytes()
    except FileNotFoundError:
        data = b""
    proven = _read_record(cairn_dir)
    record = None if full else proven
    hasher = hashlib.sha256()
    if record is not None and 0 < record.offset <= len(data):
        hasher.update(memoryview(data)[: record.offset])
        if hasher.hexdigest() != record.sha256:
            record, hasher = None, hashlib.sha256()
    else:
        record = None
    start = record.offset if record else 0
    report.proven_from = (record.offset, record.sha256) if record else None
    with gc_paused():
        lines = _parse(data, report, start, data.count(b"\n", 0, start) + 1)
    new_redacted = {line.event_id for line in lines if line.redacted}
    prefix_keys = record.keys if record else set()
    if record and any(_key(i) in prefix_keys for i in new_redacted):
        # A redacted copy appended after a full one: the full copy sits in the prefix.
        return verify(cairn_dir, anchor=anchor, full=True, accept=accept, refs_holding=refs_holding)
    all_ids = _Known({line.event_id for line in lines}, prefix_keys)
    good = _verified(lines)
    new_keys = {_key(i) for i in good}
    report.events = len(good) + (len(record.keys) - len(new_keys & prefix_keys) if record else 0)
    report.ids = list(good)
    report.keys = prefix_keys | new_keys
    _check_links(good, report, all_ids)
    prefix_redacted = set(record.redacted) if record else set()
    _check_redactions(lines, report, prefix_redacted)
    report.redacted = prefix_redacted | new_redacted
    missing = [h for h in (seen.heads if seen else ()) if h not in all_ids]
    if missing and seen is not None and _log_extends(data, seen):
        # The log only grew since the index read it, so nothing it saw can have gone:
        # the index itself is wrong (edited by hand); it is rebuilt, the log is fine.
        report.index_suspect = True
        missing = []
    # What the last successful verify proved outlives index rebuilds, so a truncation is
    # still caught after another process re-indexed the shortened log.
    for head in proven.heads if proven else ():
        if head not in all_ids and head not in missing:
            missing.append(head)
    _report_missing_heads(missing, report, accept, refs_holding)
    quarantine = cairn_dir / QUARANTINE_NAME
    if quarantine.is_file() and quarantine.stat().st_size:
        report.findings.append(
            Finding(
                "quarantine",
                f"{quarantine.name} holds {quarantine.stat().st_size} bytes from interrupted "
                "writes; they never completed, so no command reported them as written. "
                "Inspect and delete the file when done",
                severity=NOTICE,
            )
        )
    named = {p for line in good.values() for p in line.parents}
    heads = set(record.heads) if record else set()
    fresh = {i for i in good if _key(i) not in prefix_keys}  # a copy of an old line is no head
    report.heads = sorted(h for h in heads | fresh if h not in named)
    report.lines += record.lines if record else 0
    end = data.rfind(b"\n") + 1
    hasher.update(memoryview(data)[start:end])
    report.proven_to = (end, hasher.hexdigest())
    report.findings.sort(key=lambda f: (f.severity != PROBLEM, f.line or 0))
    return report


def reconcile_index(cairn_dir: Path, report: VerifyReport) -> bool:
    """Catch the index up and rebuild it from the log if it disagrees; True if rebuilt.

    The index is derived: an edited or damaged one is not a problem with the log, so it
    is replaced silently (with a notice), never trusted.
    """
    # Imported here: the store imports this package's modules, not the other way round.
    from cairn.store.store import Store

    expected = {k >> 4 for k in report.keys}  # 64-bit record keys -> the index's 60-bit
    with Store.open(cairn_dir) as store:
        keys = store.index.event_keys()
        heads = set(store.index.heads)
    sound = (
        not report.index_suspect
        and len(keys) == len(expected)
        and set(keys) == expected
        and heads == set(report.heads)
    )
    if sound:
        _write_record(cairn_dir, report)
        return False
    Store.rebuild(cairn_dir)
    _write_record(cairn_dir, report, force=True)
    report.findings.append(
        Finding(
            "index-rebuilt",
            f"{INDEX_NAME} did not match the log (edited or damaged); rebuilt it from the log",
            severity=NOTICE,
        )
    )
    return True
