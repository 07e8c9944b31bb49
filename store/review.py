"""Review fields: `revisit_after` (a date) and `expires_when` (a closed grammar)."""

from __future__ import annotations

from datetime import date

from cairn.store.errors import ValidationError
from cairn.store.paths import EntityPathError, canonicalise
from cairn.store.times import parse_date

__all__ = ["EXPIRES_GRAMMAR", "parse_expires_when", "parse_revisit_after"]

EXPIRES_GRAMMAR = "date:YYYY-MM-DD | entity:PATH:changes | manual:LABEL"


def parse_revisit_after(text: str, *, today: date | None = None) -> str:
    """`YYYY-MM-DD` or a relative offset (`30d`, `2w`, `6m`, `1y`) -> `YYYY-MM-DD`."""
    return parse_date(text, field="revisit_after", today=today)


def parse_expires_when(text: str) -> str:
    """Validate and normalise an `expires_when` trigger; the error states the grammar."""
    raw = text.strip()
    kind, _, rest = raw.partition(":")
    kind = kind.lower()
    try:
        if kind == "date" and rest:
            return "date:" + parse_date(rest, field="expires_when date")
        if kind == "entity" and rest.endswith(":changes") and len(rest) > len(":changes"):
            return f"entity:{canonicalise(rest[: -len(':changes')])}:changes"
        if kind == "manual" and rest.strip() and "\n" not in rest:
            return "manual:" + rest.strip()
    except (ValidationError, EntityPathError) as exc:
        raise ValidationError(f"invalid expires_when {text!r}: {exc}") from None
    raise ValidationError(f"invalid expires_when {text!r}; expected {EXPIRES_GRAMMAR}")
