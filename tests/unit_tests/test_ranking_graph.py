"""Agent evidence (every entry of an owner counts) and sibling boost, against a naive oracle."""

from pathlib import Path

import pytest

from stores.retrieval.index import Hit, ToolIndex
from stores.retrieval.ranking import (
    RankedTool,
    RetrievalConfig,
    aggregate_agents,
    rerank_tools,
    retrieve,
    tool_to_agent,
)
from tests.fakes import HashingEmbedder
from tests.unit_tests.test_index import make_catalog


@pytest.fixture
def index(tmp_path: Path) -> ToolIndex:
    made = ToolIndex(tmp_path / "index", HashingEmbedder(), name="t")
    made.sync(make_catalog())
    return made


def oracle(entities: list[Hit], index: ToolIndex, evidence: float, k: int) -> dict[str, float]:
    scores: dict[str, float] = {}
    for rank, hit in enumerate(entities, start=1):
        agent = index.entries[hit.entry_id].agent
        scores[agent] = scores.get(agent, 0.0) + (evidence if agent in scores else 1.0) / (k + rank)
    return scores


def test_without_evidence_the_order_is_tool_to_agent(index: ToolIndex) -> None:
    entities = [Hit(i, 1.0) for i in ("tool:weather/get_forecast", "agent:shop",
                                       "tool:shop/cancel_order", "tool:shop-prod/create_order")]
    plain = [a.agent for a in tool_to_agent(entities, index, 10)]
    assert [a.agent for a in aggregate_agents(entities, index, 10, 0.0, 3)] == plain


def test_an_owner_with_several_matching_entries_can_overtake(index: ToolIndex) -> None:
    entities = [Hit(i, 1.0) for i in ("tool:weather/get_forecast", "agent:shop",
                                       "tool:shop/cancel_order", "tool:shop/create_order")]
    ranked = aggregate_agents(entities, index, 10, 1.0, 1)
    expected = oracle(entities, index, 1.0, 1)
    assert [a.agent for a in ranked] == sorted(expected, key=lambda a: -expected[a])
    assert ranked[0].agent == "shop"
    for agent in ranked:
        assert agent.score == pytest.approx(expected[agent.agent])


def test_sibling_boost_lifts_tools_of_the_strongest_owner(index: ToolIndex) -> None:
    tools = [RankedTool("weather/get_forecast", "weather", 1.0),
             RankedTool("shop-prod/create_order", "shop-prod", 0.9),
             RankedTool("shop/cancel_order", "shop", 0.8)]
    from stores.retrieval.ranking import RankedAgent

    owners = [RankedAgent("shop", 1.0), RankedAgent("weather", 0.1)]
    assert [t.tool_id for t in rerank_tools(tools, owners, 0.0)] == [t.tool_id for t in tools]
    boosted = rerank_tools(tools, owners, 1.0)
    assert [t.tool_id for t in boosted][0] == "shop/cancel_order"
    # The oracle: 60 / (60 + rank) plus the boost times the owner's share of the best score.
    assert boosted[0].score == pytest.approx(60 / 63 + 1.0)


def test_the_config_switches_reach_retrieve(index: ToolIndex) -> None:
    plain = retrieve(index, "create an order", k_tools=4, k_agents=4)
    graph = retrieve(index, "create an order", k_tools=4, k_agents=4,
                     config=RetrievalConfig(agent_evidence=0.6, sibling_boost=1.0))
    assert {t.tool_id for t in graph.tools} == {t.tool_id for t in plain.tools}
    assert {a.agent for a in graph.agents} == {a.agent for a in plain.agents}
