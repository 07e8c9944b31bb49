"""`cairn import adr DIR`: architecture decision records (MADR and Nygard styles).

Each ADR becomes one decision per entity it names: the `entities:` list in its front
matter, plus the repository files it links to (`[auth](../../src/auth.py)`) and code
spans that are unmistakably entity paths (`src/auth.py::Session`, `deps/stripe`,
`env/KEY`, `route/GET /x`). A `rejected` ADR becomes `reject` events whose
alternative is the options it considered. `Superseded by ADR-N` links the two both
ways in metadata, and when the superseded ADR was a rejection, ADR N re-opens it with
a `supersede` event on each of its entities.
The ADR's path is kept in metadata so hover can link to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cairn.importers.base import Proposed, Skipped, SourceError, guarded, normalise_time
from cairn.importers.dates import added_dates, file_author, file_date
from cairn.importers.sql import relative
from cairn.limits import LimitExceeded, Steps, read_source
from cairn.store.paths import EntityKind, EntityPathError, parse

SOURCE = "adr"
MAX_REASONING = 4000  # the ADR itself stays the full record; the event carries the gist

# Markdown has no parser in the dependency set; ADRs use a small, regular subset.
# Each pattern is linear in the text: a label cannot hold `[` (so a run of `[[[[` is
# not rescanned from every bracket) and a link title stays on its line and is short.
_LINK = re.compile(r"\[[^\[\]]*\]\(([^)\s]+)(?:[ \t]+\"[^\"\n]{0,300}\")?\)")
_CODE = re.compile(r"`([^`\n]+)`")
_NUMBER = re.compile(r"(?:adr[-_ ]?)?0*(\d+)", re.I)
_SUPERSEDED_BY = re.compile(r"superseded\s+by\s+(?:\[)?(?:adr[-_ ]?)?0*(\d+)", re.I)
# matched against a stripped line (two `\s*` around an optional `-` were quadratic)
_FIELD_LINE = re.compile(r"[*-]?[ \t]*(status|date|deciders)[ \t]*:(.*)", re.I)


@dataclass
class Adr:
    """One decision record, as read."""

    path: Path
    rel: str
    number: int | None
    title: str
    status: str
    date: str | None
    sections: dict[str, str]
    options: list[str]
    entities: list[str]
    superseded_by: int | None
    rejected: bool
    notes: list[str] = field(default_factory=list)


def _front_matter(text: str) -> tuple[dict[str, object], str]:
    """A YAML front matter block's flat keys and lists (`k: v`, `k: [a, b]`, `- item`)."""
    if not text.startswith("---"):
        return {}, text
    lines = text.splitlines()
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() in ("---", "..."))
    except StopIteration:
        return {}, text
    data: dict[str, object] = {}
    key = None
    for line in lines[1:end]:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and key is not None:
            existing = data.get(key)
            items = existing if isinstance(existing, list) else []
            items.append(_unquote(stripped[2:]))
            data[key] = items
            continue
        if ":" in stripped and not line.startswith((" ", "\t")):
            key, _, value = stripped.partition(":")
            key = key.strip().lower()
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                data[key] = [_unquote(v) for v in value[1:-1].split(",") if v.strip()]
            elif value:
                data[key] = _unquote(value)
            else:
                data[key] = []
    return data, "\n".join(lines[end + 1 :])


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _sections(body: str) -> tuple[str, dict[str, str]]:
    """(title, {lower-cased `##` heading: text})."""
    title = ""
    sections: dict[str, list[str]] = {"": []}
    current = ""
    in_fence = False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        if not in_fence and line.startswith("# ") and not title:
            title = line[2:].strip()
            continue
        if not in_fence and line.startswith("## "):
            current = line[3:].strip().lower()
            sections.setdefault(current, [])
            continue
        sections[current].append(line)
    return title, {k: "\n".join(v).strip() for k, v in sections.items()}


def _section(sections: dict[str, str], *names: str) -> str:
    for heading, text in sections.items():
        if any(heading.startswith(n) for n in names):
            return text
    return ""


def _list_items(text: str) -> list[str]:
    items = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped[:2] in ("* ", "- ", "+ ") and not line.startswith(("  ", "\t")):
            items.append(stripped[2:].strip())
    return items


def read_adr(path: Path, root: Path) -> Adr | Skipped:
    """Parse one ADR file."""
    rel = relative(path, root)
    text = guarded(rel, lambda: read_source(path))
    if isinstance(text, Skipped):
        return text
    meta, body = _front_matter(text)
    title, sections = _sections(body)
    if not title:
        return Skipped(rel, "no `# Title` heading; not an ADR")
    fields: dict[str, str] = {}
    for line in (sections.get("", "") + "\n" + body[:2000]).splitlines():
        m = _FIELD_LINE.fullmatch(line.strip())
        if m and m.group(2).strip() and m.group(1).lower() not in fields:
            fields[m.group(1).lower()] = m.group(2).strip()
    status_text = str(meta.get("status") or "") or _first_line(_section(sections, "status"))
    status_text = status_text or fields.get("status", "")
    status = status_text.split()[0].strip(".,:*").lower() if status_text.split() else "unknown"
    superseded = _SUPERSEDED_BY.search(status_text) or _SUPERSEDED_BY.search(
        str(meta.get("superseded_by") or meta.get("superseded-by") or "")
    )
    superseded_by = int(superseded.group(1)) if superseded else None
    if superseded_by is None and meta.get("superseded_by"):
        m = _NUMBER.search(str(meta.get("superseded_by")))
        superseded_by = int(m.group(1)) if m else None
    if superseded_by is not None:
        status = "superseded"
    date_raw = str(meta.get("date") or fields.get("date") or "")
    date = None
    notes: list[str] = []
    if date_raw:
        try:
            date = normalise_time(date_raw[:10])
        except SourceError:
            notes.append(f"date {date_raw!r} is not YYYY-MM-DD; used the file's date")
    number_match = _NUMBER.match(path.stem)
    number = int(number_match.group(1)) if number_match else None
    if number is None and meta.get("id"):
        m = _NUMBER.search(str(meta["id"]))
        number = int(m.group(1)) if m else None
    options = _list_items(_section(sections, "considered options", "options", "alternatives"))
    try:
        entities, bad = _entities(meta, body, path, root, Steps())
    except LimitExceeded as exc:
        return Skipped(rel, f"skipped: {exc}")
    notes.extend(bad)
    return Adr(
        path,
        rel,
        number,
        _clean_title(title),
        status,
        date,
        sections,
        options,
        entities,
        superseded_by,
        "rejected" in status_text.lower(),
        notes,
    )


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _clean_title(title: str) -> str:
    m = re.match(r"^(?:adr[-_ ]?\d+\s*[:.-]\s*|\d+\.\s*)", title, re.I)
    return title[m.end() :].strip() if m else title


def _entities(
    meta: dict[str, object], body: str, path: Path, root: Path, steps: Steps
) -> tuple[list[str], list[str]]:
    found: list[str] = []
    bad: list[str] = []
    declared = meta.get("entities") or []
    for raw in declared if isinstance(declared, list) else [declared]:
        try:
            found.append(parse(str(raw)).path)
        except EntityPathError as exc:
            bad.append(f"front matter entity {raw!r}: {exc}")
    for target in _LINK.findall(body):
        steps.spend()  # each link may touch the file system
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        file_part = target.split("#", 1)[0]
        if not file_part or file_part.endswith(".md"):
            continue  # another ADR or a document, not code
        resolved = (path.parent / file_part).resolve()
        if not resolved.is_relative_to(root) or not resolved.exists():
            continue
        rel = resolved.relative_to(root).as_posix() + ("/" if resolved.is_dir() else "")
        try:
            found.append(parse(rel).path)
        except EntityPathError:
            continue
    for code in _CODE.findall(body):
        text = code.strip()
        if not ("::" in text or text.startswith(("deps/", "env/", "route/"))):
            continue
        try:
            entity = parse(text)
        except EntityPathError:
            continue
        if entity.kind in (
            EntityKind.SYMBOL,
            EntityKind.DEPENDENCY,
            EntityKind.ENV,
            EntityKind.ROUTE,
        ):
            found.append(entity.path)
    unique = list(dict.fromkeys(found))
    return unique, bad


def _reasoning(adr: Adr) -> str:
    parts = [f"ADR {adr.number if adr.number is not None else adr.rel}: {adr.title}"]
    for label, names in (
        ("Context", ("context",)),
        ("Decision", ("decision outcome", "decision")),
        ("Consequences", ("consequences",)),
    ):
        text = _section(adr.sections, *names)
        if text:
            parts.append(f"{label}: {' '.join(text.split())}")
    out = "\n\n".join(parts)
    return out if len(out) <= MAX_REASONING else out[: MAX_REASONING - 1] + "…"


def import_adr(
    directory: Path, root: Path, unit_done: list | None = None
) -> tuple[int, Iterator[Proposed | Skipped]]:
    """(number of ADRs, the proposals: every ADR, then the supersede links)."""
    if not directory.is_dir():
        raise SourceError(f"{directory}: not a directory")
    files = sorted(p for p in directory.rglob("*.md") if p.name.lower() != "readme.md")
    if not files:
        raise SourceError(f"{directory}: no Markdown ADRs found")
    dates = added_dates(files)

    def items() -> Iterator[Proposed | Skipped]:
        adrs: list[Adr] = []
        for path in files:
            if "template" in path.stem.lower():
                # MADR ships adr-template.md, adr-tools templates/template.md: examples,
                # whose sample links would otherwise become decisions
                yield Skipped(relative(path, root), "an ADR template, not a decision")
                continue
            item = read_adr(path, root)
            if isinstance(item, Skipped):
                yield item
            else:
                adrs.append(item)
        adrs.sort(key=lambda a: (a.number if a.number is not None else 1 << 30, a.rel))
        by_number = {a.number: a for a in adrs if a.number is not None}
        for adr in adrs:
            for note in adr.notes:
                yield Skipped(adr.rel, note)
            if not adr.entities:
                yield Skipped(
                    adr.rel,
                    "names no entities: add `entities:` front matter or link the code it is about",
                )
                continue
            when = adr.date or file_date(adr.path, dates)[0]
            rejected = adr.rejected
            successor = by_number.get(adr.superseded_by) if adr.superseded_by else None
            meta: dict[str, object] = {
                "adr": adr.rel,
                "adr_number": adr.number,
                "adr_title": adr.title,
                "adr_status": adr.status,
            }
            if adr.options:
                meta["considered_options"] = adr.options
            if successor is not None:
                meta["superseded_by_adr"] = successor.rel
            replaced = [
                a.rel for a in adrs if a.superseded_by is not None and a.superseded_by == adr.number
            ]
            if replaced:
                meta["supersedes_adr"] = replaced
            for entity in adr.entities:
                yield Proposed(
                    source_key=f"{SOURCE}:{adr.rel}:{entity}",
                    type="reject" if rejected else "modify",
                    entity=entity,
                    reasoning=_reasoning(adr),
                    author=file_author(adr.path, dates),
                    alternative=("; ".join(adr.options) or adr.title) if rejected else None,
                    occurred_at=when,
                    metadata=dict(meta),
                )
            for hook in unit_done or []:
                hook(1)
        for adr in adrs:
            if adr.superseded_by is None:
                continue
            successor = by_number.get(adr.superseded_by)
            if successor is None:
                yield Skipped(adr.rel, f"superseded by ADR {adr.superseded_by}, which is not here")
                continue
            if not adr.entities or not adr.rejected:
                # Only a verdict can be re-opened; an accepted decision that was replaced
                # is linked both ways in metadata (superseded_by_adr / supersedes_adr).
                continue
            when = successor.date or file_date(successor.path, dates)[0]
            for entity in adr.entities:
                yield Proposed(
                    source_key=f"{SOURCE}:{successor.rel}:supersedes:{adr.rel}:{entity}",
                    type="supersede",
                    entity=entity,
                    reasoning=_reasoning(successor),
                    author=file_author(successor.path, dates),
                    occurred_at=when,
                    supersedes_key=f"{SOURCE}:{adr.rel}:{entity}",
                    metadata={
                        "adr": successor.rel,
                        "adr_number": successor.number,
                        "adr_title": successor.title,
                        "supersedes_adr": adr.rel,
                    },
                )

    return len(files), items()
