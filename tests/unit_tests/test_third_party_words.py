"""Words of servers written by others, read for what they say and not for the shop's meaning.

Written here (no benchmark): the filesystem and memory servers' own descriptions ("Returns the
list of directories", "provides detailed error messages") derive no shop tags; "open the
file" reads and "open a shop" creates; a request that names the server ("in memory") shares
a word with every tool of it; "the local time in Mumbai" gives no time zone named "local";
"a person named Carol", "that Alice works at Acme" and "that Bob likes coffee" build the
objects a knowledge graph's tools take.
"""

from __future__ import annotations

from typing import Any

from nodes.planning.bound_choices import consumed_values
from nodes.planning.relevance import names_the_server
from nodes.planning.schema_binder import bind_schema
from nodes.retrieve import query_for
from nodes.state import PlannedCall
from stores.catalog.enrich import derive_tags
from stores.catalog.model import ToolSpec
from stores.language.keywords import tokenize
from stores.language.lexicon import Lexicon
from stores.language.spans_text import asked_attribute_words

PATH = {"type": "string"}


def _spec(name: str, description: str, properties: dict[str, Any]) -> ToolSpec:
    return ToolSpec(id=f"fs/{name}", name=name, agent="fs", description=description,
                    input_schema={"type": "object", "properties": properties})


def _operations(text: str) -> list[str]:
    lexicon = Lexicon.default()
    return [m.canonical for m in lexicon.find_terms(tokenize(text)) if m.kind == "operation"]


def test_tags_come_from_the_verbs_and_the_first_sentence_of_a_description() -> None:
    lexicon = Lexicon.default()
    allowed = _spec("list_allowed_directories",
                    "Returns the list of directories that this server is allowed to access.",
                    {})
    _, entities, operations = derive_tags(allowed, lexicon)
    assert "refund" not in entities and operations == ["list"]
    reader = _spec("read_text_file",
                   "Read the complete contents of a file from the file system as text. "
                   "Handles various text encodings and provides detailed error messages.",
                   {"path": PATH})
    _, entities, operations = derive_tags(reader, lexicon)
    assert operations == ["get"]  # "a file" files nothing
    assert "notification" not in entities and "read" not in entities
    mover = _spec("move_file", "Move or rename files and directories.",
                  {"source": PATH, "destination": PATH})
    assert "update" in derive_tags(mover, lexicon)[2]  # "or rename": a verb of its own


def test_open_reads_a_thing_and_creates_a_new_one() -> None:
    assert _operations("Open /srv/docs/readme.md") == ["get"]
    assert _operations("open the file notes.txt") == ["get"]
    assert _operations("Open a shop in Springfield")[0] == "create"
    assert _operations("file a complaint") == ["create"]
    assert _operations("Print the file /srv/notes.txt") == ["get"]
    assert _operations("Remember that Bob likes coffee") == ["create"]
    assert _operations("Record that Alice works at Acme") == ["create"]
    assert _operations("rain.get_record") == ["get"]  # a record is a thing too


def test_a_request_that_names_the_server_shares_a_word_with_its_tools() -> None:
    assert names_the_server("Look up Bob in memory", "memory") == 1.0
    assert names_the_server("Look up Bob", "memory") == 0.0
    assert names_the_server("show the git log", "mcp-server-git") == 1.0
    assert names_the_server("start the server", "mcp-server") == 0.0
    # A word the tool says itself is no name of its server.
    assert names_the_server("show the order", "order-preview", "check_order_transition") == 0.0


def test_a_file_path_is_said_to_retrieval_as_a_file_not_as_a_path() -> None:
    lexicon = Lexicon.default()
    sub: Any = {"text": "Print the file /srv/notes.txt", "operation": "get", "target": "",
                "keywords": ["print", "file"]}
    assert query_for(sub, False, lexicon) == "Print the file get file"
    sub = {**sub, "text": "place an order", "operation": "create", "target": "order"}
    assert query_for(sub, False, lexicon) == "place an order create"


def test_a_time_zone_parameter_takes_no_word_that_is_no_zone() -> None:
    zone = {"type": "string", "description": "Target IANA timezone name (e.g., 'Asia/Tokyo'). "
            "Use 'UTC' as local timezone if no target timezone provided by the user."}
    schema = {"type": "object", "properties": {"timezone": zone}, "required": ["timezone"]}
    assert bind_schema("Give me the local time in Mumbai", schema).sets == [
        {"timezone": "Asia/Kolkata"}
    ]
    assert bind_schema("What is the local time?", schema).missing == ["timezone"]


ENTITIES = {"type": "object", "required": ["entities"], "properties": {"entities": {
    "type": "array", "items": {"type": "object", "required": ["name", "entityType",
                                                               "observations"],
                               "properties": {"name": {"type": "string"},
                                              "entityType": {"type": "string"},
                                              "observations": {"type": "array",
                                                               "items": {"type": "string"}}}}}}}
OBSERVATIONS = {"type": "object", "required": ["observations"], "properties": {"observations": {
    "type": "array", "items": {"type": "object", "required": ["entityName", "contents"],
                               "properties": {"entityName": {"type": "string"},
                                              "contents": {"type": "array",
                                                           "items": {"type": "string"}}}}}}}
RELATIONS = {"type": "object", "required": ["relations"], "properties": {"relations": {
    "type": "array", "items": {"type": "object", "required": ["from", "to", "relationType"],
                               "properties": {"from": {"type": "string"},
                                              "to": {"type": "string"},
                                              "relationType": {"type": "string"}}}}}}


def test_a_kind_before_named_and_a_statement_build_the_objects_of_a_knowledge_graph() -> None:
    assert bind_schema("Add a person named Carol to the knowledge graph", ENTITIES).sets == [
        {"entities": [{"entityType": "person", "name": "Carol", "observations": []}]}
    ]
    # An observation of Carol with no contents says nothing: asked for, not sent empty.
    assert bind_schema("Add a person named Carol to the knowledge graph",
                       OBSERVATIONS).missing == ["observations"]
    assert bind_schema("Remember that Bob likes coffee", OBSERVATIONS).sets == [
        {"observations": [{"entityName": "Bob", "contents": ["likes coffee"]}]}
    ]
    assert bind_schema("Record that Alice works at Acme", RELATIONS).sets == [
        {"relations": [{"from": "Alice", "to": "Acme", "relationType": "works at"}]}
    ]
    assert bind_schema("Remember that coffee is good", RELATIONS).missing == ["relations"]


def _call(args: dict[str, Any]) -> PlannedCall:
    return PlannedCall(call_id="s1.core", sub_intent_id="s1", tool_id="t/x", role="core",
                       args={k: {"value": v, "origin": f"span:{k}"} for k, v in args.items()},
                       depends_on=[], side_effect=True)


def test_values_gathered_in_a_list_or_an_object_are_the_users_values_still() -> None:
    one, _ = consumed_values([_call({"path": "/a.txt"})])
    both, _ = consumed_values([_call({"paths": ["/a.txt", "/b.txt"]})])
    assert one < both and len(both) == 2
    built, _ = consumed_values([_call({"entities": [{"name": "Carol", "entityType": "person"}]})])
    named, _ = consumed_values([_call({"name": "Carol"})])
    assert named < built


def test_a_how_question_says_the_attribute_it_asks_for() -> None:
    assert asked_attribute_words("How big is /srv/notes.txt?") == ["size"]
    assert asked_attribute_words("how long is the river and how old is it") == ["length", "age"]
    assert asked_attribute_words("How are you?") == []
    sub: Any = {"text": "How big is /srv/notes.txt?", "operation": "get", "target": "",
                "keywords": ["big"]}
    assert query_for(sub, False, Lexicon.default()).split()[-3:] == ["get", "file", "size"]


def test_a_path_fills_only_a_parameter_that_holds_files() -> None:
    nodes = {"type": "object", "required": ["names"], "properties": {"names": {
        "type": "array", "items": {"type": "string"}, "description": "Names of the nodes"}}}
    assert bind_schema("Open /srv/docs/readme.md", nodes).missing == ["names"]
    source = {"type": "object", "required": ["source"], "properties": {"source": {
        "type": "string", "description": "Where to read from"}}}
    assert bind_schema("Open /srv/docs/readme.md", source).sets == [
        {"source": "/srv/docs/readme.md"}
    ]


def test_the_writer_of_the_server_meant_is_the_one_that_binds() -> None:
    # The shop's create_user binds "Carol" ("person" is the lexicon's user), but the request
    # speaks of the knowledge graph: of the memory server's writes, add_observations (first
    # in retrieval) would need observations nobody gave, create_entities takes all that was
    # said.
    from nodes.context import Context
    from nodes.parsing.rules import RuleIntentParser
    from nodes.planning.draft import PlanRequest
    from nodes.planning.rules import RulePlanner
    from stores.catalog.depgraph import ToolDependencyGraph
    from stores.catalog.model import Catalog
    from stores.retrieval.embeddings import default_embedder

    catalog = Catalog()
    tools = {
        "memory/add_observations": ("Add new observations to existing entities in the "
                                    "knowledge graph", OBSERVATIONS),
        "memory/create_entities": ("Create multiple new entities in the knowledge graph",
                                   ENTITIES),
        "shop/create_user": ("Create a test user with a name",
                             {"type": "object", "properties": {"name": {"type": "string"}},
                              "required": ["name"]}),
    }
    for tool_id, (description, schema) in tools.items():
        agent, name = tool_id.split("/")
        catalog.add_raw_tool({"name": name, "agent": agent, "side_effect": True,
                              "environment": "test", "description": description,
                              "input_schema": schema}, source=agent)
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse("Add a person named Carol to the knowledge graph")
    candidates = {sub["id"]: [{"tool_id": t, "agent": t.split("/")[0], "score": 1.0,
                               "call_name": ""} for t in tools]
                  for sub in intent["sub_intents"]}
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context(), embedder=default_embedder())
    draft = planner.plan(PlanRequest(intent=intent, candidates=candidates, retrieval_rounds=9))
    assert [call["tool_id"] for call in draft.calls] == ["memory/create_entities"]
    assert draft.calls[0]["args"]["entities"]["value"] == [
        {"entityType": "person", "name": "Carol", "observations": []}]


def test_a_write_whose_description_says_the_verb_is_eligible_with_every_value() -> None:
    # move_file's name says "move", its description "Move or rename": "Rename a to b" is it.
    from nodes.parsing.rules import RuleIntentParser
    from nodes.planning.eligibility import score_candidates
    from stores.catalog.enrich import enrich_catalog
    from stores.catalog.model import Catalog
    from stores.retrieval.embeddings import default_embedder

    catalog = Catalog()
    catalog.add_raw_tool({"name": "move_file", "agent": "fs", "side_effect": None,
                          "environment": "test",
                          "description": "Move or rename files and directories.",
                          "input_schema": {"type": "object",
                                           "properties": {"source": PATH, "destination": PATH},
                                           "required": ["source", "destination"]}},
                         source="fs")
    lexicon = Lexicon.default()
    enrich_catalog(catalog, lexicon)
    candidates: Any = [{"tool_id": "fs/move_file", "agent": "fs", "score": 1.0,
                        "call_name": "move_file"}]

    def eligible(text: str) -> bool:
        sub = RuleIntentParser(lexicon).parse(text)["sub_intents"][0]
        return bool(score_candidates(sub, candidates, [], catalog, lexicon, None,
                                     embedder=default_embedder()))

    assert eligible("Rename /srv/notes.txt to /srv/old-notes.txt")
    assert not eligible("Rename it")  # no value given: never a guess


def test_a_place_the_user_names_stays_their_value_even_when_it_is_no_zone() -> None:
    zone = {"type": "string", "description": "IANA timezone name (e.g., 'Asia/Tokyo')."}
    schema = {"type": "object", "properties": {"timezone": zone}, "required": ["timezone"]}
    # Called with it, so that the server's refusal is stated; never asked for again.
    assert bind_schema("what time is it in Narnia", schema).sets == [{"timezone": "Narnia"}]
