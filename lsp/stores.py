"""One project `Session` per `.cairn/` folder, every call on the one worker thread.

Execution model (see `cairn.lsp.scheduling`): the event loop never touches SQLite.
Every store call goes through `StoreHub.call`, which runs it on the worker thread, so
a slow catch-up after `git pull` (or a locked log) never freezes typing, and SQLite
connections never cross threads. Calls are serialised, which is what the store wants
anyway (one writer). What crosses the boundary is immutable: entity tuples and
mappings going in, the store's frozen types (`EntityStatus`, `Event`, `Card`) coming
back. A store whose call fails (its `.cairn/` was deleted, the index is locked, the
file is unreadable) is dropped and reopened on the next call, so the server recovers
by itself once the folder is back.

`cairn.store` is imported on the worker thread by the first call (or by `preload`
once a workspace turns out to have a `.cairn/`, which also opens its session), never
at start-up: a workspace without decisions never pays for it, and one with decisions
imports and opens it while the loop reads the first document.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from cairn.core.project import Project
from cairn.core.session import Card, Session
from cairn.lsp.scheduling import Worker

if TYPE_CHECKING:
    from cairn.fingerprints import RevertPrint
    from cairn.store import EntityStatus, Event

T = TypeVar("T")

WRITE_WAIT_S = 3.0
LOCK_POLL_S = 0.02
PREFETCH_BATCH = 4  # hover cards per store-thread job: a real hover waits behind at most one
log = logging.getLogger(__name__)


class StoreUnavailable(RuntimeError):
    """The project's log cannot be read or written right now; the message says why."""


class StoreHub:
    """Opens project sessions lazily and runs every call on the store thread."""

    def __init__(self, worker: Worker | None = None) -> None:
        self._worker = worker or Worker()
        self._sessions: dict[Path, Session] = {}  # written only on the store thread
        self._missing: set[Path] = set()  # folders that vanished: noticed when they return

    def preload(self, cairn_dirs: Sequence[Path] = ()) -> Future[None]:
        """Import the store on the store thread now, and open these projects' sessions
        with what every first answer needs (`Session.warm`: due reviews, rename links),
        so the first statuses wait for less. Work the first call would do anyway, done
        while the client is still sending the first file; failures are left for that
        call to report."""

        def warm() -> None:
            _import_store()
            for cairn_dir in cairn_dirs:
                try:
                    self._run(cairn_dir, lambda s: s.warm())
                except StoreUnavailable as exc:
                    log.debug("preloading %s: %s", cairn_dir, exc)

        return self._worker.submit(warm)

    async def call(self, cairn_dir: Path, fn: Callable[[Session], T]) -> T:
        """Run `fn(session)` on the worker thread; failures become `StoreUnavailable`."""
        return await self._worker.run(partial(self._run, cairn_dir, fn))

    async def statuses(self, cairn_dir: Path, entities: Sequence[str]) -> dict[str, EntityStatus]:
        """`Session.statuses` (with due reviews), cached per log version.

        A cache hit is answered on the loop: an edit that keeps a file's entities costs
        one `stat` and no thread hop (the hop alone cost ~10 ms while the loop indexed).
        """
        session = self._sessions.get(cairn_dir)
        cached = session.cached_statuses(entities) if session is not None else None
        if cached is not None:
            return cached
        return await self.call(cairn_dir, lambda s: s.statuses(entities))

    async def hover_data(self, cairn_dir: Path, entity: str, newest: int) -> Card:
        """`Session.card`: status with rollup and due reviews, and the newest events.

        A cache hit is answered on the loop: one `stat` of the log, no thread hop.
        """
        session = self._sessions.get(cairn_dir)
        cached = session.cached_card(entity) if session is not None else None
        if cached is not None:
            return cached
        return await self.call(cairn_dir, lambda s: s.card(entity, newest))

    async def removals(
        self, cairn_dir: Path, statuses: Mapping[str, EntityStatus]
    ) -> dict[str, Event | None]:
        """`Session.removals` (the event that removed each `removed` entity), cached per
        log version; a hit is answered on the loop."""
        session = self._sessions.get(cairn_dir)
        cached = session.cached_removals(statuses) if session is not None else None
        if cached is not None:
            return cached
        return await self.call(cairn_dir, lambda s: s.removals(statuses))

    def cached_revert_prints(self, cairn_dir: Path) -> list[RevertPrint] | None:
        """`revert_prints` when already read for the log's current version, else None
        (answered on the loop)."""
        session = self._sessions.get(cairn_dir)
        return session.cached_revert_prints() if session is not None else None

    async def revert_prints(self, cairn_dir: Path) -> list[RevertPrint]:
        """`Session.revert_prints`: the open reverts' fingerprints, cached per log version
        (a hit is answered on the loop)."""
        session = self._sessions.get(cairn_dir)
        cached = session.cached_revert_prints() if session is not None else None
        if cached is not None:
            return cached
        return await self.call(cairn_dir, lambda s: s.revert_prints())

    async def write(self, cairn_dir: Path, fn: Callable[[Session], T]) -> T:
        """Like `call`, for appends: refuse quickly when another process holds the lock.

        The store waits up to 30 s for its write lock, and it would hold the store
        thread (so every hover) meanwhile. An editor should answer "locked, try again"
        within seconds instead; the store's own lock still guarantees correctness.
        """
        if not await _wait_unlocked(cairn_dir, WRITE_WAIT_S):
            raise StoreUnavailable(
                f"another process is writing to {_lock_path(cairn_dir)}; try again in a moment"
            )
        return await self.call(cairn_dir, fn)

    async def prefetch_hovers(self, cairn_dir: Path, entities: Sequence[str], newest: int) -> None:
        """Fill the hover cache in small batches, so a real request never waits long."""
        session = self._sessions.get(cairn_dir)
        if session is not None:  # another file with the same entities was just analysed
            entities = session.uncached_cards(entities)
        for start in range(0, len(entities), PREFETCH_BATCH):
            batch = entities[start : start + PREFETCH_BATCH]
            try:
                await self.call(cairn_dir, partial(_prefetch, entities=batch, newest=newest))
            except StoreUnavailable:
                return  # the next real request reports it

    def damage(self, cairn_dir: Path) -> str:
        """What is wrong with this log as far as the last answer knew ("" when sound)."""
        session = self._sessions.get(cairn_dir)
        return session.known_damage() if session is not None else ""

    async def refresh_all(self) -> set[Path]:
        """Catch every open session up with its log; the folders whose log changed."""
        return await self._worker.run(self._refresh_all)

    def shutdown(self) -> None:
        """Close every session and stop the thread."""
        self._worker.submit(self._close_all).result()
        self._worker.shutdown()

    # --- on the store thread -----------------------------------------------------------

    def _run(self, cairn_dir: Path, fn: Callable[[Session], T]) -> T:
        LockTimeout, StoreError = _import_store()
        session = self._sessions.get(cairn_dir)
        try:
            if session is None:
                if not cairn_dir.is_dir():
                    raise StoreUnavailable(f"{cairn_dir} does not exist (any more)")
                try:
                    session = Session.open(Project(root=cairn_dir.parent, cairn_dir=cairn_dir))
                except StoreError as exc:
                    raise StoreUnavailable(str(exc)) from exc
                self._sessions[cairn_dir] = session
            return fn(session)
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
        for cairn_dir in list(self._sessions):
            if not cairn_dir.is_dir():
                self._drop(cairn_dir)
                changed.add(cairn_dir)
                continue
            try:
                if self._sessions[cairn_dir].refresh():
                    changed.add(cairn_dir)
            except Exception as exc:
                log.warning("refreshing %s failed: %s", cairn_dir, exc)
                self._drop(cairn_dir)
                changed.add(cairn_dir)
        return changed

    def _drop(self, cairn_dir: Path) -> None:
        self._missing.add(cairn_dir)
        session = self._sessions.pop(cairn_dir, None)
        if session is not None:
            try:
                session.close()
            except Exception as exc:
                log.debug("closing %s: %s", cairn_dir, exc)

    def _close_all(self) -> None:
        for cairn_dir in list(self._sessions):
            self._drop(cairn_dir)
        self._missing.clear()


def _prefetch(session: Session, entities: Sequence[str], newest: int) -> None:
    for entity in entities:
        session.card(entity, newest)


def _import_store() -> tuple[type[Exception], type[Exception]]:
    """The two error types `_run` tells apart (importing the store on first use)."""
    from cairn.store.errors import LockTimeout, StoreError

    return LockTimeout, StoreError


def _lock_path(cairn_dir: Path) -> Path:
    """The store's write lock file."""
    from cairn.store.log import LOCK_NAME

    return cairn_dir / LOCK_NAME


async def _wait_unlocked(cairn_dir: Path, timeout: float) -> bool:
    """True once the log's write lock could be taken (it is released at once).

    Polled on the event loop with non-blocking attempts (each a syscall), so waiting
    for another process's write needs no thread and keeps the worker free for hovers.
    """
    from cairn.store.log import lock_is_free

    try:
        fd = os.open(_lock_path(cairn_dir), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        return True  # no folder: the store call reports that properly
    try:
        deadline = time.monotonic() + timeout
        while not lock_is_free(fd):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(LOCK_POLL_S)
        return True
    finally:
        os.close(fd)
