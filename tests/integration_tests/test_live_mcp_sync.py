"""Live MCP sync: a server adds a tool while an embedded runtime is open (no re-index).

The fixture server (``changing_mcp_server.py``) adds a tool and sends
``notifications/tools/list_changed``; :class:`graph.live.LiveMcpSync` re-lists it and syncs
catalog and index, so the tool is found by search and callable; a removed tool stops being a
candidate; a killed server is reconnected.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import graph.cli as cli
from graph.deps import Deps
from graph.live import LiveMcpSync
from graph.tools import search_tools
from nodes.context import Context

REPO = Path(__file__).resolve().parents[2]


async def wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> float:
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(0.02)
    return time.monotonic() - started


def test_tools_added_and_removed_while_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"changing": {
        "command": sys.executable,
        "args": ["-m", "tests.integration_tests.changing_mcp_server"],
        "cwd": str(REPO), "environment": "test"}}}))
    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
    assert cli.main(["index", "--mcp", str(config)]) == 0
    capsys.readouterr()

    async def serve() -> None:
        deps = Deps()
        async with LiveMcpSync(deps, config, check_every_s=0.2) as live:
            assert set(deps.get_catalog().tools) == {
                "changing/lookup_word", "changing/grow", "changing/shrink"}
            asked = time.monotonic()
            await live.pool.call_tool("changing", "grow", {"name": "c_to_f"})
            delay = await wait_until(lambda: "changing/c_to_f" in deps.get_catalog().tools)
            print(f"\nsync delay (tools/call grow → tool in catalog and index): "
                  f"{time.monotonic() - asked:.3f} s (after the call returned: {delay:.3f} s)")
            assert live.syncs[-1]["added"] == ["changing/c_to_f"]
            assert live.syncs[-1]["indexed"] >= 1  # only what changed was embedded
            found = search_tools(deps.get_index(), "convert a temperature from celsius to "
                                 "fahrenheit", k=3).result.tools
            assert found[0].tool_id == "changing/c_to_f"
            executor = deps.make_executor(Context())
            called = await executor.execute({"call_id": "c1", "tool_id": "changing/c_to_f", "run_id": "r1",
                                             "args": {"celsius": 100}})
            assert called["status"] == "ok", called["error"]
            assert called["output"] == {"fahrenheit": 212.0}
            # The active catalog file holds it too: a new process sees it without re-indexing.
            active = json.loads((deps.get_home() / "catalog.json").read_text())
            assert "changing/c_to_f" in {tool["id"] for tool in active["tools"]}

            # A run in flight (its catalog pinned, as Session pins it) keeps the version it
            # planned with; the pinned-definition check refuses the tool once its server
            # drops it, while new runs no longer see it at all.
            with deps.pin_catalog():
                await live.pool.call_tool("changing", "shrink", {"name": "c_to_f"})
                await wait_until(lambda: "changing/c_to_f" not in (deps.catalog or {}).tools)
                assert "changing/c_to_f" in deps.get_catalog().tools
                pinned = deps.make_executor(Context())
                refused = await pinned.execute({"call_id": "c2", "tool_id": "changing/c_to_f",
                                                "run_id": "r1", "args": {"celsius": 1}})
                assert refused["error_kind"] == "policy"
                assert "no longer listed by its server" in str(refused["error"])
            assert "changing/c_to_f" not in deps.get_catalog().tools
            found = search_tools(deps.get_index(), "convert celsius to fahrenheit",
                                 k=5).result.tools
            assert "changing/c_to_f" not in {tool.tool_id for tool in found}

            # A server that dies is reconnected (with backoff) and reported.
            pid = live.pool.pid("changing")
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
            await wait_until(lambda: live.pool.is_alive("changing")
                             and live.pool.pid("changing") != pid)
            assert live.status["changing"] == "connected"
            kinds = [event.kind for event in live.pool.events]
            assert "started" in kinds and kinds.count("started") >= 2

    asyncio.run(serve())
