"""Step fusion: steps weighted by their BM25 head, step winners the whole query corroborates."""

from pathlib import Path
from typing import Any

import pytest

from stores.catalog.model import Catalog
from stores.retrieval import ranking
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import RetrievalConfig, retrieve
from stores.retrieval.steps import fuse_step_rankings, step_weights
from tests.fakes import HashingEmbedder


def test_a_step_weighs_its_bm25_head_over_the_best_steps() -> None:
    assert step_weights([8.0, 2.0, 4.0], 0.5) == pytest.approx([1.0, 0.5, 0.5**0.5])
    assert step_weights([8.0, 2.0], 1.0) == pytest.approx([1.0, 0.25])
    # Power 0, or no lexical score at all (dense-only ranking): every step weighs 1.
    assert step_weights([8.0, 2.0], 0.0) == [1.0, 1.0]
    assert step_weights([0.0, 0.0], 0.5) == [1.0, 1.0]
    assert step_weights([], 0.5) == []


def test_weighted_and_corroborated_step_fusion_against_a_naive_sum() -> None:
    whole = ["a", "b", "c"]
    steps = [["d", "c", "a"], ["e", "b"]]
    k, weights, lift = 0.5, [1.0, 0.25], 0.5
    fused = fuse_step_rankings(whole, steps, depth=2, k=k, weights=weights, corroboration=lift)
    expected = {
        "a": 1 / (k + 1),  # third in the first step: beyond depth 2
        "b": 1 / (k + 2) + 0.25 * 1.5 / (k + 2),
        "c": 1 / (k + 3) + 1.0 * 1.5 / (k + 2),
        "d": 1.0 / (k + 1),  # not in the whole query's ranking: no lift
        "e": 0.25 / (k + 1),
    }
    assert dict(fused) == pytest.approx(expected)
    assert [item for item, _ in fused] == sorted(expected, key=lambda i: -expected[i])
    # Without weights and lift it is plain reciprocal rank fusion.
    plain = fuse_step_rankings(whole, steps, depth=2, k=1.0)
    assert dict(plain)["c"] == pytest.approx(1 / 4 + 1 / 3)


def _catalog() -> Catalog:
    document: dict[str, list[dict[str, object]]] = {"agents": [], "tools": []}
    for agent, tool, description in (
        ("meteo", "forecast", "Weather forecast of a city for the next days."),
        ("fx", "convert_currency", "Convert an amount of money from one currency to another."),
        ("maps", "route", "Driving route between two addresses."),
    ):
        document["agents"].append({"id": agent, "name": agent, "description": description})
        document["tools"].append(
            {"name": tool, "agent": agent, "description": description,
             "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}}}
        )
    catalog = Catalog()
    catalog.load_document(document, source="test")
    return catalog


def test_retrieve_fuses_steps_with_head_weights_and_corroboration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = ToolIndex(tmp_path / "index", HashingEmbedder(dim=256), name="fusion")
    index.sync(_catalog())
    seen: list[dict[str, Any]] = []
    real = ranking.fuse_step_rankings

    def spy(*args: Any) -> list[tuple[str, float]]:
        seen.append({"k": args[3], "weights": args[4], "corroboration": args[5]})
        return real(*args)

    monkeypatch.setattr(ranking, "fuse_step_rankings", spy)
    query = "I need the weather forecast for Paris. Please could you help me with this?"
    retrieve(index, query)
    config = RetrievalConfig()
    assert seen and seen[0]["k"] == config.step_rrf_k == 0.5
    assert seen[0]["corroboration"] == config.step_corroboration == 0.5
    weights = seen[0]["weights"]
    # The step that names something (weather, forecast, Paris) weighs 1; the generic one less.
    assert weights[0] == pytest.approx(1.0) and 0.0 <= weights[1] < 1.0
