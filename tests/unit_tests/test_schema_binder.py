"""The schema binder: typed spans of a request assigned jointly to a tool's parameters."""

from __future__ import annotations

from typing import Any

import pytest

from nodes.planning.relevance import MIN_RELEVANCE, relevance
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


INT = {"type": "integer"}
NUM = {"type": "number"}
STR = {"type": "string"}

CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    # cue words beside each value decide, not the order they come in
    (
        "Find the area of a triangle with a height of 5 and a base of 10.",
        schema(
            ["base", "height"],
            base={**INT, "description": "The base."},
            height={**INT, "description": "The height."},
        ),
        [{"base": 10, "height": 5}],
    ),
    # key=value names the parameter
    (
        "Solve a quadratic equation where a=2, b=6, and c=5",
        schema(["a", "b", "c"], a=INT, b=INT, c=INT),
        [{"a": 2, "b": 6, "c": 5}],
    ),
    # several values with no cue follow the schema's order
    (
        "a triangle whose three sides are 5 units, 4 units and 3 units long",
        schema(["side1", "side2", "side3"], side1=INT, side2=INT, side3=INT),
        [{"side1": 5, "side2": 4, "side3": 3}],
    ),
    # a list filling an array parameter is one array
    (
        "Run a regression with predictors 'Age', 'Income' and 'Education'",
        schema(
            ["predictors"],
            predictors={"type": "array", "items": STR, "description": "predictor variables"},
        ),
        [{"predictors": ["Age", "Income", "Education"]}],
    ),
    # a list filling a scalar parameter is one call per item; a shared value stays shared
    (
        "What is the weather in Paris and Rome for 3 days?",
        schema(
            ["city"],
            city={**STR, "description": "The city"},
            days={**INT, "description": "Number of days"},
        ),
        [{"city": "Paris", "days": 3}, {"city": "Rome", "days": 3}],
    ),
    # two lists said "respectively" zip into argument sets
    (
        "Play songs from Taylor Swift and Maroon 5 for 20 minutes and 15 minutes respectively",
        schema(
            ["artist", "duration"],
            artist={**STR, "description": "The artist"},
            duration={**INT, "description": "The duration, in minutes."},
        ),
        [{"artist": "Taylor Swift", "duration": 20}, {"artist": "Maroon 5", "duration": 15}],
    ),
    # an optional parameter is left alone without a cue (its default stands) ...
    (
        "What's the area of a circle with a radius of 10?",
        schema(
            ["radius"],
            radius={**INT, "description": "The radius of the circle."},
            precision={**INT, "description": "Digits after the point"},
        ),
        [{"radius": 10}],
    ),
    # ... and filled when an allowed value is named
    (
        "Resistance of a wire 5 m long in aluminum",
        schema(
            ["length"],
            length={**INT, "description": "The length in meters."},
            material={**STR, "description": "Allowed values: 'copper', 'aluminum'"},
        ),
        [{"length": 5, "material": "aluminum"}],
    ),
    # an enum value is matched despite a typo
    (
        "set the shipping speed to expresss",
        schema(["speed"], speed={**STR, "enum": ["standard", "express"]}),
        [{"speed": "express"}],
    ),
    # an identifier parameter never takes a bare number without its cue
    (
        "place an order using account 123456",
        schema(["user_id"], user_id=INT),
        [{}],
    ),
]


@pytest.mark.parametrize(("request_text", "tool_schema", "expected"), CASES)
def test_bind_schema(
    request_text: str, tool_schema: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    assert bind_schema(request_text, tool_schema).sets == expected


def test_a_required_value_from_nowhere_is_missing() -> None:
    binding = bind_schema(
        "Find the area of a triangle", schema(["base", "height"], base=INT, height=INT)
    )
    assert binding.missing == ["base", "height"]


def test_spans_have_kinds_units_and_list_items() -> None:
    spans = extract_spans("a wire of 5m, $30.45 in New York and Chicago, on 2024-01-02")
    kinds = [(s.kind, s.value) for s in spans]
    assert ("number", 5) in kinds and ("money", 30.45) in kinds
    assert ("date", "2024-01-02") in kinds
    listed = next(s for s in spans if s.kind == "list")
    assert [i.value for i in listed.items] == ["New York", "Chicago"]


def test_relevance_separates_a_fitting_tool_from_an_unrelated_one() -> None:
    request = "Calculate the area of a triangle given the base is 10 and height is 5."
    triangle = relevance(
        request,
        "calculate_triangle_area",
        "Calculate the area of a triangle given its base and height.",
        schema(["base", "height"], base=INT, height=INT),
    )
    bmi = relevance(
        request,
        "determine_body_mass_index",
        "Calculate body mass index given weight and height.",
        schema(["weight", "height"], weight=INT, height=INT),
    )
    assert triangle >= MIN_RELEVANCE > bmi


MORE_CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    # a percentage is a fraction unless the parameter says it takes a percentage
    (
        "invest $1000 at an annual interest rate of 5% for 10 years",
        schema(["principal", "rate", "years"], principal=NUM,
               rate={**NUM, "description": "The annual interest rate."},
               years={**INT, "description": "Number of years"}),
        [{"principal": 1000.0, "rate": 0.05, "years": 10}],
    ),
    (
        "a fund with a 5% yearly yield",
        schema(["annual_yield"], annual_yield={**NUM, "description": "The yield as a percentage."}),
        [{"annual_yield": 5.0}],
    ),
    # a flag the request names is turned on; a negated one off
    (
        "forecast the forest for 5 years including human impact",
        schema(["years"], years=INT, include_human_impact={"type": "boolean"}),
        [{"years": 5, "include_human_impact": True}],
    ),
    # a closed list of values takes only those; the name goes to the free parameter
    (
        "Give me detail information about stocks of Apple Inc.",
        schema(["company_name", "detail_level"], company_name=STR,
               detail_level={**STR, "description": "Can be 'summary' or 'detailed'."}),
        [{"detail_level": "detailed", "company_name": "Apple Inc"}],
    ),
    # scale words multiply
    (
        "a company with 100 million outstanding shares",
        schema(["outstanding_shares"], outstanding_shares=INT),
        [{"outstanding_shares": 100000000}],
    ),
]


@pytest.mark.parametrize(("request_text", "tool_schema", "expected"), MORE_CASES)
def test_bind_schema_values(request_text: str, tool_schema: dict[str, Any],
                            expected: list[dict[str, Any]]) -> None:
    assert bind_schema(request_text, tool_schema).sets == expected


def test_a_free_text_value_is_found_by_meaning() -> None:
    def similarity(query: str, phrases: Any) -> list[float]:
        return [0.9 if phrase == "plasma membrane" else 0.1 for phrase in phrases]

    binding = bind_schema(
        "What are the names of proteins found in the plasma membrane?",
        schema(["cell_compartment"], cell_compartment={**STR, "description": "The compartment"}),
        similarity=similarity,
        exclude={"protein"},
    )
    assert binding.sets == [{"cell_compartment": "plasma membrane"}]
    assert bind_schema("What are the names of proteins?", schema(
        ["cell_compartment"], cell_compartment=STR)).missing == ["cell_compartment"]


def test_a_whole_argument_set_said_again_is_a_second_call() -> None:
    binding = bind_schema(
        "Book a flight from San Francisco to Tokyo on May 3rd 2022 and another flight from "
        "Tokyo to Sydney on May 18th 2022.",
        schema(["departure_city", "destination_city", "date"],
               departure_city={**STR, "description": "The city of departure"},
               destination_city={**STR, "description": "The destination city"},
               date={**STR, "description": "The date of the flight"}),
    )
    assert binding.sets == [
        # a date parameter that names no format takes whole dates the ISO way
        {"departure_city": "San Francisco", "destination_city": "Tokyo", "date": "2022-05-03"},
        {"departure_city": "Tokyo", "destination_city": "Sydney", "date": "2022-05-18"},
    ]


def test_two_lists_without_respectively_are_crossed() -> None:
    binding = bind_schema(
        "Find the winning percentage of Lakers and Bulls in NBA seasons 2018 and 2020.",
        schema(["team", "season"], team={**STR, "description": "The team"},
               season={**INT, "description": "The season year"}),
    )
    assert sorted((s["team"], s["season"]) for s in binding.sets) == [
        ("Bulls", 2018), ("Bulls", 2020), ("Lakers", 2018), ("Lakers", 2020),
    ]


def test_an_identifier_takes_only_a_value_its_object_names() -> None:
    tool = schema(["product_id", "price"], product_id=INT, price=NUM)
    binding = bind_schema("Update the price of the product to 20", tool)
    assert binding.missing == ["product_id"] and binding.sets == [{"price": 20.0}]
    assert bind_schema("Set the price of product 3 to 20", tool).sets == [
        {"product_id": 3, "price": 20.0}
    ]


def test_a_literal_with_quoted_keys_is_one_object_not_its_quoted_keys() -> None:
    text = ("Calculate the average grade for student John who has these scores {'math':90, "
            "'science':75} across different subjects.")
    assert [s.kind for s in extract_spans(text)] == ["name", "json"]
    schema = {"type": "object", "required": ["gradeDict"], "properties": {"gradeDict": {
        "type": "object", "description": "A dictionary where keys represent subjects and "
                                         "values represent scores"}}}
    assert bind_schema(text, schema).sets == [{"gradeDict": {"math": 90, "science": 75}}]
    # Brackets inside a quoted text stay that text's.
    assert [(s.kind, s.value) for s in extract_spans("Search for '[draft] notes'")] == [
        ("quoted", "[draft] notes")]
