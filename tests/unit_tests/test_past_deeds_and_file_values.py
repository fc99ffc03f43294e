"""Plain requests about files and past deeds (twelfth round).

Written here (none from a benchmark): a question of when or by whom something was done is
a read ("When was notes.txt last modified?" changes nothing); a request's meaning is read
with its paths and addresses said as what they are, so a random folder name does not move
it; a file pattern is written as a glob from the extension said (".md files"); a parameter
that wants a path takes no phrase of plain words; the name given to what is made ("a folder
named archive") makes no writer of another server the one meant.
"""

from __future__ import annotations

from typing import Any

from nodes.parsing.rules import RuleIntentParser
from nodes.planning.relevance import cosines, meaning
from nodes.planning.schema_binder import bind_schema, bind_tool
from stores.catalog.enrich import enrich_catalog
from stores.catalog.model import Catalog, ToolSpec
from stores.language.lexicon import Lexicon
from stores.language.spans_text import values_as_kinds as asked
from stores.retrieval.embeddings import default_embedder
from tests.unit_tests.test_rule_planner_schema import plan_catalog


def _operations(request: str) -> list[str]:
    parsed = RuleIntentParser(Lexicon.default()).parse(request)
    return [s["operation"] for s in parsed["sub_intents"]]


def test_a_question_of_a_past_deed_is_a_read() -> None:
    assert _operations("When was /srv/notes.txt last modified?") == ["get"]
    assert _operations("Who created order 5?") == ["get"]
    assert _operations("When did Bob create the order?") == ["get"]
    assert _operations("What time was order 7 paid?") == ["get"]
    # the deed asked for is still done
    assert _operations("create an order for account 123456") == ["create"]
    assert _operations("modify the note /srv/notes.txt") == ["update"]


def test_paths_and_addresses_are_said_as_what_they_are_for_meaning() -> None:
    assert asked("When was /tmp/x7q/root/notes.txt last modified?") == \
        "When was the file last modified?"
    assert asked("list /srv/data") == "list the folder"
    assert asked("read the file /tmp/a.txt") == "read the file"
    assert asked("open https://example.org now") == "open the web page now"
    embedder = default_embedder()
    info = ("get_file_info", "Retrieve detailed metadata about a file or directory, "
            "including size, creation time and last modified time.")
    # the meaning no longer depends on the letters of a temporary folder
    first = meaning("When was /tmp/tmpa8f3k2/root/notes.txt last modified?", *info, embedder)
    second = meaning("When was /tmp/tmpzz91qq/root/notes.txt last modified?", *info, embedder)
    assert abs(first - second) < 1e-6


PATTERN: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "pattern": {"type": "string"}},
    "required": ["path", "pattern"],
}


def test_a_file_pattern_is_the_extension_said_as_a_glob() -> None:
    for text, pattern in [
        ("Find all .md files in /srv/root", "*.md"),
        ("search /tmp for *.pdf", "*.pdf"),
        ("list **/*.py under /src", "**/*.py"),
    ]:
        binding = bind_schema(text, PATTERN, segment=0)
        assert binding.sets == [{"path": text.split()[-1] if "under" in text or "in /" in text
                                 else "/tmp", "pattern": pattern}], text
    # two extensions: which one is the pattern is not said
    assert bind_schema("find the .csv and .json files in /data", PATTERN, segment=0).missing \
        == ["pattern"]


def test_a_path_parameter_takes_no_phrase_of_plain_words() -> None:
    listing = ToolSpec(
        id="fs/list_directory", name="list_directory", agent="fs",
        description="Get a detailed listing of all files and directories in a specified path.",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}},
                      "required": ["path"]},
        side_effect=False,
    )
    binding = bind_tool("Which folders can you access?", listing, cosines(default_embedder()),
                        segment=0)
    assert binding.missing == ["path"]
    written = bind_tool("Which folders are in /srv/data?", listing,
                        cosines(default_embedder()), segment=0)
    assert written.sets == [{"path": "/srv/data"}]


def test_a_name_given_to_what_is_made_names_no_writer_of_another_server() -> None:
    catalog = Catalog()
    for name, agent, description, param, kind in [
        ("create_directory", "fs", "Create a new directory or ensure a directory exists.",
         "path", "string"),
        ("archive_product", "shop",
         "Archive a product so it can no longer be ordered or added to carts.", "product_id",
         "integer"),
    ]:
        catalog.add_raw_tool(
            {"name": name, "agent": agent, "side_effect": True, "environment": "test",
             "description": description,
             "input_schema": {"type": "object", "properties": {param: {"type": kind}},
                              "required": [param]}},
            source="test",
        )
    enrich_catalog(catalog)  # each tool's operation and object, as `zspace index` tags them
    draft = plan_catalog("Create a folder named archive inside /srv/data", catalog,
                         default_embedder())
    assert [(c["tool_id"], c["args"]["path"]["value"]) for c in draft.calls] == [
        ("fs/create_directory", "/srv/data/archive")
    ]
    # said as the thing to do, the other server's writer is still the one meant
    draft = plan_catalog("Archive product 3", catalog, default_embedder())
    assert [c["tool_id"] for c in draft.calls] == ["shop/archive_product"]
