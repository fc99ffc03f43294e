"""MCP ingestion and the run-time session pool against real server subprocesses."""

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from stores.catalog.mcp import list_server_tools, load_mcp_catalog
from stores.catalog.model import DEFINITION_HASH_KEY, Catalog
from stores.execution.backends import mcp_backends
from stores.execution.executor import ToolExecutor
from stores.mcp.config import load_mcp_config
from stores.mcp.errors import McpCallTimeout
from stores.mcp.pool import McpSessionPool
from tests.integration_tests.conftest import free_port, stop_process, wait_for_port

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]

# A deliberately slow low-level MCP server: paginated tools/list (2 tools a page), a
# side-effecting tool without an idempotency key that sleeps, and a read-only echo.
SLOWPOKE = '''
import os
import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("slowpoke", instructions="A deliberately slow test server.")
WRITE = {"zspace": {"environment": "test", "side_effect": True}}
READ = {"zspace": {"environment": "test", "side_effect": False}}
TOOLS = [
    types.Tool(name="slow_write", description="Sleeps, then writes.", _meta=WRITE,
               inputSchema={"type": "object", "properties": {"seconds": {"type": "number"}},
                            "required": ["seconds"]}),
    types.Tool(name="echo", description="Echoes its text.", _meta=READ,
               inputSchema={"type": "object", "properties": {"text": {"type": "string"}}}),
] + [types.Tool(name=f"noop_{i}", description="Does nothing.", _meta=READ,
                inputSchema={"type": "object", "properties": {}}) for i in range(3)]


@server.list_tools()
async def list_tools(request: types.ListToolsRequest) -> types.ListToolsResult:
    cursor = request.params.cursor if request is not None and request.params else None
    start = int(cursor or 0)
    end = start + 2
    return types.ListToolsResult(
        tools=TOOLS[start:end], nextCursor=str(end) if end < len(TOOLS) else None
    )


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> dict:
    if name == "slow_write":
        with open(os.environ["SLOWPOKE_MARKER"], "a") as marker:
            marker.write("started\\n")
        await anyio.sleep(arguments["seconds"])
        return {"written": True}
    return {"text": arguments.get("text", ""), "pid": os.getpid()}


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
'''


def sandbox_server(db: Path, **extra: Any) -> dict[str, Any]:
    return {
        "command": "python",
        "args": ["-m", "sandbox", "serve", "--db", str(db)],
        "cwd": str(REPO),
        **extra,
    }


def write_config(tmp_path: Path, servers: dict[str, Any]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


async def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(0.05)


def process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie still answers signal 0; it is gone for our purposes once it is not running.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"
    except OSError:
        return True


# ------------------------------------------------------------------ ingestion
async def test_stdio_ingestion_of_the_sandbox(tmp_path: Path) -> None:
    config = write_config(tmp_path, {"sandbox": sandbox_server(tmp_path / "sandbox.db")})
    catalog, report = await load_mcp_catalog(config)

    assert report.failed == {} and report.loaded == ["sandbox"]
    tools = list(catalog.tools.values())
    assert len(tools) >= 40 and report.servers["sandbox"].tools == len(tools)
    assert not catalog.quarantined
    for spec in tools:
        assert spec.id == f"sandbox/{spec.name}" and spec.agent == "sandbox"
        assert spec.source == "mcp:sandbox"
        assert spec.output_schema is not None, spec.id
        assert spec.environment == "test", spec.id
        assert isinstance(spec.side_effect, bool), spec.id
        assert spec.side_effect == spec.accepts_idempotency_key(), spec.id
        assert spec.annotations["readOnlyHint"] is (not spec.side_effect)
        assert len(spec.annotations[DEFINITION_HASH_KEY]) == 64
    assert catalog.tools["sandbox/create_product"].side_effect is True
    assert catalog.tools["sandbox/get_user_by_account"].side_effect is False
    agent = catalog.agents["sandbox"]
    assert "Test-data platform" in agent.description and agent.category == "mcp"


@pytest.fixture
def http_sandbox(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "sandbox", "serve", "--http", str(port),
         "--db", str(tmp_path / "http.db")],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process, timeout=30)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(process)


async def test_http_ingestion_and_calls(http_sandbox: str, tmp_path: Path) -> None:
    raws, problems = await list_server_tools("shop", {"url": http_sandbox, "timeout": 20})
    assert problems == [] and len(raws) >= 40
    by_name = {raw["name"]: raw for raw in raws}
    assert by_name["create_product"]["id"] == "shop/create_product"
    assert by_name["create_product"]["side_effect"] is True
    assert all(raw["environment"] == "test" and raw["output_schema"] for raw in raws)

    config = load_mcp_config(write_config(tmp_path, {"shop": {"url": http_sandbox}}))
    assert config.servers["shop"].transport == "streamable_http"
    async with McpSessionPool(config) as pool:
        user = await pool.call_tool("shop", "get_user_by_account", {"account_number": "000042"})
        again = await pool.call_tool("shop", "get_user_by_account", {"account_number": "000042"})
        assert user.structuredContent is not None and user.structuredContent["user_id"] == 3
        assert again.structuredContent == user.structuredContent
        assert pool.spawns == {"shop": 1} and pool.pid("shop") is None


async def test_dead_and_hanging_servers_are_reported_by_name(tmp_path: Path) -> None:
    config = write_config(tmp_path, {
        "sandbox": sandbox_server(tmp_path / "sandbox.db"),
        "dead": {"command": "python", "args": ["-c", "import sys; sys.exit(3)"]},
        "hang": {"command": "python", "args": ["-c", "import time; time.sleep(60)"],
                 "timeout": 1.0},
        "missing": {"command": str(tmp_path / "no-such-server")},
    })
    started = time.monotonic()
    catalog, report = await load_mcp_catalog(config)
    assert time.monotonic() - started < 15

    assert set(report.failed) == {"dead", "hang", "missing"}
    assert "exit code 3" in report.failed["dead"]
    assert "handshake within 1 s" in report.failed["hang"]
    assert "cannot run" in report.failed["missing"]
    assert report.loaded == ["sandbox"] and len(catalog.tools) >= 40
    assert all(spec.agent == "sandbox" for spec in catalog.tools.values())
    text = str(report)
    assert "dead: FAILED" in text and "hang: FAILED" in text and "sandbox:" in text


async def test_same_tool_on_two_servers_gets_two_qualified_ids(tmp_path: Path) -> None:
    config = write_config(tmp_path, {
        "shop_a": sandbox_server(tmp_path / "a.db"),
        "shop_b": sandbox_server(tmp_path / "b.db"),
    })
    catalog, report = await load_mcp_catalog(config)
    assert report.failed == {}
    first, second = catalog.tools["shop_a/create_product"], catalog.tools["shop_b/create_product"]
    assert first.call_name != second.call_name
    assert first.annotations[DEFINITION_HASH_KEY] == second.annotations[DEFINITION_HASH_KEY]
    assert not catalog.quarantined
    assert report.servers["shop_a"].tools == report.servers["shop_b"].tools >= 40


# ------------------------------------------------------------------ run time
@pytest.fixture
async def sandbox_catalog(tmp_path: Path) -> tuple[Path, Catalog]:
    config = write_config(tmp_path, {"sandbox": sandbox_server(tmp_path / "sandbox.db")})
    catalog, report = await load_mcp_catalog(config)
    assert report.failed == {}
    return config, catalog


async def test_one_session_serves_every_call_of_a_run(
    sandbox_catalog: tuple[Path, Catalog],
) -> None:
    config, catalog = sandbox_catalog
    async with McpSessionPool(config) as pool:
        executor = ToolExecutor(catalog, backends=mcp_backends(pool), backoff_s=0.01)

        def call(call_id: str, tool: str, **args: Any) -> Any:
            return executor.execute(
                {"call_id": call_id, "tool_id": f"sandbox/{tool}", "args": args,
                 "run_id": "run-1"}
            )

        # Two concurrent first calls must not start the server twice.
        user, product = await asyncio.gather(
            call("c1", "get_user_by_account", account_number="123456"),
            call("c2", "create_product"),
        )
        assert user["status"] == "ok" and user["output"]["user_id"] == 1
        assert product["status"] == "ok" and isinstance(product["output"]["product_id"], int)
        # Same run and call id -> same idempotency key -> the sandbox replays, no new product.
        replay = await call("c2", "create_product")
        assert replay["output"] == product["output"]
        order = await call("c3", "create_order", user_id=1,
                           product_id=product["output"]["product_id"], quantity=1)
        assert order["status"] == "ok", order["error"]
        order_id = order["output"]["order_id"]
        moved = await call("c4", "advance_order_status", order_id=order_id,
                           status="pending_payment")
        assert moved["status"] == "ok" and moved["output"]["status"] == "pending_payment"
        refused = await call("c5", "advance_order_status", order_id=order_id,
                             status="pending_payment")
        assert refused["error_kind"] == "permanent" and refused["attempts"] == 1
        assert "cannot move to 'pending_payment'" in refused["error"]

        assert pool.spawns == {"sandbox": 1}
        assert pool.restarts == {"sandbox": 0}
        pid = pool.pid("sandbox")
        assert pid is not None
    await wait_until(lambda: process_gone(pid), timeout=5)


async def test_a_killed_server_is_restarted_once(sandbox_catalog: tuple[Path, Catalog]) -> None:
    config, catalog = sandbox_catalog
    async with McpSessionPool(config, max_restarts=1) as pool:
        executor = ToolExecutor(catalog, backends=mcp_backends(pool), backoff_s=0.01)
        lookup = {"tool_id": "sandbox/get_user_by_account",
                  "args": {"account_number": "123456"}}

        first = await executor.execute({"call_id": "c1", **lookup})
        assert first["status"] == "ok"
        first_pid = pool.pid("sandbox")
        assert first_pid is not None
        os.kill(first_pid, signal.SIGKILL)
        await wait_until(lambda: not pool.is_alive("sandbox"))

        second = await executor.execute({"call_id": "c2", **lookup})
        assert second["status"] == "ok" and second["output"]["user_id"] == 1
        assert pool.spawns == {"sandbox": 2} and pool.restarts == {"sandbox": 1}
        second_pid = pool.pid("sandbox")
        assert second_pid is not None and second_pid != first_pid
        kinds = [event["kind"] for event in pool.report()["sandbox"]["events"]]
        assert kinds == ["started", "died", "restart", "started"]
        assert "killed by signal 9" in pool.report()["sandbox"]["events"][1]["detail"]

        # The restart budget is spent: the next death is final for this run.
        os.kill(second_pid, signal.SIGKILL)
        await wait_until(lambda: not pool.is_alive("sandbox"))
        third = await executor.execute({"call_id": "c3", **lookup})
        assert third["status"] == "error" and third["error_kind"] == "transient"
        assert "max_restarts=1" in third["error"]
        assert pool.spawns == {"sandbox": 2}


async def test_a_server_dying_mid_call_leaves_the_outcome_unknown(tmp_path: Path) -> None:
    script = tmp_path / "slowpoke.py"
    script.write_text(SLOWPOKE)
    marker = tmp_path / "marker.txt"
    config = write_config(tmp_path, {"slowpoke": {
        "command": "python", "args": [str(script)], "timeout": 10,
        "env": {"SLOWPOKE_MARKER": str(marker)},
    }})
    catalog, report = await load_mcp_catalog(config)
    # Five tools over three pages of tools/list.
    assert report.failed == {} and len(catalog.tools) == 5
    assert catalog.tools["slowpoke/slow_write"].side_effect is True
    assert not catalog.tools["slowpoke/slow_write"].accepts_idempotency_key()

    async with McpSessionPool(config) as pool:
        executor = ToolExecutor(catalog, backends=mcp_backends(pool), backoff_s=0.01)
        echo = await executor.execute(
            {"call_id": "e1", "tool_id": "slowpoke/echo", "args": {"text": "hi"}}
        )
        assert echo["status"] == "ok" and echo["output"]["text"] == "hi"

        # A per-call timeout fails the call but keeps the session.
        with pytest.raises(McpCallTimeout):
            await pool.call_tool("slowpoke", "slow_write", {"seconds": 5}, timeout=0.3)
        assert pool.is_alive("slowpoke") and pool.spawns == {"slowpoke": 1}
        marker.unlink()

        write = asyncio.create_task(executor.execute(
            {"call_id": "w1", "tool_id": "slowpoke/slow_write", "args": {"seconds": 30}}
        ))
        await wait_until(marker.exists)
        pid = pool.pid("slowpoke")
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        record = await asyncio.wait_for(write, timeout=10)
        assert record["status"] == "error"
        assert record["error_kind"] == "unknown_outcome" and record["attempts"] == 1
        assert "outcome of that request is unknown" in record["error"]
        events = pool.report()["slowpoke"]["events"]
        assert any(event["kind"] == "outcome_unknown" and "slow_write" in event["detail"]
                   for event in events)

        after = await executor.execute(
            {"call_id": "e2", "tool_id": "slowpoke/echo", "args": {"text": "back"}}
        )
        assert after["status"] == "ok" and after["output"]["pid"] != pid
        assert pool.spawns == {"slowpoke": 2} and pool.restarts == {"slowpoke": 1}


def test_reindex_with_a_failing_server_keeps_its_last_good_tools(tmp_path: Path) -> None:
    """`zspace index` through the CLI: the sandbox up, then dead at re-index (exit 1)."""
    env = {**os.environ, "ZSPACE_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}

    def index(servers: dict[str, Any]) -> tuple[int, dict[str, Any], str]:
        config = write_config(tmp_path, servers)
        done = subprocess.run(
            [sys.executable, "-m", "graph.cli", "index", "--mcp", str(config), "--json"],
            env=env, capture_output=True, text=True, cwd=REPO, timeout=600,
        )
        return done.returncode, json.loads(done.stdout.strip().splitlines()[-1]), done.stdout

    code, first, _ = index({"sandbox": sandbox_server(tmp_path / "sandbox.db")})
    assert code == 0 and first["tools"] >= 40 and first["stale"] == {}
    dead = {"command": "python", "args": ["-c", "import sys; sys.exit(3)"]}
    code, again, out = index({"sandbox": dead})
    assert code == 1
    assert again["tools"] == first["tools"] and again["removed"] == 0
    assert again["stale"]["sandbox"]["tools"] == first["tools"]
    assert "exit code 3" in again["stale"]["sandbox"]["error"]
    assert f"sandbox: kept {first['tools']} last good tools (stale)" in out
