"""Fixtures more than one area of the suite uses."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture
def collector_state() -> Iterator[None]:
    """Give the cyclic collector back as the test found it (tests that pause it)."""
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()
