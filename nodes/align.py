"""check_alignment: is every sub-intent answered? If not, a bounded compensatory retry.

``check_alignment`` — Reads: intent, plan, results, decisions, gaps, excluded_tools,
alignment_rounds, retry_effects, history. Writes: retry_subintents, gaps, excluded_tools, results,
history, alignment_rounds, retry_effects.

A retry only ever tries another candidate of the same kind of action: a sub-intent whose read
failed is retried with reads, never with a tool that writes (``retry_effects`` carries the
failed call's side effect to the planner), so a failure is never papered over by an effect the
request did not ask for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.state import CallResult, ZState

# Failures a retry must not paper over: a person said no, policy forbids it, or the outcome
# of a side effect is unknown and must be reconciled first.
FINAL_ERROR_KINDS = frozenset({"rejected", "policy", "unknown_outcome"})


def uncovered_subintents(state: ZState) -> list[str]:
    """Ids of sub-intents that needed a call and have no successful core call."""
    results: Mapping[str, CallResult] = state.get("results") or {}
    core = {
        c["sub_intent_id"]: c["call_id"] for c in state.get("plan") or [] if c["role"] == "core"
    }
    decisions = state.get("decisions") or {}
    missing = []
    for sub in state["intent"]["sub_intents"]:
        if sub["action"] == "direct_answer":
            continue
        if decisions.get(sub["id"], {}).get("action") == "covered":
            continue  # another clause's call does what this one asks (the planner said so)
        call_id = core.get(sub["id"])
        result = results.get(call_id) if call_id else None
        if result is None or result["status"] != "ok":
            missing.append(sub["id"])
    return missing


async def check_alignment(state: ZState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Check coverage; prepare a retry of just the missing parts, or state the gaps.

    A retry excludes the core tool that failed for the sub-intent (the next candidate is
    tried), drops the failed and skipped records so their calls can run again (kept in
    ``history``), and asks retrieve to search again for those sub-intents. A failed call
    whose outcome is unknown is never dropped: the ledger must reconcile it first.
    """
    context = resolve_context(runtime)
    missing = uncovered_subintents(state)
    rounds = state.get("alignment_rounds") or 0
    results: Mapping[str, CallResult] = state.get("results") or {}
    plan = state.get("plan") or []
    subs = {s["id"]: s for s in state["intent"]["sub_intents"]}
    if not missing:
        return {"retry_subintents": []}
    decisions = state.get("decisions") or {}
    retryable = [
        s
        for s in missing
        if decisions.get(s, {}).get("action") == "call_api"
        and not any(
            _error_kind(results, c["call_id"]) in FINAL_ERROR_KINDS
            for c in plan
            if c["sub_intent_id"] == s
        )
    ]
    if rounds >= context.max_alignment_retries or not retryable:
        gaps = list(state.get("gaps") or [])
        earlier = _earlier_failures(state.get("history") or [], plan)
        for sub_id in missing:
            reason = _failure_reason(sub_id, plan, results)
            text = f"{subs[sub_id]['text']}: {reason}"
            index = next(
                (i for i, g in enumerate(gaps) if g.startswith(subs[sub_id]["text"])), None
            )
            if index is None:
                gaps.append(text)
                index = len(gaps) - 1
            if sub_id in earlier and earlier[sub_id] not in gaps[index]:
                # The retry found nothing of the same kind: say what failed in the first place.
                gaps[index] += f" (before that, {earlier[sub_id]})"
        return {"gaps": gaps, "retry_subintents": []}
    excluded = {k: list(v) for k, v in (state.get("excluded_tools") or {}).items()}
    effects = dict(state.get("retry_effects") or {})
    dropped: dict[str, Any] = {}
    history: list[CallResult] = []
    retry_ids = set(retryable)
    for call in plan:
        result = results.get(call["call_id"])
        if result is None or result["status"] == "ok":
            continue
        if result["status"] == "skipped" or call["sub_intent_id"] in retry_ids:
            dropped[call["call_id"]] = None
            history.append(result)
            if call["role"] == "core" and result["status"] == "error":
                excluded.setdefault(call["sub_intent_id"], []).append(call["tool_id"])
                effects.setdefault(call["sub_intent_id"], bool(call["side_effect"]))
    return {
        "retry_subintents": retryable,
        "excluded_tools": excluded,
        "results": dropped,
        "history": history,
        "alignment_rounds": rounds + 1,
        "gaps": [],
        "retry_effects": effects,
    }


def _earlier_failures(history: list[Any], plan: list[Any]) -> dict[str, str]:
    """Per sub-intent, the failed core call a retry replaced (from ``history``)."""
    planned = {c["call_id"]: c["sub_intent_id"] for c in plan}
    found: dict[str, str] = {}
    for record in history:
        if record.get("status") != "error":
            continue
        call_id = str(record.get("call_id") or "")
        sub_id = planned.get(call_id) or call_id.split(".", 1)[0]
        found[sub_id] = f"{record.get('tool_id')} failed: {record.get('error')}"
    return found


def _failure_reason(sub_id: str, plan: list[Any], results: Mapping[str, CallResult]) -> str:
    for call in plan:
        if call["sub_intent_id"] == sub_id and call["role"] == "core":
            result = results.get(call["call_id"])
            if result is None:
                return "its call did not run"
            return f"{call['tool_id']} {result['status']}: {result.get('error')}"
    return "no call was planned"


def _error_kind(results: Mapping[str, CallResult], call_id: str) -> str:
    result = results.get(call_id)
    return str(result.get("error_kind") or "") if result else ""
