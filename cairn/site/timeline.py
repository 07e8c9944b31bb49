"""The site's front page: a timeline of decisions, newest first. A reader wants what was
tried, undone and why, not every file a revert touched, so one entry stands for one
revert, reject or supersede, with every entity it touched folded into it (a revert
commit that took out forty functions is one entry, not forty rows).

Entries are gathered while the export reads each entity's events (`Decisions.add`), so
the log is read once; the front page shows the newest `PAGE` entries and the older ones
go to `decisions-2.html`, `decisions-3.html`..., so the page stays small however long
the history is. Every string goes through `esc`: decision text is untrusted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from cairn.site.markup import esc, pager
from cairn.store import Event, EventType

__all__ = ["KINDS", "NAMED", "PAGE", "Decisions", "Entry", "page_name", "touched_pages"]

KINDS = (EventType.REVERT, EventType.REJECT, EventType.SUPERSEDE)
PAGE = 100  # entries a timeline page shows
FOLDED = 5  # entities named on an entry before the rest fold under "N more"
NAMED = 50  # entities an entry names at most; a larger one links its own page of them
REASON_CHARS = 280


def page_name(number: int) -> str:
    """The file of timeline page `number` (1 is the front page's own)."""
    return "index.html" if number == 1 else f"decisions-{number}.html"


@dataclass(slots=True)
class Entry:
    """One decision: its kind, when, who, why, and the entities it touched (path, page)."""

    kind: str
    when: str
    who: str
    reason: str
    alternative: str
    first_id: str
    entities: dict[str, str] = field(default_factory=dict)


class Decisions:
    """The timeline's entries, built from the events the export reads one entity at a time."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, ...], Entry] = {}

    def add(self, event: Event, entity: str, page: str, when: str, who: str) -> None:
        """Count `event` (on `entity`, whose page is `page`) if it is a decision: one
        entry per commit and kind, or per kind, time, author and reason when the
        decision was recorded by hand."""
        if event.type not in KINDS:
            return
        kind = event.type.value
        if event.commit:
            key: tuple[str, ...] = (kind, event.commit)
        else:
            key = (kind, when, who, event.reasoning, event.alternative or "")
        entry = self._entries.get(key)
        if entry is None:
            entry = self._entries[key] = Entry(
                kind, when, who, event.reasoning, event.alternative or "", event.id
            )
        entry.entities.setdefault(entity, page)

    def __len__(self) -> int:
        return len(self._entries)

    def newest_first(self) -> list[Entry]:
        return sorted(self._entries.values(), key=lambda e: (e.when, e.first_id), reverse=True)

    def pages(self) -> Iterator[tuple[int, int, list[Entry]]]:
        """(page number, page count, entries) for every page, the front page first."""
        ordered = self.newest_first()
        count = max(1, -(-len(ordered) // PAGE))
        for number in range(1, count + 1):
            yield number, count, ordered[(number - 1) * PAGE : number * PAGE]


def touched_name(entry: Entry) -> str:
    """The page of every entity a decision touched (only for more than `NAMED`)."""
    return f"touched/{entry.first_id[:16]}.html"


def touched_pages(
    decisions: Decisions, clip: Callable[[str, int], str]
) -> Iterator[tuple[str, str, str]]:
    """(file name, title, body) of the page of each decision that touched more entities
    than its timeline entry names; links are relative to `touched/`."""
    for entry in decisions.newest_first():
        if len(entry.entities) <= NAMED:
            continue
        why = esc(clip(entry.reason, 1000)) if entry.reason else "<em>no reasoning recorded</em>"
        items = "".join(
            f'<li><a href="../{esc(page)}"><code>{esc(path)}</code></a></li>'
            for path, page in sorted(entry.entities.items())
        )
        title = f"{entry.kind} {entry.when[:10]} by {entry.who}"
        body = (
            '<p class="crumbs"><a href="../index.html">All decisions</a></p>'
            f"<h1>{esc(title)}</h1>"
            f'<p class="lede"><span class="why">{why}</span></p>'
            f"<h2>{len(entry.entities)} entities</h2><ul>{items}</ul>"
        )
        yield touched_name(entry), title, body


def section(
    entries: list[Entry], number: int, count: int, root: str, clip: Callable[[str, int], str]
) -> str:
    """The timeline's HTML for one page: its entries and the links to the other pages."""
    if not entries:
        return (
            '<section class="decisions" aria-label="Decisions"><h2>Decisions</h2>'
            '<p class="summary">No revert, reject or supersede recorded yet.</p></section>'
        )
    items = "\n".join(_entry(e, root, clip) for e in entries)
    return (
        '<section class="decisions" aria-label="Decisions"><h2>Decisions</h2>'
        f'<ol class="decisions">\n{items}\n</ol>{pager(number, count, root, page_name)}</section>'
    )


def _entry(entry: Entry, root: str, clip: Callable[[str, int], str]) -> str:
    links = [
        f'<a href="{esc(root + page)}"><code>{esc(path)}</code></a>'
        for path, page in sorted(entry.entities.items())
    ]
    shown = ", ".join(links[:FOLDED])
    if len(links) > FOLDED:
        # a revert of a sweeping commit touches thousands: the page names a few
        rest = ", ".join(links[FOLDED:NAMED])
        if len(links) > NAMED:
            rest += (
                f' … <a class="all" href="{esc(root + touched_name(entry))}">'
                f"all {len(links)} entities</a>"
            )
        shown += (
            f'<details class="more"><summary>{len(links) - FOLDED} more</summary>'
            + rest
            + "</details>"
        )
    why = (
        esc(clip(entry.reason, REASON_CHARS)) if entry.reason else "<em>no reasoning recorded</em>"
    )
    approach = (
        f' <span class="approach">rejected approach: {esc(clip(entry.alternative, 120))}</span>'
        if entry.alternative
        else ""
    )
    return (
        f'<li class="decision" data-kind="{esc(entry.kind)}">'
        f'<span class="badge k-{esc(entry.kind)}">{esc(entry.kind)}</span> '
        f"<time>{esc(entry.when[:10])}</time> by {esc(entry.who)}: "
        f'<span class="why">{why}</span>{approach}'
        f'<div class="touched">{shown}</div></li>'
    )
