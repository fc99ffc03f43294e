"""The Postgres twin of the call ledger's database: same ``transaction()``/``reading()`` API.

``CallLedger("postgresql://user:pass@host:5432/db")`` opens it (psycopg 3, installed with
``pip install 'zspace[postgres]'``). The ledger's tables live in their own schema (``zspace``
by default) so they never meet another application's ``calls`` or ``runs`` tables, and the
portable DDL is adapted on the way in (``REAL`` timestamps become ``DOUBLE PRECISION``: a
4-byte float cannot hold a Unix time to the second).

Like the SQLite database, it keeps one connection per thread (the executor calls the ledger
from worker threads); each ``transaction()`` is one Postgres transaction.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

POSTGRES_PACKAGES = "pip install 'psycopg[binary]>=3.2'"
DEFAULT_SCHEMA = "zspace"


class PostgresUnavailable(RuntimeError):
    """psycopg is not installed, or the server cannot be reached."""


def is_postgres_url(target: object) -> bool:
    """Whether a ledger target names a Postgres database rather than a SQLite file."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def portable_ddl_for_postgres(script: str) -> str:
    """Adapt the ledger's portable DDL to Postgres (8-byte float timestamps)."""
    return re.sub(r"\bREAL\b", "DOUBLE PRECISION", script)


class PostgresDatabase:
    """Postgres connections for the ledger: one per thread, tables in their own schema."""

    placeholder = "%s"

    def __init__(self, url: str, schema: str = DEFAULT_SCHEMA, connect_timeout_s: int = 10) -> None:
        """Remember the URL; connections open on first use.

        Args:
            url: A libpq URL, e.g. ``postgresql://zspace@127.0.0.1:5432/zspace``.
            schema: The schema that holds the ledger's tables (created when missing).
            connect_timeout_s: How long to wait for the server.
        """
        if not re.fullmatch(r"[a-z_][a-z0-9_]*", schema):
            raise ValueError(f"schema name {schema!r} must be a lowercase SQL identifier")
        self.url = url
        self.schema = schema
        self._connect_timeout_s = connect_timeout_s
        self._local = threading.local()
        self._all_connections: list[Any] = []
        self._lock = threading.RLock()
        self._schema_ready = False

    def connection(self) -> Any:
        """Return this thread's connection, opening it on first use."""
        connection = getattr(self._local, "connection", None)
        if connection is None or connection.closed:
            connection = self._open()
            self._local.connection = connection
        return connection

    def _open(self) -> Any:
        try:
            import psycopg
        except ImportError as exc:
            raise PostgresUnavailable(
                f"the Postgres call ledger needs psycopg ({exc}); install it with: "
                f"{POSTGRES_PACKAGES}"
            ) from exc
        try:
            connection = psycopg.connect(
                self.url, autocommit=True, connect_timeout=self._connect_timeout_s
            )
        except psycopg.OperationalError as exc:
            raise PostgresUnavailable(
                f"cannot reach the Postgres ledger database ({exc}); check the URL "
                "(ZSPACE_POSTGRES_URL or --postgres) and that the server is up"
            ) from exc
        with self._lock:
            if not self._schema_ready:
                connection.execute(f"CREATE SCHEMA IF NOT EXISTS {self.schema}")
                self._schema_ready = True
            self._all_connections.append(connection)
        connection.execute(f"SET search_path TO {self.schema}")
        return connection

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        """Run statements in one transaction; commit on success, roll back on error."""
        connection = self.connection()
        with connection.transaction(), connection.cursor() as cursor:
            yield cursor

    def lock(self, cursor: Any, name: str) -> None:
        """Serialize transactions on ``name`` until this one ends (an advisory lock).

        Postgres' READ COMMITTED lets two transactions both see "no lease" and both take it;
        holding a lock named after the run id makes the read-then-write one step.
        """
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (name,))

    @contextmanager
    def reading(self) -> Iterator[Any]:
        """Yield a cursor for reads."""
        with self.connection().cursor() as cursor:
            yield cursor

    def executescript(self, script: str) -> None:
        """Run the ledger's DDL (idempotent ``CREATE ... IF NOT EXISTS`` statements)."""
        connection = self.connection()
        with self._lock, connection.transaction():
            # Two processes creating the tables at once would race on the catalog.
            connection.execute("SELECT pg_advisory_xact_lock(7301202611)")
            for statement in portable_ddl_for_postgres(script).split(";"):
                if statement.strip():
                    connection.execute(statement)

    def close(self) -> None:
        """Close every connection this object opened, in any thread."""
        with self._lock:
            connections, self._all_connections = self._all_connections, []
        for connection in connections:
            connection.close()
        self._local = threading.local()
