"""The model plans: ChatOpenAI against a scripted OpenAI-compatible server, the whole graph.

The scripted model plays the intent parser, the planner (tool calls with ``${cN.field}``
references, over two turns) and gives its answer; the tools are real Python functions over
SQLite. Checks: the right calls run once, only candidates are offered, a repair turn happens,
a call still wrong is stated and not run, a dead model is stated, and a run killed after its
first wave resumes without asking the model again or repeating a call.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_openai import ChatOpenAI

from bench.evaluation.scripted_openai import Reply, scripted_openai_server
from graph.builder import build_graph
from tests.unit_tests.test_llm_path import demo_intent
from tests.unit_tests.test_pipeline import DEMO, World

ASK = "zspace_ask_user"


def planner_turns(body: dict[str, Any]) -> int:
    """How many tool results the planner has seen (0 on its first turn)."""
    return sum(1 for m in body.get("messages") or [] if m.get("role") == "tool")


def is_planner(body: dict[str, Any]) -> bool:
    return ASK in [t["function"]["name"] for t in body.get("tools") or []]


def intent_reply(body: dict[str, Any]) -> Reply:
    """The intent parser's structured output (JSON schema or a function call)."""
    tools = [t["function"]["name"] for t in body.get("tools") or []]
    if tools:
        return Reply(tool_calls=[(tools[0], demo_intent())])
    return Reply(content=json.dumps(demo_intent()))


def demo_script(bad_first: bool = False) -> Any:
    def reply(body: dict[str, Any]) -> Reply:
        if not is_planner(body):
            return intent_reply(body)
        seen = planner_turns(body)
        last_user = [m for m in body["messages"] if m.get("role") == "user"][-1]["content"]
        if bad_first and seen == 0 and "cannot be run" not in str(last_user):
            return Reply(tool_calls=[("shop__drop_tables", {})])
        if seen == 0 or "cannot be run" in str(last_user):
            return Reply(tool_calls=[
                ("shop__create_product", {"name": "Test product"}),
                ("shop__get_user_by_account", {"account_number": "123456"}),
                ("shop__create_order", {"user_id": "${c2.user_id}",
                                        "product_id": "${c1.product_id}"}),
            ])
        if seen == 3 or (bad_first and seen == 4):
            return Reply(tool_calls=[
                ("shop__advance_order_status",
                 {"order_id": "${c3.order_id}", "status": "pending_payment"}),
            ])
        return Reply(content="Created product 1, placed order 1 and moved it to pending payment.")

    return reply


def model_world(world: World, base_url: str) -> None:
    world.deps.chat_model = ChatOpenAI(
        model="scripted", base_url=base_url, api_key="not-needed", max_retries=0, timeout=10
    )
    world.graph = build_graph(world.deps).compile(checkpointer=world.saver)


def orders(world: World) -> list[tuple[Any, ...]]:
    with world.shop._db() as db:
        return db.execute("SELECT order_id, status FROM orders").fetchall()


@pytest.mark.timeout(120)
def test_the_model_chooses_the_tools_and_fills_the_arguments(tmp_path: Path) -> None:
    world = World(tmp_path)
    with scripted_openai_server(demo_script()) as server:
        model_world(world, server.base_url)
        state, _ = asyncio.run(world.run({"request": DEMO}, "model"))
    assert [c["tool_id"] for c in state["plan"]] == [
        "shop/create_product", "shop/get_user_by_account", "shop/create_order",
        "shop/advance_order_status",
    ]
    assert all(r["status"] == "ok" for r in state["results"].values())
    assert orders(world) == [(1, "pending_payment")]
    assert world.shop.calls == {"create_product": 1, "get_user_by_account": 1,
                                "create_order": 1, "advance_order_status": 1}
    assert state["answer"].startswith("Created product 1, placed order 1")
    planner = [body for body in server.requests if is_planner(body)]
    assert len(planner) == 3  # two waves, then the answer
    offered = [t["function"]["name"] for t in planner[0]["tools"]]
    assert "shop-prod__create_order" not in offered  # another environment: never a candidate
    ledger = state["token_ledger"]
    assert ledger["model_turns"] == 3 and ledger["model_prompt_tokens"] == 33
    assert ledger["all_injection_tokens"] > 0 and len(ledger["tools_offered_per_turn"]) == 3


@pytest.mark.timeout(120)
def test_a_call_to_a_tool_not_offered_gets_one_repair_turn(tmp_path: Path) -> None:
    world = World(tmp_path)
    with scripted_openai_server(demo_script(bad_first=True)) as server:
        model_world(world, server.base_url)
        state, _ = asyncio.run(world.run({"request": DEMO}, "repair"))
    assert orders(world) == [(1, "pending_payment")]
    repair = [b for b in server.requests if is_planner(b)][1]
    rejected = [m["content"] for m in repair["messages"] if m.get("role") == "tool"]
    assert any("no tool named 'shop__drop_tables' was offered" in text for text in rejected)
    assert "drop_tables" not in json.dumps(state["plan"])


@pytest.mark.timeout(120)
def test_arguments_wrong_twice_are_stated_and_nothing_is_written(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        if not is_planner(body):
            return intent_reply(body)
        return Reply(tool_calls=[("shop__create_order", {"user_id": "alice", "product_id": 1})])

    world = World(tmp_path)
    with scripted_openai_server(reply) as server:
        model_world(world, server.base_url)
        state, _ = asyncio.run(world.run({"request": DEMO}, "wrong"))
        assert sum(is_planner(b) for b in server.requests) == 2  # the turn and its one repair
    assert state["plan"] == [] and orders(world) == []
    assert "the model's call shop__create_order was not run" in state["answer"]
    assert "user_id" in state["answer"]


@pytest.mark.timeout(120)
def test_a_model_that_fails_is_stated_not_papered_over(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        if not is_planner(body):
            return intent_reply(body)
        return Reply(status=500, raw='{"error": {"message": "overloaded"}}')

    world = World(tmp_path)
    with scripted_openai_server(reply) as server:
        model_world(world, server.base_url)
        state, _ = asyncio.run(world.run({"request": DEMO}, "dead"))
    assert orders(world) == [] and world.shop.calls == {}
    assert "planning stopped: the chat model could not be called" in state["answer"]


@pytest.mark.timeout(120)
def test_a_run_stopped_after_its_first_wave_resumes_without_asking_again(tmp_path: Path) -> None:
    world = World(tmp_path)
    config = {"configurable": {"thread_id": "killed"}}
    from nodes.context import Context

    async def first_wave_then_stop() -> None:
        async for update in world.graph.astream(
            {"request": DEMO}, config, context=Context(), stream_mode="updates",
            durability="sync",
        ):
            if "call_tool" in update and world.shop.calls.get("create_order"):
                return  # the process "dies" here: the wave is done, the model not asked again

    async def resume() -> dict[str, Any]:
        async for _ in world.graph.astream(None, config, context=Context(), durability="sync"):
            pass
        return dict((await world.graph.aget_state(config)).values)

    with scripted_openai_server(demo_script()) as server:
        model_world(world, server.base_url)
        asyncio.run(first_wave_then_stop())
        asked_before = sum(is_planner(b) for b in server.requests)
        state = asyncio.run(resume())
        asked_after = sum(is_planner(b) for b in server.requests)
    assert asked_before == 1 and asked_after == 3  # turn 1 was never asked again
    assert world.shop.calls == {"create_product": 1, "get_user_by_account": 1,
                                "create_order": 1, "advance_order_status": 1}
    assert orders(world) == [(1, "pending_payment")]
    assert state["answer"].startswith("Created product 1")


@pytest.mark.timeout(120)
def test_a_streaming_model_plans_the_same(tmp_path: Path) -> None:
    world = World(tmp_path)
    with scripted_openai_server(demo_script()) as server:
        world.deps.chat_model = ChatOpenAI(
            model="scripted", base_url=server.base_url, api_key="not-needed", max_retries=0,
            timeout=10, streaming=True,
        )
        world.graph = build_graph(world.deps).compile(checkpointer=world.saver)
        state, _ = asyncio.run(world.run({"request": DEMO}, "streaming"))
        assert any(body.get("stream") for body in server.requests if is_planner(body))
    assert orders(world) == [(1, "pending_payment")]
    assert state["answer"].startswith("Created product 1")


@pytest.mark.timeout(120)
def test_garbage_arguments_get_a_repair_turn(tmp_path: Path) -> None:
    turns: list[str] = []

    def reply(body: dict[str, Any]) -> Reply:
        if not is_planner(body):
            return intent_reply(body)
        if planner_turns(body) == 0 and not turns:
            turns.append("garbage")
            return Reply(tool_calls=[("shop__create_product", "{name: Test product")])
        if planner_turns(body) <= 1 and len(turns) == 1:
            turns.append("fixed")
            return Reply(tool_calls=[("shop__create_product", {"name": "Test product"})])
        return Reply(content="Created product 1.")

    world = World(tmp_path)
    with scripted_openai_server(reply) as server:
        model_world(world, server.base_url)
        state, _ = asyncio.run(world.run({"request": "create a test product"}, "garbage"))
        repair = [b for b in server.requests if is_planner(b)][1]
    told = [m["content"] for m in repair["messages"] if m.get("role") == "tool"]
    assert any("not valid JSON" in text for text in told)
    assert world.shop.calls == {"create_product": 1}
    assert state["answer"].startswith("Created product 1.")


@pytest.mark.timeout(120)
def test_a_model_that_does_not_answer_in_time_is_stated(tmp_path: Path) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        if not is_planner(body):
            return intent_reply(body)
        return Reply(content="too late", delay_s=3)

    world = World(tmp_path)
    with scripted_openai_server(reply) as server:
        world.deps.chat_model = ChatOpenAI(
            model="scripted", base_url=server.base_url, api_key="not-needed", max_retries=0,
            timeout=1,
        )
        world.graph = build_graph(world.deps).compile(checkpointer=world.saver)
        state, _ = asyncio.run(world.run({"request": DEMO}, "slow"))
    assert world.shop.calls == {}
    assert "planning stopped: the chat model could not be called" in state["answer"]
    assert "Timeout" in state["answer"]


@pytest.mark.timeout(120)
def test_the_models_calls_beside_its_question_run_before_it_is_asked(tmp_path: Path) -> None:
    """A turn with calls and a question: the calls cannot need the answer, so they run first.

    Before, the question came first and the product waited for an answer that may never come.
    """
    def reply(body: dict[str, Any]) -> Reply:
        if not is_planner(body):
            return intent_reply(body)
        tool_texts = [m["content"] for m in body["messages"] if m.get("role") == "tool"]
        if not tool_texts:
            return Reply(tool_calls=[
                ("shop__create_product", {"name": "Test product"}),
                (ASK, {"question": "Which order should move?", "parameter": "order_id"}),
            ])
        if not any("advance_order_status" in json.dumps(m) for m in body["messages"]):
            assert any("the user answered: 1" in t for t in tool_texts), tool_texts
            assert not any("not run" in t for t in tool_texts), tool_texts
            return Reply(tool_calls=[
                ("shop__advance_order_status", {"order_id": 1, "status": "pending_payment"}),
            ])
        return Reply(content="Created the product and moved order 1 to pending payment.")

    world = World(tmp_path)
    asyncio.run(world.run({"request": "create an order for account 123456"}, "setup",
                          planner="rules"))
    products = world.shop.count("products")
    with scripted_openai_server(reply) as server:
        model_world(world, server.base_url)
        asyncio.run(world.run({"request": DEMO}, "asks"))
        snapshot = asyncio.run(world.graph.aget_state({"configurable": {"thread_id": "asks"}}))
        assert snapshot.next == ("clarify",)
        assert snapshot.tasks[0].interrupts[0].value["question"] == "Which order should move?"
        assert world.shop.count("products") == products + 1  # ran before the question
        from langgraph.types import Command

        state, _ = asyncio.run(world.run(Command(resume="1"), "asks"))
    assert world.shop.count("products") == products + 1  # and never again
    assert orders(world) == [(1, "pending_payment")]
    assert state["answer"].startswith("Created the product and moved order 1")
