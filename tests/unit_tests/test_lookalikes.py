"""Look-alike providers: the named agent is lifted, near-duplicate agents are ranked once."""

from pathlib import Path

import numpy as np
import pytest

from stores.catalog.model import Catalog
from stores.retrieval.index import ToolIndex
from stores.retrieval.lookalikes import (
    AgentNames,
    boost_named_agents,
    group_lookalikes,
    rank_lookalikes,
)
from stores.retrieval.ranking import RetrievalConfig, retrieve
from tests.fakes import HashingEmbedder

OFF = RetrievalConfig(name_boost=0.0, lookalike_threshold=1.0)


def test_name_coverage_weighs_rare_words_and_ignores_words_every_name_has() -> None:
    names = AgentNames.build(
        {"kick": ["kick", "api"], "clone": ["smart", "kick", "pro", "api"], "w": ["weather", "api"]}
    )
    assert names.weight["api"] == 0.0
    query = frozenset({"clip", "kick"})
    assert names.coverage("kick", query) == pytest.approx(1.0)
    assert 0.0 < names.coverage("clone", query) < 1.0
    assert names.coverage("w", query) == 0.0
    assert names.coverage("unknown", query) == 0.0


def test_the_agent_the_query_names_is_lifted() -> None:
    names = AgentNames.build({"kick": ["kick"], "twitch": ["twitch"], "w": ["weather"]})
    scores = [("twitch", 1.0), ("kick", 0.9), ("w", 0.5)]
    lifted = boost_named_agents(scores, names, frozenset({"kick", "clip"}), 0.5)
    assert [agent for agent, _ in lifted] == ["kick", "twitch", "w"]
    assert dict(lifted)["kick"] == pytest.approx(0.9 * 1.5)
    assert boost_named_agents(scores, names, frozenset({"kick"}), 0.0) == scores


def test_near_duplicate_vectors_share_a_group_and_distinct_ones_do_not() -> None:
    base = np.array([1.0, 0.0, 0.0])
    vectors = {
        "a": base,
        "a-copy": np.array([0.95, 0.1, 0.0]),
        "b": np.array([0.0, 1.0, 0.0]),
        "b-copy": np.array([0.05, 2.0, 0.0]),  # not normalized: similarity is cosine
    }
    groups = group_lookalikes(["a", "b", "a-copy", "no-vector", "b-copy"], vectors, 0.9)
    assert groups[0] == groups[2]
    assert groups[1] == groups[4]
    assert len({groups[0], groups[1], groups[3]}) == 3


def test_a_group_keeps_one_place_and_its_best_evidenced_member_takes_it() -> None:
    agents = ["clone", "original", "other1", "other2", "other3"]
    groups = [0, 0, 1, 2, 3]
    evidence = {"clone": 1.0, "original": 3.0}
    order = rank_lookalikes(agents, groups, lambda a: evidence.get(a, 0.0), demotion=2)
    assert order == ["original", "other1", "other2", "clone", "other3"]
    assert rank_lookalikes(agents, groups, lambda a: 0.0, demotion=0) == agents


def _lookalike_catalog() -> Catalog:
    def tools(agent: str) -> list[dict[str, object]]:
        return [
            {
                "name": name,
                "agent": agent,
                "description": description,
                "input_schema": {"type": "object", "properties": {"channel": {"type": "string"}}},
            }
            for name, description in [
                ("get_channel_clips", "Returns the video clips of a streaming channel."),
                ("get_channel_details", "Returns the details of a streaming channel."),
            ]
        ]

    agents = [
        {"id": "kick", "name": "Kick", "description": "The Kick streaming site."},
        {"id": "smart_kick_pro", "name": "Smart Kick Pro", "description": "Streaming site."},
        {"id": "open_kick_hub", "name": "Open Kick Hub", "description": "Streaming site."},
        {"id": "clipper", "name": "Clipper", "description": "Short video clips of streams."},
    ]
    document: dict[str, list[dict[str, object]]] = {"agents": list(agents), "tools": []}
    for agent in agents[:3]:
        document["tools"].extend(tools(str(agent["id"])))
    document["tools"].append(
        {
            "name": "stream_clips",
            "agent": "clipper",
            "description": "Finds short clips of a live stream.",
            "input_schema": {"type": "object", "properties": {}},
        }
    )
    catalog = Catalog()
    catalog.load_document(document, source="test")
    return catalog


@pytest.fixture
def lookalike_index(tmp_path: Path) -> ToolIndex:
    made = ToolIndex(tmp_path / "index", HashingEmbedder(dim=256), name="lookalikes")
    made.sync(_lookalike_catalog())
    return made


def test_retrieve_ranks_look_alike_providers_once(lookalike_index: ToolIndex) -> None:
    query = "video clips of a streaming channel"
    kick_group = {"kick", "smart_kick_pro", "open_kick_hub"}
    before = [a.agent for a in retrieve(lookalike_index, query, k_agents=2, config=OFF).agents]
    assert set(before) <= kick_group
    after = [a.agent for a in retrieve(lookalike_index, query, k_agents=2).agents]
    assert after[0] in kick_group
    assert after[1] == "clipper"


def test_retrieve_puts_the_named_provider_first_among_its_look_alikes(
    lookalike_index: ToolIndex,
) -> None:
    query = "video clips of a streaming channel on Kick"
    ranked = [a.agent for a in retrieve(lookalike_index, query, k_agents=4).agents]
    assert ranked[0] == "kick"
    assert set(ranked[1:3]) & {"clipper"}
    off = {a.agent: a.score for a in retrieve(lookalike_index, query, k_agents=4, config=OFF).agents}
    named_only = RetrievalConfig(lookalike_threshold=1.0)
    lifted = {
        a.agent: a.score
        for a in retrieve(lookalike_index, query, k_agents=4, config=named_only).agents
    }
    assert lifted["kick"] == pytest.approx(off["kick"] * (1 + named_only.name_boost))
    assert off["open_kick_hub"] < lifted["open_kick_hub"] < off["open_kick_hub"] * 1.5
    assert lifted["clipper"] == pytest.approx(off["clipper"])
