"""Tool registration and the backend's lifecycle: connection, transactions, idempotency.

`tool` marks a method as a tool and runs it in one transaction with idempotency keys;
`SandboxBase` owns the SQLite connection those transactions run on and the sandbox's clock
(`sandbox.clock`: the instance's, else the environment's, else the one the database was reset
with, else the system clock). The helpers here (`_money`, `_iso`) are shared by every domain
module.
"""

import functools
import hashlib
import inspect
import json
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any, Self, TypeVar, cast

from sandbox.clock import SandboxClock, iso
from sandbox.errors import IdempotencyConflictError, NotFoundError
from sandbox.seed import seed

F = TypeVar("F", bound=Callable[..., Any])

TOOL_ATTRIBUTE = "__sandbox_tool__"


@dataclass(frozen=True)
class ToolInfo:
    """How a backend method is exposed as a tool.

    Attributes:
        name: Tool name (the method name).
        side_effect: Whether the tool writes; writers accept `idempotency_key`.
        destructive: Whether it may change or remove existing data (MCP `destructiveHint`).
        idempotent: Whether repeating the same call has no further effect (`idempotentHint`).
        entity_tags: Business entities the tool touches, for retrieval.
    """

    name: str
    side_effect: bool
    destructive: bool
    idempotent: bool
    entity_tags: tuple[str, ...]

    @property
    def capability(self) -> str:
        """Return the tool's verb, e.g. "create" for create_order."""
        return self.name.split("_", 1)[0]


def tool(
    *entity_tags: str,
    side_effect: bool,
    destructive: bool = False,
    idempotent: bool | None = None,
) -> Callable[[F], F]:
    """Mark a `Sandbox` method as a tool and run it in one transaction.

    Args:
        *entity_tags: Business entities the tool touches.
        side_effect: Whether the tool writes. Writers must declare `idempotency_key`.
        destructive: Whether it may change or remove existing data.
        idempotent: Whether repeating the call has no further effect; defaults to `not
            side_effect`.

    Returns:
        A decorator that wraps the method.
    """

    def decorate(method: F) -> F:
        signature = inspect.signature(method)
        if side_effect and "idempotency_key" not in signature.parameters:
            raise TypeError(f"writer tool {method.__name__} must accept idempotency_key")
        info = ToolInfo(
            name=method.__name__,
            side_effect=side_effect,
            destructive=destructive,
            idempotent=(not side_effect) if idempotent is None else idempotent,
            entity_tags=entity_tags,
        )

        @functools.wraps(method)
        def run(self: "SandboxBase", *args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            arguments = {k: v for k, v in bound.arguments.items() if k != "self"}
            key = arguments.pop("idempotency_key", None)
            with self._transaction(write=side_effect):
                if key is None:
                    return method(self, *args, **kwargs)
                args_hash = _canonical_hash(arguments)
                replay = self._lookup_idempotency_key(key, info.name, args_hash)
                if replay is not None:
                    return replay
                result = method(self, *args, **kwargs)
                self._store_idempotency_key(key, info.name, args_hash, result)
                return result

        setattr(run, TOOL_ATTRIBUTE, info)
        return cast(F, run)

    return decorate


def tool_description(method: Callable[..., Any]) -> str:
    """Return a tool's description: its docstring up to the Google-style sections.

    Args:
        method: A `@tool` method.

    Returns:
        The summary and extended description, as one paragraph.
    """
    doc = inspect.cleandoc(method.__doc__ or "")
    lines = []
    for line in doc.splitlines():
        if line.rstrip().endswith(":") and line.strip() in {"Args:", "Returns:", "Raises:"}:
            break
        lines.append(line.strip())
    return " ".join(part for part in lines if part)


def tool_argument_docs(method: Callable[..., Any]) -> dict[str, str]:
    """Return the per-argument descriptions of a tool's Google-style `Args:` section.

    Args:
        method: A `@tool` method.

    Returns:
        Argument name to description (continuation lines joined).
    """
    docs: dict[str, str] = {}
    current: str | None = None
    in_args = False
    for line in inspect.cleandoc(method.__doc__ or "").splitlines():
        stripped = line.strip()
        if stripped in {"Args:", "Returns:", "Raises:", "Yields:"}:
            in_args = stripped == "Args:"
            current = None
            continue
        if not in_args or not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        name, colon, text = stripped.partition(":")
        if indent <= 4 and colon and name.lstrip("*").isidentifier():
            current = name.lstrip("*")
            docs[current] = text.strip()
        elif current is not None:
            docs[current] = f"{docs[current]} {stripped}"
    return docs


def _canonical_hash(arguments: dict[str, Any]) -> str:
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _money(value: float) -> float:
    return round(float(value), 2)


_iso = iso


class SandboxBase:
    """The lifecycle of a sandbox: its SQLite connection, transactions, clock, idempotency keys.

    Args:
        db_path: SQLite file, or ":memory:".
        clock: The sandbox's clock (a `SandboxClock`, or any callable returning an aware
            datetime). None takes it from the environment (`ZSPACE_SANDBOX_NOW`,
            `ZSPACE_SANDBOX_CLOCK_OFFSET_DAYS`) and, when that sets none either, follows the
            clock the database was last reset with.
    """

    def __init__(self, db_path: str | Path, clock: Callable[[], datetime] | None = None) -> None:
        self.db_path = str(db_path)
        self._own_clock = clock if clock is not None else SandboxClock.from_environment()
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.RLock()

    def current_clock(self) -> Callable[[], datetime]:
        """Return the clock the next call will use (see `sandbox.clock` for the order)."""
        if self._own_clock is not None:
            return self._own_clock
        with self._transaction(write=False) as conn:
            try:
                row = conn.execute(
                    "SELECT value FROM sandbox_settings WHERE key = 'clock'"
                ).fetchone()
            except sqlite3.OperationalError:  # a database from before the clock: reset it
                row = None
        return SandboxClock.system() if row is None else SandboxClock.from_setting(row[0])

    def _clock(self) -> datetime:
        return self.current_clock()()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection; the next call reopens it."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def reset(self) -> None:
        """Drop every table and load the deterministic seed again."""
        with self._lock:
            conn = self._connection()
            conn.execute("PRAGMA foreign_keys = OFF")
            tables = [
                row[0]
                for row in conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite_%'"
                )
            ]
            conn.execute("BEGIN IMMEDIATE")
            try:
                for table in tables:
                    conn.execute(f'DROP TABLE IF EXISTS "{table}"')
                self._create_schema(conn, self._own_clock)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            finally:
                conn.execute("PRAGMA foreign_keys = ON")

    def count_rows(self, table: str) -> int:
        """Return the number of rows of a table (for tests and diagnostics).

        Args:
            table: A table name of the sandbox schema.

        Returns:
            The row count.
        """
        with self._transaction(write=False) as conn:
            names = {
                row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if table not in names:
                raise NotFoundError(f"table {table!r} does not exist")
            return int(conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            if self.db_path != ":memory:":
                Path(self.db_path).parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.db_path, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("BEGIN IMMEDIATE")
            try:
                exists = conn.execute(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'users'"
                ).fetchone()
                if exists is None:
                    self._create_schema(conn, self._own_clock)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                conn.close()
                raise
            self._conn = conn
        return self._conn

    @staticmethod
    def _create_schema(conn: sqlite3.Connection, clock: Callable[[], datetime] | None) -> None:
        """Create the tables and seed them relative to `clock`'s now, which the database keeps.

        Only a `SandboxClock` can be recorded; another callable (a test's) records "system".
        """
        ddl = resources.files("sandbox").joinpath("schema.sql").read_text(encoding="utf-8")
        # executescript would commit the caller's transaction: run statement by statement.
        code = "\n".join(line for line in ddl.splitlines() if not line.lstrip().startswith("--"))
        for statement in code.split(";"):
            if statement.strip():
                conn.execute(statement)
        clock = clock or SandboxClock.system()
        setting = clock.setting if isinstance(clock, SandboxClock) else "system"
        conn.execute("INSERT INTO sandbox_settings (key, value) VALUES ('clock', ?)", (setting,))
        seed(conn, clock())

    @contextmanager
    def _transaction(self, write: bool) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connection()
            if conn.in_transaction:  # a tool called from another tool: join its transaction
                yield conn
                return
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @property
    def _db(self) -> sqlite3.Connection:
        assert self._conn is not None and self._conn.in_transaction, "outside a tool call"
        return self._conn

    def _now(self) -> str:
        return _iso(self._clock())

    def _lookup_idempotency_key(self, key: str, tool_name: str, args_hash: str) -> Any:
        row = self._db.execute(
            "SELECT tool, args_hash, result_json FROM idempotency_keys WHERE idempotency_key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        if row["tool"] != tool_name:
            raise IdempotencyConflictError(
                f"idempotency key {key!r} was already used by {row['tool']}; "
                f"use a new key for {tool_name}"
            )
        if row["args_hash"] != args_hash:
            raise IdempotencyConflictError(
                f"idempotency key {key!r} was already used by {tool_name} with different "
                "arguments; use a new key for a different request"
            )
        return json.loads(row["result_json"])

    def _store_idempotency_key(self, key: str, tool_name: str, args_hash: str, result: Any) -> None:
        self._db.execute(
            "INSERT INTO idempotency_keys (idempotency_key, tool, args_hash, result_json, "
            "created_at) VALUES (?, ?, ?, ?, ?)",
            (key, tool_name, args_hash, json.dumps(result, sort_keys=True), self._now()),
        )
