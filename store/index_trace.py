"""Tracing the index's SQL: each statement, its parameters and the time it took.

Like sqlite-utils' `Database.tracer`: `with index.tracer(fn): ...` has `fn(sql, params,
seconds)` called once for each statement run inside the block. A statement's time
runs from its execution to its last row being fetched, so a query read lazily is
charged for its rows too. Outside a `tracer` block the connection is SQLite's own:
tracing costs nothing when it is off.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from time import perf_counter
from typing import Any

__all__ = ["TracedConnection", "Tracer", "log_statement"]

# (sql, parameters, seconds); for `executemany` the parameters are the whole sequence.
Tracer = Callable[[str, Any, float], None]


def log_statement(sql: str, params: Any, seconds: float) -> None:
    """The default tracer: one DEBUG line a statement on the `cairn.store.sql` logger."""
    import logging  # only when tracing: every command opens the store, few trace it

    logging.getLogger("cairn.store.sql").debug("%.3f ms  %s", seconds * 1000, " ".join(sql.split()))


class TracedConnection:
    """A connection that reports every statement to a tracer; anything else it is
    asked for is the wrapped connection's."""

    def __init__(self, db: sqlite3.Connection, tracer: Tracer) -> None:
        self.wrapped = db
        self._tracer = tracer

    def execute(self, sql: str, params: Any = ()) -> _TimedCursor:
        start = perf_counter()
        cursor = self.wrapped.execute(sql, params)
        return _TimedCursor(cursor, sql, params, perf_counter() - start, self._tracer)

    def executemany(self, sql: str, params: Iterable[Any]) -> sqlite3.Cursor:
        start = perf_counter()
        cursor = self.wrapped.executemany(sql, params)
        self._tracer(sql, params, perf_counter() - start)
        return cursor

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)


class _TimedCursor:
    """A cursor that adds the time its rows take to fetch to its statement's, and
    reports the statement once: when its rows run out, when they are fetched at once,
    or when the cursor is dropped (an INSERT, a query read only in part)."""

    def __init__(
        self, cursor: sqlite3.Cursor, sql: str, params: Any, spent: float, tracer: Tracer
    ) -> None:
        self._cursor = cursor
        self._sql = sql
        self._params = params
        self._spent = spent
        self._tracer: Tracer | None = tracer

    def __iter__(self) -> _TimedCursor:
        return self

    def __next__(self) -> Any:
        start = perf_counter()
        try:
            row = next(self._cursor)
        except StopIteration:
            self._spent += perf_counter() - start
            self._report()
            raise
        self._spent += perf_counter() - start
        return row

    def fetchone(self) -> Any:
        start = perf_counter()
        row = self._cursor.fetchone()
        self._spent += perf_counter() - start
        if row is None:
            self._report()
        return row

    def fetchall(self) -> list[Any]:
        start = perf_counter()
        rows = self._cursor.fetchall()
        self._spent += perf_counter() - start
        self._report()
        return rows

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __del__(self) -> None:
        self._report()

    def _report(self) -> None:
        tracer, self._tracer = self._tracer, None
        if tracer is not None:
            tracer(self._sql, self._params, self._spent)
