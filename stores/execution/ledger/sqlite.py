"""SQLite connections for the call ledger: one per thread, WAL, waiting on locks."""


from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class SqliteDatabase:
    """SQLite connections for one database file: one per thread, WAL, waiting on locks.

    Safe for asyncio tasks in one process (each worker thread gets its own connection) and for
    several processes on one file (WAL plus a busy timeout; writes take the lock up front with
    ``BEGIN IMMEDIATE`` so a read-then-write never deadlocks).
    """

    placeholder = "?"

    def __init__(self, path: str | Path, busy_timeout_s: float = 30.0) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        self._busy_timeout_s = busy_timeout_s
        self._local = threading.local()
        self._all_connections: list[sqlite3.Connection] = []
        self._lock = threading.RLock()
        # ":memory:" would be a different database per connection: share one instead.
        self._shared: sqlite3.Connection | None = None

    def connection(self) -> sqlite3.Connection:
        """Return this thread's connection, opening it on first use."""
        if self.path == ":memory:":
            with self._lock:
                if self._shared is None:
                    self._shared = self._open()
                return self._shared
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._open()
            self._local.connection = connection
        return connection

    def _open(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self.path,
            timeout=self._busy_timeout_s,
            isolation_level=None,  # transactions are explicit, see transaction()
            check_same_thread=False,  # only so close() can run from another thread
        )
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute(f"PRAGMA busy_timeout={int(self._busy_timeout_s * 1000)}")
        with self._lock:
            self._all_connections.append(connection)
        return connection

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Cursor]:
        """Run statements in one write transaction; commit on success, roll back on error."""
        connection = self.connection()
        lock = self._lock if self.path == ":memory:" else _NO_LOCK
        with lock:
            cursor = connection.cursor()
            cursor.execute("BEGIN IMMEDIATE")
            try:
                yield cursor
            except BaseException:
                connection.rollback()
                raise
            else:
                connection.commit()
            finally:
                cursor.close()

    def lock(self, cursor: sqlite3.Cursor, name: str) -> None:
        """Nothing to do: ``BEGIN IMMEDIATE`` already serializes every write transaction."""

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Cursor]:
        """Yield a cursor for reads (outside any write transaction of this thread)."""
        connection = self.connection()
        lock = self._lock if self.path == ":memory:" else _NO_LOCK
        with lock:
            cursor = connection.cursor()
            try:
                yield cursor
            finally:
                cursor.close()

    def executescript(self, script: str) -> None:
        """Run a DDL script (idempotent ``CREATE ... IF NOT EXISTS`` statements)."""
        self.connection().executescript(script)

    def close(self) -> None:
        """Close every connection this object opened, in any thread."""
        with self._lock:
            connections, self._all_connections = self._all_connections, []
            self._shared = None
        for connection in connections:
            connection.close()
        self._local = threading.local()


class _NoLock:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info: object) -> None:
        return None


_NO_LOCK = _NoLock()



