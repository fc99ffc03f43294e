"""Plain requests over the sandbox catalog plus a tool of the user's, with the local embedding
model (the tool-fit gate reads meaning): arithmetic a tool can do is the tool's, without one it
is answered directly; a Chinese request no cue word reads goes through its English gloss.
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


def convert_currency(from_currency: str, to_currency: str) -> dict[str, str]:
    """Convert money from one currency to another (ISO codes, e.g. USD)."""
    return {"from": from_currency, "to": to_currency}


def get_forecast(days: int) -> dict[str, int]:
    """Get the weather forecast for the next few days."""
    return {"days": days}


def get_current_weather(location: str) -> dict[str, str]:
    """Get the current weather in a given city."""
    return {"location": location, "sky": "clear"}


async def _run(
    tmp_path: Path, request: str, *, calculator: bool = False, weather: bool = False,
    converter: bool = False, forecast: bool = False,
) -> tuple[dict[str, Any], Shop]:
    shop = Shop(tmp_path / "shop.db")
    catalog = shop.catalog()
    if calculator:
        catalog.register_function(sum_numbers, agent="calc", side_effect=False)
    if weather:
        catalog.register_function(get_current_weather, agent="weather", side_effect=False)
    if converter:
        catalog.register_function(convert_currency, agent="fx", side_effect=False)
    if forecast:
        catalog.register_function(get_forecast, agent="forecast", side_effect=False)
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


async def test_a_chinese_weather_question_is_read_through_its_gloss(tmp_path: Path) -> None:
    state, shop = await _run(tmp_path, "北京今天的天气怎么样？", weather=True)
    [call] = state["plan"]
    assert call["tool_id"] == "weather/get_current_weather"
    assert call["args"]["location"]["value"] == "Beijing"
    assert "English gloss" in state["intent"]["parser"]
    assert shop.calls == {}


async def test_a_request_about_a_tool_without_its_value_asks_for_it(tmp_path: Path) -> None:
    # The lexicon knows neither "weather" nor a verb here, but the request says what the
    # tool is about: the user is asked for the city rather than told nothing fits.
    state, shop = await _run(tmp_path, "What's the weather like?", weather=True)
    assert state["plan"] == [] and not state["results"]
    question = state["pending_question"]
    assert question["tool_id"] == "weather/get_current_weather"
    assert question["param"] == "location"
    assert shop.calls == {}


async def test_such_a_question_never_stops_what_the_other_clauses_do(tmp_path: Path) -> None:
    state, _ = await _run(tmp_path, "What's the forecast like? And convert EUR to USD for me.",
                          converter=True, forecast=True)
    assert state["pending_question"] is None
    assert {"from": "EUR", "to": "USD"} in [r["output"] for r in state["results"].values()]
