"""A failed call is retried only with a tool of the same kind of action, and the failure is said.

Before: "look up the user with account number 123456" whose lookup failed was "retried" with
``issue_coupon`` (a write the request never asked for) and the answer said ok.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.streaming import RunOutcome
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
    assert "get_user_by_account failed" in state["answer"]
    assert "directory does not exist" in state["answer"]
    assert state["retry_effects"] == {"s1": False}


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
    assert "get_user_by_account failed" in gap and "directory does not exist" in gap
