"""Timestamps: one wire format (UTC, millisecond ISO 8601 with Z) and lenient parsing."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from itertools import repeat
from operator import add, itemgetter

from cairn.store.errors import ValidationError

__all__ = ["format_day", "format_ts", "now_ts", "parse_date", "parse_ts", "to_ms", "wire_forms"]

_WIRE_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{1,9}Z$")
_OFFSET_RE = re.compile(r"^\+?(\d+)\s*([dwmy])$")
_SHORT_YEAR_RE = re.compile(r"^(\d{1,3})-\d\d-\d\dT")
_UNITS = {"d": 1, "w": 7, "m": 30, "y": 365}


def format_ts(moment: datetime) -> str:
    """`2026-11-29T11:44:38.123Z`: sortable as text, the same width for every event.

    Built field by field: `strftime("%Y")` writes year 999 as `999` on glibc, a
    timestamp every reader would then reject (the event would vanish from answers).
    """
    m = moment.astimezone(timezone.utc)
    return (
        f"{m.year:04d}-{m.month:02d}-{m.day:02d}T{m.hour:02d}:{m.minute:02d}:{m.second:02d}"
        f".{m.microsecond // 1000:03d}Z"
    )


def format_day(day: date) -> str:
    """`YYYY-MM-DD` with a four-digit year (the only date form Cairn writes)."""
    return f"{day.year:04d}-{day.month:02d}-{day.day:02d}"


def now_ts() -> str:
    """The current time in wire format."""
    return format_ts(datetime.now(timezone.utc))


def parse_ts(text: str, *, field: str = "date", end_of_day: bool = False) -> str:
    """Accept `YYYY-MM-DD` or ISO 8601 (naive = UTC); return wire format or raise."""
    if _WIRE_RE.match(text):  # already UTC with a Z: keep the first three decimals
        try:
            datetime.fromisoformat(text[:19])
            if text[-1] == "Z":  # (`$` also matches before a final newline)
                size = len(text)
                if size == 24:  # exactly milliseconds: the text is its own wire form
                    return text
                if size > 24:
                    return text[:23] + "Z"
            return text[:20] + (text[20:-1] + "00")[:3] + "Z"
        except ValueError:
            pass  # e.g. month 13: the general path below says what is wrong
    raw = text.strip()
    try:
        if not raw:
            raise ValueError("empty")
        if len(raw) == 10:
            day = date.fromisoformat(raw)
            moment = datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
            if end_of_day:
                moment += timedelta(days=1, milliseconds=-1)
        else:
            iso = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
            moment = datetime.fromisoformat(iso)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
        return format_ts(moment)
    except (ValueError, OverflowError):
        # OverflowError: a time whose UTC form leaves years 1-9999 (0001-01-01T00:00+01:00).
        raise ValidationError(
            f"invalid {field} {text!r}; expected YYYY-MM-DD or an ISO 8601 time "
            "such as 2026-11-29T14:00:00Z, between years 0001 and 9999"
        ) from None


# `wire_forms`: a batch of wire-format times (ASCII digits, a real time of day, at least
# millisecond decimals), one a line, checked with one regex; their days are checked apart.
_WIRE_LINES = re.compile(
    r"(?:[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3,9}Z\n)*"
)
_DAY = itemgetter(slice(0, 10))
_TO_MILLIS = itemgetter(slice(0, 23))


def wire_forms(texts: list[str]) -> dict[str, str]:
    """`parse_ts` of each of `texts`, when every one is already UTC in wire format with
    at least milliseconds (what an importer or a bulk load gives): {text: wire form},
    worked out for the whole batch in C (one regex, slices) instead of a parse per text.
    Empty when any text is not (another form, a day that does not exist, not text): the
    caller parses each the usual way, which gives its answer or its error.
    """
    if not texts or set(map(type, texts)) != {str}:
        return {}
    joined = "\n".join(texts) + "\n"
    # A text holding a newline could pass as two times: the count of lines says not.
    if _WIRE_LINES.fullmatch(joined) is None or joined.count("\n") != len(texts):
        return {}
    if not all(map(_real_day, set(map(_DAY, texts)))):
        return {}
    # `parse_ts`'s fast path: the milliseconds kept, further decimals cut.
    return dict(zip(texts, map(add, map(_TO_MILLIS, texts), repeat("Z")), strict=True))


@lru_cache(maxsize=1 << 12)
def _real_day(day: str) -> bool:
    """Whether `parse_ts` takes this `YYYY-MM-DD` (with a valid time of day) as a day."""
    try:
        datetime.fromisoformat(day + "T00:00:00")
    except ValueError:
        return False
    return True


def parse_date(text: str, *, field: str = "date", today: date | None = None) -> str:
    """A calendar date `YYYY-MM-DD`, or a relative offset (`30d`, `2w`, `6m`, `1y`)."""
    raw = text.strip().lower()
    match = _OFFSET_RE.match(raw)
    if match:
        base = today or datetime.now(timezone.utc).date()
        try:
            return format_day(base + timedelta(days=int(match[1]) * _UNITS[match[2]]))
        except (OverflowError, ValueError):  # 1000000y: past year 9999
            raise ValidationError(
                f"invalid {field} {text!r}: the date would be after 9999-12-31"
            ) from None
    try:
        return format_day(date.fromisoformat(raw[:10] if len(raw) > 10 and raw[10] == "t" else raw))
    except ValueError:
        raise ValidationError(
            f"invalid {field} {text!r}; expected YYYY-MM-DD or an offset like 30d, 2w, 6m, 1y"
        ) from None


def to_ms(ts: str) -> int:
    """Milliseconds since the epoch for a timestamp (fast path for the wire format)."""
    if len(ts) == 24 and ts[19] == "." and ts[23] == "Z":
        # Each field looked up as written: only "00".."23" (and so on) are keys, so any
        # other text (a space, a sign, another script's digits, 24 o'clock) goes the
        # general way below and gets its answer or its error. Half the cost of int().
        hour, minute = _HOUR_MS.get(ts[11:13]), _MINUTE_MS.get(ts[14:16])
        second, milli = _SECOND_MS.get(ts[17:19]), _MILLI.get(ts[20:23])
        if hour is not None and minute is not None and second is not None and milli is not None:
            return _day_ms(ts[0:10]) + hour + minute + second + milli
    return _to_ms_parsed(ts)


_HOUR_MS = {f"{h:02d}": h * 3_600_000 for h in range(24)}
_MINUTE_MS = {f"{m:02d}": m * 60_000 for m in range(60)}
_SECOND_MS = {f"{s:02d}": s * 1000 for s in range(60)}
_MILLI = {f"{f:03d}": f for f in range(1000)}


def _to_ms_parsed(ts: str) -> int:
    """`to_ms` of any timestamp: the wire format's fields read with int()."""
    if len(ts) != 24 or ts[19] != "." or ts[23] != "Z":
        legacy = _SHORT_YEAR_RE.match(ts)
        if legacy:  # written by a release whose strftime dropped the zero padding
            ts = legacy[1].zfill(4) + ts[legacy.end(1) :]
        ts = parse_ts(ts, field="timestamp")
    hour, minute, second = int(ts[11:13]), int(ts[14:16]), int(ts[17:19])
    if not (0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59):
        raise ValueError(f"time out of range in {ts!r}")
    seconds = (hour * 60 + minute) * 60 + second
    return _day_ms(ts[0:10]) + seconds * 1000 + int(ts[20:23])


@lru_cache(maxsize=1 << 12)
def _day_ms(day: str) -> int:
    """Milliseconds from the epoch to a day's midnight UTC (ValueError for no such day).

    Cached: a log's events fall on few days, and building a datetime for each was a
    tenth of indexing a line."""
    moment = date(int(day[0:4]), int(day[5:7]), int(day[8:10]))
    return (moment.toordinal() - _EPOCH_DAY) * 86_400_000


_EPOCH_DAY = date(1970, 1, 1).toordinal()
