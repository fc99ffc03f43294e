"""A run that failed never says done: the status the CLI, its --json and the MCP server report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.evaluation.runfile import run_status as runfile_status
from graph.mcp_server import outcome_payload
from graph.streaming import RunOutcome, run_status, stream_run
from nodes.context import Context
from tests.unit_tests.test_pipeline import DEMO, World


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_status_values() -> None:
    ok = {"call_id": "c1", "status": "ok"}
    bad = {"call_id": "c2", "status": "error"}
    assert RunOutcome("t", {"results": {"c1": ok}}).status == "done"
    assert RunOutcome("t", {"results": {"c1": ok, "c2": bad}, "gaps": ["x"]}).status == "partial"
    assert RunOutcome("t", {"results": {"c2": bad}, "gaps": ["x"]}).status == "failed"
    assert RunOutcome("t", {"gaps": ["no tool fits"]}).status == "failed"
    assert RunOutcome("t", {}, interrupt={"question": "?"}).status == "waiting for input"


async def test_a_run_with_a_failed_call_reports_partial_not_done(world: World) -> None:
    world.shop.fail_next["advance_order_status"] = ValueError("status machine refused")
    state, _ = await world.run({"request": DEMO}, "partial", max_alignment_retries=0)
    payload = outcome_payload(RunOutcome("partial", state))
    assert payload["status"] == "partial"
    assert any("advance the order status" in gap for gap in payload["gaps"])


async def _streamed(world: World, request: str, thread: str, **context: Any) -> tuple[
    RunOutcome, list[dict[str, Any]], list[str]
]:
    events: list[dict[str, Any]] = []
    lines: list[str] = []
    outcome = await stream_run(
        world.graph, {"request": request}, thread, Context(**context), lines.append,
        on_event=events.append,
    )
    return outcome, events, lines


async def test_the_stream_ends_with_the_runs_status(world: World) -> None:
    outcome, events, lines = await _streamed(world, DEMO, "streamed-done")
    assert events[-1]["event"] == "run_finished"
    assert events[-1]["status"] == outcome.status == "done"
    assert lines[-1] == "  status: done"
    world.shop.fail_next["advance_order_status"] = ValueError("status machine refused")
    outcome, events, _ = await _streamed(
        world, DEMO, "streamed-partial", max_alignment_retries=0
    )
    assert [e for e in events if e["event"] == "run_finished"] == [events[-1]]
    assert events[-1]["status"] == outcome.status == "partial"
    assert any("advance the order status" in gap for gap in events[-1]["gaps"])


async def test_a_question_is_waiting_for_input_in_the_stream(world: World) -> None:
    _, events, _ = await _streamed(world, "advance the order status to paid", "streamed-ask")
    assert events[-1]["event"] == "run_finished"
    assert events[-1]["status"] == "waiting for input"
    assert events[-1]["question"]


def test_the_run_file_status_derives_from_the_same_mapping() -> None:
    ok = {"call_id": "c1", "status": "ok"}
    cases: list[tuple[dict[str, Any], dict[str, Any] | None, str]] = [
        ({"results": {"c1": ok}}, None, "done"),
        ({"results": {"c1": ok}, "gaps": ["x"]}, None, "failed"),  # partial: failed in EVAL.md
        ({"gaps": ["x"]}, None, "failed"),
        ({}, {"type": "clarification", "question": "which?"}, "question"),
        ({}, {"type": "approval", "question": "approve?"}, "failed"),
    ]
    for values, question, expected in cases:
        shared = run_status(values, question)
        assert runfile_status(values, question)["status"] == expected, (values, shared)
