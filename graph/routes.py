"""Pure routers of the zspace graph; each returns ``Literal`` names so Studio draws the edges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from langgraph.graph import END
from langgraph.types import Send

from nodes.execute import request_fingerprint, request_preview
from nodes.planning.dag import wave
from nodes.state import ZState


def route_after_parse(state: ZState) -> Literal["normalize", "synthesize"]:
    """Requests that need no tool go straight to the answer."""
    if all(s["action"] == "direct_answer" for s in state["intent"]["sub_intents"]):
        return "synthesize"
    return "normalize"


def route_after_plan(
    state: ZState,
) -> Literal["clarify", "retrieve", "execute", "check_alignment"]:
    """Ask, search again, run the plan, or (nothing to run) check what is covered.

    The planned calls that do not need the answer run before the question is asked (a
    partial plan): the rule planner's graph comes back here when they are done, the model
    planner's goes to ``clarify`` (its calls beside the question cannot refer to the answer).
    """
    if state.get("pending_question"):
        return "execute" if _runs_before_asking(state) else "clarify"
    if state.get("retry_subintents"):
        return "retrieve"
    if state.get("plan"):
        return "execute"
    return "check_alignment"


def route_wave(
    state: ZState,
) -> list[Send] | Literal["approve", "reconcile", "plan", "clarify", "check_alignment"]:
    """Fan the ready calls out, stop for approval or reconciliation, re-plan, or finish.

    With the model planner, a finished wave goes back to ``plan`` for the model's next turn.

    ``awaiting_approval`` and ``awaiting_reconcile`` are set by the ``execute`` node, which
    knows the run's policy.
    """
    if state.get("awaiting_reconcile"):
        return "reconcile"
    ready, _ = wave(state)
    if not ready:
        # The model planner sees the results and takes its next turn until it answers; the
        # rule planner's question waits for the calls that did not need its answer.
        if state.get("planner_transcript") and not state.get("planner_done"):
            return "clarify" if state.get("pending_question") else "plan"
        if state.get("pending_question") and not state.get("planner_transcript"):
            return "plan"
        return "check_alignment"
    if state.get("awaiting_approval"):
        return "approve"
    results: Mapping[str, Any] = state.get("results") or {}
    return [
        Send(
            "call_tool",
            {
                "call": call,
                "results": {d: results[d] for d in call["depends_on"]},
                "run_id": state.get("run_id") or "",
                "approvals": state.get("approvals") or {},
                "request_hash": request_fingerprint(state),
                "request_preview": request_preview(state),
            },
        )
        for call in ready
    ]


def _runs_before_asking(state: ZState) -> bool:
    """Whether a question waits for planned calls that can run (or be skipped) without it."""
    ready, skipped = wave(state)
    return bool(ready or skipped)


def route_after_alignment(state: ZState) -> Literal["retrieve", "synthesize"]:
    """A compensatory retry searches again for the missing parts; else answer."""
    return "retrieve" if state.get("retry_subintents") else "synthesize"


__all__ = ["END", "route_after_alignment", "route_after_parse", "route_after_plan", "route_wave"]
