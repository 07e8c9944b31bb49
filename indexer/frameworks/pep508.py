"""A PEP 508 requirement string (`"stripe[async]>=5; python_version>'3.8'"`) names a
distribution: the leading name is the dependency."""

from __future__ import annotations

import re

from cairn.indexer.capture import Capture, FileContext

_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")


def requirement(capture: Capture, ctx: FileContext) -> list[Capture]:
    """Keep only the distribution name."""
    match = _NAME.match(capture.name)
    return [capture.but(name=match.group(1))] if match else []
