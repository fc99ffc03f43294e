"""A write refused by the environment policy is stated with the one line of config that allows it.

The best-fitting tool of an untagged MCP server may only read: the run does not fall back to
another writer nor say "no tool fits"; it names the tool, the server and the config line, and
its status is not done.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage

from graph.streaming import RunOutcome
from nodes.context import Context
from nodes.plan import plan
from stores.catalog.enrich import enrich_catalog
from stores.catalog.model import DEFINITION_HASH_KEY
from tests.unit_tests.test_model_planner import ToolCallingFake
from tests.unit_tests.test_pipeline import DEMO, World, chain

NOTE_SCHEMA = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}


@pytest.fixture
def world(tmp_path: Path) -> World:
    world = World(tmp_path)
    world.catalog.load_document(
        {"tools": [{
            "name": "write_note",
            "agent": "notes",
            "description": "Write a note with the given text to the notebook.",
            "input_schema": NOTE_SCHEMA,
            # Listed over MCP: the server's entry of the MCP config is where the fix goes.
            "annotations": {DEFINITION_HASH_KEY: "0" * 64},
        }]},
        source="mcp:notes",
    )
    enrich_catalog(world.catalog)
    world.index.sync(world.catalog)
    return world


async def test_the_answer_names_the_server_and_the_config_line(world: World) -> None:
    state, _ = await world.run({"request": "write a note saying hello"}, "env-refused")
    assert not state.get("results"), "nothing may be called in place of the refused tool"
    [gap] = state["gaps"]
    assert "notes/write_note" in gap and "environment policy" in gap
    assert "server 'notes' has no environment tag" in gap
    assert 'add "environment": "test" to the "notes" entry of your MCP config' in gap
    assert gap in state["answer"]
    assert RunOutcome("env-refused", state).status == "failed"


async def test_a_production_twin_never_displaces_the_test_tool(world: World) -> None:
    state, _ = await world.run({"request": DEMO}, "env-twin")
    assert "shop/create_order" in chain(state) and not state["gaps"]


async def test_the_model_path_names_the_refused_tool_too(world: World) -> None:
    # The retrieval of a rules run, then a model that answers in text without a call: the
    # model never saw the refused tool, so the plan says why it is not there.
    state, _ = await world.run({"request": "write a note saying hello"}, "env-model")
    assert [c["tool_id"] for c in state["policy_refused"]["s1"]][:1] == ["notes/write_note"]
    model = ToolCallingFake([AIMessage(content="I have no tool to write notes.")])
    update = await plan(
        {**state, "plan": [], "gaps": [], "results": {}, "planner_transcript": []},
        SimpleNamespace(context=Context(model="scripted")),
        planner_factory=lambda context: None,  # type: ignore[arg-type,return-value]
        chat_model_factory=lambda context: model,
        catalog_factory=lambda: world.catalog,
    )
    assert update["planner_done"] and update["model_answer"] == "I have no tool to write notes."
    [gap] = update["gaps"]
    assert "notes/write_note" in gap and 'add "environment": "test" to the "notes" entry' in gap
