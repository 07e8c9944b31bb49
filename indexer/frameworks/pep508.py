"""A PEP 508 requirement string (`"stripe[async]>=5; python_version>'3.8'"`) names a
distribution: the leading name is the dependency, the specifier its version."""

from __future__ import annotations

import re

from cairn.indexer.capture import Capture, FileContext

_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
_EXTRAS = re.compile(r"\s*\[[^\]]*\]")


def split(text: str) -> tuple[str, str] | None:
    """(name, version constraint) of a requirement; the constraint is the specifier as
    written without spaces (`>=5,<6`, `==2.6.1`), or `@ url` for a direct reference,
    or "" when none is given. None when no name leads the text."""
    match = _NAME.match(text)
    if match is None:
        return None
    rest = text[match.end() :]
    extras = _EXTRAS.match(rest)
    if extras:
        rest = rest[extras.end() :]
    rest = rest.split(";", 1)[0].split(" #", 1)[0].strip()
    if rest.startswith("@"):
        return match.group(1), "@ " + rest[1:].strip()
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    return match.group(1), "".join(rest.split())


def requirement(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Keep the distribution name; the specifier becomes the version."""
    found = split(capture.name)
    if found is None:
        return []
    name, version = found
    return [capture.but(name=name, version=version)]
