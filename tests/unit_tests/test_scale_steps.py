"""Step-wise querying: sentences of a query ranked alone and fused with the whole query."""

from pathlib import Path

import pytest

from stores.catalog.model import Catalog
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import RetrievalConfig, retrieve
from stores.retrieval.steps import fuse_step_rankings, split_steps
from tests.fakes import HashingEmbedder


def test_a_query_splits_into_its_sentences_and_one_sentence_stays_whole() -> None:
    assert split_steps("Get the score of game 12. Additionally, list the players!  Thanks") == [
        "Get the score of game 12.",
        "Additionally, list the players! Thanks",
    ]
    # Fewer than three words is no step: a greeting, or terms appended after a question.
    assert split_steps("Hi! Get the score of game 12. Then list its players.") == [
        "Hi! Get the score of game 12.",
        "Then list its players.",
    ]
    assert split_steps("Where is the delivery for order 7? get") == [
        "Where is the delivery for order 7? get"
    ]
    assert split_steps("Open report.docx, e.g. the one from 2.5 weeks ago.") == [
        "Open report.docx, e.g. the one from 2.5 weeks ago."
    ]
    assert split_steps("weather in Paris") == ["weather in Paris"]
    assert split_steps("Is it raining? ...") == ["Is it raining? ..."]


def test_step_rankings_fuse_by_reciprocal_rank_against_a_naive_sum() -> None:
    whole = ["a", "b", "c", "d"]
    steps = [["c", "e", "a"], ["f", "a"]]
    fused = fuse_step_rankings(whole, steps, depth=2, k=1.0)
    expected = {
        "a": 1 / 2 + 1 / 3,
        "b": 1 / 3,
        "c": 1 / 4 + 1 / 2,
        "d": 1 / 5,
        "e": 1 / 3,
        "f": 1 / 2,
    }
    assert [item for item, _ in fused] == ["a", "c", "f", "b", "e", "d"]
    assert dict(fused) == pytest.approx(expected)


def _two_needs_catalog() -> Catalog:
    weather = [
        ("forecast", "Weather forecast of a city for the next days."),
        ("current_weather", "Current weather of a city: temperature, wind and rain."),
        ("weather_history", "Past weather of a city, day by day."),
    ]
    document: dict[str, list[dict[str, object]]] = {"agents": [], "tools": []}
    for provider in ("meteo", "skycast", "weatherly", "climate_now"):
        document["agents"].append({"id": provider, "name": provider, "description": "Weather."})
        for name, description in weather:
            document["tools"].append(
                {"name": name, "agent": provider, "description": description,
                 "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
            )
    document["agents"].append(
        {"id": "fx", "name": "fx", "description": "Exchange rates between currencies."}
    )
    document["tools"].append(
        {"name": "convert_currency", "agent": "fx",
         "description": "Convert an amount of money from one currency to another.",
         "input_schema": {"type": "object", "properties": {"amount": {"type": "number"}}}}
    )
    catalog = Catalog()
    catalog.load_document(document, source="test")
    return catalog


def test_each_sentence_brings_its_own_provider_into_the_agent_ranking(tmp_path: Path) -> None:
    index = ToolIndex(tmp_path / "index", HashingEmbedder(dim=256), name="steps")
    index.sync(_two_needs_catalog())
    query = (
        "I need the weather forecast for Paris this week, the current weather and the "
        "weather history of the city. Additionally, convert 10 dollars to euros."
    )
    whole_only = RetrievalConfig(stepwise=False)
    before = [a.agent for a in retrieve(index, query, k_agents=3, config=whole_only).agents]
    assert "fx" not in before
    after = [a.agent for a in retrieve(index, query, k_agents=3).agents]
    assert "fx" in after
    single = "weather forecast for Paris and convert dollars to euros"
    assert [a.agent for a in retrieve(index, single, k_agents=5).agents] == [
        a.agent for a in retrieve(index, single, k_agents=5, config=whole_only).agents
    ]
