"""zspace for other agents: the ``retrieve_tools`` LangChain tool, bigtool hooks, and the MCP
server (a real stdio session against a server process over a tiny index of shop tools)."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolCall

from graph.tools import make_retrieve_tools, retrieve_tools_tool, tool_registry
from stores.catalog.enrich import enrich_catalog
from stores.retrieval.index import ToolIndex
from tests.fakes import HashingEmbedder
from tests.shop_tools import Shop

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def shop_index(tmp_path: Path) -> tuple[Shop, Any, ToolIndex]:
    shop = Shop(tmp_path / "shop.db")
    catalog = shop.catalog()
    enrich_catalog(catalog)
    index = ToolIndex(tmp_path / "index", HashingEmbedder(), name="tools-api")
    index.sync(catalog)
    return shop, catalog, index


async def test_retrieve_tools_is_a_langchain_tool_returning_ids(shop_index: Any) -> None:
    _, catalog, index = shop_index
    tool = retrieve_tools_tool(index, catalog, k=3)
    assert tool.name == "retrieve_tools"
    assert set(tool.args) == {"query"}
    ids = tool.invoke({"query": "issue a coupon to a user"})
    assert isinstance(ids, list) and len(ids) == 3 and ids[0] == "shop/issue_coupon"
    message = await tool.ainvoke(
        ToolCall(name="retrieve_tools", args={"query": "cancel an order"}, id="c1",
                 type="tool_call")
    )
    assert message.artifact[0]["tool_id"] == "shop/cancel_order"
    assert message.artifact[0]["description"].startswith("Cancel an order")
    assert "shop/cancel_order" in message.content


async def test_bigtool_hooks_and_registry(shop_index: Any) -> None:
    shop, catalog, index = shop_index
    retrieve, aretrieve = make_retrieve_tools(lambda: index, k=2, environments=["test"])
    assert retrieve("place an order")[0] == "shop/create_order"
    assert await aretrieve("place an order") == retrieve("place an order")
    registry = tool_registry(catalog)
    assert set(registry) == set(catalog.tools)
    lookup = registry["shop/get_user_by_account"]
    assert lookup.invoke({"account_number": "123456"})["user_id"] == 1
    assert shop.calls["get_user_by_account"] == 1


SERVER = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    sys.path.insert(0, {repo!r})
    from graph.deps import Deps
    from graph.mcp_server import build_server
    from stores.catalog.enrich import enrich_catalog
    from stores.retrieval.index import ToolIndex
    from tests.fakes import HashingEmbedder
    from tests.shop_tools import Shop

    home = Path(os.environ["ZSPACE_HOME"])
    catalog = Shop(home / "shop.db").catalog()
    enrich_catalog(catalog)
    index = ToolIndex(home / "index", HashingEmbedder(), name="mcp")
    index.sync(catalog)
    build_server(Deps(catalog=catalog, index=index, home=home)).run("stdio")
    """
)


def _payload(result: Any) -> Any:
    assert not result.isError, result.content
    if result.structuredContent is not None:
        content = result.structuredContent
        return content.get("result", content)
    return json.loads(result.content[0].text)


async def test_zspace_over_mcp_stdio(tmp_path: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    script = tmp_path / "serve.py"
    script.write_text(SERVER.format(repo=str(REPO)))
    home = tmp_path / "home"
    home.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(script)],
        env={**os.environ, "ZSPACE_HOME": str(home), "ZSPACE_POSTGRES_URL": ""},
        cwd=str(tmp_path),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {tool.name for tool in (await session.list_tools()).tools}
        assert names == {"search_tools", "run_request", "resume_run"}

        found = _payload(await session.call_tool("search_tools", {"query": "place an order",
                                                                   "k": 3}))
        assert found[0]["tool_id"] == "shop/create_order" and len(found) == 3
        assert found[0]["description"]

        done = _payload(await session.call_tool(
            "run_request", {"request": "create an order for account 123456", "run_id": "mcp-1"}
        ))
        assert done["status"] == "done", done
        statuses = {c["tool_id"]: c["status"] for c in done["calls"]}
        assert statuses["shop/create_order"] == "ok" and set(statuses.values()) == {"ok"}

        asked = _payload(await session.call_tool(
            "run_request", {"request": "advance the order status to paid"}
        ))
        assert asked["status"] == "waiting for input" and "order_id" in asked["question"]
        resumed = _payload(await session.call_tool(
            "resume_run", {"thread_id": asked["thread_id"], "answer": "1"}
        ))
        assert resumed["status"] == "done"
        assert resumed["calls"][0]["status"] == "ok"
        assert "paid" in resumed["answer"]

        # A follow-up in the same thread refers to the earlier turn.
        follow = _payload(await session.call_tool(
            "run_request", {"request": "advance it to shipped", "thread_id": asked["thread_id"]}
        ))
        assert follow["status"] == "done" and follow["calls"][0]["status"] == "ok"
