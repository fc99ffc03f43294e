"""Tool faults: deadlines, bounded classified retries, capped outputs, dying MCP servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.faults import FaultRow, fault_rows, fault_table
from tests.unit_tests.test_pipeline import DEMO, World

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, FaultRow]:
    import asyncio

    found = asyncio.run(fault_rows(tmp_path_factory.mktemp("faults")))
    print(fault_table(found))
    return {row.fault: row for row in found}


def test_deadlines_hold_for_blocking_and_async_code(rows: dict[str, FaultRow]) -> None:
    for fault in ("hangs in blocking code (time.sleep)", "awaits forever"):
        row = rows[fault]
        assert row.status == "error" and row.error_kind == "timeout"
        assert row.attempts == 3 and row.seconds < 10  # 3 attempts of 1 s plus backoff


def test_permanent_failures_are_not_retried(rows: dict[str, FaultRow]) -> None:
    row = rows["raises ValueError"]
    assert (row.status, row.error_kind, row.attempts) == ("error", "permanent", 1)
    assert "x=1 is not allowed" in row.record["error"]


def test_transient_failures_are_retried_within_a_bound(rows: dict[str, FaultRow]) -> None:
    assert (rows["HTTP 503 twice, then ok (read)"].status,
            rows["HTTP 503 twice, then ok (read)"].attempts) == ("ok", 3)
    writer = rows["HTTP 500 on a writer without key"]
    assert (writer.error_kind, writer.attempts, writer.effects) == ("unknown_outcome", 1, 1)


def test_huge_and_non_utf8_outputs(rows: dict[str, FaultRow]) -> None:
    huge = rows["returns 5 MB"].record
    assert len(huge["output"]) <= 20_000 and "truncated" in huge["output"]
    assert len(json.loads(Path(huge["output_ref"]).read_text())["blob"]) == 5_000_000
    odd = rows["returns non-UTF-8 bytes"].record
    assert odd["status"] == "ok" and "\ufffd" in odd["output"]
    json.dumps(odd)  # serializable for checkpoints


def test_dying_mcp_server_is_restarted_and_its_call_reconciled(rows: dict[str, FaultRow]) -> None:
    keyed = rows["MCP server dies mid-call (tool takes an idempotency key)"]
    assert (keyed.status, keyed.effects, keyed.attempts) == ("ok", 1, 2)
    unkeyed = rows["MCP server dies mid-call (no idempotency key)"]
    assert (unkeyed.error_kind, unkeyed.effects, unkeyed.attempts) == ("unknown_outcome", 1, 1)
    assert "not retried" in unkeyed.record["error"]


async def test_a_hanging_tool_ends_in_an_answer_that_states_the_failure(tmp_path: Path) -> None:
    world = World(tmp_path)
    world.shop.hang.add("advance_order_status")
    state, _ = await world.run(
        {"request": DEMO}, "hang", call_deadline_s=0.5, max_alignment_retries=0,
        reconcile_unknown="report",
    )
    result = state["results"]["s3.core"]
    assert result["status"] == "error" and result["error_kind"] == "unknown_outcome"
    assert state["results"]["s2.core"]["status"] == "ok"
    assert "Not done" in state["answer"] and "deadline" in state["answer"]


def test_a_failed_read_with_writers_among_the_candidates_writes_nothing(
    rows: dict[str, FaultRow],
) -> None:
    row = rows["failed read with writers among the candidates (whole graph)"]
    assert row.record["writers"], "the scenario needs writers among the candidates"
    assert row.effects == 0 and row.status == "failed"
    assert row.record["calls"] == ["shop/get_user_by_account"]
    assert "get_user_by_account" in row.record["answer"]
    assert "the user directory is offline" in row.record["answer"]
