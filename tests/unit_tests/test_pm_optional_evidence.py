"""Optional parameters: a read takes a fitting value without a cue word, a write never does."""

from __future__ import annotations

from typing import Any

from nodes.planning.schema_binder import bind_schema
from stores.catalog.model import Catalog
from tests.unit_tests.test_rule_planner_schema import plan_catalog

SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "description": "Title of the film"},
        "service": {"type": "string", "description": "Streaming service to use"},
    },
    "required": ["title"],
}
REQUEST = 'Play the film "Up" on Netflix'


def test_a_read_only_tool_takes_an_optional_value_without_a_cue_word() -> None:
    assert bind_schema(REQUEST, SCHEMA, read_only=True).sets == [{"title": "Up", "service": "Netflix"}]


def test_a_writing_tool_leaves_an_optional_parameter_without_a_cue_word_alone() -> None:
    assert bind_schema(REQUEST, SCHEMA).sets == [{"title": "Up"}]
    assert bind_schema(REQUEST, SCHEMA, read_only=False).sets == [{"title": "Up"}]


def _planned_args(request: str, name: str, side_effect: bool) -> dict[str, Any]:
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": name, "agent": "t", "description": name.replace("_", " ").capitalize() + ".",
         "side_effect": side_effect, "environment": "test", "input_schema": SCHEMA},
        source="test",
    )
    draft = plan_catalog(request, catalog)
    [call] = draft.calls
    return {name: arg.get("value") for name, arg in call["args"].items()}


def test_the_planner_binds_a_reads_optional_value_but_not_a_writes() -> None:
    assert _planned_args(REQUEST, "play_film", side_effect=False) == {
        "title": "Up", "service": "Netflix"}
    assert _planned_args('Record the film "Up" on Netflix', "record_film", side_effect=True) == {
        "title": "Up"}


MEASURE = {
    "type": "object",
    "properties": {
        "charge": {"type": "number", "description": "Charge in coulombs"},
        "distance": {"type": "number", "description": "Distance from the charge"},
        "medium": {"type": "string", "description": "The medium"},
        "permittivity": {"type": "number", "description": "Relative permittivity"},
    },
    "required": ["charge", "distance"],
}


def test_a_measure_or_its_unit_word_is_no_reads_optional_value() -> None:
    binding = bind_schema("The field 4 meters away from 0.01 Coulombs and 3 kelvin",
                          MEASURE, read_only=True)
    assert [{k: v for k, v in s.items() if k in {"medium", "permittivity"}}
            for s in binding.sets] == [{}]


def test_a_glossed_name_is_no_reads_optional_value() -> None:
    schema = {
        "type": "object",
        "properties": {
            "snp_id": {"type": "string", "description": "The SNP identifier"},
            "species": {"type": "string", "description": "Species to look in"},
        },
        "required": ["snp_id"],
    }
    binding = bind_schema("Find the SNP (Single Nucleotide Polymorphism) ID rs6034464",
                          schema, read_only=True)
    assert binding.sets == [{"snp_id": "rs6034464"}]


def test_a_list_item_and_the_tools_name_are_no_reads_optional_value() -> None:
    schema = {
        "type": "object",
        "properties": {
            "company": {"type": "string", "description": "The company"},
            "board": {"type": "string", "description": "Where it is listed"},
        },
        "required": ["company"],
    }
    binding = bind_schema("Get the share price of Acme and Globex", schema, read_only=True)
    assert sorted(s["company"] for s in binding.sets) == ["Acme", "Globex"]
    assert all("board" not in s for s in binding.sets)
    binding = bind_schema("Use the 'quote_price' function for the company Acme", schema,
                          read_only=True,
                          exclude={"quote", "price"})
    assert binding.sets == [{"company": "Acme"}]


def test_a_required_parameter_takes_its_value_before_an_optional_guess() -> None:
    schema = {
        "type": "object",
        "properties": {
            "company_name": {"type": "string", "description": "The name of the company."},
            "market": {"type": "string",
                       "description": "The stock market where the company is listed."},
            "detail_level": {"type": "string", "enum": ["summary", "detailed"]},
        },
        "required": ["company_name", "detail_level"],
    }
    binding = bind_schema("Give me detail information about stocks of Acme Inc.", schema,
                          read_only=True)
    assert binding.sets == [{"company_name": "Acme Inc", "detail_level": "detailed"}]


def test_a_bare_number_is_no_reads_optional_guess() -> None:
    schema = {
        "type": "object",
        "properties": {
            "user_id": {"type": "integer", "description": "The user"},
            "limit": {"type": "integer", "description": "At most this many rows"},
        },
    }
    assert bind_schema("Show all orders for account 654321", schema, read_only=True).sets == [
        {}]
