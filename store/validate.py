"""The checks a draft's fields pass before it becomes an event: sizes, commit ids,
JSON values, redact targets, entity paths (each raises `ValidationError`)."""

from __future__ import annotations

import re
from typing import Any

from cairn.store.errors import ValidationError
from cairn.store.fields import LIMITS, MAX_DIFF_BYTES, MAX_LABEL_BYTES, MAX_REASONING_BYTES
from cairn.store.paths import EntityPathError, parse, parsed_or_none

__all__ = [
    "HEX",
    "MAX_DIFF_BYTES",
    "MAX_LABEL_BYTES",
    "MAX_REASONING_BYTES",
    "SHORT_DIFF",
    "SHORT_LABEL",
    "SHORT_TEXT",
    "check_json",
    "check_redact_target",
    "check_sizes",
    "commit_id",
    "parse_entity",
]

HEX = re.compile(r"^[0-9a-f]+$")
# Characters below which a text is under its limit whatever it holds (at most 4 bytes
# a character), so `check_sizes` need not look.
SHORT_TEXT = MAX_REASONING_BYTES // 4
SHORT_DIFF = MAX_DIFF_BYTES // 4
SHORT_LABEL = MAX_LABEL_BYTES // 4
_COMMIT_RE = re.compile(r"^[0-9a-f]{4,64}$")


def check_redact_target(metadata: object) -> None:
    """A redact records which event's content was erased; one without a target is
    refused (`cairn log X redact` wrote one). Only `cairn redact` writes them."""
    target = metadata.get("redacts") if isinstance(metadata, dict) else None
    if not (isinstance(target, str) and len(target) == 64 and HEX.match(target)):
        raise ValidationError(
            "a redact is written by `cairn redact ID --reason ...`, which erases that "
            "event's content; it cannot be logged by itself"
        )


def commit_id(raw: str) -> str:
    """A commit id as the log stores it (lower-case hex, 4-64 digits), or ValidationError."""
    text = raw.strip().lower()
    if text and not _COMMIT_RE.match(text):
        raise ValidationError(
            f"--commit {raw[:80]!r} is not a commit id; give its hex id (4 to 64 hex digits), "
            "e.g. the output of `git rev-parse HEAD`"
        )
    return text


def check_sizes(header: dict[str, Any], content: dict[str, Any]) -> None:
    """ValidationError naming the first field over its limit (nothing is written)."""
    for name, limit in LIMITS:
        value = content.get(name, header.get(name))  # each name is in one half
        if not isinstance(value, str) or len(value) * 4 <= limit:
            continue  # at most 4 bytes a character: short text needs no encoding
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > limit:
            raise ValidationError(
                f"{name} is {size:,} bytes; the limit is {limit // 1024:,} KB. Keep the "
                "decision and its why here and link to longer material"
            )


def check_json(value: Any, where: str) -> None:
    """Only what canonical JSON can say one way: strings, integers, booleans, null, nesting."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValidationError(f"{where} keys must be strings, not {key!r}")
            check_json(item, f"{where}.{key}")
    elif isinstance(value, list | tuple):
        for item in value:
            check_json(item, where)
    elif isinstance(value, float):
        raise ValidationError(
            f"{where} holds the float {value!r}; floats have no single canonical text, "
            "store it as a string or an integer"
        )
    elif value is not None and not isinstance(value, str | int | bool):
        raise ValidationError(f"{where} holds a {type(value).__name__}, which JSON cannot hold")


def parse_entity(raw: str) -> tuple[str, str]:
    """(canonical path, kind) of a raw entity path, or ValidationError."""
    # Through the process's cache, which the index also asks for a path's kind.
    parsed = parsed_or_none(raw) if isinstance(raw, str) else None
    if parsed is None:
        try:
            parsed = parse(raw)
        except EntityPathError as exc:
            raise ValidationError(str(exc)) from None
    return parsed.path, parsed.kind.value
