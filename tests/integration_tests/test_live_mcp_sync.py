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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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
                "changing/lookup_word", "changing/add_converter", "changing/remove_converter"}
            asked = time.monotonic()
            await live.pool.call_tool("changing", "add_converter", {"name": "get_fahrenheit"})
            delay = await wait_until(lambda: "changing/get_fahrenheit" in deps.get_catalog().tools)
            print(f"\nsync delay (tools/call add_converter → tool in catalog and index): "
                  f"{time.monotonic() - asked:.3f} s (after the call returned: {delay:.3f} s)")
            grown = next(s for s in live.syncs if s["added"])
            assert grown["added"] == ["changing/get_fahrenheit"]
            assert grown["indexed"] == 2  # the new tool and its agent's entry, nothing else
            found = search_tools(deps.get_index(), "get the fahrenheit temperature for a "
                                 "temperature in celsius", k=3).result.tools
            assert found[0].tool_id == "changing/get_fahrenheit"
            executor = deps.make_executor(Context())
            called = await executor.execute({"call_id": "c1", "tool_id": "changing/get_fahrenheit", "run_id": "r1",
                                             "args": {"celsius": 100}})
            assert called["status"] == "ok", called["error"]
            assert called["output"] == {"fahrenheit": 212.0}
            # The saved catalog holds it too: a new process sees it without re-indexing.
            store = deps.catalog_store()
            try:
                saved = store.load(deps.index_name)
            finally:
                store.close()
            assert saved is not None and "changing/get_fahrenheit" in saved.tools

            # A run in flight (its catalog pinned, as Session pins it) keeps the version it
            # planned with; the pinned-definition check refuses the tool once its server
            # drops it, while new runs no longer see it at all.
            with deps.pin_catalog():
                await live.pool.call_tool(
                    "changing", "remove_converter", {"name": "get_fahrenheit"}
                )
                await wait_until(lambda: "changing/get_fahrenheit" not in (deps.catalog or {}).tools)
                assert "changing/get_fahrenheit" in deps.get_catalog().tools
                pinned = deps.make_executor(Context())
                refused = await pinned.execute({"call_id": "c2", "tool_id": "changing/get_fahrenheit",
                                                "run_id": "r1", "args": {"celsius": 1}})
                assert refused["error_kind"] == "policy"
                assert "no longer listed by its server" in str(refused["error"])
            assert "changing/get_fahrenheit" not in deps.get_catalog().tools
            found = search_tools(deps.get_index(), "get fahrenheit for celsius",
                                 k=5).result.tools
            assert "changing/get_fahrenheit" not in {tool.tool_id for tool in found}

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


def test_the_langgraph_server_backend_syncs_tools_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The LangGraph server's deps (``server_deps``): its saved-config backend syncs too."""
    from graph.runtime import server_deps

    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
    assert cli.main(["index", "--mcp", str(changing_config(tmp_path))]) == 0
    capsys.readouterr()

    async def serve() -> None:
        deps = server_deps()
        backend = deps.backends["*"]
        try:
            grow = deps.get_catalog().tools["changing/add_converter"]
            await backend.call(grow, {"name": "get_fahrenheit"}, None)
            await wait_until(lambda: "changing/get_fahrenheit" in deps.get_catalog().tools)
            added = deps.get_catalog().tools["changing/get_fahrenheit"]
            output = await backend.call(added, {"celsius": 0}, None)
            assert output.structuredContent == {"fahrenheit": 32.0}
        finally:
            await backend.aclose()

    asyncio.run(serve())


# ------------------------------------------------------------------ through `zspace mcp`
def changing_config(tmp_path: Path) -> Path:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"changing": {
        "command": sys.executable,
        "args": ["-m", "tests.integration_tests.changing_mcp_server"],
        "cwd": str(REPO), "environment": "test"}}}))
    return config


@pytest.fixture(scope="module")
def zspace_mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """`zspace mcp` over stdio, serving an index of the changing server; tools grown live.

    Yields what the client saw: the run that added tools, the first search that found the
    new one, and the replies to the requests the tests ask about.
    """
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    tmp_path = tmp_path_factory.mktemp("zspace-mcp")
    config = changing_config(tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
        assert cli.main(["index", "--mcp", str(config)]) == 0
    environment = {**os.environ, "ZSPACE_HOME": str(tmp_path / "home"),
                   "PYTHONPATH": str(REPO)}
    server = StdioServerParameters(command=sys.executable, args=["-m", "graph.cli", "mcp"],
                                   env=environment, cwd=str(REPO))
    seen: dict[str, Any] = {}

    async def drive() -> None:
        async with stdio_client(server) as (read, write), ClientSession(read, write) as client:
            await client.initialize()

            async def call(tool: str, **arguments: Any) -> Any:
                result = await client.call_tool(tool, arguments)
                return json.loads(result.content[0].text) if len(result.content) == 1 else [
                    json.loads(block.text) for block in result.content]

            for name in ("get_fahrenheit", "convert_temperature"):
                seen[f"add {name}"] = await call(
                    "run_request", request=f"add a converter with name={name}")
            started = time.monotonic()
            while time.monotonic() - started < 20:
                found = await call("search_tools", query="get the fahrenheit temperature for "
                                   "a temperature in celsius", k=2)
                found = found if isinstance(found, list) else [found]
                if found and found[0]["tool_id"] == "changing/get_fahrenheit":
                    break
                await asyncio.sleep(0.05)
            seen["found after s"] = time.monotonic() - started
            seen["found"] = found
            seen["get"] = await call("run_request", request="get fahrenheit for celsius=100")
            seen["convert"] = await call("run_request", request="convert temperature "
                                         "celsius=100")

    asyncio.run(drive())
    yield seen


def test_zspace_mcp_finds_and_calls_a_tool_added_while_it_serves(
    zspace_mcp: dict[str, Any],
) -> None:
    added = zspace_mcp["add get_fahrenheit"]
    assert added["status"] == "done", added
    assert [c["tool_id"] for c in added["calls"]] == ["changing/add_converter"]
    print(f"\nfirst search after the run that added the tool found it in "
          f"{zspace_mcp['found after s']:.3f} s")
    assert zspace_mcp["found"][0]["tool_id"] == "changing/get_fahrenheit"
    got = zspace_mcp["get"]
    assert got["status"] == "done", got
    assert [c["tool_id"] for c in got["calls"]] == ["changing/get_fahrenheit"]
    assert "212" in got["answer"]


def test_a_convert_request_calls_the_converter(zspace_mcp: dict[str, Any]) -> None:
    converted = zspace_mcp["convert"]
    assert [c["tool_id"] for c in converted["calls"]] == ["changing/convert_temperature"]
