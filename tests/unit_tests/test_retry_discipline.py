"""A failed call is retried only with a tool of the same kind of action, and the failure is said.

Before: "look up the user with account number 123456" whose lookup failed was "retried" with
``issue_coupon`` (a write the request never asked for) and the answer said ok.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from graph.streaming import RunOutcome, run_status
from nodes.align import check_alignment
from nodes.context import Context
from stores.catalog.enrich import enrich_catalog
from tests.unit_tests.test_pipeline import World


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


async def test_a_failed_read_is_never_retried_with_a_write(world: World) -> None:
    world.shop.fail_next["get_user_by_account"] = ValueError("directory does not exist")
    state, _ = await world.run(
        {"request": "look up the user with account number 123456"}, "read-fails",
        max_alignment_retries=1, top_k=10,
    )
    assert world.shop.calls == {"get_user_by_account": 1}  # nothing written, nothing else run
    assert world.shop.count("coupons") == 0 and world.shop.count("orders") == 0
    assert not any(r["status"] == "ok" for r in state["results"].values())
    assert "Not done" in state["answer"]
    assert "'shop/get_user_by_account' failed" in state["answer"]
    assert "directory does not exist" in state["answer"]
    assert state["retry_effects"] == {"s1": False}
    # The failed call leads the gap, not the retry's empty search ("no suitable tool was
    # found (before that, … failed: …)" read as if no tool had ever been tried).
    assert state["gaps"] == [
        "look up the user with account number 123456: tool 'shop/get_user_by_account' failed "
        "with ValueError: directory does not exist; no other suitable tool could do it instead"
    ]


async def test_a_failed_read_never_turns_into_a_question_about_another_tool(
    world: World,
) -> None:
    # Another read that fits just as well but needs a value the request does not give:
    # before, the retry stopped to ask for its 'passport_number' and the failure went unsaid.
    world.catalog.load_document(
        {"tools": [{
            "name": "get_user_profile",
            "agent": "profiles",
            "environment": "test",
            "side_effect": False,
            "description": "Get a user's profile by the passport number on file.",
            "input_schema": {"type": "object", "properties": {"passport_number": {"type": "string"}},
                             "required": ["passport_number"]},
        }]},
        source="profiles",
    )
    enrich_catalog(world.catalog)
    world.index.sync(world.catalog)
    world.shop.fail_next["get_user_by_account"] = ValueError("directory does not exist")
    state, _ = await world.run(
        {"request": "look up the user with account number 123456"}, "read-fails-ask",
        max_alignment_retries=1, top_k=10,
    )
    assert state.get("pending_question") is None
    assert RunOutcome("read-fails-ask", state).status == "failed", (state["results"], state["gaps"], state["plan"])
    [gap] = state["gaps"]
    assert "not retried" in gap and "profiles/get_user_profile" in gap
    assert "'shop/get_user_by_account' failed" in gap and "directory does not exist" in gap


def _register_user_service_status(world: World) -> None:
    """A read of the same object that needs no input: it answers, but not what was asked."""
    shop = world.shop

    def get_user_service_status() -> dict[str, str]:
        """Get the status of the user directory service."""
        shop._enter("get_user_service_status")
        return {"status": "healthy"}

    world.catalog.register_function(
        get_user_service_status, agent="shop", environment="test", side_effect=False
    )
    enrich_catalog(world.catalog)
    world.index.sync(world.catalog)


async def test_a_failed_read_is_not_retried_with_a_read_that_drops_the_users_value(
    world: World,
) -> None:
    # Before: the lookup of account 123456 failed and the retry ran the service's status
    # check, which needs nothing and answers "healthy": the run said done.
    _register_user_service_status(world)
    world.shop.fail_next["get_user_by_account"] = ValueError("account 123456 not found")
    state, _ = await world.run(
        {"request": "look up the user with account number 123456"}, "read-fails-unrelated",
        max_alignment_retries=1, top_k=10,
    )
    assert world.shop.calls == {"get_user_by_account": 1}, world.shop.calls
    assert RunOutcome("read-fails-unrelated", state).status == "failed", state["gaps"]
    [gap] = state["gaps"]
    assert "'shop/get_user_by_account' failed" in gap and "account 123456 not found" in gap
    assert "shop/get_user_service_status" in gap and "123456" in gap


# ------------------------------------------------------------ the same guarantee, any planner
def _sub(text: str) -> dict[str, Any]:
    return {"id": "s1", "text": text, "operation": "get", "target": "ticket", "keywords": [],
            "entities": {"ticket_id": "T-999"}, "depends_on": [], "action": "call_api"}


def _model_state(second_tool: str, second_args: dict[str, Any]) -> dict[str, Any]:
    """A model planner's run: c1 failed, then the model made c2 for the same sub-intent."""
    def call(call_id: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        return {"call_id": call_id, "sub_intent_id": "s1", "tool_id": tool, "role": "core",
                "args": {k: {"value": v, "origin": "model"} for k, v in args.items()},
                "depends_on": [], "side_effect": False}

    def result(call_id: str, tool: str, args: dict[str, Any], error: str | None) -> Any:
        return {"call_id": call_id, "tool_id": tool, "args": args,
                "status": "error" if error else "ok", "error": error,
                "error_kind": "tool" if error else None, "output": None if error else {}}

    return {
        "intent": {"request": "get ticket ticket_id=T-999", "sub_intents": [_sub("get ticket")]},
        "plan": [call("c1", "desk/get_ticket", {"ticket_id": "T-999"}),
                 call("c2", second_tool, second_args)],
        "results": {
            "c1": result("c1", "desk/get_ticket", {"ticket_id": "T-999"}, "HTTP 404: not found"),
            "c2": result("c2", second_tool, second_args, None),
        },
        "decisions": {},
        "gaps": [],
        "planner_transcript": [{"calls": [], "rejected": [], "text": "done"}],
    }


async def _aligned(state: dict[str, Any]) -> dict[str, Any]:
    runtime = SimpleNamespace(context=Context(max_alignment_retries=1))
    return {**state, **await check_alignment(state, runtime)}  # type: ignore[arg-type]


async def test_a_model_that_answers_a_failed_read_with_an_unrelated_one_is_not_done() -> None:
    state = await _aligned(_model_state("desk/service_health", {}))
    [gap] = state["gaps"]
    assert "desk/get_ticket failed: HTTP 404: not found" in gap, gap
    assert "desk/service_health" in gap and "T-999" in gap
    assert run_status(state, None) == "partial"


async def test_a_model_retry_that_keeps_the_users_value_is_done() -> None:
    state = await _aligned(_model_state("desk/find_ticket", {"id": "T-999"}))
    assert state.get("gaps") == [] and run_status(state, None) == "done"


async def test_a_replacement_that_uses_the_value_through_its_lookup_is_done() -> None:
    # e2e dev-059: create_user(account 123456) failed, top_up_balance ran with the user_id
    # its lookup of account 123456 found: the request's value is still used.
    state = _model_state("desk/update_ticket", {"ticket_id": 7})
    lookup = {"call_id": "c0", "sub_intent_id": "s1", "tool_id": "desk/find_ticket",
              "role": "auxiliary", "args": {"ref": {"value": "T-999", "origin": "model"}},
              "depends_on": [], "side_effect": False}
    state["plan"].insert(0, lookup)
    state["results"]["c0"] = {"call_id": "c0", "tool_id": "desk/find_ticket", "status": "ok",
                              "args": {"ref": "T-999"}, "error": None, "error_kind": None,
                              "output": {"ticket_id": 7}}
    state = await _aligned(state)
    assert state.get("gaps") == [] and run_status(state, None) == "done"


async def test_a_write_that_ignores_the_users_value_is_not_chosen(world: World) -> None:
    # "Add 25 dollars to the wallet of account 123456" once ran create_user(123456) first:
    # 'add' reads as create and the account binds, but the amount went unused. That write
    # failed only because the account existed; on a fresh system it would have made a user.
    created: list[str] = []

    def create_user(account_number: str) -> dict[str, str]:
        """Create a new user account with the given account number."""
        created.append(account_number)
        raise ValueError(f"account number {account_number} is already taken")

    world.catalog.register_function(
        create_user, agent="shop", environment="test", side_effect=True
    )
    enrich_catalog(world.catalog)
    world.index.sync(world.catalog)
    state, _ = await world.run(
        {"request": "Add a coupon of 7 dollars to account 123456"}, "write-uses-values", top_k=10,
    )
    assert created == []  # the write nobody asked for was never attempted
    assert world.shop.calls.get("issue_coupon") == 1
    assert world.shop.count("coupons") == 1
