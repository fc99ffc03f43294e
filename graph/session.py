"""Run or resume one request under the run lease: the CLI's, MCP server's and benchmarks' way.

One driver per run. Before anything runs, a :class:`Session` takes the lease of the run id
(when fixed) and of the thread (when the caller named one) in two places: this process's own
table, so two requests of one process (the MCP server serves them concurrently) never drive a
thread at once, and the call ledger's lease, so two processes, or two machines sharing the
Postgres ledger, never do either. A second driver is refused with :class:`RunBusy` or
:class:`~stores.execution.ledger.calls.RunLeaseHeld` before it touches anything.

Resuming reads the thread first: an unknown thread is an error (:class:`ThreadNotFound`),
a finished one is left alone, a stopped or failed one continues from its last checkpoint,
and one waiting for input is given the reply (or the session's ``answer`` is asked for one).
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.types import Command

from graph.deps import Deps
from graph.runtime import open_runtime
from graph.streaming import (
    Answerer,
    EventHandler,
    Printer,
    RunOutcome,
    UpdateHandler,
    current_outcome,
    new_thread_id,
    run_until_done,
)
from graph.threads import summarize_thread
from nodes.context import Context
from stores.execution.ledger.calls import LeaseRecord, LedgerError, RunLeaseHeld, process_owner

NO_REPLY: Any = object()
"""``Session.resume``'s default reply: ask the session's ``answer`` callback for one."""


class RunBusy(RunLeaseHeld):
    """This process already drives the run or thread: another request on it has not finished."""

    def __init__(self, key: str) -> None:
        """Name the busy run id or thread id."""
        LedgerError.__init__(
            self,
            f"thread or run {key!r} is already being run by another request in this process; "
            "this one was refused and nothing ran. Wait for the first to finish, then resume "
            "the thread",
        )
        self.run_id = key
        self.holder = LeaseRecord(key, process_owner(), os.getpid(), socket.gethostname(),
                                  time.time())


class ThreadNotFound(LookupError):
    """A resume named a thread the checkpointer has never seen."""

    def __init__(self, thread_id: str) -> None:
        """Name the unknown thread."""
        super().__init__(
            f"no thread {thread_id!r} in the checkpointer: nothing to resume. Start a run "
            "first (`zspace run`, or run_request over MCP) and resume the thread id it returns"
        )
        self.thread_id = thread_id


_DRIVEN: set[str] = set()
_DRIVEN_LOCK = threading.Lock()


@contextmanager
def _driven_here(keys: Sequence[str]) -> Iterator[None]:
    """Mark ``keys`` as driven by this process for the block; refuse keys already marked."""
    with _DRIVEN_LOCK:
        busy = next((key for key in keys if key in _DRIVEN), None)
        if busy is not None:
            raise RunBusy(busy)
        _DRIVEN.update(keys)
    try:
        yield
    finally:
        with _DRIVEN_LOCK:
            _DRIVEN.difference_update(keys)


@asynccontextmanager
async def run_lease(deps: Deps, *keys: str | None) -> AsyncIterator[None]:
    """Hold the lease of every given key (run id, thread id) for the block.

    Empty keys are ignored. The ledger is the runtime's (Postgres when configured).

    Raises:
        RunBusy: another request of this process drives one of the keys.
        RunLeaseHeld: another live process drives one of the keys.
    """
    wanted = list(dict.fromkeys(key for key in keys if key))
    if not wanted:
        yield
        return
    with _driven_here(wanted):
        leases = ExitStack()
        try:
            ledger = await asyncio.to_thread(deps.get_ledger)
            for key in wanted:
                await asyncio.to_thread(leases.enter_context, ledger.run_lease(key))
            yield
        finally:
            await asyncio.to_thread(leases.close)


def leave_unanswered(_interrupt: dict[str, Any]) -> Any | None:
    """No one answers: a run stops at its first question."""
    return None


def quiet(_line: str) -> None:
    """Progress lines go nowhere."""


@dataclass
class Session:
    """Runs and resumes requests on one compiled graph, one driver per run.

    Attributes:
        graph: the graph compiled with a durable checkpointer (``open_runtime``).
        deps: its collaborators; the run lease lives in ``deps.get_ledger()``.
        entry: who drives it (cli, mcp, e2e...), named in traces.
        say: progress lines.
        answer: answers an interrupt (approval, question, reconcile), or None to stop there.
        on_event: every custom stream event (``graph.events``).
        on_update: every node's state update, as ``(node, update)``.
    """

    graph: Any
    deps: Deps
    entry: str = "cli"
    say: Printer = quiet
    answer: Answerer = leave_unanswered
    on_event: EventHandler | None = None
    on_update: UpdateHandler | None = None

    async def run(
        self, request: str, context: Context, thread_id: str | None = None
    ) -> RunOutcome:
        """Run a request on a new thread, or as the next turn of ``thread_id``.

        Raises:
            RunBusy: another request of this process drives the run id or the thread.
            RunLeaseHeld: another live process drives it.
        """
        async with run_lease(self.deps, context.run_id, thread_id):
            return await self._drive({"request": request}, thread_id or new_thread_id(), context)

    async def resume(
        self, thread_id: str, context: Context, reply: Any = NO_REPLY
    ) -> RunOutcome:
        """Continue a thread: answer its question, or go on from its last checkpoint.

        ``reply`` answers the interrupt the thread waits on (a value; True/False for an
        approval; done/retry/skip for a reconciliation); without one the session's
        ``answer`` is asked. The outcome's ``ran`` is False when nothing ran: the thread was
        done, or it waits for an answer nobody gave (then ``interrupt`` is its question).

        Raises:
            ThreadNotFound: the checkpointer has no such thread.
            RunBusy: another request of this process drives the run id or the thread.
            RunLeaseHeld: another live process drives it.
        """
        async with run_lease(self.deps, context.run_id, thread_id):
            summary = await summarize_thread(self.graph, thread_id)
            if summary.status == "empty":
                raise ThreadNotFound(thread_id)
            if summary.status == "done":
                return await current_outcome(self.graph, thread_id, ran=False)
            payload: Any = None  # stopped or failed: run again from the last checkpoint
            if summary.status == "waiting for input":
                if reply is NO_REPLY:
                    reply = self.answer(summary.interrupt or {})
                if reply is None:
                    return await current_outcome(self.graph, thread_id, ran=False)
                payload = Command(resume=reply)
            return await self._drive(payload, thread_id, context)

    async def _drive(self, payload: Any, thread_id: str, context: Context) -> RunOutcome:
        # The run keeps the catalog it started with, whatever a live MCP sync does meanwhile.
        with self.deps.pin_catalog():
            return await run_until_done(
                self.graph, payload, thread_id, context, self.say, self.answer,
                on_event=self.on_event, on_update=self.on_update, entry=self.entry,
            )


@asynccontextmanager
async def open_session(
    deps: Deps,
    mcp_config: Path | None = None,
    postgres_url: str | None = None,
    **options: Any,
) -> AsyncIterator[Session]:
    """A :class:`Session` over :func:`graph.runtime.open_runtime` (checkpointer, MCP, ledger).

    ``options`` are the session's own fields (``entry``, ``say``, ``answer``...).
    """
    async with open_runtime(deps, mcp_config, postgres_url) as graph:
        yield Session(graph, deps, **options)
