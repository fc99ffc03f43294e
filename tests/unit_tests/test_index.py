from pathlib import Path

import pytest

from stores.catalog.model import Catalog
from stores.execution.policy import environment_allows
from stores.retrieval.fsww import FSWWParams
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import RetrievalConfig, retrieve
from tests.fakes import HashingEmbedder

SCHEMA = {"type": "object", "properties": {}}


def make_catalog() -> Catalog:
    catalog = Catalog()
    catalog.load_document(
        {
            "agents": [
                {"id": "shop", "name": "shop", "description": "orders and products"},
                {"id": "weather", "name": "weather", "description": "forecasts"},
            ],
            "tools": [
                {
                    "name": "create_order",
                    "agent": "shop",
                    "description": "create an order for a user",
                    "input_schema": SCHEMA,
                    "environment": "test",
                    "entity_tags": ["order"],
                    "capability_tags": ["create"],
                },
                {
                    "name": "create_order",
                    "agent": "shop-prod",
                    "description": "create an order for a user",
                    "input_schema": SCHEMA,
                    "environment": "prod",
                },
                {
                    "name": "get_forecast",
                    "agent": "weather",
                    "description": "weather forecast for a city",
                    "input_schema": SCHEMA,
                },
                {
                    "name": "cancel_order",
                    "agent": "shop",
                    "description": "cancel an order",
                    "input_schema": SCHEMA,
                    "environment": "test",
                },
            ],
        },
        source="test",
    )
    return catalog


@pytest.fixture
def index(tmp_path: Path) -> ToolIndex:
    return ToolIndex(tmp_path / "index", HashingEmbedder(), name="t")


def test_sync_is_incremental(tmp_path: Path, index: ToolIndex) -> None:
    catalog = make_catalog()
    first = index.sync(catalog)
    assert (first.indexed, first.unchanged, first.removed) == (7, 0, 0)
    assert (first.tools, first.agents) == (4, 3)
    again = index.sync(catalog)
    assert (again.indexed, again.unchanged, again.removed) == (0, 7, 0)
    catalog.tools["weather/get_forecast"].description = "weather forecast for any city"
    changed = index.sync(catalog)
    assert (changed.indexed, changed.unchanged) == (1, 6)
    del catalog.tools["shop/cancel_order"]
    removed = index.sync(catalog)
    # The owner's entry lists its tools' names, so it is embedded again too.
    assert (removed.indexed, removed.removed) == (1, 1)
    reopened = ToolIndex(tmp_path / "index", HashingEmbedder(), name="t")
    assert len(reopened) == 6
    assert reopened.sync(catalog).indexed == 0


def test_index_side_fsww_parameters_are_part_of_the_key(tmp_path: Path) -> None:
    catalog = make_catalog()
    plain = ToolIndex(tmp_path / "i", HashingEmbedder(), name="t")
    plain.sync(catalog)
    fused = ToolIndex(tmp_path / "i", HashingEmbedder(), name="t", index_fsww=FSWWParams())
    assert fused.sync(catalog).indexed == 7
    other = ToolIndex(tmp_path / "i", HashingEmbedder(), name="t", index_fsww=FSWWParams(alpha=0.3))
    assert other.sync(catalog).indexed == 7


def test_a_new_embedder_reembeds_everything(tmp_path: Path) -> None:
    catalog = make_catalog()
    ToolIndex(tmp_path / "i", HashingEmbedder(name="a"), name="t").sync(catalog)
    assert ToolIndex(tmp_path / "i", HashingEmbedder(name="b"), name="t").sync(catalog).indexed == 7


def test_environment_allow_list_filters_dense_and_lexical(index: ToolIndex) -> None:
    index.sync(make_catalog())
    for method in ("dense", "bm25", "hybrid", "hierarchical"):
        result = retrieve(
            index,
            "create an order",
            k_tools=10,
            k_agents=10,
            config=RetrievalConfig(method=method),
            environments=["test"],
        )  # type: ignore[arg-type]
        ids = [t.tool_id for t in result.tools]
        assert "shop-prod/create_order" not in ids, method
        assert "shop/create_order" in ids, method
    everything = retrieve(
        index, "create an order", k_tools=10, config=RetrievalConfig(method="bm25")
    )
    assert "shop-prod/create_order" in [t.tool_id for t in everything.tools]


def test_tool_to_agent_maps_tools_to_owners_uniquely(index: ToolIndex) -> None:
    index.sync(make_catalog())
    result = retrieve(
        index,
        "create order cancel order",
        k_tools=5,
        k_agents=5,
        config=RetrievalConfig(method="bm25"),
    )
    agents = [a.agent for a in result.agents]
    assert len(agents) == len(set(agents))
    assert agents[0] in {"shop", "shop-prod"}
    scoped = retrieve(index, "forecasts", config=RetrievalConfig(method="bm25", scope="agents"))
    assert [a.agent for a in scoped.agents][:1] == ["weather"]


def test_the_index_filters_by_the_policy_environment_rule(index: ToolIndex) -> None:
    """The index asks ``environment_allows`` (one rule): an untagged writer is no candidate.

    Dense search is also forced onto its Chroma ``where`` path (an oversample too small to
    hold k allowed entries), which must keep exactly what the rule allows.
    """
    catalog = make_catalog()
    catalog.load_document(
        {
            "tools": [
                {"name": "create_order_v0", "agent": "legacy", "side_effect": True,
                 "description": "create an order for a user (old API)", "input_schema": SCHEMA},
                {"name": "order_lookup", "agent": "legacy", "side_effect": False,
                 "description": "look an order up", "input_schema": SCHEMA},
            ]
        },
        source="test",
    )
    index.sync(catalog)
    allowed = ["test"]
    expected = {
        spec.id
        for spec in catalog.tools.values()
        if environment_allows(spec.environment, spec.side_effect is not False, allowed)
    }
    assert expected == {"shop/create_order", "shop/cancel_order", "legacy/order_lookup"}
    for method in ("dense", "bm25", "hybrid", "hierarchical"):
        result = retrieve(index, "create an order", k_tools=10, k_agents=10,
                          config=RetrievalConfig(method=method), environments=allowed)  # type: ignore[arg-type]
        assert {t.tool_id for t in result.tools} <= expected, method
    vector = index.embedder.embed(["create an order"])[0]
    filtered = index._query(vector, len(index), index.environment_where(allowed))
    assert {index.entries[h.entry_id].ref for h in filtered if h.entry_id.startswith("tool:")} == (
        expected
    )
    # An index written when unknown side effects were stored as reads is relabelled by the
    # next sync, without embedding anything again.
    stale = {**index._collection.get(ids=["tool:weather/get_forecast"])["metadatas"][0],
             "side_effect": False}
    index._collection.update(ids=["tool:weather/get_forecast"], metadatas=[stale])
    index._table.clear()  # an older home: no entry table, Chroma's metadata decides
    assert index.sync(catalog).indexed == 0
    assert index._table.count() == len(index)
    refiltered = index._query(vector, len(index), index.environment_where(allowed))
    assert "tool:weather/get_forecast" not in {h.entry_id for h in refiltered}
