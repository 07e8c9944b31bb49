"""One `Store` per `.cairn/` folder, all used from one dedicated thread.

Execution model: the event loop never touches SQLite. Every store call goes through
`StoreHub.call`, which runs it on a single worker thread ("cairn-store"), so a slow
catch-up after `git pull` (or a locked log) never freezes typing, and SQLite
connections never cross threads. Calls are serialised, which is what the store wants
anyway (one writer). A store whose call fails (its `.cairn/` was deleted, the index is
locked, the file is unreadable) is dropped and reopened on the next call, so the
server recovers by itself once the folder is back.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any, TypeVar

from cairn.store import Store
from cairn.store.errors import LockTimeout, StoreError
from cairn.store.log import LOCK_NAME

T = TypeVar("T")
WRITE_WAIT_S = 3.0
log = logging.getLogger(__name__)


class StoreUnavailable(RuntimeError):
    """The project's log cannot be read or written right now; the message says why."""


class StoreHub:
    """Opens stores lazily and runs every call on the store thread."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cairn-store")
        self._stores: dict[Path, Any] = {}  # touched only on the store thread
        self._missing: set[Path] = set()  # folders that vanished: noticed when they return
        # cairn_dir -> (log stat, day, entity -> due reviews); recomputed when either moves
        self._reviews: dict[Path, tuple[object, str, dict[str, list[Any]]]] = {}

    async def call(self, cairn_dir: Path, fn: Callable[[Any], T]) -> T:
        """Run `fn(store)` on the store thread; failures become `StoreUnavailable`."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, cairn_dir, fn)

    async def statuses(self, cairn_dir: Path, entities: list[str]) -> dict[str, Any]:
        """`status_many` plus each entity's due reviews (the store keeps those apart)."""
        return await self.call(cairn_dir, lambda store: self._statuses(store, entities))

    async def write(self, cairn_dir: Path, fn: Callable[[Any], T]) -> T:
        """Like `call`, for appends: refuse quickly when another process holds the lock.

        The store waits up to 30 s for its write lock, and it would hold the store
        thread (so every hover) meanwhile. An editor should answer "locked, try again"
        within seconds instead; the store's own lock still guarantees correctness.
        """
        loop = asyncio.get_running_loop()
        free = await loop.run_in_executor(None, _wait_unlocked, cairn_dir, WRITE_WAIT_S)
        if not free:
            raise StoreUnavailable(
                f"another process is writing to {cairn_dir / LOCK_NAME}; try again in a moment"
            )
        return await self.call(cairn_dir, fn)

    def call_sync(self, cairn_dir: Path, fn: Callable[[Any], T]) -> T:
        """The same, for code already off the event loop (the benchmark, the demo)."""
        return self._executor.submit(self._run, cairn_dir, fn).result()

    async def refresh_all(self) -> set[Path]:
        """Catch every open store up with its log; the folders whose log changed."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._refresh_all)

    def shutdown(self) -> None:
        """Close every store and stop the thread."""
        self._executor.submit(self._close_all).result()
        self._executor.shutdown(wait=True)

    # --- on the store thread -----------------------------------------------------------

    def _statuses(self, store: Any, entities: list[str]) -> dict[str, Any]:
        statuses = store.status_many(entities)
        due = self._due_reviews(store)
        if not due:
            return statuses
        return {
            entity: replace(status, due_reviews=due[entity]) if entity in due else status
            for entity, status in statuses.items()
        }

    def _due_reviews(self, store: Any) -> dict[str, list[Any]]:
        log_file = store.cairn_dir / "decisions.jsonl"
        try:
            st = log_file.stat()
            key: object = (st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            key = None
        today = date.today().isoformat()
        cached = self._reviews.get(store.cairn_dir)
        if cached is not None and cached[0] == key and cached[1] == today:
            return cached[2]
        by_entity: dict[str, list[Any]] = {}
        for review in store.due_reviews():
            by_entity.setdefault(review.event.entity, []).append(review)
        self._reviews[store.cairn_dir] = (key, today, by_entity)
        return by_entity

    def _run(self, cairn_dir: Path, fn: Callable[[Any], T]) -> T:
        store = self._stores.get(cairn_dir)
        try:
            if store is None:
                if not cairn_dir.is_dir():
                    raise StoreUnavailable(f"{cairn_dir} does not exist (any more)")
                try:
                    store = Store.open(cairn_dir)
                except StoreError as exc:
                    raise StoreUnavailable(str(exc)) from exc
                self._stores[cairn_dir] = store
            return fn(store)
        except StoreUnavailable:
            self._drop(cairn_dir)
            raise
        except LockTimeout as exc:
            raise StoreUnavailable(f"the log in {cairn_dir} is locked: {exc}") from exc
        except (OSError, RuntimeError) as exc:
            # sqlite3 errors are not OSErrors; the store may raise its own types too.
            self._drop(cairn_dir)
            raise StoreUnavailable(f"cannot use {cairn_dir}: {exc}") from exc
        except Exception as exc:
            if type(exc).__module__.startswith("sqlite3"):
                self._drop(cairn_dir)
                raise StoreUnavailable(f"cannot use {cairn_dir}: {exc}") from exc
            raise

    def _refresh_all(self) -> set[Path]:
        changed: set[Path] = {d for d in self._missing if d.is_dir()}
        self._missing -= changed
        for cairn_dir in list(self._stores):
            if not cairn_dir.is_dir():
                self._drop(cairn_dir)
                changed.add(cairn_dir)
                continue
            try:
                if self._stores[cairn_dir].refresh():
                    changed.add(cairn_dir)
            except Exception as exc:
                log.warning("refreshing %s failed: %s", cairn_dir, exc)
                self._drop(cairn_dir)
                changed.add(cairn_dir)
        return changed

    def _drop(self, cairn_dir: Path) -> None:
        self._missing.add(cairn_dir)
        store = self._stores.pop(cairn_dir, None)
        close = getattr(store, "close", None)
        if close is not None:
            try:
                close()
            except Exception as exc:
                log.debug("closing %s: %s", cairn_dir, exc)

    def _close_all(self) -> None:
        for cairn_dir in list(self._stores):
            self._drop(cairn_dir)
        self._missing.clear()


def _wait_unlocked(cairn_dir: Path, timeout: float) -> bool:
    """True once the log's write lock could be taken (it is released at once)."""
    try:
        fd = os.open(cairn_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return True  # no folder: the store call reports that properly
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(fd, fcntl.LOCK_UN)
                return True
            except BlockingIOError:
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.02)
    finally:
        os.close(fd)
