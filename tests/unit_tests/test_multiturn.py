"""Follow-ups in the same thread refer to earlier turns: "that order", "it", "do the same"."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_type_hints

import pytest
from langgraph.types import Command, Overwrite

from nodes.memory import bind_references, remember_turn, repeat_request, updated_memory
from nodes.parsing.rules import RuleIntentParser
from nodes.state import THREAD_KEYS, ZState, fresh_turn
from stores.language.lexicon import Lexicon
from tests.unit_tests.test_pipeline import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


async def test_that_order_binds_the_order_the_previous_turn_created(world: World) -> None:
    first, _ = await world.run({"request": "create an order for account 123456"}, "chat")
    order_id = first["results"]["s1.core"]["output"]["order_id"]
    await world.run({"request": "create an order for account 000042"}, "other-thread")
    assert world.shop.count("orders") == 2

    state, events = await world.run({"request": "now cancel that order"}, "chat")
    follow_up = state["intent"]["follow_up"]
    assert follow_up["kind"] == "reference" and follow_up["bindings"] == {"order_id": order_id}
    assert any(e["event"] == "memory_bound" for e in events)
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "chat"}})
    assert snapshot.next == ("approve",)  # cancel is destructive: it still asks first
    state, _ = await world.run(Command(resume=True), "chat")
    assert state["results"]["s1.core"]["args"] == {"order_id": order_id}
    assert state["results"]["s1.core"]["status"] == "ok"
    memory = state["memory"]
    assert [m["turn"] for m in memory] == [1]
    assert memory[0]["outputs"]["order_id"] == order_id
    assert memory[0]["entities"] == {"account": "123456"}


async def test_it_refers_to_the_object_of_the_previous_turn(world: World) -> None:
    first, _ = await world.run({"request": "create an order for account 123456"}, "chat")
    order_id = first["results"]["s1.core"]["output"]["order_id"]
    state, _ = await world.run({"request": "advance it to paid"}, "chat")
    assert state["intent"]["follow_up"]["bindings"] == {"order_id": order_id}
    assert state["results"]["s1.core"]["args"] == {"order_id": order_id, "status": "paid"}


async def test_do_the_same_for_another_account_reruns_the_previous_request(world: World) -> None:
    await world.run({"request": "create an order for account 123456"}, "chat")
    state, events = await world.run({"request": "do the same for account 000042"}, "chat")
    follow_up = state["intent"]["follow_up"]
    assert follow_up["kind"] == "repeat"
    assert follow_up["request"] == "create an order for account 000042"
    assert state["results"]["s1.aux1"]["output"]["user_id"] == 2
    assert state["results"]["s1.core"]["output"]["user_id"] == 2
    assert world.shop.count("orders") == 2
    # A new turn is a new idempotency scope: the second order is a real effect.
    assert state["run_id"].split(":")[1] == "2"
    assert [m["request"] for m in state["memory"]] == ["create an order for account 123456"]


async def test_a_value_the_user_names_wins_over_memory(world: World) -> None:
    await world.run({"request": "create an order for account 123456"}, "chat")
    await world.run({"request": "create an order for account 000042"}, "chat")
    state, _ = await world.run({"request": "advance order 1 to paid"}, "chat")
    assert state["intent"].get("follow_up") is None
    assert state["results"]["s1.core"]["args"]["order_id"] == 1


async def test_a_first_turn_reference_is_left_to_clarification(world: World) -> None:
    await world.run({"request": "advance that order to paid"}, "fresh")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "fresh"}})
    assert snapshot.next == ("clarify",)


def test_repeat_patterns_and_memory_digest() -> None:
    memory: list[Any] = [
        {
            "turn": 1,
            "request": "create an order for account 123456",
            "category": "order",
            "operations": ["create"],
            "targets": ["order"],
            "entities": {"account": "123456"},
            "outputs": {"order_id": 3},
            "answer": "",
        }
    ]
    for said in (
        "do the same for account 654321",
        "Now do the same thing for account 654321.",
        "same for account 654321",
        "repeat that for account 654321",
    ):
        follow_up = repeat_request(said, memory)
        assert follow_up is not None, said
        assert follow_up["request"] == "create an order for account 654321"
    assert repeat_request("create the same product twice", memory) is None
    assert repeat_request("do the same for account 654321", []) is None
    assert remember_turn({}) is None  # type: ignore[typeddict-item]


async def test_a_chit_chat_turn_after_a_tool_run_starts_fresh(world: World) -> None:
    first, _ = await world.run({"request": "create an order for account 123456"}, "chat")
    assert first["token_ledger"] and first["plan"] and first["candidates"]
    state, _ = await world.run({"request": "hello"}, "chat")
    assert [s["action"] for s in state["intent"]["sub_intents"]] == ["direct_answer"]
    # "hello" skips retrieval: nothing of the tool run may show through as this turn's.
    assert state["token_ledger"] == {}
    assert state["plan"] == [] and state["results"] == {} and state["candidates"] == {}
    assert state["awaiting_approval"] == [] and state["gaps"] == []


def test_fresh_turn_resets_every_per_turn_key_of_the_state() -> None:
    declared = set(get_type_hints(ZState))
    assert THREAD_KEYS == {"messages", "turn", "memory"} and THREAD_KEYS <= declared
    fresh = fresh_turn()
    assert set(fresh) == declared - THREAD_KEYS
    for key, value in fresh.items():
        assert (value.value if isinstance(value, Overwrite) else value) in ({}, [], "", 0, None), key
    # Keys with a reducer are replaced, never merged with the previous turn's values.
    assert isinstance(fresh["results"], Overwrite) and isinstance(fresh["history"], Overwrite)
    assert fresh_turn()["plan"] is not fresh["plan"]


def test_that_address_binds_the_address_an_earlier_turn_created() -> None:
    parser = RuleIntentParser()
    ended: Any = {
        "turn": 1,
        "intent": parser.parse("add a home address for user 7"),
        "plan": [{"call_id": "s1.core"}],
        "results": {
            "s1.core": {
                "status": "ok",
                "args": {"user_id": 7, "label": "home"},
                "output": {"address_id": 31, "user_id": 7, "label": "home"},
            }
        },
    }
    memory = updated_memory(ended)
    assert memory[-1]["outputs"] == {"user_id": 7, "address_id": 31}
    intent = parser.parse("ship order 5 to that address")
    bind_references(intent, memory, Lexicon.default())
    follow_up = intent.get("follow_up")
    assert follow_up is not None and follow_up["bindings"] == {"address_id": 31}
    assert intent["sub_intents"][0]["entities"]["address_id"] == 31


def test_memory_keeps_the_fields_the_identifier_rule_names() -> None:
    ended: Any = {
        "turn": 1,
        "intent": RuleIntentParser().parse("create a delivery for order 5"),
        "plan": [{"call_id": "s1.core"}],
        "results": {
            "s1.core": {
                "status": "ok",
                "args": {"order_id": 5},
                "output": {"deliveryId": 9, "trackingNumber": "T1", "label": "home", "paid": 1},
            }
        },
    }
    outputs = updated_memory(ended)[-1]["outputs"]
    assert outputs == {"order_id": 5, "deliveryId": 9, "trackingNumber": "T1"}
