"""A clause that needs a value nobody gave asks for it; the clauses that do not need it still run.

Before: one unanswerable clause turned the whole plan into a question, and the complete,
independent calls of the other clauses waited behind it (or were lost when nobody answered).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.types import Command

from graph.routes import route_after_plan, route_wave
from tests.unit_tests.test_pipeline import World
from tests.unit_tests.test_rule_planner_schema import INT, STR, calls, plan

TRIANGLE = ("calculate_triangle_area", "Calculate the area of a triangle given its base and "
            "height.", {"base": INT, "height": INT}, ["base", "height"])
WEATHER = ("get_weather", "Get the current weather of a city.",
           {"city": {**STR, "description": "The city"}}, ["city"])


def test_an_independent_clause_is_planned_beside_the_question() -> None:
    draft = plan("Compute the area of a triangle and get the weather in Lisbon.",
                 TRIANGLE, WEATHER)
    assert calls(draft) == [("get_weather", {"city": "Lisbon"})]
    assert draft.question is not None
    assert draft.question["tool_id"].endswith("calculate_triangle_area")
    assert draft.question["param"] in {"base", "height"}


def test_a_read_said_to_come_after_the_question_still_runs() -> None:
    draft = plan("Compute the area of a triangle, then get the weather in Lisbon.",
                 TRIANGLE, WEATHER)
    assert calls(draft) == [("get_weather", {"city": "Lisbon"})]
    assert draft.question is not None


def test_a_clause_referring_to_the_asked_one_waits_for_it() -> None:
    draft = plan("Compute the area of a triangle and get the weather in Lisbon for it.",
                 TRIANGLE, WEATHER)
    assert calls(draft) == [] and draft.question is not None
    assert draft.decisions["s2"] == {"action": "clarify_intent", "waits_for": ["s1"]}


def _state(question: dict[str, Any] | None, results: dict[str, Any]) -> dict[str, Any]:
    call = {"call_id": "s2.core", "sub_intent_id": "s2", "tool_id": "t/get_weather",
            "role": "core", "args": {"city": {"value": "Lisbon"}}, "depends_on": [],
            "side_effect": False}
    return {"plan": [call], "results": results, "pending_question": question}


def test_ready_calls_run_before_the_question_is_asked() -> None:
    question = {"sub_intent": "s1", "param": "base", "tool_id": "t/triangle", "question": "?"}
    assert route_after_plan(_state(question, {})) == "execute"  # type: ignore[arg-type]
    done = {"s2.core": {"call_id": "s2.core", "status": "ok"}}
    # Every call that could run has run: the plan is drawn again and the question asked.
    assert route_wave(_state(question, done)) == "plan"  # type: ignore[arg-type]
    assert route_after_plan(_state(question, done)) == "clarify"  # type: ignore[arg-type]
    assert route_wave(_state(None, done)) == "check_alignment"  # type: ignore[arg-type]


async def test_the_independent_write_runs_before_the_interrupt_and_never_again(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)
    request = "advance the order status to paid and create a test product"
    await world.run({"request": "create an order for account 123456"}, "setup")
    products = world.shop.count("products")
    state, _ = await world.run({"request": request}, "partial")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "partial"}})
    assert snapshot.next == ("clarify",)
    assert snapshot.tasks[0].interrupts[0].value["param"] == "order_id"
    assert world.shop.count("products") == products + 1  # ran before the question
    state, _ = await world.run(Command(resume="1"), "partial")
    assert world.shop.count("products") == products + 1  # not again after the answer
    advanced = [r for r in state["results"].values() if r["tool_id"].endswith("advance_order_status")]
    assert [r["status"] for r in advanced] == ["ok"]


async def test_a_write_said_to_come_after_the_question_waits_for_the_answer(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)
    await world.run({"request": "create an order for account 123456"}, "setup")
    products = world.shop.count("products")
    await world.run({"request": "advance the order status to paid, then create a test product"},
                    "ordered")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "ordered"}})
    assert snapshot.next == ("clarify",)
    assert world.shop.count("products") == products  # the user said: after the order
    await world.run(Command(resume="1"), "ordered")
    assert world.shop.count("products") == products + 1


def test_the_model_planners_calls_run_before_its_question() -> None:
    """The model's calls beside its question cannot refer to the answer: they run first."""
    question = {"sub_intent": "m2", "param": "order_id", "tool_id": "", "question": "?"}
    turn = [{"calls": [], "text": ""}]
    state = {**_state(question, {}), "planner_transcript": turn}
    assert route_after_plan(state) == "execute"  # type: ignore[arg-type]
    done = {**state, "results": {"s2.core": {"call_id": "s2.core", "status": "ok"}}}
    assert route_wave(done) == "clarify"  # type: ignore[arg-type]
    assert route_wave({**done, "pending_question": None}) == "plan"  # type: ignore[arg-type]
