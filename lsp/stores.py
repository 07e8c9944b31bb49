"""One `Store` per `.cairn/` folder, all used from one dedicated thread.

Execution model: the event loop never touches SQLite. Every store call goes through
`StoreHub.call`, which runs it on a single worker thread ("cairn-store"), so a slow
catch-up after `git pull` (or a locked log) never freezes typing, and SQLite
connections never cross threads. Calls are serialised, which is what the store wants
anyway (one writer). A store whose call fails (its `.cairn/` was deleted, the index is
locked, the file is unreadable) is dropped and reopened on the next call, so the
server recovers by itself once the folder is back.

`cairn.store` is imported on the store thread by the first call (or by `preload`
once a workspace turns out to have a `.cairn/`), never at start-up: a workspace
without decisions never pays for it, and one with decisions imports it while the
loop reads the first document.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import logging
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import date
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

WRITE_WAIT_S = 3.0
PREFETCH_BATCH = 4  # hover cards per store-thread job: a real hover waits behind at most one
log = logging.getLogger(__name__)


class StoreUnavailable(RuntimeError):
    """The project's log cannot be read or written right now; the message says why."""


class StoreHub:
    """Opens stores lazily and runs every call on the store thread."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cairn-store")
        self._stores: dict[Path, Any] = {}  # touched only on the store thread
        self._missing: set[Path] = set()  # folders that vanished: noticed when they return
        self._snapshots: dict[Path, _Snapshot] = {}

    def preload(self) -> None:
        """Import the store on the store thread now, so the first real call is quicker."""
        self._executor.submit(_import_store)

    async def call(self, cairn_dir: Path, fn: Callable[[Any], T]) -> T:
        """Run `fn(store)` on the store thread; failures become `StoreUnavailable`."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, cairn_dir, fn)

    async def statuses(self, cairn_dir: Path, entities: list[str]) -> dict[str, Any]:
        """`status_many` plus each entity's due reviews (the store keeps those apart).

        Cached per log version: an edit that keeps a file's entities costs no query,
        and no thread hop either (the hop alone cost ~10 ms while the loop indexed).
        """
        snap = self._current(cairn_dir)
        if snap is not None and all(e in snap.statuses for e in entities):
            return {e: snap.statuses[e] for e in entities}
        return await self.call(cairn_dir, lambda store: self._statuses(store, entities))

    async def hover_data(self, cairn_dir: Path, entity: str, newest: int) -> tuple[Any, list[Any]]:
        """(status with rollup and due reviews, the newest events) for a hover card.

        A cache hit is answered on the loop: one `stat` of the log, no thread hop.
        """
        snap = self._current(cairn_dir)
        if snap is not None and entity in snap.hovers:
            return snap.hovers[entity]
        return await self.call(cairn_dir, lambda store: self._hover(store, entity, newest))

    async def revert_prints(self, cairn_dir: Path) -> list[Any]:
        """The open reverts' fingerprints (`cairn.fingerprints.RevertPrint`), cached per
        log version like everything else here."""
        snap = self._current(cairn_dir)
        if snap is not None and snap.prints is not None:
            return snap.prints
        return await self.call(cairn_dir, self._prints)

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
                f"another process is writing to {_lock_path(cairn_dir)}; try again in a moment"
            )
        return await self.call(cairn_dir, fn)

    async def prefetch_hovers(self, cairn_dir: Path, entities: list[str], newest: int) -> None:
        """Fill the hover cache in small batches, so a real request never waits long."""
        snap = self._current(cairn_dir)
        if snap is not None:  # another file with the same entities was just analysed
            entities = [e for e in entities if e not in snap.hovers]
        for start in range(0, len(entities), PREFETCH_BATCH):
            job = partial(self._prefetch, entities=entities[start : start + PREFETCH_BATCH])
            try:
                await self.call(cairn_dir, partial(job, newest=newest))
            except StoreUnavailable:
                return  # the next real request reports it

    def _current(self, cairn_dir: Path) -> _Snapshot | None:
        """The cached snapshot of this log if it is still current (one `stat`).

        Read on the loop while the store thread may add entries: only lookups, no
        iteration, so this is safe under the GIL.
        """
        snap = self._snapshots.get(cairn_dir)
        return snap if snap is not None and snap.key == _log_key(cairn_dir) else None

    def damage(self, cairn_dir: Path) -> str:
        """What is wrong with this log as far as the last answer knew ("" when sound)."""
        snap = self._snapshots.get(cairn_dir)
        return snap.damage if snap is not None else ""

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

    def _snapshot(self, store: Any) -> _Snapshot:
        key = _log_key(store.cairn_dir)
        snap = self._snapshots.get(store.cairn_dir)
        if snap is None or snap.key != key:
            reviews: dict[str, list[Any]] = {}
            for review in store.due_reviews():
                reviews.setdefault(review.event.entity, []).append(review)
            damage = store.damage
            snap = _Snapshot(key, reviews, damage.message() if damage else "")
            self._snapshots[store.cairn_dir] = snap
        return snap

    def _statuses(self, store: Any, entities: list[str]) -> dict[str, Any]:
        snap = self._snapshot(store)
        missing = [e for e in entities if e not in snap.statuses]
        if missing:
            for entity, status in store.status_many(missing).items():
                snap.statuses[entity] = snap.with_reviews(entity, status)
        return {e: snap.statuses[e] for e in entities}

    def _prints(self, store: Any) -> list[Any]:
        from cairn.fingerprints import prints_from_statuses

        snap = self._snapshot(store)
        if snap.prints is None:
            snap.prints = prints_from_statuses(store.status_many(store.entities()))
        return snap.prints

    def _prefetch(self, store: Any, entities: list[str], newest: int) -> None:
        snap = self._snapshot(store)
        for entity in entities:
            if entity not in snap.hovers:
                self._hover(store, entity, newest)

    def _hover(self, store: Any, entity: str, newest: int) -> tuple[Any, list[Any]]:
        snap = self._snapshot(store)
        status = snap.with_reviews(entity, store.status(entity))
        events = store.history(entity) if status.event_count else []
        # Notes (`cairn annotate`) ride along with the newest events: the card shows each
        # with the event it explains, however old that event is.
        notes = [e for e in events if str(e.type) == "annotate"]
        events = [e for e in events if str(e.type) != "annotate"][-newest:] + notes
        snap.hovers[entity] = (status, events)
        return status, events

    def _run(self, cairn_dir: Path, fn: Callable[[Any], T]) -> T:
        store_module, LockTimeout, StoreError = _import_store()
        store = self._stores.get(cairn_dir)
        try:
            if store is None:
                if not cairn_dir.is_dir():
                    raise StoreUnavailable(f"{cairn_dir} does not exist (any more)")
                try:
                    store = store_module.Store.open(cairn_dir)
                except StoreError as exc:
                    raise StoreUnavailable(str(exc)) from exc
                self._stores[cairn_dir] = store
                settle()
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
        if changed:
            settle()
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
        self._snapshots.clear()


def settle() -> None:
    """Exempt what is alive now (modules, a loaded store) from the cyclic GC's scans.

    A full collection walks every tracked container: with a 1M-event store loaded
    it took ~40 ms, which showed up as the hover p99. Long-lived state is freed by
    reference counting when replaced; only cycles among it would wait for exit.
    """
    gc.freeze()


def _import_store() -> tuple[Any, type[Exception], type[Exception]]:
    """`cairn.store` and the two error types `_run` tells apart (imported on first use)."""
    import cairn.store
    from cairn.store.errors import LockTimeout, StoreError

    return cairn.store, LockTimeout, StoreError


def _lock_path(cairn_dir: Path) -> Path:
    """The store's write lock file."""
    from cairn.store.log import LOCK_NAME

    return cairn_dir / LOCK_NAME


def _wait_unlocked(cairn_dir: Path, timeout: float) -> bool:
    """True once the log's write lock could be taken (it is released at once)."""
    try:
        fd = os.open(_lock_path(cairn_dir), os.O_RDWR | os.O_CREAT, 0o644)
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


@dataclass
class _Snapshot:
    """What the server knows about one log at one version (its stat and today's date)."""

    key: object
    reviews: dict[str, list[Any]]  # entity -> due reviews
    damage: str = ""  # lines verification rejects (ignored by every answer), for a notice
    statuses: dict[str, Any] = field(default_factory=dict)
    hovers: dict[str, tuple[Any, list[Any]]] = field(default_factory=dict)
    prints: list[Any] | None = None  # open reverts' fingerprints, read once per version

    def with_reviews(self, entity: str, status: Any) -> Any:
        due = self.reviews.get(entity)
        return replace(status, due_reviews=due) if due else status


def _log_key(cairn_dir: Path) -> object:
    """Changes whenever the log does (or the day does: reviews fall due by date)."""
    try:
        st = (cairn_dir / "decisions.jsonl").stat()
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, date.today().toordinal())
