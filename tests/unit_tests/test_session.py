"""One way to run or resume a request under the run lease (graph.session), as the MCP server
and the CLI use it: one driver per thread, clear refusals, no silent "done"."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp.server.fastmcp.exceptions import ToolError

from graph.mcp_server import build_server
from tests.unit_tests.test_pipeline import World


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.delenv("ZSPACE_POSTGRES_URL", raising=False)
    return World(tmp_path)


async def call(server: Any, tool: str, arguments: dict[str, Any]) -> Any:
    """Call one tool of the FastMCP server in-process, as a client would, and decode it."""
    result = await server.call_tool(tool, arguments)
    if isinstance(result, tuple):  # (content blocks, structured content)
        structured = result[1]
        return structured.get("result", structured)
    if isinstance(result, dict):
        return result.get("result", result)
    return json.loads(result[0].text)


def gate(world: World, tool_id: str) -> tuple[asyncio.Event, asyncio.Event]:
    """Make a shop tool wait inside its call until released: (entered, release)."""
    entered, release = asyncio.Event(), asyncio.Event()
    original = world.catalog.implementations[tool_id]

    async def gated(**kwargs: Any) -> Any:
        entered.set()
        await release.wait()
        return await asyncio.to_thread(original, **kwargs)

    world.catalog.implementations[tool_id] = gated
    return entered, release


async def test_two_concurrent_resumes_of_one_thread_over_mcp_run_it_once(world: World) -> None:
    server = build_server(world.deps)
    made = await call(server, "run_request", {"request": "create an order for account 123456"})
    assert made["status"] == "done", made
    asked = await call(
        server, "run_request", {"request": "cancel order 1", "thread_id": "t-cancel"}
    )
    assert asked["status"] == "waiting for input" and asked["interrupt"]["type"] == "approval"

    entered, release = gate(world, "shop/cancel_order")
    first = asyncio.create_task(
        call(server, "resume_run", {"thread_id": "t-cancel", "answer": "yes"})
    )
    await asyncio.wait_for(entered.wait(), timeout=30)
    try:
        with pytest.raises(ToolError, match="already being run") as refused:
            await call(server, "resume_run", {"thread_id": "t-cancel", "answer": "yes"})
        assert "t-cancel" in str(refused.value) and "nothing ran" in str(refused.value)
    finally:
        release.set()
    done = await asyncio.wait_for(first, timeout=30)
    assert done["status"] == "done", done
    assert world.shop.calls["cancel_order"] == 1
    # Once the first has finished, the thread can be driven again.
    again = await call(server, "resume_run", {"thread_id": "t-cancel", "answer": "yes"})
    assert again["status"] == "done" and again["note"] == "nothing to resume: the thread is done"
    assert world.shop.calls["cancel_order"] == 1


async def test_resume_of_an_unknown_thread_over_mcp_is_an_error(world: World) -> None:
    server = build_server(world.deps)
    with pytest.raises(ToolError, match="no thread 'nope'"):
        await call(server, "resume_run", {"thread_id": "nope", "answer": "1"})
    assert world.shop.calls == {}
