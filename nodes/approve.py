"""approve: a person approves the destructive calls of the next wave (an interrupt).

``approve`` — Reads: plan, results, approvals. Writes: approvals, results.

The gate is the policy's (:func:`stores.execution.policy.approval_needed`); each approval is
bound to the exact call and its concrete arguments, and is used once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from nodes.context import Context, resolve_context
from nodes.events import ApprovalAsked
from nodes.planning.dag import described_call, resolve_args, skip_record, wave
from nodes.state import CallResult, PlannedCall, ZState
from stores.catalog.model import Catalog
from stores.execution.ledger.calls import canonical_args_hash
from stores.execution.policy import approval_needed, declared_destructive


def approval_key(call: PlannedCall, results: Mapping[str, CallResult]) -> str:
    """An approval is bound to the exact call: its id, tool and concrete arguments."""
    try:
        args = resolve_args(call, results)
    except KeyError:
        args = {}
    return f"{call['call_id']}:{call['tool_id']}:{canonical_args_hash(args)}"


def pending_approvals(
    state: ZState, context: Context, catalog: Catalog | None = None
) -> list[PlannedCall]:
    """Ready calls the policy's approval gate holds and nobody has answered for yet.

    With the catalog, a tool its source declares destructive (an OpenAPI DELETE) is held too.
    """
    ready, _ = wave(state)
    approvals = state.get("approvals") or {}
    results = state.get("results") or {}
    tools = catalog.tools if catalog is not None else {}
    return [
        c
        for c in ready
        if approval_needed(
            c["tool_id"], context.destructive_tools, pre_approved=context.pre_approved,
            declared=declared_destructive(tools.get(c["tool_id"])),
        )
        and approval_key(c, results) not in approvals
    ]


def consumed_approvals(state: ZState) -> list[str]:
    """Approval keys whose call has run (or was refused): each approval is used once.

    A call whose approval was consumed and that must run again (an alignment retry) asks
    again; a resumed call that has no result yet still holds its approval.
    """
    approvals = state.get("approvals") or {}
    if not approvals:
        return []
    results = state.get("results") or {}
    consumed = []
    for call in state.get("plan") or []:
        result = results.get(call["call_id"])
        if result is None or result.get("error_kind") == "rejected":
            continue
        upstream = {d: results[d] for d in call["depends_on"] if d in results}
        key = approval_key(call, upstream)
        if approvals.get(key) is True:
            consumed.append(key)
    return consumed


async def approve(
    state: ZState, runtime: Runtime[Context], *, catalog_factory: Any = None
) -> dict[str, Any]:
    """Ask a person to approve the destructive calls of the next wave (an interrupt).

    Nothing runs before ``interrupt()``: on resume this node starts again from its first line.
    The resume value is ``True``/``"yes"`` (approve all), ``False``/``"no"``, or a list of
    approved call ids. Each approval is bound to the exact call and arguments; a call not
    approved gets a ``rejected`` record in ``results``.
    """
    context = resolve_context(runtime)
    results = state.get("results") or {}
    catalog = await optional_catalog(catalog_factory)
    pending = pending_approvals(state, context, catalog)
    question: dict[str, Any] = {
        "type": "approval",
        "question": "Approve these calls? "
        + "; ".join(f"{c['call_id']}: {c['tool_id']}" for c in pending),
        "calls": [described_call(c, results) for c in pending],
    }
    get_stream_writer()(
        ApprovalAsked(event="approval_asked", question=question["question"],
                      calls=question["calls"])
    )
    answer = interrupt(question)
    approved_ids = _approved_ids(answer, [c["call_id"] for c in pending])
    approvals = dict(state.get("approvals") or {})
    rejected: dict[str, CallResult] = {}
    for call in pending:
        ok = call["call_id"] in approved_ids
        approvals[approval_key(call, results)] = ok
        if not ok:
            record = skip_record(call, "not approved by the user")
            record["error_kind"] = "rejected"
            rejected[call["call_id"]] = record
    return {"approvals": approvals, "results": rejected}


async def optional_catalog(catalog_factory: Any) -> Catalog | None:
    """The catalog when a factory is bound and a catalog exists (read off the event loop)."""
    if catalog_factory is None:
        return None
    try:
        return await asyncio.to_thread(catalog_factory)  # type: ignore[no-any-return]
    except FileNotFoundError:
        return None


def _approved_ids(answer: Any, ids: list[str]) -> set[str]:
    if isinstance(answer, dict):
        answer = answer.get("approve", answer.get("approved", False))
    if isinstance(answer, str):
        answer = answer.strip().lower() in {"y", "yes", "approve", "ok", "true"}
    if answer is True:
        return set(ids)
    if isinstance(answer, list):
        return {str(i) for i in answer} & set(ids)
    return set()
