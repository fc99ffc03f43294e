"""Running the graph outside Studio: checkpointer, MCP sessions, streaming, interrupts, threads.

- :func:`open_runtime` compiles the graph with a durable checkpointer (SQLite under the home,
  or Postgres when ``ZSPACE_POSTGRES_URL`` / a URL is given, with the call ledger in the same
  database) and the MCP sessions of the servers that were indexed.
- :func:`stream_run` / :func:`run_until_done` run or resume a thread, streaming the typed
  events of ``graph.events``; :func:`run_config` names the run for LangSmith traces.
- :func:`list_threads` reads every thread's status back from the checkpointer.
"""

from __future__ import annotations

import asyncio
import json
import os
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
from graph.events import describe_event
from nodes.context import Context
from stores.checkpoint import postgres_checkpointer, sqlite_checkpointer

MCP_CONFIG_POINTER = "mcp_config.json"
POSTGRES_URL_VARIABLE = "ZSPACE_POSTGRES_URL"

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


def configured_postgres_url(explicit: str | None = None) -> str | None:
    """The Postgres URL to use: the explicit one, else ``ZSPACE_POSTGRES_URL``, else None."""
    return explicit or os.environ.get(POSTGRES_URL_VARIABLE) or None


class SavedMcpBackend:
    """An executor backend for long-lived servers (``langgraph dev``, ``zspace mcp``).

    It calls tools over the MCP config ``zspace index --mcp`` last used, opening one session
    pool per event loop on first use (nothing happens at import); the sessions live as long as
    the process. Use :func:`open_runtime` instead when a run has a clear end.
    """

    def __init__(self, home: Callable[[], Path]) -> None:
        """Find the saved MCP config under ``home()`` when the first call comes."""
        self._home = home
        self._pools: dict[int, Any] = {}
        self._servers: set[str] | None = None

    async def call(self, spec: Any, args: dict[str, Any], idempotency_key: str | None) -> Any:
        """Call the tool on its MCP server (``spec.agent``)."""
        from stores.execution.backends import McpBackend
        from stores.mcp.config import load_mcp_config
        from stores.mcp.pool import McpSessionPool

        loop = id(asyncio.get_running_loop())
        if loop not in self._pools:
            # Reading the saved config touches files: off the event loop (Studio's server
            # refuses blocking calls inside async nodes).
            home = await asyncio.to_thread(self._home)
            path = await asyncio.to_thread(saved_mcp_config, home)
            if path is None:
                raise RuntimeError(
                    f"tool {spec.id!r} has no backend: no MCP config was indexed under "
                    f"{home} (run `zspace index --mcp CONFIG` with the same ZSPACE_HOME)"
                )
            config = await asyncio.to_thread(load_mcp_config, path)
            self._servers = set(config.servers)
            self._pools[loop] = McpSessionPool(config)
        if spec.agent not in (self._servers or set()):
            raise RuntimeError(
                f"tool {spec.id!r}: agent {spec.agent!r} is not a server of the indexed MCP "
                "config, and this process has no Python implementation for it"
            )
        return await McpBackend(self._pools[loop]).call(spec, args, idempotency_key)


def server_deps(home: Path | None = None) -> Deps:
    """Deps for a long-lived server: lazy defaults plus the saved MCP config as backend."""
    deps = Deps(home=home)
    deps.backends.setdefault("*", SavedMcpBackend(deps.get_home))
    return deps


@asynccontextmanager
async def open_checkpointer(deps: Deps, postgres_url: str | None = None) -> AsyncIterator[Any]:
    """The durable checkpointer: Postgres when a URL is configured, else SQLite in the home."""
    url = configured_postgres_url(postgres_url)
    if url:
        async with postgres_checkpointer(url) as saver:
            yield saver
    else:
        async with sqlite_checkpointer(deps.get_home() / "checkpoints.sqlite") as saver:
            yield saver


@asynccontextmanager
async def open_runtime(
    deps: Deps, mcp_config: Path | None, postgres_url: str | None = None
) -> AsyncIterator[Any]:
    """A compiled graph with a durable checkpointer and, when configured, MCP sessions.

    One session per MCP server serves every call of the run; all close on exit. With a
    Postgres URL (argument or ``ZSPACE_POSTGRES_URL``) the checkpoints and the call ledger
    both live in that database.
    """
    url = configured_postgres_url(postgres_url)
    async with AsyncExitStack() as stack:
        if mcp_config is not None:
            from stores.execution.backends import McpBackend
            from stores.mcp.config import load_mcp_config
            from stores.mcp.pool import McpSessionPool

            config = load_mcp_config(mcp_config)
            pool = await stack.enter_async_context(McpSessionPool(config))
            backend = McpBackend(pool)
            added = [server for server in config.servers if server not in deps.backends]
            for server in added:
                deps.backends[server] = backend

            def forget_backends() -> None:
                # The pool closes with this block: a Deps reused later must not keep it.
                for server in added:
                    deps.backends.pop(server, None)

            stack.callback(forget_backends)
        if url and deps.ledger is None:
            from stores.execution.ledger.calls import CallLedger

            ledger = CallLedger(url)
            deps.ledger = ledger

            def close_ledger() -> None:
                ledger.close()
                deps.ledger = None

            stack.callback(close_ledger)
        saver = await stack.enter_async_context(open_checkpointer(deps, url))
        yield build_graph(deps).compile(checkpointer=saver, name="zspace")


@dataclass
class RunOutcome:
    """How a streamed run ended."""

    thread_id: str
    values: dict[str, Any] = field(default_factory=dict)
    interrupt: dict[str, Any] | None = None


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
    on_event: Callable[[dict[str, Any]], None] | None = None,
    entry: str = "cli",
) -> RunOutcome:
    """Stream one invocation, printing progress, until it ends or stops at an interrupt.

    Every custom event (``graph.events``) goes to ``on_event`` too, when given.
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
            for node in chunk:
                if not node.startswith("__"):
                    say(f"[{node}]")
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
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


@dataclass
class ThreadSummary:
    """One thread as ``zspace threads`` shows it, read from the checkpointer."""

    thread_id: str
    status: str  # "done", "waiting for input", "failed", "stopped" (resumable), "empty"
    last_step: str
    step: int
    updated_at: str
    request: str = ""
    run_id: str = ""
    question: str | None = None
    interrupt: dict[str, Any] | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON output)."""
        return dict(self.__dict__)


_LATEST_PER_THREAD = (
    "SELECT thread_id, MAX(checkpoint_id) AS last FROM checkpoints WHERE checkpoint_ns = '' "
    "GROUP BY thread_id ORDER BY last DESC"
)


async def thread_ids(saver: Any, limit: int | None = None) -> list[tuple[str, str]]:
    """``(thread_id, last checkpoint time)`` of every thread, most recently updated first.

    On the SQLite and Postgres savers one grouped query over the checkpoint table answers it
    (checkpoint ids are time-ordered UUIDs) and the time is left empty for the thread's
    summary to fill from its latest snapshot; any other saver is walked checkpoint by
    checkpoint.
    """
    fast = await _thread_ids_by_query(saver, limit)
    if fast is not None:
        return fast
    latest: dict[str, str] = {}
    async for item in saver.alist(None):
        configurable = item.config.get("configurable") or {}
        if configurable.get("checkpoint_ns"):
            continue  # subgraph checkpoints belong to their root thread
        thread = str(configurable.get("thread_id"))
        stamp = str(item.checkpoint.get("ts", ""))
        if stamp > latest.get(thread, ""):
            latest[thread] = stamp
    ordered = sorted(latest.items(), key=lambda item: item[1], reverse=True)
    return ordered[:limit] if limit else ordered


async def _thread_ids_by_query(saver: Any, limit: int | None) -> list[tuple[str, str]] | None:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    sql = _LATEST_PER_THREAD + (f" LIMIT {int(limit)}" if limit else "")
    try:
        if isinstance(saver, AsyncSqliteSaver):
            async with saver.lock, saver.conn.execute(sql) as cursor:
                rows = [(str(r[0]), str(r[1])) for r in await cursor.fetchall()]
        elif type(saver).__name__.endswith("PostgresSaver") and hasattr(saver, "_cursor"):
            async with saver._cursor() as cursor:
                await cursor.execute(sql)
                rows = [(str(r["thread_id"]), str(r["last"])) for r in await cursor.fetchall()]
        else:
            return None
    except Exception:  # noqa: BLE001 - an unexpected schema: fall back to walking checkpoints
        return None
    # The time comes with each thread's summary (its latest snapshot), not a second read.
    return [(thread, "") for thread, _ in rows]


async def summarize_thread(graph: Any, thread_id: str, updated_at: str = "") -> ThreadSummary:
    """The status, last step and pending question of one thread."""
    config = {"configurable": {"thread_id": thread_id}}
    snapshot = await graph.aget_state(config)
    values = dict(snapshot.values or {})
    intent = values.get("intent") or {}
    last_step = ""
    async for earlier in graph.aget_state_history(config, limit=2):
        if earlier.config["configurable"].get("checkpoint_id") != snapshot.config[
            "configurable"
        ].get("checkpoint_id"):
            last_step = ", ".join(earlier.next)
    summary = ThreadSummary(
        thread_id=thread_id,
        status="done",
        last_step=last_step or "(start)",
        step=int((snapshot.metadata or {}).get("step", -1)),
        updated_at=updated_at or str(snapshot.created_at or ""),
        request=str(intent.get("request", "")),
        run_id=str(values.get("run_id", "")),
    )
    errors = [task for task in snapshot.tasks if task.error]
    interrupts = [i for task in snapshot.tasks for i in task.interrupts]
    if interrupts:
        summary.status = "waiting for input"
        value = interrupts[0].value
        summary.interrupt = dict(value) if isinstance(value, dict) else {"value": value}
        summary.question = str(summary.interrupt.get("question", value))
    elif errors:
        summary.status = "failed"
        summary.error = f"{type(errors[0].error).__name__}: {errors[0].error}"
    elif snapshot.next:
        summary.status = "stopped"
    elif not values:
        summary.status = "empty"
    return summary


async def list_threads(saver: Any, graph: Any, limit: int | None = 50) -> list[ThreadSummary]:
    """Every thread in the checkpointer with its status, most recently updated first."""
    return [
        await summarize_thread(graph, thread, stamp)
        for thread, stamp in await thread_ids(saver, limit)
    ]
