"""A run that failed never says done: the status the CLI, its --json and the MCP server report."""

from __future__ import annotations

from pathlib import Path

import pytest

from graph.mcp_server import outcome_payload
from graph.streaming import RunOutcome
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
