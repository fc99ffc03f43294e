"""Running the graph from the command line: checkpointer, MCP sessions, streaming, interrupts."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.types import Command

from graph.builder import build_graph
from graph.deps import Deps
from nodes.context import Context
from stores.checkpoint import postgres_checkpointer, sqlite_checkpointer

MCP_CONFIG_POINTER = "mcp_config.json"

Printer = Callable[[str], None]


def saved_mcp_config(home: Path) -> Path | None:
    """The MCP config ``zspace index --mcp`` last used, if any."""
    pointer = home / MCP_CONFIG_POINTER
    if not pointer.is_file():
        return None
    path = Path(json.loads(pointer.read_text())["path"])
    return path if path.is_file() else None


def remember_mcp_config(home: Path, config: Path) -> None:
    """Remember which MCP config serves the indexed tools, for later runs."""
    (home / MCP_CONFIG_POINTER).write_text(json.dumps({"path": str(config.resolve())}))


@asynccontextmanager
async def open_runtime(
    deps: Deps, mcp_config: Path | None, postgres_url: str | None = None
) -> AsyncIterator[Any]:
    """A compiled graph with a durable checkpointer and, when configured, MCP sessions.

    One session per MCP server serves every call of the run; all close on exit.
    """
    async with AsyncExitStack() as stack:
        if mcp_config is not None:
            from stores.mcp_source import McpBackend, McpSessionPool, load_mcp_config

            config = load_mcp_config(mcp_config)
            pool = await stack.enter_async_context(McpSessionPool(config))
            backend = McpBackend(pool)
            for server in config.servers:
                deps.backends.setdefault(server, backend)
        if postgres_url:
            saver = await stack.enter_async_context(postgres_checkpointer(postgres_url))
        else:
            saver = await stack.enter_async_context(
                sqlite_checkpointer(deps.get_home() / "checkpoints.sqlite")
            )
        yield build_graph(deps).compile(checkpointer=saver, name="zspace")


@dataclass
class RunOutcome:
    """How a streamed run ended."""

    thread_id: str
    values: dict[str, Any] = field(default_factory=dict)
    interrupt: dict[str, Any] | None = None


def describe_event(event: dict[str, Any]) -> str | None:
    """One progress line for a custom stream event."""
    kind = event.get("event")
    if kind == "intent":
        subs = "; ".join(f"{s['id']}: {s['text']} [{s['action']}]" for s in event["sub_intents"])
        return f"  intent ({event['parser']}): {subs}"
    if kind == "candidates":
        return f"  {event['sub_intent']} candidates: {', '.join(event['tools'][:5])}"
    if kind == "call_started":
        return f"  → {event['call_id']} {event['tool_id']}"
    if kind == "call_finished":
        status = event["status"] + (" (replayed)" if event.get("replayed") else "")
        error = f": {event['error']}" if event.get("error") else ""
        return f"  ← {event['call_id']} {status}{error}"
    return None


async def stream_run(
    graph: Any, payload: Any, thread_id: str, context: Context, say: Printer
) -> RunOutcome:
    """Stream one invocation, printing progress, until it ends or stops at an interrupt."""
    config = {
        "configurable": {"thread_id": thread_id},
        "metadata": {"zspace_run_id": context.run_id or None},
        "tags": ["zspace"],
        "run_name": "zspace",
    }
    async for mode, chunk in graph.astream(
        payload, config, context=context, stream_mode=["custom", "updates"], durability="sync"
    ):
        if mode == "custom":
            line = describe_event(chunk)
            if line:
                say(line)
        elif mode == "updates":
            for node in chunk:
                if not node.startswith("__"):
                    say(f"[{node}]")
    snapshot = await graph.aget_state(config)
    outcome = RunOutcome(thread_id=thread_id, values=dict(snapshot.values))
    for task in snapshot.tasks:
        if task.interrupts:
            outcome.interrupt = dict(task.interrupts[0].value)
            break
    return outcome


def ask_on_terminal(interrupt: dict[str, Any]) -> Any | None:
    """Ask the interrupt's question on the terminal; None when no one can answer."""
    if not sys.stdin or not sys.stdin.isatty():
        return None
    if interrupt.get("type") == "approval":
        for call in interrupt.get("calls", []):
            print(f"  {call['call_id']}: {call['tool_id']} {json.dumps(call['args'])}")
        reply = input("approve these calls? [y/N] ").strip().lower()
        return reply in {"y", "yes"}
    return input(f"{interrupt.get('question', 'value?')} ").strip()


async def run_until_done(
    graph: Any,
    payload: Any,
    thread_id: str | None,
    context: Context,
    say: Printer,
    answer: Callable[[dict[str, Any]], Any | None] = ask_on_terminal,
) -> RunOutcome:
    """Run (or resume) a thread, answering interrupts through ``answer`` while it can."""
    thread = thread_id or uuid.uuid4().hex[:12]
    outcome = await stream_run(graph, payload, thread, context, say)
    while outcome.interrupt is not None:
        say(f"? {outcome.interrupt.get('question')}")
        reply = answer(outcome.interrupt)
        if reply is None:
            return outcome
        outcome = await stream_run(graph, Command(resume=reply), thread, context, say)
    return outcome
