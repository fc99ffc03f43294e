"""Arithmetic the catalog has a tool for is the tool's; without one it is answered directly.

With the local embedding model (the tool-fit gate reads meaning), over the sandbox catalog.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import build_graph
from graph.deps import Deps
from nodes.context import Context
from stores.catalog.enrich import enrich_catalog
from stores.retrieval.index import ToolIndex
from tests.shop_tools import Shop


def sum_numbers(numbers: list[float]) -> dict[str, float]:
    """Calculate the sum of a list of numbers."""
    return {"sum": sum(numbers)}


async def _run(tmp_path: Path, request: str, *, calculator: bool) -> tuple[dict[str, Any], Shop]:
    shop = Shop(tmp_path / "shop.db")
    catalog = shop.catalog()
    if calculator:
        catalog.register_function(sum_numbers, agent="calc", side_effect=False)
    enrich_catalog(catalog)
    embedder = Deps(home=tmp_path / "home").get_embedder()
    index = ToolIndex(tmp_path / "index", embedder, name="t")
    index.sync(catalog)
    deps = Deps(catalog=catalog, index=index, embedder=embedder, home=tmp_path / "home")
    graph = build_graph(deps).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "arithmetic"}}
    await graph.ainvoke({"request": request}, config, context=Context())
    return dict((await graph.aget_state(config)).values), shop


async def test_a_calculator_tool_does_the_sum_the_request_says(tmp_path: Path) -> None:
    state, _ = await _run(tmp_path, "What's 133 plus 34 plus 12?", calculator=True)
    [call] = state["plan"]
    assert call["tool_id"] == "calc/sum_numbers"
    assert call["args"]["numbers"]["value"] == [133, 34, 12]
    assert [r["output"] for r in state["results"].values()] == [{"sum": 179}]
    assert not state["gaps"]


async def test_without_a_calculator_the_sum_is_answered_and_nothing_is_called(
    tmp_path: Path,
) -> None:
    state, shop = await _run(tmp_path, "What's 133 plus 34 plus 12?", calculator=False)
    assert state["plan"] == [] and not state["results"]
    assert not state["gaps"]
    assert "133 + 34 + 12 = 179" in state["answer"]
    assert "Not done" not in state["answer"]
    assert shop.calls == {}
