"""The streaming contract: typed custom events the nodes emit through LangGraph's stream writer.

Stream with ``stream_mode="custom"`` (or a list that includes it) and every chunk is one of
the TypedDicts below, told apart by its ``event`` key::

    async for mode, chunk in graph.astream(payload, config, stream_mode=["custom", "updates"]):
        if mode == "custom" and chunk["event"] == "call_finished":
            ...

Nodes re-run from their first line when a run resumes, so an event emitted before an
``interrupt()`` (``clarification_asked``) is emitted again on resume, followed by its answer
event. Consumers should key on ids (``call_id``, ``sub_intent``), not on counts.

``graph.streaming.stream_run`` (and so ``zspace run``, the MCP server and the benchmarks) ends
every invocation with ``run_finished``: the run's status (done, partial, failed, waiting for
input) from the one mapping the CLI and the MCP server report.
"""

from __future__ import annotations

from typing import Any

from nodes.events import (
    EVENT_NAMES,
    ApprovalAsked,
    CallFinished,
    CallStarted,
    CandidatesRanked,
    ClarificationAnswered,
    ClarificationAsked,
    IntentParsed,
    MemoryBound,
    NodeStarted,
    ReconcileAsked,
    RunFinished,
    SubIntentDigest,
    ZspaceEvent,
)

__all__ = [
    "ApprovalAsked",
    "CallFinished",
    "CallStarted",
    "CandidatesRanked",
    "ClarificationAnswered",
    "ClarificationAsked",
    "EVENT_NAMES",
    "IntentParsed",
    "MemoryBound",
    "NodeStarted",
    "ReconcileAsked",
    "RunFinished",
    "SubIntentDigest",
    "ZspaceEvent",
    "describe_event",
]


def describe_event(event: dict[str, Any]) -> str | None:
    """One progress line for a custom stream event (None for events the CLI does not show)."""
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
    if kind == "memory_bound":
        bound = ", ".join(f"{k}={v}" for k, v in event["bindings"].items())
        return f"  from earlier turns ({event['kind']}): {bound} → {event['request']}"
    if kind == "clarification_answered":
        return f"  {event['sub_intent']}.{event['param']} = {event['value']}"
    if kind == "run_finished":
        return f"  status: {event['status']}"
    return None
