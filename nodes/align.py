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
from nodes.planning.draft import NO_TOOL_FOUND
from nodes.state import CallResult, ZState, answered_directly

# Failures a retry must not paper over: a person said no, policy forbids it, or the outcome
# of a side effect is unknown and must be reconciled first.
FINAL_ERROR_KINDS = frozenset({"rejected", "policy", "unknown_outcome"})


def uncovered_subintents(state: ZState) -> list[str]:
    """Ids of sub-intents that needed a call and have no successful core call."""
    results: Mapping[str, CallResult] = state.get("results") or {}
    core = {
        c["sub_intent_id"]: c["call_id"] for c in state.get("plan") or [] if c["role"] == "core"
    }
    missing = []
    for sub in state["intent"]["sub_intents"]:
        if answered_directly(state, sub):
            continue
        if cover_problem(state, sub["id"]) == "":
            continue  # another clause's call does what this one asks, and it ran
        call_id = core.get(sub["id"])
        result = results.get(call_id) if call_id else None
        if result is None or result["status"] != "ok" or replacement_problem(state, sub["id"]):
            missing.append(sub["id"])
    return missing


def _said_values(value: Any) -> list[str]:
    """The scalar values inside an argument, as text."""
    if isinstance(value, Mapping):
        return [v for item in value.values() for v in _said_values(item)]
    if isinstance(value, list | tuple):
        return [v for item in value for v in _said_values(item)]
    return [] if value is None or isinstance(value, bool) else [str(value)]


def replacement_problem(state: ZState, sub_id: str) -> str:
    """Why the call that succeeded for a sub-intent does not replace the one that failed.

    Whoever planned it (the rule planner's compensatory retry, or a chat model's next turn),
    a call that replaces a failed core call must still use every value of the request the
    failed call used (itself or through its lookups): a ticket lookup by "T-999" that failed
    is not done by a health check that takes nothing, nor a failed account lookup by a
    status read. "" when it does (or nothing failed); else the failed call, its error and
    the values dropped.
    """
    core = [c for c in state.get("plan") or [] if c["role"] == "core"
            and c["sub_intent_id"] == sub_id]
    results: Mapping[str, CallResult] = state.get("results") or {}
    succeeded = [results[c["call_id"]] for c in core if _status(results, c["call_id"]) == "ok"]
    if not succeeded:
        return ""
    core_ids = {c["call_id"] for c in core}
    failed = [r for r in [*(state.get("history") or []), *results.values()]
              if r.get("status") == "error" and r.get("call_id") in core_ids]
    request = str(state["intent"].get("request") or "").lower()
    # The lookups of the replacement count: "account 123456" may now reach the new tool
    # through its lookup of the user.
    chain = [results[c["call_id"]] for c in state.get("plan") or []
             if c["sub_intent_id"] == sub_id and _status(results, c["call_id"]) == "ok"]
    kept = {v.lower() for r in chain for v in _said_values(r.get("args") or {})}
    for record in failed:
        said = [v for v in _said_values(record.get("args") or {})
                if len(v) > 1 and v.lower() in request]
        dropped = [v for v in dict.fromkeys(said) if v.lower() not in kept]
        if dropped:
            instead = ", ".join(dict.fromkeys(str(r.get("tool_id")) for r in succeeded))
            return (
                f"{record.get('tool_id')} failed: {record.get('error')}; {instead}, which "
                f"ran instead, does not use {', '.join(repr(v) for v in dropped)} from the "
                "request, so it does not do what was asked"
            )
    return ""


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
        and not replacement_problem(state, s)
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
            reason = _failure_reason(state, sub_id)
            text = f"{subs[sub_id]['text']}: {reason}"
            index = next(
                (i for i, g in enumerate(gaps) if g.startswith(subs[sub_id]["text"])), None
            )
            if index is None:
                gaps.append(text)
                index = len(gaps) - 1
            if sub_id in earlier and earlier[sub_id] not in gaps[index]:
                gaps[index] = _with_earlier_failure(gaps[index], earlier[sub_id])
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


def cover_problem(state: ZState, sub_id: str) -> str | None:
    """Why a sub-intent the planner called "covered" by another clause's call is not.

    Returns None when the planner did not say so, "" when the cover holds: the covering core
    call (of another clause) ran ok, and either it only gains this clause's argument
    (``completes``), or this clause asks for no other operation than that clause ("solve
    them" after "calculate ..."). A clause that asks for something else ("mark it picked
    up" after "assign rider 1") is not done by the other clause's call, whatever a planner
    decided: the guarantee that no part is dropped in silence rests here, not in a planner.
    """
    decision = (state.get("decisions") or {}).get(sub_id) or {}
    if decision.get("action") != "covered":
        return None
    subs = {s["id"]: s for s in state["intent"]["sub_intents"]}
    results: Mapping[str, CallResult] = state.get("results") or {}
    tool = str(decision.get("tool") or "")
    completes = str(decision.get("completes") or "")
    covering = [
        c for c in state.get("plan") or []
        if c["role"] == "core" and c["sub_intent_id"] != sub_id
        and (c["call_id"] == completes if completes else c["tool_id"] == tool)
    ]
    if not covering:
        return f"no call was made for it (it was counted as done by {tool or 'another call'}, "\
            "which was not planned)"
    ran = [c for c in covering if _status(results, c["call_id"]) == "ok"]
    if not ran:
        first = results.get(covering[0]["call_id"])
        status = f"{first['status']}: {first.get('error')}" if first else "did not run"
        return f"it was counted as done by {covering[0]['tool_id']}, which {status}"
    operation = subs[sub_id]["operation"]
    if completes or not operation:
        return ""
    if any(c["sub_intent_id"] in subs and subs[c["sub_intent_id"]]["operation"] == operation
           for c in ran):
        return ""
    return (
        f"no call was made for it: the plan counted it as done by {ran[0]['tool_id']}, "
        "which does what another part of the request asks"
    )


def _with_earlier_failure(gap: str, failure: str) -> str:
    """A gap that also says which call failed first, the failure leading.

    When the retry found no other tool ("…: no suitable tool was found"), what the user needs
    is the failed call and that nothing else could do it — not a search miss with the real
    cause in parentheses.
    """
    if gap.endswith(f": {NO_TOOL_FOUND}"):
        head = gap.removesuffix(f": {NO_TOOL_FOUND}")
        return f"{head}: {failure}; no other suitable tool could do it instead"
    # The retry failed too: say what failed in the first place.
    return f"{gap} (before that, {failure})"


def _earlier_failures(history: list[Any], plan: list[Any]) -> dict[str, str]:
    """Per sub-intent, the failed core call a retry replaced (from ``history``)."""
    planned = {c["call_id"]: c["sub_intent_id"] for c in plan}
    found: dict[str, str] = {}
    for record in history:
        if record.get("status") != "error":
            continue
        call_id = str(record.get("call_id") or "")
        sub_id = planned.get(call_id) or call_id.split(".", 1)[0]
        tool, error = str(record.get("tool_id")), str(record.get("error"))
        # An executor error already names its tool ("tool 'x' failed with …"): once is enough.
        found[sub_id] = error if tool in error else f"{tool} failed: {error}"
    return found


def _failure_reason(state: ZState, sub_id: str) -> str:
    plan = state.get("plan") or []
    results: Mapping[str, CallResult] = state.get("results") or {}
    cover = cover_problem(state, sub_id) or replacement_problem(state, sub_id)
    if cover:
        return cover
    for call in plan:
        if call["sub_intent_id"] == sub_id and call["role"] == "core":
            result = results.get(call["call_id"])
            if result is None:
                return "its call did not run"
            return f"{call['tool_id']} {result['status']}: {result.get('error')}"
    return "no call was planned"


def _status(results: Mapping[str, CallResult], call_id: str) -> str:
    result = results.get(call_id)
    return str(result["status"]) if result else ""


def _error_kind(results: Mapping[str, CallResult], call_id: str) -> str:
    result = results.get(call_id)
    return str(result.get("error_kind") or "") if result else ""
