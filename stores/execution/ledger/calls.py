"""The call ledger: a durable record of every side-effecting tool call, keyed by idempotency key.

The intent (``started``) is committed before a call and the result (``done``/``failed``) after,
so a resumed run can tell a finished call (replay its result), a failed one (retry it when the
failure was transient) and one whose outcome is unknown (``started`` with no end: reconcile,
never repeat blindly). Keys derive only from the run and the planned call
(:func:`idempotency_key`), never from time or random ids.

The SQL is kept portable; everything SQLite-specific (connections per thread, WAL, busy
timeout, ``BEGIN IMMEDIATE``, ``?`` placeholders) lives in :class:`SqliteDatabase`, so a
Postgres twin only has to provide the same ``transaction()`` context manager.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from stores.execution.ledger.sqlite import SqliteDatabase

CallStatus = Literal["started", "done", "failed"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    idempotency_key TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    tool_id TEXT NOT NULL,
    args_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('started', 'done', 'failed')),
    result_json TEXT,
    error TEXT,
    transient INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 1,
    started_at REAL NOT NULL,
    finished_at REAL
);
CREATE INDEX IF NOT EXISTS calls_by_run ON calls (run_id);
"""

# Runs: the request a run id was first used for (same id + other request = error), and the
# lease of the one process allowed to drive the run (owner, pid, heartbeat).
_RUNS_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    request_hash TEXT NOT NULL,
    request_preview TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS run_leases (
    run_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    heartbeat_at REAL NOT NULL
);
"""
LEASE_TTL_S = 30.0

_COLUMNS = (
    "idempotency_key, run_id, call_id, tool_id, args_hash, status, result_json, error, "
    "transient, attempts, started_at, finished_at"
)


class LedgerError(RuntimeError):
    """A ledger operation that cannot proceed (unknown key, unserializable value)."""


class LedgerConflict(LedgerError):
    """An idempotency key reused for a call with different arguments."""


class RunConflict(LedgerError):
    """A run id reused for a different request (a run id names one request, forever)."""


class RunLeaseHeld(LedgerError):
    """Another live process holds the run's lease: only one process may drive a run."""

    def __init__(self, run_id: str, holder: LeaseRecord) -> None:
        super().__init__(
            f"run {run_id!r} is being run by another process (pid {holder.pid} on "
            f"{holder.host}, last heartbeat {time.time() - holder.heartbeat_at:.1f} s ago); "
            "this one stops without touching it. Wait for it to finish, or resume once it has "
            "exited"
        )
        self.run_id = run_id
        self.holder = holder


@dataclass(frozen=True)
class LeaseRecord:
    """Who drives a run: a process (owner token, pid, host) and its last heartbeat."""

    run_id: str
    owner: str
    pid: int
    host: str
    heartbeat_at: float


_PROCESS_TOKEN = uuid.uuid4().hex[:12]


def process_owner() -> str:
    """Return this process's lease owner token (host, pid and a per-process random part)."""
    return f"{socket.gethostname()}:{os.getpid()}:{_PROCESS_TOKEN}"


def request_hash(request: str) -> str:
    """Return the sha256 of a request's text, whitespace-normalized (what a run id is bound to)."""
    return _sha256(" ".join(str(request).split()))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def lease_is_stale(lease: LeaseRecord, ttl_s: float = LEASE_TTL_S) -> bool:
    """Return whether a lease's holder is gone: its pid is dead (same host) or it went silent."""
    if time.time() - lease.heartbeat_at > ttl_s:
        return True
    return lease.host == socket.gethostname() and not _pid_alive(lease.pid)


@dataclass(frozen=True)
class LedgerRecord:
    """One row of the ledger, as plain data.

    Attributes:
        idempotency_key: The call's stable key.
        run_id: The run that planned the call.
        call_id: The planned call's id within the run.
        tool_id: The qualified tool id.
        args_hash: :func:`canonical_args_hash` of the bound arguments.
        status: ``started`` (outcome unknown until finished), ``done`` or ``failed``.
        result_json: The result as canonical JSON text when ``done``.
        error: What went wrong, when ``failed`` (or a note on a ``started`` call whose
            outcome became unknown).
        transient: Whether a ``failed`` call may be retried.
        attempts: How many times the call was started.
        started_at: Unix time of the last start.
        finished_at: Unix time of the last finish or failure, if any.
    """

    idempotency_key: str
    run_id: str
    call_id: str
    tool_id: str
    args_hash: str
    status: CallStatus
    result_json: str | None
    error: str | None
    transient: bool
    attempts: int
    started_at: float
    finished_at: float | None

    @property
    def result(self) -> Any:
        """Return the stored result decoded from JSON (None when there is none)."""
        return None if self.result_json is None else json.loads(self.result_json)

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-serializable dict."""
        return asdict(self)


def canonical_json(value: Any) -> str:
    """Return the canonical JSON text of a value: sorted keys, no whitespace, UTF-8.

    Raises:
        LedgerError: the value holds something JSON cannot represent.
    """
    return _plain_json(value, sort_keys=True)


def _plain_json(value: Any, sort_keys: bool) -> str:
    try:
        return json.dumps(
            value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False,
            allow_nan=False,
        )
    except (TypeError, ValueError) as exc:
        raise LedgerError(
            f"cannot derive a stable key from a value that is not plain JSON ({exc}); "
            "bind arguments as strings, numbers, booleans, lists and dicts only"
        ) from exc


def _result_json(value: Any) -> str:
    """A result as JSON in the tool's own key order (a replay reads like the first answer).

    Raises:
        LedgerError: the value holds something JSON cannot represent.
    """
    return _plain_json(value, sort_keys=False)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def canonical_args_hash(args: Mapping[str, Any]) -> str:
    """Return the sha256 of the canonical JSON of a call's arguments."""
    return _sha256(canonical_json(dict(args)))


def idempotency_key(
    run_id: str, sub_intent_id: str, tool_id: str, bound_args: Mapping[str, Any]
) -> str:
    """Return the idempotency key of a planned call.

    It is the sha256 of the canonical JSON of the run id, the sub-intent id, the tool id and
    the bound arguments, so the same planned call gets the same key on every resume.
    """
    identity = {
        "run_id": run_id,
        "sub_intent_id": sub_intent_id,
        "tool_id": tool_id,
        "args": dict(bound_args),
    }
    return _sha256(canonical_json(identity))



class CallLedger:
    """The call ledger over one SQLite file (see the module docstring for the protocol)."""

    def __init__(self, path: str | Path) -> None:
        """Open (and create when needed) the ledger at ``path``.

        Args:
            path: A SQLite file path, ``":memory:"`` for a throwaway ledger, or a
                ``postgresql://`` URL for the Postgres twin (``stores.ledger_postgres``).
        """
        self.database: Any
        if isinstance(path, str) and path.startswith(("postgresql://", "postgres://")):
            from stores.execution.ledger.postgres import PostgresDatabase

            self.database = PostgresDatabase(path)
        else:
            self.database = SqliteDatabase(path)
        self.database.executescript(_SCHEMA)
        self.database.executescript(_RUNS_SCHEMA)
        self._p = self.database.placeholder

    # ----------------------------------------------------------------- writes
    def claim(
        self, key: str, run_id: str, call_id: str, tool_id: str, args_hash: str
    ) -> tuple[LedgerRecord, bool]:
        """Insert a ``started`` record unless the key exists; say whether this call inserted it.

        Returns:
            The record, and True when this call created it (the caller owns the call).

        Raises:
            LedgerConflict: the key exists with a different ``args_hash``.
        """
        p = self._p
        with self.database.transaction() as cursor:
            cursor.execute(
                f"INSERT INTO calls (idempotency_key, run_id, call_id, tool_id, args_hash, "
                f"status, attempts, started_at) VALUES ({p}, {p}, {p}, {p}, {p}, 'started', 1, "
                f"{p}) ON CONFLICT (idempotency_key) DO NOTHING",
                (key, run_id, call_id, tool_id, args_hash, time.time()),
            )
            created = cursor.rowcount == 1
            record = self._select(cursor, key)
        if record is None:  # pragma: no cover - the row was just inserted or existed
            raise LedgerError(f"ledger row for key {key!r} vanished inside its transaction")
        if record.args_hash != args_hash:
            raise LedgerConflict(
                f"idempotency key {key!r} was first used by call {record.call_id!r} of run "
                f"{record.run_id!r} (tool {record.tool_id!r}) with other arguments "
                f"(args hash {record.args_hash[:12]}… != {args_hash[:12]}…); a key must be "
                "derived from the call's bound arguments, so re-derive it with idempotency_key()"
            )
        return record, created

    def begin(
        self, key: str, run_id: str, call_id: str, tool_id: str, args_hash: str
    ) -> LedgerRecord:
        """Record the intent to call, or return the existing record unchanged.

        The caller decides from the returned status: ``done`` → replay ``result``;
        ``started`` → outcome unknown (reconcile); ``failed`` → retry only if ``transient``.

        Raises:
            LedgerConflict: the key exists with a different ``args_hash``.
        """
        return self.claim(key, run_id, call_id, tool_id, args_hash)[0]

    def restart(self, key: str) -> LedgerRecord:
        """Mark an existing call ``started`` again for a new attempt (attempts + 1).

        Raises:
            LedgerError: the key is not in the ledger, or the call is already ``done``.
        """
        p = self._p
        with self.database.transaction() as cursor:
            record = self._select(cursor, key)
            if record is None:
                raise LedgerError(f"cannot restart call {key!r}: it is not in the ledger; "
                                  "call begin() first")
            if record.status == "done":
                raise LedgerError(f"cannot restart call {key!r}: it is already done; "
                                  "replay its stored result instead")
            cursor.execute(
                f"UPDATE calls SET status = 'started', attempts = attempts + 1, error = NULL, "
                f"transient = 0, started_at = {p}, finished_at = NULL "
                f"WHERE idempotency_key = {p}",
                (time.time(), key),
            )
            updated = self._select(cursor, key)
        assert updated is not None
        return updated

    def finish(self, key: str, result: Any) -> LedgerRecord:
        """Record a call's result (any JSON value) and mark it ``done``.

        Raises:
            LedgerError: the key is not in the ledger or the result is not plain JSON.
        """
        return self._end(key, "done", result_json=_result_json(result), error=None,
                         transient=False)

    def fail(self, key: str, error: str, transient: bool) -> LedgerRecord:
        """Record a failed call; ``transient`` says whether it may be retried.

        Raises:
            LedgerError: the key is not in the ledger.
        """
        return self._end(key, "failed", result_json=None, error=error, transient=transient)

    def note_unknown_outcome(self, key: str, error: str) -> LedgerRecord:
        """Keep a call ``started`` (outcome unknown) but record what happened to it.

        Use it when a side-effecting call timed out or lost its connection: the effect may or
        may not have happened, so the call must be reconciled, not repeated.

        Raises:
            LedgerError: the key is not in the ledger.
        """
        return self._end(key, "started", result_json=None, error=error, transient=False)

    def _end(
        self, key: str, status: CallStatus, result_json: str | None, error: str | None,
        transient: bool,
    ) -> LedgerRecord:
        p = self._p
        with self.database.transaction() as cursor:
            cursor.execute(
                f"UPDATE calls SET status = {p}, result_json = {p}, error = {p}, transient = {p}, "
                f"finished_at = {p} WHERE idempotency_key = {p}",
                (status, result_json, error, int(transient), time.time(), key),
            )
            if cursor.rowcount != 1:
                raise LedgerError(
                    f"cannot mark call {key!r} {status}: it is not in the ledger; "
                    "call begin() before the tool call"
                )
            record = self._select(cursor, key)
        assert record is not None
        return record

    # ------------------------------------------------------------------ runs
    def bind_run(self, run_id: str, request_hash: str, preview: str = "") -> None:
        """Bind a run id to its request at first use; the same id with another request fails.

        Raises:
            RunConflict: the run id was first used for a different request.
        """
        p = self._p
        with self.database.transaction() as cursor:
            cursor.execute(
                f"INSERT INTO runs (run_id, request_hash, request_preview, created_at) "
                f"VALUES ({p}, {p}, {p}, {p}) ON CONFLICT (run_id) DO NOTHING",
                (run_id, request_hash, preview[:200], time.time()),
            )
            cursor.execute(
                f"SELECT request_hash, request_preview FROM runs WHERE run_id = {p}", (run_id,)
            )
            first_hash, first_preview = cursor.fetchone()
        if first_hash != request_hash:
            raise RunConflict(
                f"run id {run_id!r} was first used for another request ({first_preview!r}); "
                "a run id names one request and its effects, so give this request a new run id "
                "(or none, to derive one from the thread)"
            )

    def acquire_lease(
        self, run_id: str, owner: str | None = None, ttl_s: float = LEASE_TTL_S
    ) -> LeaseRecord:
        """Take (or renew) the run's lease for ``owner``; a stale lease is taken over.

        Raises:
            RunLeaseHeld: another live process holds it.
        """
        owner = owner or process_owner()
        p = self._p
        now = time.time()
        with self.database.transaction() as cursor:
            self.database.lock(cursor, f"zspace-lease:{run_id}")
            held = self._lease(cursor, run_id)
            if held is not None and held.owner != owner and not lease_is_stale(held, ttl_s):
                raise RunLeaseHeld(run_id, held)
            cursor.execute(
                f"INSERT INTO run_leases (run_id, owner, pid, host, heartbeat_at) "
                f"VALUES ({p}, {p}, {p}, {p}, {p}) ON CONFLICT (run_id) DO UPDATE SET "
                "owner = excluded.owner, pid = excluded.pid, host = excluded.host, "
                "heartbeat_at = excluded.heartbeat_at",
                (run_id, owner, os.getpid(), socket.gethostname(), now),
            )
            lease = self._lease(cursor, run_id)
        assert lease is not None
        return lease

    def release_lease(self, run_id: str, owner: str | None = None) -> None:
        """Give the run's lease back (only if ``owner`` holds it)."""
        p = self._p
        with self.database.transaction() as cursor:
            cursor.execute(
                f"DELETE FROM run_leases WHERE run_id = {p} AND owner = {p}",
                (run_id, owner or process_owner()),
            )

    def lease_holder(self, run_id: str) -> LeaseRecord | None:
        """Return the run's current lease, or None."""
        with self.database.reading() as cursor:
            return self._lease(cursor, run_id)

    def check_lease(self, run_id: str, owner: str | None = None) -> None:
        """Raise when another live process holds the run's lease (no lease: nothing to check).

        Raises:
            RunLeaseHeld: another live process holds it.
        """
        held = self.lease_holder(run_id)
        if held is not None and held.owner != (owner or process_owner()) and not lease_is_stale(
            held
        ):
            raise RunLeaseHeld(run_id, held)

    @contextmanager
    def run_lease(
        self, run_id: str, ttl_s: float = LEASE_TTL_S
    ) -> Iterator[LeaseRecord]:
        """Hold the run's lease for the ``with`` block, renewing it from a daemon thread.

        Raises:
            RunLeaseHeld: another live process drives the run.
        """
        owner = process_owner()
        lease = self.acquire_lease(run_id, owner, ttl_s)
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(ttl_s / 3):
                try:
                    self.acquire_lease(run_id, owner, ttl_s)
                except LedgerError:
                    return

        thread = threading.Thread(target=beat, name="zspace-lease", daemon=True)
        thread.start()
        try:
            yield lease
        finally:
            stop.set()
            thread.join(timeout=1.0)
            self.release_lease(run_id, owner)

    def _lease(self, cursor: sqlite3.Cursor, run_id: str) -> LeaseRecord | None:
        cursor.execute(
            f"SELECT run_id, owner, pid, host, heartbeat_at FROM run_leases "
            f"WHERE run_id = {self._p}",
            (run_id,),
        )
        row = cursor.fetchone()
        if row is None:
            return None
        return LeaseRecord(row[0], row[1], int(row[2]), row[3], float(row[4]))

    # ------------------------------------------------------------------ reads
    def get(self, key: str) -> LedgerRecord | None:
        """Return the record of a key, or None."""
        with self.database.reading() as cursor:
            return self._select(cursor, key)

    def for_run(self, run_id: str) -> list[LedgerRecord]:
        """Return every record of a run, oldest start first."""
        with self.database.reading() as cursor:
            cursor.execute(
                f"SELECT {_COLUMNS} FROM calls WHERE run_id = {self._p} "
                "ORDER BY started_at, idempotency_key",
                (run_id,),
            )
            return [_record(row) for row in cursor.fetchall()]

    def close(self) -> None:
        """Close the ledger's connections."""
        self.database.close()

    def _select(self, cursor: sqlite3.Cursor, key: str) -> LedgerRecord | None:
        cursor.execute(
            f"SELECT {_COLUMNS} FROM calls WHERE idempotency_key = {self._p}", (key,)
        )
        row = cursor.fetchone()
        return None if row is None else _record(row)


def _record(row: tuple[Any, ...]) -> LedgerRecord:
    (key, run_id, call_id, tool_id, args_hash, status, result_json, error, transient,
     attempts, started_at, finished_at) = row
    return LedgerRecord(
        idempotency_key=key,
        run_id=run_id,
        call_id=call_id,
        tool_id=tool_id,
        args_hash=args_hash,
        status=status,
        result_json=result_json,
        error=error,
        transient=bool(transient),
        attempts=int(attempts),
        started_at=float(started_at),
        finished_at=None if finished_at is None else float(finished_at),
    )
