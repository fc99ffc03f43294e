"""Objects and arrays of objects bound from a request; a write never falls to a worse writer.

Before: "create an entity Alice of type person" could not fill ``create_entities(entities:
[{name, entityType, observations}])`` of the memory server, and the planner ran the
sandbox's ``create_user`` instead: an unrequested write on another system.
"""

from __future__ import annotations

from typing import Any

from nodes.context import Context
from nodes.parsing.rules import RuleIntentParser
from nodes.planning.draft import PlanDraft, PlanRequest
from nodes.planning.rules import RulePlanner
from nodes.planning.schema_binder import bind_schema
from stores.catalog.depgraph import ToolDependencyGraph
from stores.catalog.model import Catalog
from stores.language.lexicon import Lexicon

ENTITY = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "The name of the entity"},
        "entityType": {"type": "string", "description": "The type of the entity"},
        "observations": {"type": "array", "items": {"type": "string"},
                         "description": "An array of observation contents associated with "
                                        "the entity"},
    },
    "required": ["name", "entityType", "observations"],
}


def entities_schema(item: dict[str, Any] = ENTITY) -> dict[str, Any]:
    return {"type": "object", "properties": {"entities": {"type": "array", "items": item}},
            "required": ["entities"]}


def test_an_array_of_objects_is_built_from_the_request() -> None:
    binding = bind_schema("create an entity Alice of type person", entities_schema())
    assert binding.missing == []
    assert binding.sets == [{"entities": [
        {"name": "Alice", "entityType": "person", "observations": []}]}]


def test_the_order_of_the_properties_does_not_matter() -> None:
    # The catalog stores schemas with sorted keys: entityType comes before name.
    item = {**ENTITY, "properties": dict(sorted(ENTITY["properties"].items()))}
    binding = bind_schema("create an entity Alice of type person", entities_schema(item))
    assert binding.sets == [{"entities": [
        {"entityType": "person", "name": "Alice", "observations": []}]}]
    binding = bind_schema("create an entity named Alice of type person", entities_schema(item))
    assert binding.sets[0]["entities"][0]["name"] == "Alice"


def test_a_quoted_observation_fills_the_array_property() -> None:
    binding = bind_schema(
        'create an entity Alice of type person with observation "likes tea"', entities_schema())
    [entity] = binding.sets[0]["entities"]
    assert entity == {"name": "Alice", "entityType": "person", "observations": ["likes tea"]}


def test_a_required_array_that_must_not_be_empty_is_asked_for() -> None:
    item = {**ENTITY, "properties": {**ENTITY["properties"], "observations": {
        "type": "array", "items": {"type": "string"}, "minItems": 1}}}
    binding = bind_schema("create an entity Alice of type person", entities_schema(item))
    assert binding.missing == ["entities"]


def test_nothing_said_builds_no_object() -> None:
    assert bind_schema("read the knowledge graph", entities_schema()).missing == ["entities"]


def test_a_required_object_parameter_is_built_too() -> None:
    schema = {"type": "object", "properties": {"entity": ENTITY}, "required": ["entity"]}
    binding = bind_schema("create an entity Alice of type person", schema)
    assert binding.sets == [{"entity": {"name": "Alice", "entityType": "person",
                                        "observations": []}}]


# ------------------------------------------------------------ a write never falls through
USER = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def plan(request: str, entity_item: dict[str, Any]) -> PlanDraft:
    """The memory server's writer first in retrieval, the shop's user writer next."""
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": "create_entities", "agent": "memory", "side_effect": True, "environment": "test",
         "description": "Create multiple new entities in the knowledge graph",
         "input_schema": entities_schema(entity_item)}, source="memory")
    catalog.add_raw_tool(
        {"name": "create_user", "agent": "shop", "side_effect": True, "environment": "test",
         "description": "Create a test user with a name", "input_schema": USER}, source="shop")
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse(request)
    candidates = {
        sub["id"]: [{"tool_id": tool_id, "agent": tool_id.split("/")[0], "score": 1.0,
                     "call_name": ""} for tool_id in ("memory/create_entities", "shop/create_user")]
        for sub in intent["sub_intents"]
    }
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context())
    return planner.plan(PlanRequest(intent=intent, candidates=candidates, retrieval_rounds=9))


def test_the_entity_is_created_by_the_memory_server() -> None:
    draft = plan("create an entity Alice of type person", ENTITY)
    [call] = draft.calls
    assert call["tool_id"] == "memory/create_entities"
    assert call["args"]["entities"]["value"] == [
        {"name": "Alice", "entityType": "person", "observations": []}]


def test_a_writer_that_cannot_be_bound_is_asked_about_not_replaced_by_another_server() -> None:
    # The memory server's writer fits the request best but wants observations nobody gave:
    # the plan asks for them; the shop's create_user (which binds "Alice") is never planned.
    item = {**ENTITY, "properties": {**ENTITY["properties"], "observations": {
        "type": "array", "items": {"type": "string"}, "minItems": 1}}}
    draft = plan("create an entity Alice of type person", item)
    assert draft.calls == []
    assert draft.question is not None and draft.question["tool_id"] == "memory/create_entities"


def test_an_untagged_servers_writer_that_fits_is_explained_not_replaced() -> None:
    # The memory server has no environment tag: its writer is refused, and the shop's
    # create_user (callable, named by the lexicon's "person" = user) must not run instead.
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": "create_entities", "agent": "memory", "side_effect": True,
         "description": "Create multiple new entities in the knowledge graph",
         "input_schema": entities_schema()}, source="mcp:memory")
    catalog.add_raw_tool(
        {"name": "create_user", "agent": "shop", "side_effect": True, "environment": "test",
         "description": "Create a test user with a name", "input_schema": USER}, source="shop")
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse("create an entity Carol of type person")
    sub = intent["sub_intents"][0]["id"]

    def candidate(tool_id: str) -> Any:
        return {"tool_id": tool_id, "agent": tool_id.split("/")[0], "score": 1.0,
                "call_name": ""}

    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context())
    draft = planner.plan(PlanRequest(
        intent=intent, candidates={sub: [candidate("shop/create_user")]},
        policy_refused={sub: [candidate("memory/create_entities")]}, retrieval_rounds=9))
    assert draft.calls == []
    [gap] = draft.gaps
    assert "memory/create_entities" in gap and '"environment": "test"' in gap
