"""The cyclic GC waits while a document is analysed, and collects once it is done.

Once start-up is over (`cairn.lsp.startup.settle`), a didOpen of a 5,000-line file
allocates thousands of containers it keeps (the tree's nodes in flight, ~500 symbols,
~1,000 ranges, statuses, findings, diagnostics), so at the default thresholds about two
collections ran inside each open, and now and then a full one: 1.4-1.9 ms of a
didOpen at 1M on average (the server in process, 30 opens, `gc.callbacks`).
Reference counting frees nearly all of it anyway; the collector only looks for cycles,
and nothing it finds is needed before the diagnostics are out.

So a document's open or edit holds the collector (`hold`), and the end of its analysis
releases it (`release`, after the publish is written, while the client reads it),
running the one young or middle collection the allocations since call for (fewer,
larger passes: the same 30 opens spent 31-32 ms in 42 collections instead of 62-82 ms
in 136). Full collections stay CPython's own decision. A hold lasts `LONGEST_S` at
most, whatever happens to the analysis; a collector someone else turned off stays off
(and a bulk read on the store thread that pauses it during a hold finds it paused, so
the hold's release resumes it: that read is then collected as usual, only slower).
"""

from __future__ import annotations

import asyncio
import gc

LONGEST_S = 1.0  # a hold is released after this at the latest


class GcHold:
    """Holds the cyclic GC during a document's analysis (see the module docstring)."""

    def __init__(self) -> None:
        self._held = False
        self._timer: asyncio.TimerHandle | None = None
        self.passes = 0  # collections run at a release (for tests and benchmarks)

    def hold(self) -> None:
        """A document was opened or edited: no collection until `release`."""
        if self._held or not gc.isenabled():
            return  # held already, or paused by someone else (start-up, a bulk read)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop to release it later: nothing held
        gc.disable()
        self._held = True
        self._timer = loop.call_later(LONGEST_S, self.release)

    def release(self) -> None:
        """The analysis is done (or the hold ran out): resume, and collect now what the
        allocations since the hold call for."""
        if not self._held:
            return
        self._held = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        # counted and collected before enabling: the first allocation after would
        # trigger a collection of its own
        young, middle, _ = gc.get_count()
        first, second, _ = gc.get_threshold()
        if young > first:
            gc.collect(1 if middle >= second else 0)
            self.passes += 1
        gc.enable()
