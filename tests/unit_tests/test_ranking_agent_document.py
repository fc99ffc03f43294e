"""The agent's own document counts less than a tool in its owner's score (agent graph)."""

from pathlib import Path

import pytest

from stores.retrieval.index import Hit, ToolIndex
from stores.retrieval.ranking import RetrievalConfig, aggregate_agents, retrieve
from tests.fakes import HashingEmbedder
from tests.unit_tests.test_index import make_catalog


@pytest.fixture
def index(tmp_path: Path) -> ToolIndex:
    made = ToolIndex(tmp_path / "index", HashingEmbedder(), name="t")
    made.sync(make_catalog())
    return made


def oracle(entities: list[Hit], index: ToolIndex, document: float) -> dict[str, float]:
    """Each entry adds weight / (1 + rank); an agent document's weight is ``document``."""
    scores: dict[str, float] = {}
    for rank, hit in enumerate(entities, start=1):
        entry = index.entries[hit.entry_id]
        weight = document if entry.kind == "agent" else 1.0
        scores[entry.agent] = scores.get(entry.agent, 0.0) + weight / (1 + rank)
    return scores


def test_a_matching_tool_outranks_a_matching_agent_document(index: ToolIndex) -> None:
    # The shop's own document ranks first, the weather tool second: in full the document
    # wins (1/2 > 1/3); weighted 0.6 the tool does (0.3 < 1/3).
    entities = [Hit("agent:shop", 1.0), Hit("tool:weather/get_forecast", 0.9)]
    full = aggregate_agents(entities, index, 10, 1.0, 1)
    assert [a.agent for a in full] == ["shop", "weather"]
    weighted = aggregate_agents(entities, index, 10, 1.0, 1, agent_document=0.6)
    assert [a.agent for a in weighted] == ["weather", "shop"]
    expected = oracle(entities, index, 0.6)
    for agent in weighted:
        assert agent.score == pytest.approx(expected[agent.agent])


def test_the_default_weighs_the_agent_document_below_a_tool() -> None:
    assert 0.0 < RetrievalConfig().agent_document_weight < 1.0


def test_the_weight_reaches_retrieve(index: ToolIndex) -> None:
    config = RetrievalConfig(stepwise=False, name_boost=0.0, lookalike_threshold=1.0)
    full = retrieve(index, "shop orders", k_agents=4,
                    config=RetrievalConfig(**{**config.__dict__, "agent_document_weight": 1.0}))
    none = retrieve(index, "shop orders", k_agents=4,
                    config=RetrievalConfig(**{**config.__dict__, "agent_document_weight": 0.0}))
    def scores(result: object) -> dict[str, float]:
        return {a.agent: a.score for a in result.agents}  # type: ignore[attr-defined]
    expected_full = oracle(full.entities, index, 1.0)
    expected_none = oracle(none.entities, index, 0.0)
    for agent, score in scores(full).items():
        assert score == pytest.approx(expected_full[agent])
    for agent, score in scores(none).items():
        assert score == pytest.approx(expected_none[agent])
