"""A query on a reopened index reads only the entry rows and agent names it ranks.

At 100k tools reading the whole entry table (1.3 s CPU) and every agent's name tokens (0.7 s)
was most of `zspace search`'s start-up: both are read by id as the ranking asks for them,
and the agent names' word weights are stored with the table's generation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stores.retrieval import index as index_module
from stores.retrieval.entries import EntryTable
from stores.retrieval.index import ToolIndex
from stores.retrieval.ranking import RetrievalConfig, retrieve
from tests.fakes import HashingEmbedder
from tests.unit_tests.test_index import make_catalog


def _forbidden(*_: Any, **__: Any) -> Any:
    raise AssertionError("a query must not read the whole table or tokenize every name")


QUERY = "weather forecast for a city"


def _ranking(index: ToolIndex, environments: list[str] | None) -> tuple[Any, ...]:
    result = retrieve(
        index, QUERY, config=RetrievalConfig(),
        environments=environments,
    )
    return (
        [(tool.tool_id, round(tool.score, 9)) for tool in result.tools],
        [(agent.agent, round(agent.score, 9)) for agent in result.agents],
    )


@pytest.mark.parametrize("environments", [None, ["test"]])
def test_a_reopened_index_ranks_the_same_reading_rows_by_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, environments: list[str] | None
) -> None:
    catalog = make_catalog()
    first = ToolIndex(tmp_path, HashingEmbedder(), name="t")
    first.sync(catalog)
    expected = _ranking(first, environments)  # builds and stores the agent names' weights
    names = first.agent_names()
    reopened = ToolIndex(tmp_path, HashingEmbedder(), name="t")
    real_tokens = index_module.lexical_tokens

    def query_only(text: str) -> list[str]:
        assert text == QUERY, f"tokenized {text!r}: only the query is"
        return real_tokens(text)

    with monkeypatch.context() as patch:
        patch.setattr(EntryTable, "load", _forbidden)
        patch.setattr(index_module, "lexical_tokens", query_only)
        patch.setattr(index_module.AgentNames, "build", _forbidden)
        assert _ranking(reopened, environments) == expected
        lazy = reopened.agent_names()
        assert lazy.weight == names.weight
        assert {agent: lazy.tokens[agent] for agent in names.tokens} == dict(names.tokens)
    assert len(reopened.entries) == len(first.entries) and dict(reopened.entries) == dict(
        first.entries
    )
    assert "tool:nowhere/none" not in reopened.entries
