"""Pause Python's cyclic garbage collector while a million acyclic objects are made.

Reading a 1M-event log (verify, an index rebuild) allocates millions of dicts, strings
and small records, none of them in reference cycles. Each allocation burst makes the
collector walk every live object again; pausing it cut a 200k verify's CPU by ~20% and
a rebuild's by ~15%, more as the log grows. Reference counting still frees everything;
only cycles wait, and the collector runs as usual once the work is done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused"]


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (restored as it was, even on error)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
