"""`cairn digest`: what an agent should know before it starts, in a few thousand characters.

Agents rarely ask for memory, so the host injects this at session start and after a
compaction. It lists the open verdicts (reverts, rejects, re-applications without a
supersede) and the due reviews on the entities in the files this branch touches
(changes since the merge base with the default branch, staged and unstaged work,
untracked files, plus any `--paths`), then the newest open verdicts project-wide while
room is left. Each line: entity, verdict, date, short id, the reason's first sentence.

Statuses, verdicts and reviews come from the store; entities in a file come from the
indexer. This module only chooses and lays out lines.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from cairn import git as gitcmd
from cairn.core.present import clip, day, md_text, short_id
from cairn.core.project import Project
from cairn.significance import quiet

DEFAULT_MAX_CHARS = 4000
MIN_MAX_CHARS = 200
MAX_FILES = 200  # a branch that touches more is a mass rename: index the first ones
MAX_FILE_BYTES = 1_000_000  # larger files are generated; the indexer would only waste time
RECENT_LIMIT = 40
DEFAULT_BRANCHES = ("main", "master", "trunk", "develop")

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True, slots=True)
class Item:
    """One digest line: a verdict, a conflict or a due review on one entity."""

    section: str  # branch | recent
    kind: str  # revert | reject | conflict | review
    entity: str
    date: str
    id: str
    reason: str
    alternative: str = ""
    note: str = ""  # "formerly OLD" / "file removed" (`cairn.core.listing.named`)

    def line(self) -> str:
        """`- users.email_verified: revert 2026-04-02 1a2b3c4d: Bounced mail broke signup.`"""
        what = self.kind
        if self.alternative:
            what += f" of “{md_text(clip(self.alternative, 60))}”"
        where = f"{self.entity} ({self.note})" if self.note else self.entity
        # the host injects this as Markdown: the stored words go in as inert text
        # (entities are checked entity paths and ids hex by the time they get here)
        return f"- {where}: {what} {self.date} {short_id(self.id)}: {md_text(self.reason)}"

    def to_dict(self) -> dict[str, str]:
        """JSON-ready form (the full id, the first sentence of the reason)."""
        return {
            "section": self.section,
            "kind": self.kind,
            "entity": self.entity,
            "date": self.date,
            "id": self.id,
            "reason": self.reason,
            "alternative": self.alternative,
            "note": self.note,
        }


@dataclass(slots=True)
class Digest:
    """The briefing: what was looked at, the items chosen, and the text within budget."""

    base: str | None  # the merge base the branch's changes were taken from
    files: list[str]
    entities: int
    items: list[Item] = field(default_factory=list)
    text: str = ""
    omitted: int = 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "base": self.base,
            "files": self.files,
            "entities": self.entities,
            "items": [i.to_dict() for i in self.items],
            "omitted": self.omitted,
            "text": self.text,
        }


def first_sentence(text: str, limit: int = 160) -> str:
    """The reason's first sentence on one line, clipped."""
    flat = " ".join((text or "").split())
    if not flat:
        return "(no reasoning recorded)"
    return clip(_SENTENCE_END.split(flat, 1)[0], limit)


# --- which files the branch touches -----------------------------------------------------


def _git(args: Sequence[str], cwd: Path) -> str | None:
    """stdout of a git command, or None when git is missing or the command fails."""
    try:
        # neutralised (`cairn.git`): the SessionStart hook runs this in any repository
        proc = gitcmd.run(cwd, *args, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def default_branch(root: Path) -> str | None:
    """The branch work is merged into: origin's HEAD, else a conventional local name."""
    remote_head = _git(["symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD"], root)
    if remote_head and remote_head.strip():
        return remote_head.strip()
    for name in DEFAULT_BRANCHES:
        for ref in (f"refs/heads/{name}", f"refs/remotes/origin/{name}"):
            if _git(["rev-parse", "--verify", "--quiet", ref], root) is not None:
                return ref.removeprefix("refs/heads/").removeprefix("refs/remotes/")
    return None


def changed_files(root: Path) -> tuple[str | None, list[str]]:
    """(merge base, project-relative files) the branch and the working tree change.

    The diff runs against the merge base with the default branch, so it covers commits
    on this branch plus staged and unstaged edits; untracked files count as work too.
    Outside a git repository, or with no default branch, only the working tree counts.
    """
    if _git(["rev-parse", "--is-inside-work-tree"], root) is None:
        return None, []
    base = None
    branch = default_branch(root)
    if branch is not None:
        found = _git(["merge-base", "HEAD", branch], root)
        base = found.strip() if found and found.strip() else None
    if base is None and _git(["rev-parse", "--verify", "--quiet", "HEAD"], root) is not None:
        base = "HEAD"
    names: list[str] = []
    if base is not None:
        diff = _git(["diff", "--name-only", "-z", "--relative", "--no-renames", base, "--"], root)
        names += (diff or "").split("\0")
    untracked = _git(["ls-files", "-z", "--others", "--exclude-standard"], root)
    names += (untracked or "").split("\0")
    seen: dict[str, None] = {}
    for name in names:
        if name and not name.startswith(".cairn/"):
            seen.setdefault(name, None)
    return (None if base == "HEAD" else base), list(seen)


# --- entities and items -----------------------------------------------------------------


def _relative(project: Project, raw: str) -> str | None:
    path = Path(raw)
    absolute = path if path.is_absolute() else (Path.cwd() / path)
    try:
        return absolute.resolve().relative_to(project.root.resolve()).as_posix()
    except ValueError:
        return None


def entities_in_files(project: Project, files: Iterable[str]) -> set[str]:
    """Each file's own entity plus every entity the indexer finds in it."""
    from cairn.indexer import index_text

    found: set[str] = set()
    for rel in files:
        found.add(rel)
        path = project.root / rel
        try:
            if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        if b"\0" in data[:8192]:
            continue
        found.update(s.entity for s in index_text(data.decode("utf-8", "replace"), rel))
    return found


def _verdict_item(session: Any, section: str, event: Any) -> Item:
    from cairn.core.listing import named

    entity, note = named(session, event.entity)
    return Item(
        section=section,
        kind=str(event.type.value if hasattr(event.type, "value") else event.type),
        entity=entity,
        date=day(event.when),
        id=event.id,
        reason=first_sentence(event.reasoning),
        alternative=event.alternative or "",
        note=note,
    )


def _review_item(session: Any, event: Any, reason: str) -> Item:
    from cairn.core.listing import named

    entity, note = named(session, event.entity)
    return Item("branch", "review", entity, day(event.when), event.id, reason, note=note)


def branch_items(session: Any, entities: set[str], today: date | None = None) -> list[Item]:
    """Open verdicts, conflicts and due reviews on the branch's entities, newest first.
    `today` pretends another day for the reviews (the session's statuses use today)."""
    from cairn.store.paths import EntityPathError, canonicalise

    valid: set[str] = set()
    for entity in entities:
        try:
            valid.add(canonicalise(entity))
        except (EntityPathError, ValueError):
            continue  # a file name the grammar does not accept has no history either
    items: list[Item] = []
    seen: set[str] = set()
    other_day: dict[str, list[Any]] = {}
    if today is not None:
        for review in session.due_reviews(today=today):
            other_day.setdefault(review.event.entity, []).append(review)
    for status in session.statuses(sorted(valid)).values():
        for verdict in status.open_verdicts:
            if verdict.id not in seen and not quiet(verdict):
                seen.add(verdict.id)
                items.append(_verdict_item(session, "branch", verdict))
        for change in session.store.events_of(status.conflicts):  # their reasoning too
            if change.id not in seen:
                seen.add(change.id)
                reason = "re-applied without a supersede: " + first_sentence(change.reasoning)
                items.append(
                    Item("branch", "conflict", status.entity, day(change.when), change.id, reason)
                )
        due_now = status.due_reviews if today is None else other_day.get(status.entity, [])
        for review in due_now:
            event = review.event
            if event.id not in seen:
                seen.add(event.id)
                due = f"review due {review.due}: " if review.due else "review due: "
                reason = due + first_sentence(event.reasoning)
                items.append(_review_item(session, event, reason))
    items.sort(key=lambda i: i.date, reverse=True)
    return items


def build_digest(
    project: Project,
    *,
    paths: Sequence[str] = (),
    max_chars: int = DEFAULT_MAX_CHARS,
    today: date | None = None,
    use_git: bool = True,
) -> Digest:
    """The digest for a project: the branch's entities first, then project-wide verdicts."""
    from cairn.core.session import Session

    base, files = changed_files(project.root) if use_git else (None, [])
    for raw in paths:
        rel = _relative(project, raw)
        if rel is not None and rel not in files:
            files.append(rel)
    files = files[:MAX_FILES]
    entities = entities_in_files(project, files)
    with Session.open(project) as session:
        items = branch_items(session, entities, today)
        seen = {i.id for i in items}
        # Cosmetic reverts (`cairn.significance`) never fill the digest: read more of
        # the newest verdicts so that leaving them out does not leave it short.
        recent = [v for v in session.store.recent_verdicts(RECENT_LIMIT * 4) if not quiet(v)][
            :RECENT_LIMIT
        ]
        for verdict in recent:
            if verdict.id not in seen:
                items.append(_verdict_item(session, "recent", verdict))
    digest = Digest(base=base, files=files, entities=len(entities))
    digest.items, digest.text, digest.omitted = layout(items, len(files), max_chars)
    return digest


# --- layout -----------------------------------------------------------------------------

_HEADER = "Cairn decision digest: what this team decided against. Do not re-introduce these."
_FOOTER = (
    "To go against one, ask the user, then record why first (MCP cairn_record type "
    "supersede, or `cairn supersede ENTITY -r ...`). Details: cairn_why or `cairn history`."
)
_MORE = "… {n} more not shown: cairn digest --json"


def layout(items: list[Item], files: int, max_chars: int) -> tuple[list[Item], str, int]:
    """The items that fit in `max_chars`, the text, and how many were left out."""
    budget = max(MIN_MAX_CHARS, max_chars)
    if not items:
        return [], "Cairn decision digest: no open verdicts or due reviews recorded.", 0
    branch = [i for i in items if i.section == "branch"]
    recent = [i for i in items if i.section == "recent"]
    sections: list[tuple[str, list[Item]]] = []
    if files:
        where = f"the {files} file{'s' if files != 1 else ''} this branch touches"
        sections.append((f"On {where}:" if branch else f"On {where}: nothing open.", branch))
    if recent:
        sections.append(("Newest open verdicts project-wide:", recent))
    # Room for the footer and a possible "N more" line, so the text never exceeds the budget.
    reserve = len(_FOOTER) + len(_MORE.format(n=9999)) + 2
    lines = [_HEADER]
    used = len(_HEADER) + 1
    kept: list[Item] = []
    omitted = 0
    for title, group in sections:
        if used + len(title) + 1 + reserve > budget:
            omitted += len(group)
            continue
        lines.append(title)
        used += len(title) + 1
        for item in group:
            line = item.line()
            if used + len(line) + 1 + reserve > budget:
                omitted += 1
                continue
            lines.append(line)
            kept.append(item)
            used += len(line) + 1
    if omitted:
        lines.append(_MORE.format(n=omitted))
    lines.append(_FOOTER)
    text = "\n".join(lines)
    if len(text) > budget:  # only when the budget is below the fixed header and footer
        text = text[: budget - 1] + "…"
    return kept, text, omitted
