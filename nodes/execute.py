"""execute and call_tool: run the plan DAG in waves; every ready call runs in parallel.

``execute`` — Reads: plan, results, approvals, reconciled.
Writes: results, awaiting_reconcile, awaiting_approval, approvals.

``call_tool`` — Reads: its ``Send`` payload, not the state (call, results, run_id, approvals,
request_hash, request_preview). Writes: results.

``execute`` settles the wave bookkeeping (calls whose inputs failed are skipped, with the
reason); the router then fans the ready calls out as ``Send("call_tool", ...)`` tasks, one
side-effecting call per task. ``call_tool`` resolves arguments from earlier results, derives
the idempotency key and runs the call through the executor (schema validation, deadline,
ledger, retries). Results land in ``results`` keyed by call id, so a finished call is never
run again on resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from nodes.approve import approval_key, consumed_approvals, optional_catalog, pending_approvals
from nodes.context import Context, resolve_context
from nodes.planning.dag import planned_call_key, resolve_args, skip_record, wave
from nodes.reconcile import unreconciled
from nodes.state import CallResult, PlannedCall, ZState
from stores.execution.ledger.calls import request_hash
from stores.execution.policy import approval_needed, declared_destructive
from stores.secrets import redact_args


def request_fingerprint(state: Mapping[str, Any]) -> str:
    """The hash of this run's request: a run id is bound to it at first use (ledger ``runs``)."""
    intent = state.get("intent") or {}
    return request_hash(str(intent.get("request") or ""))


def request_preview(state: Mapping[str, Any]) -> str:
    """The start of this run's request, named in the error when its run id is reused."""
    intent = state.get("intent") or {}
    return str(intent.get("request") or "")[:80]


async def execute(
    state: ZState, runtime: Runtime[Context], *, catalog_factory: Any = None
) -> dict[str, Any]:
    """Settle one wave: record skips for calls whose inputs failed.

    Writes skip records only to ``results``, and drops consumed ``approvals``. A call whose
    outcome is unknown stops the plan here for ``reconcile`` (unless the run reports such
    calls as gaps, ``Context.reconcile_unknown="report"``).
    """
    if resolve_context(runtime).reconcile_unknown == "ask":
        unknown = unreconciled(state)
        if unknown:
            # Hold the plan (dependents are not skipped yet) until a person says what happened.
            return {"awaiting_reconcile": unknown}
    _, skipped = wave(state)
    # A skip can unblock nothing, but it can make more skips: settle them all at once.
    settled: dict[str, CallResult] = dict(skipped)
    while skipped:
        merged = {**(state.get("results") or {}), **settled}
        _, skipped = wave({**state, "results": merged})
        skipped = {k: v for k, v in skipped.items() if k not in settled}
        settled.update(skipped)
    update: dict[str, Any] = {"results": settled} if settled else {}
    update["awaiting_reconcile"] = []
    # The router stays a pure function of state (Studio's edit-state needs that): whether the
    # next wave must stop for approval is decided here, where the run's context is known.
    after = {**state, "results": {**(state.get("results") or {}), **settled}}
    catalog = await optional_catalog(catalog_factory)
    update["awaiting_approval"] = [
        c["call_id"]
        for c in pending_approvals(after, resolve_context(runtime), catalog)  # type: ignore[arg-type]
    ]
    consumed = consumed_approvals(state)
    if consumed:
        approvals = dict(state.get("approvals") or {})
        for key in consumed:
            approvals.pop(key, None)
        update["approvals"] = approvals
    return update


async def call_tool(
    payload: dict[str, Any], runtime: Runtime[Context], *, executor_factory: Any, graph_factory: Any
) -> dict[str, Any]:
    """Run one planned call (a ``Send`` task) and write its result under its call id."""
    context = resolve_context(runtime)
    call: PlannedCall = payload["call"]
    results: Mapping[str, CallResult] = payload["results"]
    writer = get_stream_writer()
    writer({"event": "call_started", "call_id": call["call_id"], "tool_id": call["tool_id"]})
    try:
        args = resolve_args(call, results)
    except KeyError as exc:
        failure = skip_record(call, str(exc).strip('"'))
        failure["status"] = "error"
        failure["error_kind"] = "binding"
        writer(
            {
                "event": "call_finished",
                "call_id": call["call_id"],
                "status": "error",
                "error": failure["error"],
            }
        )
        return {"results": {call["call_id"]: failure}}
    approved = (payload.get("approvals") or {}).get(approval_key(call, results)) is True
    # Building the executor may open the catalog file and the ledger: off the event loop.
    executor = await asyncio.to_thread(executor_factory, context)
    catalog = getattr(executor, "catalog", None)
    spec = catalog.tools.get(call["tool_id"]) if catalog is not None else None
    if approval_needed(
        call["tool_id"],
        context.destructive_tools,
        approved=approved,
        pre_approved=context.pre_approved,
        declared=declared_destructive(spec),
    ):
        # Defence in depth: the router sends only approved destructive calls.
        refusal = skip_record(call, "refused: destructive by policy and not approved")
        refusal["status"] = "error"
        refusal["error_kind"] = "policy"
        return {"results": {call["call_id"]: refusal}}
    key = planned_call_key(payload["run_id"], call, args)
    outcome = await executor.execute(
        {
            "call_id": call["call_id"],
            "tool_id": call["tool_id"],
            "args": args,
            "idempotency_key": key,
            "run_id": payload["run_id"],
            "side_effect": call["side_effect"],
            "request_hash": payload.get("request_hash"),
            "request_preview": payload.get("request_preview"),
        }
    )
    # Secret-looking arguments never enter state (and so never a checkpoint).
    record: CallResult = {**outcome, "args": redact_args(args)}  # type: ignore[typeddict-item]
    await asyncio.to_thread(
        lambda: _record_feedback(graph_factory(), call, record["status"] == "ok")
    )
    writer(
        {
            "event": "call_finished",
            "call_id": call["call_id"],
            "tool_id": call["tool_id"],
            "status": record["status"],
            "error": record.get("error"),
            "replayed": record.get("replayed", False),
        }
    )
    return {"results": {call["call_id"]: record}}


def _record_feedback(graph: Any, call: PlannedCall, success: bool) -> None:
    """Reinforce (or weaken) the dependency edges this call's inputs came through."""
    for param, source in call["args"].items():
        if "from_call" not in source:
            continue
        for edge in graph.producers(call["tool_id"], param):
            if edge.output_field == source["field"]:
                graph.record_feedback(edge, success)
                break
