"""An entity's events drawn as an SVG on a time axis, at export time (no script): one
lane per kind of event, each mark a link to its event, a supersede joined to the
verdict it re-opened."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from cairn.site.markup import esc
from cairn.site.model import clip, instant_of, when_of
from cairn.store import Event, EventType

__all__ = ["category_of", "timeline_svg"]


def category_of(event: Event, reopened_by: dict[str, str]) -> str:
    """The timeline lane and colour: applied, removed, reverted, rejected, superseded
    (a verdict someone re-opened), supersede, redact, note (a reason added later)."""
    if event.type.is_verdict:
        if event.id in reopened_by:
            return "superseded"
        return "reverted" if event.type == EventType.REVERT else "rejected"
    if event.type == EventType.SUPERSEDE:
        return "supersede"
    if event.type.is_removal:
        return "removed"
    if event.type == EventType.REDACT:
        return "redact"
    if event.type == EventType.ANNOTATE:
        return "note"
    return "applied"


_LANES = (
    ("applied", "applied"),
    ("removed", "removed"),
    ("verdict", "verdicts"),
    ("supersede", "re-opened"),
    ("note", "notes"),
)
_LANE_OF = {
    "applied": "applied",
    "removed": "removed",
    "reverted": "verdict",
    "rejected": "verdict",
    "superseded": "verdict",
    "supersede": "supersede",
    "redact": "removed",
    "note": "note",
}
_WIDTH, _LEFT, _RIGHT, _TOP, _LANE_H = 760, 96, 24, 16, 30


def timeline_svg(events: Iterable[Event], reopened_by: dict[str, str]) -> str:
    """An SVG of an entity's events on a time axis, one lane per kind of event, each
    mark a link to the event below; a supersede is joined to the verdict it re-opened."""
    dated = [(e, instant_of(when_of(e))) for e in events]
    known = [t for _, t in dated if t is not None]
    notes = any(category_of(e, reopened_by) == "note" for e, _ in dated)
    lanes = [lane for lane in _LANES if notes or lane[0] != "note"]
    height = _TOP + _LANE_H * len(lanes) + 34
    if not dated:
        return ""
    start = min(known) if known else None
    end = max(known) if known else None
    span = (end - start).total_seconds() if start and end else 0.0
    inner = _WIDTH - _LEFT - _RIGHT

    def x_of(moment: datetime | None, order: int) -> float:
        if moment is None or start is None or span <= 0:
            return (
                _LEFT + inner / 2 if len(dated) == 1 else _LEFT + inner * order / (len(dated) - 1)
            )
        return _LEFT + inner * (moment - start).total_seconds() / span

    lane_y = {name: _TOP + _LANE_H * i + _LANE_H / 2 for i, (name, _) in enumerate(lanes)}
    out = [
        f'<svg class="timeline" viewBox="0 0 {_WIDTH} '
        f'{height}" width="{_WIDTH}" height="{height}" role="img" '
        f'aria-label="Timeline of {len(dated)} events">'
    ]
    for name, label in lanes:
        y = lane_y[name]
        out.append(
            f'<line class="lane" x1="{_LEFT}" y1="{y:.1f}" x2="{_WIDTH - _RIGHT}" y2="{y:.1f}"/>'
            f'<text class="lane-label" x="8" y="{y + 4:.1f}">{label}</text>'
        )
    axis_y = _TOP + _LANE_H * len(lanes) + 4
    out.append(
        f'<line class="axis" x1="{_LEFT}" y1="{axis_y}" x2="{_WIDTH - _RIGHT}" y2="{axis_y}"/>'
    )
    ticks = _ticks(start, end, inner)
    for i, (tick_x, tick_label) in enumerate(ticks):
        # the outer labels grow inwards so that none is cut at the edge
        anchor = "start" if i == 0 and len(ticks) > 1 else "middle"
        anchor = "end" if i == len(ticks) - 1 and len(ticks) > 1 else anchor
        out.append(
            f'<line class="tick" x1="{tick_x:.1f}" y1="{axis_y}" x2="{tick_x:.1f}" '
            f'y2="{axis_y + 5}"/><text class="tick-label" x="{tick_x:.1f}" y="{axis_y + 18}" '
            f'text-anchor="{anchor}">{esc(tick_label)}</text>'
        )
    where: dict[str, tuple[float, float]] = {}
    used: dict[tuple[str, int], int] = defaultdict(int)
    marks: list[str] = []
    for order, (event, moment) in enumerate(dated):
        category = category_of(event, reopened_by)
        lane = _LANE_OF[category]
        x = x_of(moment, order)
        slot = (lane, round(x / 6))
        x += 7 * used[slot]  # events at the same moment sit side by side
        used[slot] += 1
        y = lane_y[lane]
        where[event.id] = (x, y)
        summary = f"{event.type.value} {when_of(event)[:10]}"
        if event.redacted:
            summary += ": [redacted]"
        elif event.reasoning:
            summary += ": " + clip(event.reasoning, 140)
        marks.append(
            f'<a href="#ev-{esc(event.id)}" class="mark m-{category}">'
            f"<title>{esc(summary)}</title>{_shape(category, x, y)}</a>"
        )
    links = []
    for event, _ in dated:
        if event.supersedes and event.supersedes in where and event.id in where:
            (x1, y1), (x2, y2) = where[event.supersedes], where[event.id]
            links.append(
                f'<path class="reopen" d="M{x1:.1f},{y1:.1f} C{x1:.1f},{y2:.1f} '
                f'{x2:.1f},{y1:.1f} {x2:.1f},{y2:.1f}"/>'
            )
    out.extend(links)
    out.extend(marks)
    out.append("</svg>")
    legend = "".join(
        f'<li><svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">'
        f"{_shape(c, 7, 7)}</svg> {label}</li>"
        for c, label in (
            ("applied", "applied"),
            ("removed", "removed"),
            ("reverted", "reverted"),
            ("rejected", "rejected"),
            ("superseded", "superseded verdict"),
            ("supersede", "re-opening"),
        )
    )
    return f'<figure class="timeline">{"".join(out)}<ul class="legend">{legend}</ul></figure>'


def _shape(category: str, x: float, y: float) -> str:
    cls = f'class="shape m-{category}"'
    if category in ("reverted", "superseded"):
        points = [(x - 6, y - 5), (x + 6, y - 5), (x, y + 6)]
        return f'<path {cls} d="{_polygon(points)}"/>'
    if category == "rejected":
        points = [(x, y - 6), (x + 6, y), (x, y + 6), (x - 6, y)]
        return f'<path {cls} d="{_polygon(points)}"/>'
    if category in ("removed", "redact"):
        return f'<rect {cls} x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10"/>'
    return f'<circle {cls} cx="{x:.1f}" cy="{y:.1f}" r="5.5"/>'


def _polygon(points: Iterable[tuple[float, float]]) -> str:
    return "M" + " L".join(f"{px:.1f},{py:.1f}" for px, py in points) + " Z"


def _ticks(start: datetime | None, end: datetime | None, inner: float) -> list[tuple[float, str]]:
    if start is None or end is None:
        return []
    span = (end - start).total_seconds()
    if span <= 0:
        return [(_LEFT + inner / 2, start.date().isoformat())]
    count = 5
    out = []
    for i in range(count):
        moment = start + (end - start) * (i / (count - 1))
        out.append((_LEFT + inner * i / (count - 1), moment.date().isoformat()))
    return out
