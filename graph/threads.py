"""Thread summaries read back from the checkpointer: status, last step, pending question."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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
