"""Change fingerprints: recognise a reverted change when it comes back, under any name.

A revert event keeps hashes of the normalised lines the revert took out (never the
code itself): `metadata.fingerprint` is a space-separated list of 8-hex-digit hashes.
When a change adds back most of the lines one revert took out, wherever they land
(another file, a renamed function), that is the reverted change returning.

Normalisation drops all whitespace and a trailing `,`/`;` (so re-indented code and a
re-ordered argument list still match) and keeps identifiers. Lines too common to mean
anything (`}`, `pass`, `return None`, `else:`) are not fingerprinted at all, and a
match of only one or two lines counts only inside the reverted entity itself, so
boilerplate never matches alone.

The importer (which writes fingerprints) and `cairn check` / the language server
(which match them) share this one module.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_THRESHOLD",
    "PRINT_KEY",
    "AddedLine",
    "BringBack",
    "RevertPrint",
    "all_hashes",
    "bring_back_findings",
    "candidate_lines",
    "fingerprint",
    "line_hash",
    "match_prints",
    "normalise",
    "prints_from_reverts",
]

# Share of a revert's fingerprinted lines a change must bring back (bench/recall.py).
DEFAULT_THRESHOLD = 0.6
PRINT_KEY = "fingerprint"  # where a revert event's metadata keeps its change's line hashes
# Below this many matched lines, a match counts only inside the reverted entity.
MIN_LINES_ANYWHERE = 3
MAX_HASHES = 400  # per event: a bigger revert is fingerprinted by a sample of its lines

_WS = re.compile(r"\s+")
_ALNUM = re.compile(r"[A-Za-z0-9_]")
# Normalised lines that appear everywhere; they say nothing about a particular change.
_COMMON = frozenset(
    {
        "returnNone",
        "returnnil",
        "returnnull",
        "returnfalse",
        "returntrue",
        "returnFalse",
        "returnTrue",
        "returnerr",
        "return",
        "else:",
        "}else{",
        "try:",
        "finally:",
        "pass",
        "break",
        "continue",
        "iferr!=nil{",
        "end",
        "<div>",
        "</div>",
        "defaultValue:",
        "exportdefault{",
        "self.assertTrue(True)",
    }
)


def normalise(line: str) -> str:
    """Whitespace-insensitive form of a line; a trailing comma or semicolon dropped."""
    return _WS.sub("", line).rstrip(",;")


def significant(norm: str) -> bool:
    """Whether a normalised line says enough to identify a change."""
    return len(norm) >= 6 and len(_ALNUM.findall(norm)) >= 4 and norm not in _COMMON


def line_hash(norm: str) -> str:
    """8 hex digits of BLAKE2b: enough to tell a revert's lines apart, too short to
    carry the code."""
    return hashlib.blake2b(norm.encode("utf-8", "replace"), digest_size=4).hexdigest()


def fingerprint(lines: Iterable[str]) -> list[str]:
    """Sorted distinct hashes of the significant lines (at most MAX_HASHES)."""
    hashes = sorted({line_hash(n) for n in map(normalise, lines) if significant(n)})
    if len(hashes) > MAX_HASHES:
        step = len(hashes) / MAX_HASHES
        hashes = [hashes[int(i * step)] for i in range(MAX_HASHES)]
    return hashes


@dataclass(slots=True)
class RevertPrint:
    """All fingerprinted lines of one revert (one commit), over all its events."""

    commit: str
    date: str
    subject: str
    hashes: set[str] = field(default_factory=set)
    entities: dict[str, str] = field(default_factory=dict)  # entity -> verdict id
    per_entity: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AddedLine:
    """A line a change adds: where, its text, and the innermost entity around it."""

    file: str
    line: int  # 0-based
    text: str
    entity: str | None


@dataclass(frozen=True, slots=True)
class BringBack:
    """A change that brings back `hits` of the `total` lines one revert took out."""

    revert: RevertPrint
    hits: int
    total: int
    lines: tuple[AddedLine, ...]  # the added lines that matched, in file order

    @property
    def verdict_id(self) -> str:
        """The verdict the finding is about: the revert's event on the entity where the
        lines came back when there is one, else the revert's first event."""
        for line in self.lines:
            if line.entity in self.revert.entities:
                return self.revert.entities[line.entity]
        return next(iter(self.revert.entities.values()))

    @property
    def entity(self) -> str:
        """The reverted entity this is about (where the lines came back, if reverted)."""
        for line in self.lines:
            if line.entity in self.revert.entities:
                return line.entity
        return next(iter(self.revert.entities))

    def message(self) -> str:
        """`this brings back 9 of the 11 lines reverted on 2024-02-23 (`Revert "…"`, a19bf40)`"""
        subject = self.revert.subject
        if len(subject) > 72:
            subject = subject[:71] + "…"
        return (
            f"this brings back {self.hits} of the {self.total} lines reverted on "
            f"{self.revert.date[:10]} (`{subject}`, {self.revert.commit[:7]})"
        )


def prints_from_reverts(reverts: Iterable[Any]) -> list[RevertPrint]:
    """The open reverts (`Store.open_reverts`) that carry a fingerprint, grouped by the
    revert's commit."""
    by_commit: dict[str, RevertPrint] = {}
    for event in reverts:
        if getattr(event, "type", None) != "revert":
            continue
        meta = getattr(event, "metadata", None) or {}
        raw = meta.get(PRINT_KEY) if isinstance(meta, dict) else None
        if not isinstance(raw, str) or not raw:
            continue
        key = getattr(event, "commit", None) or event.id
        rp = by_commit.get(key)
        if rp is None:
            subject = str(meta.get("revert_subject") or "").strip()
            if not subject:
                subject = (getattr(event, "reasoning", "") or "").strip().split("\n", 1)[0]
            when = getattr(event, "occurred_at", None) or getattr(event, "recorded_at", "")
            rp = by_commit[key] = RevertPrint(str(key), str(when or ""), subject)
        hashes = set(raw.split())
        rp.hashes |= hashes
        rp.entities.setdefault(event.entity, event.id)
        rp.per_entity.setdefault(event.entity, set()).update(hashes)
    return list(by_commit.values())


def match_prints(
    added: Sequence[AddedLine],
    prints: Iterable[RevertPrint],
    threshold: float = DEFAULT_THRESHOLD,
) -> list[BringBack]:
    """The reverts whose lines this change brings back (most of them, by `threshold`).

    A revert matches when the added lines cover at least `threshold` of its
    fingerprinted lines. When fewer than MIN_LINES_ANYWHERE lines match, the matched
    lines must also sit inside the reverted entity itself: a one-line change counts only
    together with its entity.
    """
    by_hash: dict[str, list[AddedLine]] = {}
    for line in added:
        norm = normalise(line.text)
        if significant(norm):
            by_hash.setdefault(line_hash(norm), []).append(line)
    if not by_hash:
        return []
    found: list[BringBack] = []
    for rp in prints:
        total = len(rp.hashes)
        if not total:
            continue
        common = rp.hashes.intersection(by_hash)
        hits = len(common)
        if not hits or hits < math.ceil(threshold * total - 1e-9):
            continue
        lines = sorted({ln for h in common for ln in by_hash[h]}, key=lambda a: (a.file, a.line))
        if hits < MIN_LINES_ANYWHERE:
            inside = [
                ln
                for ln in lines
                if ln.entity is not None
                and line_hash(normalise(ln.text)) in rp.per_entity.get(ln.entity, ())
            ]
            if len({line_hash(normalise(ln.text)) for ln in inside}) < hits:
                continue
            lines = inside
        found.append(BringBack(rp, hits, total, tuple(lines)))
    return found


def all_hashes(prints: Iterable[RevertPrint]) -> set[str]:
    """Every hash any open revert carries: lines outside it need no further look."""
    out: set[str] = set()
    for rp in prints:
        out |= rp.hashes
    return out


def candidate_lines(
    file: str, numbered: Iterable[tuple[int, str]], symbols: Sequence[Any], wanted: set[str]
) -> list[AddedLine]:
    """The lines (0-based number, text) whose hash some revert carries, each with the
    innermost entity around it (the file when none): the input of `match_prints`.

    Only hashed lines are placed, so a 5,000-line file costs one hash per line."""
    from cairn.indexer.enclosing import innermost_symbol
    from cairn.store.paths import EntityPathError, canonicalise

    if not wanted:
        return []
    try:
        file_entity: str | None = canonicalise(file)
    except EntityPathError:
        file_entity = None
    out: list[AddedLine] = []
    for number, text in numbered:
        norm = normalise(text)
        if not significant(norm) or line_hash(norm) not in wanted:
            continue
        around = innermost_symbol(symbols, number)
        out.append(AddedLine(file, number, text, around.entity if around else file_entity))
    return out


def bring_back_findings(backs: Iterable[BringBack], severities: Any = None) -> list[Any]:
    """Findings (`cairn.findings.Finding`) for reverted changes coming back: at the first
    line that came back, with the severity of code that re-introduces a verdict."""
    from cairn.core.findings import Finding, FindingKind, Severities
    from cairn.indexer import Range

    sev = (severities or Severities()).introduce
    out = []
    for back in backs:
        first = back.lines[0]
        width = len(first.text.encode("utf-16-le")) // 2
        out.append(
            Finding(
                entity=back.entity,
                verdict_id=back.verdict_id,
                severity=sev,
                message=back.message(),
                name_range=Range(first.line, 0, first.line, width),
                role="introduce",
                data={
                    "entity": back.entity,
                    "kind": FindingKind.FINGERPRINT.value,
                    "role": "introduce",
                    "verdict_ids": [back.verdict_id],
                    "verdict_types": ["revert"],
                    "hits": back.hits,
                    "total": back.total,
                    "file": first.file,
                    "lines": [ln.line for ln in back.lines],
                },
            )
        )
    return [f for f in out if f.severity.value != "off"]


def document_bring_backs(
    file: str, text: str, symbols: Sequence[Any], prints: Sequence[RevertPrint], severities: Any
) -> list[Any]:
    """Findings where an open document holds most of the lines an open revert took out.

    The whole document counts (an editor does not know what changed since HEAD): what
    the language server adds to a document's diagnostics, on its first answer too."""
    wanted = all_hashes(prints)
    if not wanted:
        return []
    lines = candidate_lines(file, enumerate(text.split("\n")), symbols, wanted)
    return bring_back_findings(match_prints(lines, prints), severities)
