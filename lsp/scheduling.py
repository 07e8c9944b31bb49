"""What runs where and when: the event loop, the one worker thread, background tasks.

Execution model
---------------
* **On the event loop, in order** (pygls dispatches every message there): document
  edits (tree-sitter's incremental reparse is fast enough), symbol lookups, code
  actions, conversions to LSP types, publishing. These need the newest state, and
  running them in arrival order is what keeps it consistent without locks.
* **On the one worker thread** (`Worker`, named "cairn-store"): every call that may
  block on the disk: the store (SQLite), its catch-up after `git pull`. Calls are
  serialised, which SQLite connections (never shared between threads) and the log's
  one-writer rule want anyway. Nothing else does work on a thread: stdin is read by
  the loop itself (`cairn.lsp.server`), the write-lock probe polls on the loop; the
  only other thread writes log records to stderr (`server.log_to_stderr`), so a
  client that never reads stderr cannot block the loop inside a log call.
* **Background tasks** (`Scheduler.spawn`): debounced analysis, hover prefetch, the
  log poll, refresh requests to the client. They are kept alive until done, a failure
  is logged (never raised into the loop), and shutdown cancels them all.
* **Debounce** (`Scheduler.debounce`): one pending task per key (a document URI); a
  newer call cancels the older, so only the newest text is analysed.

Only immutable values cross to the worker thread: entity tuples, document snapshots
(`cairn.lsp.state.DocumentSnapshot`), and frozen store types coming back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)


class Worker:
    """The one worker thread: blocking work, serialised, off the event loop."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cairn-store")

    async def run(self, fn: Callable[[], T]) -> T:
        """Await `fn()` on the worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn)

    def submit(self, fn: Callable[[], T]) -> Future[T]:
        """Queue `fn()` without awaiting it (warming up, or from off the loop)."""
        return self._executor.submit(fn)

    def shutdown(self) -> None:
        """Finish queued work and stop the thread."""
        self._executor.shutdown(wait=True)


class Scheduler:
    """Background tasks and per-key debouncing on the event loop, plus the worker."""

    def __init__(self, worker: Worker, report: Callable[[str], None]) -> None:
        self.worker = worker
        self._report = report  # how a failed background task is told (the client's log)
        self._background: set[asyncio.Task[Any]] = set()
        self._pending: dict[str, asyncio.Task[Any]] = {}

    def spawn(self, coro: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run a coroutine in the background, logging (never raising) its failure."""
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._done)
        return task

    def debounce(
        self, key: str, delay_s: float, work: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        """(Re)start `key`'s pending work: after `delay_s` of quiet, run `work()`."""
        self.cancel(key)
        self._pending[key] = self.spawn(self._after(delay_s, work))

    def cancel(self, key: str) -> None:
        """Cancel `key`'s pending work, if any (the caller does it now instead)."""
        pending = self._pending.pop(key, None)
        if pending is not None and not pending.done():
            pending.cancel()

    def cancel_all(self) -> None:
        """Cancel every background task (the client asked to shut down)."""
        self._pending.clear()
        for task in list(self._background):
            task.cancel()

    async def _after(self, delay_s: float, work: Callable[[], Coroutine[Any, Any, None]]) -> None:
        if delay_s > 0:
            await asyncio.sleep(delay_s)
        await work()

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            self._report(f"background task failed: {task.exception()!r}")
