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
from array import array
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cairn.store.errors import StoreError
from cairn.store.gcpause import gc_paused
from cairn.store.index import INDEX_NAME, TAIL_BYTES, read_meta, write_meta
from cairn.store.log import LOG_NAME, QUARANTINE_NAME
from cairn.store.verify_ranges import LogBytes, Scan, scan

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
    # The 64-bit keys (`_key`) of every verified event, the record's included, as sets
    # and packed arrays: `keys` joins them on first use (reconciling the index needs
    # them, the verify itself does not: at a million events that is ~0.2 s saved).
    key_parts: list[set[int] | bytes] = field(default_factory=list, repr=False)
    redacted: set[str] = field(default_factory=set)
    proven_to: tuple[int, str] | None = None
    proven_from: tuple[int, str] | None = None
    _keys: set[int] | None = field(default=None, init=False, repr=False)

    @property
    def keys(self) -> set[int]:
        """The 64-bit keys of every verified event (see `key_parts`)."""
        if self._keys is None:
            keys: set[int] = set()
            for part in self.key_parts:
                keys.update(array("Q", part) if isinstance(part, bytes) else part)
            self._keys = keys
        return self._keys

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


def _log_extends(log: LogBytes, anchor: Anchor) -> bool:
    """True when the log still starts with what the index read (it only grew since)."""
    if anchor.consumed > log.size:
        return False
    if anchor.consumed == 0:
        return True
    start = max(0, anchor.consumed - TAIL_BYTES)
    return hashlib.sha256(log.read(start, anchor.consumed)).hexdigest() == anchor.tail


def _check_links(found: Scan, report: VerifyReport, all_ids: _Known) -> None:
    """Every parent and every referenced verdict must be in the log (only the lines
    whose links were not all seen before them can miss one)."""
    for number, ident, parents, supersedes, reverts in found.pending:
        for parent in parents:
            if parent not in all_ids:
                report.findings.append(
                    Finding(
                        "missing-parent",
                        f"event {ident} names parent {parent}, which is not in the log "
                        "(a line was deleted, or this line was forged)",
                        number,
                        ident,
                    )
                )
        for name, target in (("supersedes", supersedes), ("reverts", reverts)):
            if target and target not in all_ids:
                report.findings.append(
                    Finding(
                        "missing-reference",
                        f"event {ident} {name} {target}, which is not in the log",
                        number,
                        ident,
                    )
                )


def _check_redactions(unredacted: list[tuple[int, str]], report: VerifyReport) -> None:
    """A redacted event must not survive in full elsewhere (a merge can bring a copy back)."""
    for number, ident in unredacted:
        report.findings.append(
            Finding(
                "unredacted-copy",
                f"event {ident} was redacted but this copy still carries its content "
                f"(a merge brought it back); run `cairn redact {ident[:12]}` again",
                number,
                ident,
            )
        )


class _Known:
    """Membership in the whole log: ids read now plus (incrementally) the verified prefix."""

    def __init__(self, ids: tuple[Container[str], ...], prefix: set[int]) -> None:
        self.ids = ids
        self.prefix = prefix

    def __contains__(self, ident: object) -> bool:
        if any(ident in ids for ids in self.ids):
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
    blob: bytes  # the keys, packed big-endian; `keys` unpacks them on first use
    _keys: set[int] | None = None

    @property
    def keys(self) -> set[int]:
        """The 64-bit keys (`_key`) of the proven prefix's events.

        Unpacked only when the prefix is used: a full verify reads the record for its
        heads alone, and a million keys take ~0.1 s to unpack into a set.
        """
        if self._keys is None:
            self._keys = set(struct.unpack(f">{len(self.blob) // 8}Q", self.blob))
        return self._keys


def _read_record(cairn_dir: Path) -> _Record | None:
    try:
        rows = read_meta(cairn_dir, (RECORD_KEY, RECORD_KEYS))
        if rows is None:
            return None
        info = json.loads(rows[RECORD_KEY])
        blob = rows[RECORD_KEYS]
        if not isinstance(blob, bytes) or len(blob) % 8:
            return None  # what unpacking it would refuse: no record, as before
        return _Record(
            int(info["offset"]),
            str(info["sha256"]),
            int(info["lines"]),
            list(info["heads"]),
            list(info["redacted"]),
            blob,
        )
    except (StoreError, KeyError, TypeError, ValueError):
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
    workers: int | None = None,
) -> VerifyReport:
    """Verify `.cairn/decisions.jsonl` against itself and against `anchor` (default: what
    the index recorded).

    `accept` turns missing heads into notices and re-anchors on the log as it is (after
    a deliberate reset). Unless `full`, a prefix that a previous verify proved, and whose
    bytes still hash the same, is not parsed again: only the lines appended since are.
    Any change inside the prefix (an edit, a deletion, a rewrite) means a full check.
    `refs_holding` says which missing heads another branch still holds (a notice, not
    a problem); without it every missing head is one. `workers` is how many processes
    read the log (default: one per core when the log is large enough to repay them).
    """
    path = cairn_dir / LOG_NAME
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        handle = None
    try:
        return _verify(
            path,
            LogBytes(handle.fileno() if handle else None),
            cairn_dir,
            anchor=anchor,
            full=full,
            accept=accept,
            refs_holding=refs_holding,
            workers=workers,
        )
    finally:
        if handle is not None:
            handle.close()


def _verify(
    path: Path,
    log: LogBytes,
    cairn_dir: Path,
    *,
    anchor: Anchor | None,
    full: bool,
    accept: bool,
    refs_holding: RefsHolding | None,
    workers: int | None,
) -> VerifyReport:
    report = VerifyReport(log=path)
    seen = anchor if anchor is not None else recorded_anchor(cairn_dir)
    proven = _read_record(cairn_dir)
    record, hasher = _still_proven(None if full else proven, log)
    start = record.offset if record else 0
    end = max(start, log.last_newline() + 1)
    report.proven_from = (record.offset, record.sha256) if record else None
    prefix_redacted = frozenset(record.redacted) if record else frozenset()
    first = log.count_newlines(0, start) + 1
    with gc_paused():
        found = scan(log, start, end, first, prefix_redacted, hasher, workers)
    prefix_keys = record.keys if record else set()
    if record and any(_key(i) in prefix_keys for i in found.redacted):
        # A redacted copy appended after a full one: the full copy sits in the prefix.
        return verify(
            cairn_dir,
            anchor=anchor,
            full=True,
            accept=accept,
            refs_holding=refs_holding,
            workers=workers,
        )
    report.lines = found.lines
    report.findings.extend(
        Finding(code, message, line, event or None) for code, message, line, event in found.findings
    )
    _note_partial_tail(log.read(end, log.size), found.end_line, report)
    good = found.good
    all_ids = _Known((good, found.unproven), prefix_keys)
    report.events = len(good)
    if record:
        new_keys: set[int] = set()
        for part in found.key_parts:
            new_keys.update(array("Q", part))
        report.events += len(record.keys) - len(new_keys & prefix_keys)
        report.key_parts = [prefix_keys, new_keys]
    else:
        report.key_parts = list(found.key_parts)
    report.ids = found.ids
    _check_links(found, report, all_ids)
    _check_redactions(found.unredacted, report)
    report.redacted = set(prefix_redacted) | found.redacted
    missing = [h for h in (seen.heads if seen else ()) if h not in all_ids]
    if missing and seen is not None and _log_extends(log, seen):
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
    _note_quarantine(cairn_dir / QUARANTINE_NAME, report)

    def named(ident: str) -> bool:
        """Whether a proven line names `ident` as a parent (see verify_ranges)."""
        return ident in found.named_outside or (ident in good and ident not in found.heads)

    # A head is an id no proven line names: only those no line in their range names can be.
    fresh = found.heads
    if prefix_keys:
        fresh = {i for i in fresh if _key(i) not in prefix_keys}  # a copy of an old line
    candidates = set(record.heads) | fresh if record else fresh
    report.heads = sorted(h for h in candidates if not named(h))
    report.lines += record.lines if record else 0
    report.proven_to = (end, hasher.hexdigest())
    report.findings.sort(key=lambda f: (f.severity != PROBLEM, f.line or 0))
    return report


def _still_proven(record: _Record | None, log: LogBytes) -> tuple[_Record | None, Any]:
    """The last verify's record if the log still starts with the bytes it proved (then
    only what follows needs reading), and a hash fed with those bytes."""
    hasher = hashlib.sha256()
    if record is None or not 0 < record.offset <= log.size:
        return None, hasher
    log.feed(hasher, 0, record.offset)
    if hasher.hexdigest() != record.sha256:
        return None, hashlib.sha256()
    return record, hasher


def _note_partial_tail(tail: bytes, line: int, report: VerifyReport) -> None:
    if tail.strip():
        report.findings.append(
            Finding(
                "partial-tail",
                f"{len(tail)} bytes without a final newline: a write was interrupted; the next "
                f"write moves them to {QUARANTINE_NAME}",
                line,
                severity=NOTICE,
            )
        )


def _note_quarantine(quarantine: Path, report: VerifyReport) -> None:
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
