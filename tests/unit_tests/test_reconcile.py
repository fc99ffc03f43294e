"""reconcile: a call whose outcome is unknown is held for a person, never blindly repeated."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph.types import Command

from tests.unit_tests.test_pipeline import DEMO, World


@pytest.fixture
def world(tmp_path: Path) -> World:
    made = World(tmp_path)
    # advance_order_status takes no idempotency key: when it hangs past the deadline, nobody
    # knows whether the order moved.
    made.shop.hang.add("advance_order_status")
    return made


async def stopped_at_reconcile(world: World, thread: str, **context: Any) -> dict[str, Any]:
    state, events = await world.run({"request": DEMO}, thread, call_deadline_s=0.5, **context)
    asked = [e for e in events if e["event"] == "reconcile_asked"]
    assert [c["call_id"] for c in asked[0]["calls"]] == ["s3.core"]
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": thread}})
    assert snapshot.next == ("reconcile",)
    question = snapshot.tasks[0].interrupts[0].value
    assert question["type"] == "reconcile" and question["choices"] == ["done", "retry", "skip"]
    assert [c["call_id"] for c in question["calls"]] == ["s3.core"]
    assert "deadline" in question["calls"][0]["error"]
    assert state["results"]["s3.core"]["error_kind"] == "unknown_outcome"
    assert world.shop.calls["advance_order_status"] == 1
    return state


async def test_skip_leaves_it_failed_and_the_answer_says_so(world: World) -> None:
    await stopped_at_reconcile(world, "skip")
    state, _ = await world.run(Command(resume="skip"), "skip", call_deadline_s=0.5)
    assert state["results"]["s3.core"]["error_kind"] == "unknown_outcome"
    assert any("advance the order status" in gap for gap in state["gaps"])
    assert world.shop.calls["advance_order_status"] == 1  # never repeated


async def test_done_records_the_outcome_a_person_confirms(world: World) -> None:
    await stopped_at_reconcile(world, "done")
    confirmed = {"order_id": 1, "status": "pending_payment"}
    state, _ = await world.run(
        Command(resume={"s3.core": {"outcome": "done", "output": confirmed}}), "done",
        call_deadline_s=0.5,
    )
    result = state["results"]["s3.core"]
    assert result["status"] == "ok" and result["output"] == confirmed and result["replayed"]
    assert state["gaps"] == []
    assert world.shop.calls["advance_order_status"] == 1
    run_id = state["run_id"]
    records = {r.call_id: r for r in world.deps.get_ledger().for_run(run_id)}
    assert records["s3.core"].status == "done" and records["s3.core"].result["output"] == confirmed


async def test_retry_runs_it_again_once_a_person_says_it_did_not_happen(world: World) -> None:
    await stopped_at_reconcile(world, "retry")
    world.shop.hang.clear()
    state, _ = await world.run(Command(resume="retry"), "retry", call_deadline_s=0.5)
    assert state["results"]["s3.core"]["status"] == "ok" and state["gaps"] == []
    assert world.shop.calls["advance_order_status"] == 2


async def test_an_unclear_answer_asks_again(world: World) -> None:
    await stopped_at_reconcile(world, "unclear")
    await world.run(Command(resume="maybe?"), "unclear", call_deadline_s=0.5)
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "unclear"}})
    assert snapshot.next == ("reconcile",)
    assert world.shop.calls["advance_order_status"] == 1


async def test_report_mode_states_the_gap_without_asking(world: World) -> None:
    state, _ = await world.run(
        {"request": DEMO}, "report", call_deadline_s=0.5, reconcile_unknown="report",
        max_alignment_retries=0,
    )
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "report"}})
    assert snapshot.next == ()
    assert state["results"]["s3.core"]["error_kind"] == "unknown_outcome"
    assert any("advance the order status" in gap for gap in state["gaps"])


async def test_a_started_call_found_on_resume_is_held_for_a_person(world: World) -> None:
    """Another process started the call and died: the ledger says 'started', nothing more."""
    first, _ = await world.run(
        {"request": DEMO}, "first", call_deadline_s=0.5, run_id="shared-run",
        reconcile_unknown="report", max_alignment_retries=0,
    )
    assert first["results"]["s3.core"]["error_kind"] == "unknown_outcome"
    world.shop.hang.clear()
    # The same run, driven again (as a resumed process would): replays the finished calls,
    # and does not resend the keyless call whose outcome nobody knows.
    state, _ = await world.run({"request": DEMO}, "again", run_id="shared-run")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "again"}})
    assert snapshot.next == ("reconcile",)
    assert state["results"]["s2.core"]["replayed"] is True
    assert world.shop.calls["advance_order_status"] == 1
    state, _ = await world.run(Command(resume="done"), "again")
    assert state["results"]["s3.core"]["status"] == "ok" and state["gaps"] == []
    assert world.shop.calls["advance_order_status"] == 1
    assert world.shop.calls["create_order"] == 1
