"""reconcile: a person says what happened to calls whose outcome is unknown (an interrupt).

``reconcile`` — Reads: plan, results, awaiting_reconcile, reconciled, run_id.
Writes: results, reconciled, awaiting_reconcile.

Such a call was started (before a crash, or it timed out) by a tool that takes no idempotency
key, so it can be neither replayed nor safely repeated.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from nodes.context import Context, resolve_context
from nodes.events import ReconcileAsked
from nodes.planning.dag import described_call, planned_call_key, resolve_args
from nodes.state import ZState

RECONCILE_CHOICES = ("done", "retry", "skip")
_SAID_DONE = {"done", "yes", "y", "true", "happened", "it happened", "ok"}
_SAID_RETRY = {"retry", "no", "n", "false", "did not happen", "run again", "again"}
_SAID_SKIP = {"skip", "leave", "unknown", "leave it"}


def unreconciled(state: ZState) -> list[str]:
    """Planned calls whose outcome is unknown and that nobody has reconciled yet."""
    results = state.get("results") or {}
    settled = set(state.get("reconciled") or [])
    return [
        c["call_id"]
        for c in state.get("plan") or []
        if c["call_id"] in results
        and results[c["call_id"]].get("error_kind") == "unknown_outcome"
        and c["call_id"] not in settled
    ]


async def reconcile(
    state: ZState, runtime: Runtime[Context], *, executor_factory: Any
) -> dict[str, Any]:
    """Ask a person what happened to calls whose outcome is unknown (an interrupt).

    Such a call was started (before a crash, or it timed out) by a tool that takes no
    idempotency key, so it can be neither replayed nor safely repeated. The resume value, for
    all the calls or per call id (``{"s2.core": "done"}``):

    - ``"done"`` (or ``True``, ``"yes"``; or ``{"outcome": "done", "output": {...}}``): it
      happened; the ledger records it as done (with the output given) and the plan goes on;
    - ``"retry"`` (or ``False``, ``"no"``): it did not happen; it runs again, with the ledger's
      consent (recorded as a transient failure first);
    - ``"skip"``: leave it failed; the answer states it.

    An answer that says none of these leaves the call pending, and the question is asked again.
    Nothing runs before ``interrupt()``: on resume this node starts again from its first line.
    """
    context = resolve_context(runtime)
    results = state.get("results") or {}
    waiting = set(state.get("awaiting_reconcile") or [])
    pending = [c for c in state.get("plan") or [] if c["call_id"] in waiting]
    question: dict[str, Any] = {
        "type": "reconcile",
        "question": "The outcome of these calls is unknown (started, never confirmed; the "
        "tool takes no idempotency key). Did they take effect? Answer done (it happened), "
        "retry (it did not: run it again) or skip (leave it failed): "
        + "; ".join(f"{c['call_id']}: {c['tool_id']}" for c in pending),
        "choices": list(RECONCILE_CHOICES),
        "calls": [
            {**described_call(c, results), "error": results[c["call_id"]].get("error")}
            for c in pending
        ],
    }
    get_stream_writer()(
        ReconcileAsked(event="reconcile_asked", question=question["question"],
                       calls=question["calls"])
    )
    answer = interrupt(question)
    decisions = _reconcile_decisions(answer, [c["call_id"] for c in pending])
    executor = await asyncio.to_thread(executor_factory, context)
    run_id = str(state.get("run_id") or "")
    updates: dict[str, Any] = {}
    settled: list[str] = []
    for call in pending:
        decision = decisions.get(call["call_id"])
        if decision is None:
            continue
        outcome, output = decision
        previous = results[call["call_id"]]
        # An unknown outcome means the call ran with arguments that resolved back then.
        key = planned_call_key(run_id, call, resolve_args(call, results))
        if outcome == "done":
            note = "outcome confirmed by a person"
            await asyncio.to_thread(executor.confirm_outcome, key, output, note)
            updates[call["call_id"]] = {
                **previous, "status": "ok", "output": output, "error": None,
                "error_kind": None, "replayed": True,
                "notes": [*previous.get("notes", []), note],
            }
            settled.append(call["call_id"])
        elif outcome == "retry":
            await asyncio.to_thread(
                executor.allow_retry, key, "a person said it did not happen"
            )
            updates[call["call_id"]] = None  # runs again in the next wave
        else:
            settled.append(call["call_id"])
    return {
        "results": updates,
        "reconciled": [*(state.get("reconciled") or []), *settled],
        "awaiting_reconcile": [],
    }


def _reconcile_decisions(
    answer: Any, ids: list[str]
) -> dict[str, tuple[str, Any]]:
    """Read the resume value: one outcome for all calls, or one per call id."""
    if isinstance(answer, dict) and any(i in answer for i in ids):
        decided = {}
        for call_id in ids:
            if call_id in answer:
                one = _one_decision(answer[call_id])
                if one is not None:
                    decided[call_id] = one
        return decided
    one = _one_decision(answer)
    return {} if one is None else dict.fromkeys(ids, one)


def _one_decision(value: Any) -> tuple[str, Any] | None:
    output: Any = None
    if isinstance(value, dict):
        output = value.get("output")
        value = value.get("outcome", value.get("answer"))
    if value is True:
        return "done", output
    if value is False:
        return "retry", None
    said = str(value or "").strip().lower()
    if said in _SAID_DONE:
        return "done", output
    if said in _SAID_RETRY:
        return "retry", None
    if said in _SAID_SKIP:
        return "skip", None
    return None
