"""What the server does before its first import and after start-up (`cairn serve`).

`prepare` runs first, before the LSP types are imported: it pauses the cyclic garbage
collector (start-up only builds long-lived objects: ~130 collections, one of them a
full one, found nothing to free and cost ~80 ms) and installs the cache of generated
code (`cairn.lsp.codegen_cache`). `settle` runs once the server is built: it moves
everything alive into the GC's permanent generation, so later collections never scan
the LSP types' thousands of objects again, and lets the collector run from then on.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cairn.lsp.codegen_cache import CodeCache

_paused = False


def pause_gc() -> None:
    """From the process's start until `settle`: no cyclic collection (see above)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def prepare() -> CodeCache | None:
    """Before importing the server: pause the GC, install the code cache."""
    pause_gc()
    from cairn.lsp.codegen_cache import install  # not before: the bootstrap needs no cache

    return install()


def settle() -> None:
    """Once, after start-up: exempt what is alive now from the cyclic GC's scans, and
    resume collecting if `prepare` paused it.

    A full collection walks every tracked container: with a 1M-event store loaded it
    took ~40 ms, which showed up as the hover p99. Long-lived state is freed by
    reference counting when replaced; only cycles among it would wait for exit.
    """
    global _paused
    gc.freeze()
    if _paused:
        _paused = False
        gc.enable()
