"""Running a compiled graph: run config, streaming progress, answering interrupts.

- :func:`stream_run` runs or resumes a thread once, until it ends or stops at an interrupt,
  printing the typed events of ``graph.events`` as progress lines.
- :func:`run_until_done` loops over interrupts, answering them through a callback.
- :func:`run_config` names the run for LangSmith traces.

These run whatever they are given: to run or resume a request under the run lease, go
through ``graph.session``.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from langgraph.types import Command

from graph.events import describe_event
from nodes.context import Context
from nodes.events import RunFinished

Printer = Callable[[str], None]
EventHandler = Callable[[dict[str, Any]], None]
UpdateHandler = Callable[[str, Any], None]
Answerer = Callable[[dict[str, Any]], Any | None]


@dataclass
class RunOutcome:
    """How a streamed run ended (``ran`` is False when nothing ran: see ``graph.session``)."""

    thread_id: str
    values: dict[str, Any] = field(default_factory=dict)
    interrupt: dict[str, Any] | None = None
    ran: bool = True

    @property
    def status(self) -> RunStatus:
        """The run's status (:func:`run_status`)."""
        return run_status(self.values, self.interrupt)


RunStatus = Literal["done", "partial", "failed", "waiting for input"]


def run_status(values: Mapping[str, Any], interrupt: Mapping[str, Any] | None) -> RunStatus:
    """``waiting for input``, ``done`` (every part answered), ``partial`` or ``failed``.

    The one mapping from a run's state to its status: the CLI's exit code and ``--json``, the
    MCP server's answer, the stream's last event (``run_finished``) and the e2e run file all
    derive from it. A run with gaps is never ``done``: ``partial`` when some call succeeded,
    else ``failed``.

    Args:
        values: The thread's state values after the run.
        interrupt: The interrupt it stopped at, or None when it ended.
    """
    if interrupt is not None:
        return "waiting for input"
    if not values.get("gaps"):
        return "done"
    results = (values.get("results") or {}).values()
    return "partial" if any(r.get("status") == "ok" for r in results) else "failed"


def run_finished_event(outcome: RunOutcome) -> RunFinished:
    """The stream's last event: how the run ended, with the status :func:`run_status` gives."""
    return {
        "event": "run_finished",
        "thread_id": outcome.thread_id,
        "status": outcome.status,
        "gaps": [str(gap) for gap in outcome.values.get("gaps") or []],
        "question": (outcome.interrupt or {}).get("question"),
    }


async def current_outcome(graph: Any, thread_id: str, *, ran: bool = True) -> RunOutcome:
    """The thread's state as it stands in the checkpointer, with its pending interrupt."""
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
    outcome = RunOutcome(thread_id=thread_id, values=dict(snapshot.values), ran=ran)
    for task in snapshot.tasks:
        if task.interrupts:
            outcome.interrupt = dict(task.interrupts[0].value)
            break
    return outcome


def run_config(
    thread_id: str,
    context: Context | None = None,
    *,
    entry: str = "cli",
    run_name: str = "zspace",
    tags: list[str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The RunnableConfig of one invocation: thread, and names that make traces readable.

    LangSmith (and any LangChain tracer) shows ``run_name``, filters on ``tags`` and on the
    ``metadata`` keys: ``thread_id`` (LangSmith groups a thread's runs by it), ``zspace_run_id``
    (the idempotency scope, when fixed), ``zspace_entry`` (cli, mcp, embedded...) and the
    model when one is set.
    """
    context = context or Context()
    meta: dict[str, Any] = {"thread_id": thread_id, "zspace_entry": entry}
    if context.run_id:
        meta["zspace_run_id"] = context.run_id
    if context.model:
        meta["zspace_model"] = context.model
    meta.update(metadata or {})
    return {
        "configurable": {"thread_id": thread_id},
        "run_name": run_name,
        "tags": ["zspace", f"zspace:{entry}", *(tags or [])],
        "metadata": meta,
    }


async def stream_run(
    graph: Any,
    payload: Any,
    thread_id: str,
    context: Context,
    say: Printer,
    on_event: EventHandler | None = None,
    entry: str = "cli",
    on_update: UpdateHandler | None = None,
) -> RunOutcome:
    """Stream one invocation, printing progress, until it ends or stops at an interrupt.

    Every custom event (``graph.events``) goes to ``on_event`` too, when given, and every
    node's state update to ``on_update(node, update)`` (a ``Send`` task's update alone).
    The last event is ``run_finished``, with the run's status (:func:`run_status`).
    """
    config = run_config(thread_id, context, entry=entry)
    async for mode, chunk in graph.astream(
        payload, config, context=context, stream_mode=["custom", "updates"], durability="sync"
    ):
        if mode == "custom":
            if on_event is not None:
                on_event(chunk)
            line = describe_event(chunk)
            if line:
                say(line)
        elif mode == "updates":
            for node, update in chunk.items():
                if not node.startswith("__"):
                    say(f"[{node}]")
                    if on_update is not None:
                        on_update(node, update)
    outcome = await current_outcome(graph, thread_id)
    finished = run_finished_event(outcome)
    if on_event is not None:
        on_event(dict(finished))
    line = describe_event(dict(finished))
    if line:
        say(line)
    return outcome


def ask_on_terminal(interrupt: dict[str, Any]) -> Any | None:
    """Ask the interrupt's question on the terminal; None when no one can answer."""
    if not sys.stdin or not sys.stdin.isatty():
        return None
    for call in interrupt.get("calls", []):  # approvals and reconciliations list their calls
        print(f"  {call['call_id']}: {call['tool_id']} {json.dumps(call['args'])}")
        if call.get("error"):
            print(f"    {call['error']}")
    if interrupt.get("type") == "approval":
        reply = input("approve these calls? [y/N] ").strip().lower()
        return reply in {"y", "yes"}
    if interrupt.get("type") == "reconcile":
        return input("did they take effect? [done/retry/skip] ").strip().lower() or None
    return input(f"{interrupt.get('question', 'value?')} ").strip()


async def run_until_done(
    graph: Any,
    payload: Any,
    thread_id: str | None,
    context: Context,
    say: Printer,
    answer: Answerer = ask_on_terminal,
    *,
    on_event: EventHandler | None = None,
    on_update: UpdateHandler | None = None,
    entry: str = "cli",
) -> RunOutcome:
    """Run (or resume) a thread, answering interrupts through ``answer`` while it can.

    ``on_event``, ``on_update`` and ``entry`` are passed to every :func:`stream_run`.
    """
    thread = thread_id or new_thread_id()
    outcome = await stream_run(graph, payload, thread, context, say, on_event, entry, on_update)
    while outcome.interrupt is not None:
        say(f"? {outcome.interrupt.get('question')}")
        reply = answer(outcome.interrupt)
        if reply is None:
            return outcome
        outcome = await stream_run(
            graph, Command(resume=reply), thread, context, say, on_event, entry, on_update
        )
    return outcome


def new_thread_id() -> str:
    """A fresh thread id."""
    return uuid.uuid4().hex[:12]
