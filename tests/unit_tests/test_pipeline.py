"""The whole compiled graph, offline: rule parser, fake embeddings, real Python tools."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graph.builder import build_graph
from graph.deps import Deps
from nodes.context import Context
from stores.catalog.enrich import enrich_catalog
from stores.execution.executor import ToolExecutor
from stores.retrieval.index import ToolIndex
from tests.fakes import HashingEmbedder
from tests.shop_tools import Shop

DEMO = (
    "create a test product, place an order using account 123456, and advance the order "
    "status to pending payment"
)
SCHEMA = {"type": "object", "properties": {"user_id": {"type": "integer"}}, "required": ["user_id"]}


class World:
    def __init__(self, tmp_path: Path) -> None:
        self.shop = Shop(tmp_path / "shop.db")
        self.catalog = self.shop.catalog()
        # Lookalikes that must never be called: a production twin and an untagged writer.
        self.catalog.load_document(
            {
                "tools": [
                    {
                        "name": "create_order",
                        "agent": "shop-prod",
                        "environment": "prod",
                        "description": "Place an order for a user and a product.",
                        "side_effect": True,
                        "input_schema": SCHEMA,
                    },
                    {
                        "name": "create_order_v0",
                        "agent": "legacy",
                        "description": "Place an order for a user and a product (old API).",
                        "input_schema": SCHEMA,
                    },
                ]
            },
            source="lookalikes",
        )
        enrich_catalog(self.catalog)
        self.index = ToolIndex(tmp_path / "index", HashingEmbedder(), name="t")
        self.index.sync(self.catalog)
        self.deps = Deps(catalog=self.catalog, index=self.index, home=tmp_path / "home")
        self.saver = InMemorySaver()
        self.graph = build_graph(self.deps).compile(checkpointer=self.saver)

    async def run(
        self, payload: Any, thread: str, **context: Any
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        events: list[dict[str, Any]] = []
        config = {"configurable": {"thread_id": thread}}
        async for mode, chunk in self.graph.astream(
            payload,
            config,
            context=Context(**context),
            stream_mode=["custom", "updates"],
            durability="sync",
        ):
            if mode == "custom":
                events.append(chunk)
        state = await self.graph.aget_state(config)
        return dict(state.values), events


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def chain(state: dict[str, Any]) -> list[str]:
    return [c["tool_id"] for c in state["plan"]]


async def test_demo_request_runs_the_right_chain(world: World) -> None:
    state, events = await world.run({"request": DEMO}, "t1")
    assert chain(state) == [
        "shop/create_product",
        "shop/get_user_by_account",
        "shop/create_order",
        "shop/advance_order_status",
    ]
    results = state["results"]
    assert all(r["status"] == "ok" for r in results.values())
    order = results["s2.core"]
    assert order["args"] == {"user_id": 1, "product_id": 1}
    assert results["s3.core"]["args"] == {"order_id": 1, "status": "pending_payment"}
    # The auxiliary lookup and the first core call ran in the same wave, in parallel.
    started = [e["call_id"] for e in events if e.get("event") == "call_started"]
    finished = [e["call_id"] for e in events if e.get("event") == "call_finished"]
    first_finish = next(i for i, e in enumerate(events) if e.get("event") == "call_finished")
    early = {e["call_id"] for e in events[:first_finish] if e.get("event") == "call_started"}
    assert {"s1.core", "s2.aux1"} <= early
    assert started.index("s2.core") > finished.index("s1.core")
    assert world.shop.count("orders") == 1
    assert "pending_payment" in state["answer"]
    assert state["messages"][-1].content == state["answer"]
    assert 0 < state["token_ledger"]["ratio"] < 1


async def test_production_twin_and_untagged_writer_are_never_called(world: World) -> None:
    state, _ = await world.run({"request": "place an order for account 123456"}, "t2")
    tools = chain(state)
    assert "shop-prod/create_order" not in tools and "legacy/create_order_v0" not in tools
    for candidates in state["candidates"].values():
        assert all(c["tool_id"] != "shop-prod/create_order" for c in candidates)


async def test_clarify_then_resume(world: World) -> None:
    await world.run({"request": "create an order for account 123456"}, "setup")
    state, events = await world.run({"request": "advance the order status to paid"}, "t3")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "t3"}})
    assert snapshot.next == ("clarify",)
    question = snapshot.tasks[0].interrupts[0].value
    assert question["param"] == "order_id" and "order_id" in question["question"]
    state, _ = await world.run(Command(resume="1"), "t3")
    assert state["results"]["s1.core"]["args"] == {"order_id": 1, "status": "paid"}
    assert state["results"]["s1.core"]["status"] == "ok"


async def test_destructive_calls_wait_for_approval(world: World) -> None:
    await world.run({"request": "create an order for account 123456"}, "setup")
    _, events = await world.run({"request": "cancel order 1"}, "t4")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "t4"}})
    assert snapshot.next == ("approve",)
    asked = [e for e in events if e["event"] == "approval_asked"]
    assert [c["tool_id"] for c in asked[0]["calls"]] == ["shop/cancel_order"]
    assert world.shop.calls.get("cancel_order", 0) == 0
    state, _ = await world.run(Command(resume=False), "t4")
    assert state["results"]["s1.core"]["status"] == "skipped"
    assert world.shop.calls.get("cancel_order", 0) == 0
    assert "not approved" in state["answer"]
    await world.run({"request": "cancel order 1"}, "t5")
    state, _ = await world.run(Command(resume=True), "t5")
    assert state["results"]["s1.core"]["status"] == "ok"
    assert world.shop.calls["cancel_order"] == 1


async def test_same_run_id_never_repeats_an_effect(world: World) -> None:
    first, _ = await world.run({"request": DEMO}, "a", run_id="run-1")
    second, _ = await world.run({"request": DEMO}, "b", run_id="run-1")
    assert world.shop.count("orders") == 1 and world.shop.count("products") == 1
    assert world.shop.calls["create_order"] == 1
    assert second["results"]["s2.core"]["replayed"] is True
    assert second["results"]["s2.core"]["output"] == first["results"]["s2.core"]["output"]


async def test_a_crashed_wave_resumes_without_rerunning_finished_siblings(world: World) -> None:
    real = world.deps.make_executor
    crashed: list[str] = []

    class CrashOnce(ToolExecutor):
        async def execute(self, call: Any) -> Any:
            if call["call_id"] == "s2.aux1" and not crashed:
                crashed.append(call["call_id"])
                await asyncio.sleep(0.5)  # the sibling finishes first
                raise RuntimeError("process died")
            return await super().execute(call)

    def crashing(context: Context) -> ToolExecutor:
        executor = real(context)
        executor.__class__ = CrashOnce
        return executor

    world.deps.make_executor = crashing  # type: ignore[method-assign]
    world.graph = build_graph(world.deps).compile(checkpointer=world.saver)
    with pytest.raises(RuntimeError, match="process died"):
        await world.run({"request": DEMO}, "crash")
    assert world.shop.calls == {"create_product": 1}
    state, _ = await world.run(None, "crash")
    assert world.shop.calls["create_product"] == 1
    assert world.shop.calls["get_user_by_account"] == 1
    assert all(r["status"] == "ok" for r in state["results"].values())
    assert world.shop.count("products") == 1


async def test_a_failing_call_becomes_an_error_and_the_answer_says_so(world: World) -> None:
    world.shop.fail_next["advance_order_status"] = ValueError("status machine refused")
    state, _ = await world.run({"request": DEMO}, "fail", max_alignment_retries=0)
    assert state["results"]["s3.core"]["status"] == "error"
    assert "status machine refused" in state["results"]["s3.core"]["error"]
    assert state["results"]["s2.core"]["status"] == "ok"
    assert any("advance the order status" in gap for gap in state["gaps"])
    assert "Not done" in state["answer"]


async def test_direct_answers_and_empty_requests_need_no_tool(world: World) -> None:
    state, _ = await world.run({"request": "hello"}, "hi")
    assert state["plan"] == [] and state["answer"]
    state, _ = await world.run({"request": "   "}, "empty")
    assert "Tell me what to do" in state["answer"]
    state, _ = await world.run({"request": "x" * 5000}, "huge")
    assert "characters long" in state["answer"]


async def test_messages_input_and_output_formats(world: World) -> None:
    from langchain_core.messages import HumanMessage

    state, _ = await world.run(
        {"messages": [HumanMessage("create a test product")]}, "m", output_format="json"
    )
    import json

    assert json.loads(state["answer"])["calls"][0]["tool"] == "shop/create_product"


def test_graph_shape_snapshot() -> None:
    drawing = build_graph(Deps()).compile().get_graph().draw_mermaid()
    snapshot = Path(__file__).parent / "snapshots" / "graph.mmd"
    if not snapshot.exists():
        snapshot.write_text(drawing)
    assert drawing == snapshot.read_text()


@pytest.mark.parametrize("request_text", ["crée un produit de test", "создай тестовый продукт"])
async def test_a_foreign_request_gets_a_clear_answer_and_no_call(
    world: World, request_text: str
) -> None:
    state, _ = await world.run({"request": request_text}, "foreign")
    assert state["plan"] == []
    assert "parser reads English only" in state["answer"]
    assert world.shop.count("products") == 0


async def test_a_chinese_request_is_understood(world: World) -> None:
    """Chinese words are in the lexicon and the cue words: "创建一个测试产品" creates a product."""
    state, _ = await world.run({"request": "创建一个测试产品"}, "chinese")
    assert [c["tool_id"] for c in state["plan"]] == ["shop/create_product"]
    assert world.shop.count("products") == 1


async def test_a_request_with_nothing_understood_never_guesses_a_write(world: World) -> None:
    state, _ = await world.run({"request": "hola"}, "gibberish")
    assert not any(c["side_effect"] for c in state.get("plan") or [])
    assert world.shop.count("products") == 0
    assert "could not tell what to do" in state["answer"]


async def test_a_request_with_nothing_understood_asks_for_no_value(world: World) -> None:
    """Among many candidates, a read that needs a value is no excuse to question the user."""
    state, _ = await world.run({"request": "hola"}, "gibberish-wide", top_k=10)
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "gibberish-wide"}})
    assert snapshot.next == ()
    assert state.get("pending_question") is None
    assert "could not tell what to do" in state["answer"]
