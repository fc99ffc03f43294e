"""The model planner's checks: offered tools only, schemas, references, one repair, the answer."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from nodes.planning.model import ASK_TOOL, ModelPlanner, ModelPlannerError, conversation
from nodes.state import Candidate, SubIntent
from stores.catalog.model import Catalog

PRODUCT = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
ORDER = {
    "type": "object",
    "properties": {"product_id": {"type": "integer"}, "account": {"type": "string"}},
    "required": ["product_id", "account"],
}


class ToolCallingFake:
    """A chat model with tool calling whose answers are scripted AIMessages."""

    def __init__(self, answers: Sequence[AIMessage | Exception]) -> None:
        self.answers = list(answers)
        self.tools: list[list[dict[str, Any]]] = []
        self.seen: list[list[Any]] = []

    def bind_tools(self, tools: list[dict[str, Any]]) -> ToolCallingFake:
        self.tools.append(tools)
        return self

    async def ainvoke(self, messages: list[Any]) -> AIMessage:
        self.seen.append(list(messages))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def calls(*pairs: tuple[str, dict[str, Any]]) -> AIMessage:
    return AIMessage(
        content="",
        tool_calls=[{"name": n, "args": a, "id": f"m{i}"} for i, (n, a) in enumerate(pairs)],
        usage_metadata={"input_tokens": 100, "output_tokens": 20, "total_tokens": 120},
    )


@pytest.fixture
def world() -> tuple[Catalog, list[SubIntent], dict[str, list[Candidate]]]:
    catalog = Catalog()
    catalog.load_document({"tools": [
        {"name": "create_product", "agent": "shop", "description": "Create a product.",
         "side_effect": True, "input_schema": PRODUCT},
        {"name": "create_order", "agent": "shop", "description": "Place an order.",
         "side_effect": True, "input_schema": ORDER},
        {"name": "delete_everything", "agent": "shop", "description": "Not offered.",
         "side_effect": True, "input_schema": {"type": "object", "properties": {}}},
    ]}, source="test")
    subs: list[SubIntent] = [
        {"id": "s1", "text": "create a test product", "operation": "create", "target": "product",
         "keywords": [], "entities": {}, "depends_on": [], "action": "call_api"},
        {"id": "s2", "text": "place an order with account 123456", "operation": "create",
         "target": "order", "keywords": [], "entities": {}, "depends_on": ["s1"],
         "action": "call_api"},
    ]
    candidates: dict[str, list[Candidate]] = {
        sub_id: [{"tool_id": tool_id, "agent": "shop", "score": 1.0,
                  "call_name": catalog.tools[tool_id].call_name or ""}]
        for sub_id, tool_id in (("s1", "shop/create_product"), ("s2", "shop/create_order"))
    }
    return catalog, subs, candidates


def step(model: ToolCallingFake, world: Any, **kwargs: Any) -> Any:
    catalog, subs, candidates = world
    planner = ModelPlanner(model, catalog)
    return asyncio.run(planner.step(
        "create a test product and place an order with account 123456", subs, candidates,
        kwargs.get("plan", []), kwargs.get("results", {}), kwargs.get("transcript", []), {},
    ))


def test_only_the_candidates_are_offered_and_a_same_turn_reference_becomes_a_dependency(
    world: Any,
) -> None:
    model = ToolCallingFake([calls(
        ("shop__create_product", {"name": "Test product"}),
        ("shop__create_order", {"product_id": "${c1.product_id}", "account": "123456"}),
    )])
    result = step(model, world)
    offered = [tool["function"]["name"] for tool in model.tools[0]]
    assert offered == ["shop__create_product", "shop__create_order", ASK_TOOL]
    first, second = result.calls
    assert (first["call_id"], first["tool_id"], first["sub_intent_id"]) == (
        "c1", "shop/create_product", "s1")
    assert second["depends_on"] == ["c1"] and second["sub_intent_id"] == "s2"
    assert second["args"]["product_id"] == {"from_call": "c1", "field": "product_id",
                                            "origin": "model"}
    assert second["args"]["account"]["value"] == "123456"
    assert result.failures == [] and result.answer is None
    assert (result.prompt_tokens, result.completion_tokens, result.model_turns) == (100, 20, 1)


def test_an_unknown_tool_gets_one_repair_turn_with_the_validator_message(world: Any) -> None:
    model = ToolCallingFake([
        calls(("shop__delete_everything", {})),
        calls(("shop__create_product", {"name": "P"})),
    ])
    result = step(model, world)
    assert [c["tool_id"] for c in result.calls] == ["shop/create_product"]
    assert result.model_turns == 2 and result.failures == []
    repair = model.seen[1]
    rejected = [m for m in repair if isinstance(m, ToolMessage) and "rejected" in m.content]
    assert rejected and "no tool named 'shop__delete_everything' was offered" in rejected[0].content


def test_arguments_still_wrong_after_the_repair_are_stated_and_not_run(world: Any) -> None:
    bad = calls(("shop__create_order", {"product_id": "seven", "account": "123456"}))
    model = ToolCallingFake([bad, bad])
    result = step(model, world)
    assert result.calls == [] and result.answer is None
    assert len(result.failures) == 1
    assert "product_id" in result.failures[0] and "not run" in result.failures[0]


def test_a_reference_to_nothing_and_a_reference_inside_text_are_refused(world: Any) -> None:
    model = ToolCallingFake([
        calls(("shop__create_order", {"product_id": "${c9.id}", "account": "1"})),
        calls(("shop__create_product", {"name": "made by ${c1.name}"})),
    ])
    result = step(model, world)
    assert result.calls == []
    assert "whole value" in result.failures[0]
    first_repair = [m for m in model.seen[1] if isinstance(m, ToolMessage)]
    assert "refers to c9, which is not an earlier call" in first_repair[0].content


def test_text_is_the_answer_and_the_ask_tool_is_a_question(world: Any) -> None:
    answer = step(ToolCallingFake([AIMessage(content="No offered tool can do that.")]), world)
    assert answer.answer == "No offered tool can do that." and answer.calls == []
    asked = step(ToolCallingFake([calls((ASK_TOOL, {"question": "Which account?",
                                                    "parameter": "account"}))]), world)
    assert (asked.question, asked.question_param) == ("Which account?", "account")


def test_a_dead_model_is_an_error_naming_the_cause(world: Any) -> None:
    with pytest.raises(ModelPlannerError, match="could not be called: ConnectionError"):
        step(ToolCallingFake([ConnectionError("refused")]), world)


def test_the_conversation_is_rebuilt_from_state_with_the_results(world: Any) -> None:
    _, subs, _ = world
    transcript = [{"calls": [{"call_id": "c1", "name": "shop__create_product",
                              "args": {"name": "P"}}], "rejected": [], "text": ""}]
    results = {"c1": {"call_id": "c1", "tool_id": "shop/create_product", "status": "ok",
                      "output": {"product_id": 7}}}
    messages = conversation("req", subs, transcript, results, {})  # type: ignore[arg-type]
    assert isinstance(messages[2], AIMessage) and messages[2].tool_calls[0]["id"] == "c1"
    assert isinstance(messages[3], ToolMessage) and '"product_id": 7' in messages[3].content
    model = ToolCallingFake([AIMessage(content="Created product 7.")])
    result = step(model, world, transcript=transcript, results=results)
    assert result.answer == "Created product 7."
    assert len(model.seen[0]) == 4


def test_the_model_can_search_for_a_tool_that_was_not_offered(world: Any) -> None:
    catalog, subs, candidates = world
    found = {"tool_id": "shop/create_order", "agent": "shop", "score": 1.0,
             "call_name": "shop__create_order"}
    queries: list[str] = []

    def search(query: str) -> list[Candidate]:
        queries.append(query)
        return [found]

    only_product = {"s1": candidates["s1"]}
    model = ToolCallingFake([
        calls(("zspace_search_tools", {"query": "place an order"})),
        calls(("shop__create_order", {"product_id": 1, "account": "123456"})),
    ])
    planner = ModelPlanner(model, catalog, search=search)
    result = asyncio.run(planner.step("req", subs, only_product, [], {}, [], {}))
    assert queries == ["place an order"]
    assert [t["function"]["name"] for t in model.tools[0]][:1] == ["shop__create_product"]
    assert "shop__create_order" in [t["function"]["name"] for t in model.tools[1]]
    answer = [m for m in model.seen[1] if isinstance(m, ToolMessage)][0].content
    assert answer.startswith("found (now offered): shop__create_order")
    assert [c["tool_id"] for c in result.calls] == ["shop/create_order"]
    assert result.found == [found] and result.model_turns == 2 and result.failures == []


def test_searches_are_bounded_per_step(world: Any) -> None:
    catalog, subs, candidates = world
    search_again = calls(("zspace_search_tools", {"query": "anything"}))
    model = ToolCallingFake([search_again, search_again, search_again, search_again])
    planner = ModelPlanner(model, catalog, search=lambda query: [])
    result = asyncio.run(planner.step("req", subs, candidates, [], {}, [], {}))
    assert result.calls == [] and result.model_turns == 4  # 2 searches, then a turn + a repair
    assert "no more searches" in result.failures[0]


def test_a_call_rejected_after_its_repair_keeps_its_number(world: Any) -> None:
    """c2 was rejected, c3 planned: the next turn's first call must be c4, not a second c3."""
    wrong = ("shop__create_order", {"product_id": "seven", "account": "1"})
    first = calls(("shop__create_product", {"name": "P"}), wrong,
                  ("shop__create_product", {"name": "Q"}))
    result = step(ToolCallingFake([first, first]), world)
    assert [c["call_id"] for c in result.calls] == ["c1", "c3"]
    assert [c["call_id"] for c in result.turn["rejected"]] == ["c2"]
    plan = result.calls
    model = ToolCallingFake([calls(("shop__create_product", {"name": "R"}))])
    later = step(model, world, plan=plan, transcript=[result.turn])
    assert [c["call_id"] for c in later.calls] == ["c4"]
    told = [m.content for m in model.seen[0] if isinstance(m, ToolMessage)]
    assert any(text.startswith("c2: not run: ") and "product_id" in text for text in told)
