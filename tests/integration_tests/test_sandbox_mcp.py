"""The sandbox as an MCP server: stdio and streamable HTTP subprocesses, real clients."""

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.integration_tests.conftest import stop_process

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def text_of(result: Any) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


async def test_stdio_lists_tagged_tools_and_runs_the_demo_chain(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sandbox", "serve", "--db", str(tmp_path / "sandbox.db")],
        cwd=str(REPO),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        assert len(tools) >= 40
        for tool in tools:
            assert tool.inputSchema["type"] == "object", tool.name
            assert tool.outputSchema is not None and tool.outputSchema["type"] == "object"
            tags = (tool.meta or {})["zspace"]
            assert tags["environment"] == "test"
            assert isinstance(tags["side_effect"], bool)
            assert tool.annotations is not None
            assert tool.annotations.readOnlyHint is (not tags["side_effect"])
            has_key = "idempotency_key" in tool.inputSchema["properties"]
            assert has_key == tags["side_effect"], tool.name

        product = await session.call_tool("create_product", {})
        assert not product.isError
        assert product.structuredContent is not None
        product_id = product.structuredContent["product_id"]
        user = await session.call_tool("get_user_by_account", {"account_number": "123456"})
        assert user.structuredContent is not None
        order = await session.call_tool(
            "create_order",
            {"user_id": user.structuredContent["user_id"], "product_id": product_id, "quantity": 1},
        )
        assert order.structuredContent is not None
        order_id = order.structuredContent["order_id"]
        advanced = await session.call_tool(
            "advance_order_status", {"order_id": order_id, "status": "pending_payment"}
        )
        assert advanced.structuredContent is not None
        assert advanced.structuredContent["status"] == "pending_payment"

        again = await session.call_tool(
            "advance_order_status", {"order_id": order_id, "status": "pending_payment"}
        )
        assert again.isError
        assert "cannot move to 'pending_payment' (allowed: paid, cancelled)" in text_of(again)
        missing = await session.call_tool("get_order", {"order_id": 999})
        assert missing.isError and "order 999 not found" in text_of(missing)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_listening(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited early:\n{log.read_text(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"server did not listen on {port}:\n{log.read_text(errors='replace')}")


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sandbox",
                "serve",
                "--db",
                str(tmp_path / "sandbox.db"),
                "--http",
                str(port),
            ],
            cwd=REPO,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_listening(process, port, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop_process(process)


async def test_streamable_http_calls_a_tool(http_server: str) -> None:
    async with (
        streamable_http_client(http_server) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        assert len((await session.list_tools()).tools) >= 40
        user = await session.call_tool("get_user_by_account", {"account_number": "000042"})
        assert not user.isError
        assert user.structuredContent is not None
        assert user.structuredContent["user_id"] == 3
        created = await session.call_tool(
            "create_product", {"name": "HTTP widget", "idempotency_key": "http-1"}
        )
        replayed = await session.call_tool(
            "create_product", {"name": "HTTP widget", "idempotency_key": "http-1"}
        )
        assert created.structuredContent == replayed.structuredContent
        conflict = await session.call_tool(
            "create_product", {"name": "Other", "idempotency_key": "http-1"}
        )
        assert conflict.isError and "'http-1'" in text_of(conflict)
