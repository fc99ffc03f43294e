"""No part of a request is dropped in silence: a sub-intent without a call has a stated reason.

Before: "Assign rider 1 to delivery 2 and then mark it picked up" planned only the
assignment (the second clause was said to be "covered" by it) and the run ended done, the
pick-up never mentioned. Whatever a planner decides, ``check_alignment`` states every
sub-intent that has no successful call of its own and no credible cover, and the run is
partial, never done.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from graph.streaming import run_status
from nodes.align import check_alignment
from nodes.context import Context
from nodes.synthesize import render_answer


def _sub(sub_id: str, text: str, operation: str, target: str) -> dict[str, Any]:
    return {"id": sub_id, "text": text, "operation": operation, "target": target,
            "keywords": [], "entities": {}, "depends_on": [], "action": "call_api"}


def _state(decisions: dict[str, Any]) -> dict[str, Any]:
    call = {"call_id": "s1.core", "sub_intent_id": "s1", "tool_id": "sandbox/assign_rider",
            "role": "core", "args": {"delivery_id": {"value": 2}, "rider_id": {"value": 1}},
            "depends_on": [], "side_effect": True}
    result = {"call_id": "s1.core", "tool_id": "sandbox/assign_rider", "status": "ok",
              "output": {"delivery_id": 2, "status": "assigned"}, "error": None,
              "error_kind": None}
    return {
        "intent": {"request": "Assign rider 1 to delivery 2 and then mark it picked up",
                   "sub_intents": [_sub("s1", "Assign rider 1 to delivery 2", "assign", "rider"),
                                   _sub("s2", "mark it picked up", "advance", "delivery")]},
        "plan": [call],
        "results": {"s1.core": result},
        "decisions": decisions,
        "gaps": [],
    }


async def _check(state: dict[str, Any]) -> dict[str, Any]:
    runtime = SimpleNamespace(context=Context(max_alignment_retries=1))
    update = await check_alignment(state, runtime)  # type: ignore[arg-type]
    return {**state, **update}


async def test_a_clause_said_covered_by_a_call_that_does_something_else_is_stated() -> None:
    state = await _check(_state({
        "s1": {"action": "call_api", "tool": "sandbox/assign_rider"},
        "s2": {"action": "covered", "tool": "sandbox/assign_rider"},
    }))
    [gap] = state["gaps"]
    assert gap.startswith("mark it picked up:"), gap
    assert "sandbox/assign_rider" in gap and "no call" in gap
    assert run_status(state, None) == "partial"
    assert "Not done:** mark it picked up" in render_answer(state, "markdown")  # type: ignore[arg-type]


async def test_a_clause_the_plan_left_out_is_stated() -> None:
    state = await _check(_state({"s1": {"action": "call_api", "tool": "sandbox/assign_rider"}}))
    [gap] = state["gaps"]
    assert gap.startswith("mark it picked up:") and "no call was planned" in gap
    assert run_status(state, None) == "partial"


async def test_a_repeated_clause_covered_by_the_same_kind_of_call_stays_covered() -> None:
    state = _state({
        "s1": {"action": "call_api", "tool": "sandbox/assign_rider"},
        "s2": {"action": "covered", "tool": "sandbox/assign_rider"},
    })
    state["intent"]["sub_intents"][1] = _sub("s2", "assign that rider", "assign", "rider")
    state = await _check(state)
    assert state.get("gaps") == [] and run_status(state, None) == "done"


async def test_a_clause_that_only_adds_an_argument_to_another_call_stays_covered() -> None:
    state = await _check(_state({
        "s1": {"action": "call_api", "tool": "sandbox/assign_rider"},
        "s2": {"action": "covered", "tool": "sandbox/assign_rider", "completes": "s1.core"},
    }))
    assert state.get("gaps") == [] and run_status(state, None) == "done"


async def test_a_cover_whose_call_failed_is_no_cover() -> None:
    state = _state({
        "s1": {"action": "call_api", "tool": "sandbox/assign_rider"},
        "s2": {"action": "covered", "tool": "sandbox/assign_rider"},
    })
    state["intent"]["sub_intents"][1] = _sub("s2", "assign that rider", "assign", "rider")
    state["results"]["s1.core"] = {**state["results"]["s1.core"], "status": "error",
                                   "error": "delivery 2 not found", "error_kind": "tool"}
    state["decisions"]["s1"]["action"] = "gap"  # nothing left to retry
    state = await _check(state)
    assert any(g.startswith("assign that rider:") for g in state["gaps"]), state["gaps"]
    assert run_status(state, None) == "failed"
