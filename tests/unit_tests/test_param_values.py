"""Which value goes to which parameter: places, dates, prepositions, enum arrays, identifiers.

Table-driven: a schema and a request give the argument sets the binder must produce. The
requests are written here, none is a benchmark's.
"""

from __future__ import annotations

from typing import Any

import pytest

from nodes.planning.param_fit import allowed_values
from nodes.planning.relevance import MIN_RELEVANCE, relevance
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


STR = {"type": "string"}
INT = {"type": "integer"}

CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    # "City, ST" is one place for a single location parameter ...
    (
        "Show me bike shops in Portland, Maine.",
        schema(["location"], location={**STR, "description": "Where to look."}),
        [{"location": "Portland, Maine"}],
    ),
    # ... and two values when the schema asks for the city and the state apart
    (
        "What is the sales tax on $12.50 in Austin, Texas?",
        schema(
            ["amount", "city", "state"],
            amount={"type": "number", "description": "The amount."},
            city={**STR, "description": "The city."},
            state={**STR, "description": "The state."},
        ),
        [{"amount": 12.5, "city": "Austin", "state": "Texas"}],
    ),
    # a name after "in" is the place, not the other free-text parameter
    (
        "List bakeries that sell French pastries in Denver.",
        schema(
            ["city", "pastry"],
            city={**STR, "description": "The city to search."},
            pastry={**STR, "description": "Kind of pastries sold."},
        ),
        [{"city": "Denver", "pastry": "French"}],
    ),
    # "from" and "to" tell two dates apart, written in the format the description asks for
    (
        "Reserve a cabin from May 3, 2024 to May 9, 2024.",
        schema(
            ["from_date", "to_date"],
            from_date={**STR, "description": "First night, format YYYY-MM-DD."},
            to_date={**STR, "description": "Last night, format YYYY-MM-DD."},
        ),
        [{"from_date": "2024-05-03", "to_date": "2024-05-09"}],
    ),
    # a word after a value belongs to its own clause: "final" is the second amount's cue
    (
        "Project the growth from a starting balance of $700, ending balance of $900.",
        schema(
            ["starting_balance", "ending_balance"],
            starting_balance={**INT, "description": "Balance at the start."},
            ending_balance={**INT, "description": "Balance at the end."},
        ),
        [{"starting_balance": 700, "ending_balance": 900}],
    ),
    # an array of enum items takes every option named, by its lemma too
    (
        "Plan a bike route that avoids bridges and steep hills.",
        schema(
            ["avoid"],
            avoid={"type": "array", "items": {**STR, "enum": ["bridges", "hills", "tunnels"]}},
        ),
        [{"avoid": ["bridges", "hills"]}],
    ),
    # an identifier parameter takes the identifier, not a capitalised phrase beside it
    (
        "Look up the ticket (Priority Support) ID tk98765.",
        schema(["ticket_id"], ticket_id={**STR, "description": "The ticket's id."}),
        [{"ticket_id": "tk98765"}],
    ),
]


@pytest.mark.parametrize(("text", "tool_schema", "expected"), CASES)
def test_values_bind_to_the_right_parameters(
    text: str, tool_schema: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    binding = bind_schema(text, tool_schema)
    assert binding.missing == []
    assert binding.sets == expected


def test_a_variable_of_a_formula_is_a_value_not_a_parameter_name() -> None:
    tool = schema(["point"], point={**INT, "description": "Where to evaluate."})
    assert bind_schema("Evaluate the slope at t = 4", tool).sets == [{"point": 4}]


def test_a_place_example_in_a_description_is_one_value() -> None:
    assert allowed_values("The city and state, e.g. Portland, OR.") == (("Portland, OR",), False)
    assert allowed_values("Diet, e.g. vegan, halal") == (("vegan", "halal"), False)


def test_a_place_keeps_its_parts() -> None:
    (place,) = extract_spans("bike shops in Portland, Maine")
    assert place.kind == "name" and place.value == "Portland, Maine"
    assert [part.value for part in place.items] == ["Portland", "Maine"]


@pytest.mark.parametrize(
    ("text", "name", "description", "tool_schema", "fits"),
    [
        # an abbreviation in the tool's name ("contrib") is the request's word
        ("List the main contributions of Marie Curie", "hist.get_contrib", "", {}, True),
        # a value an enum allows, said in the request, says what the tool is about
        (
            "Get the end date and the outcome of the Hundred Years War",
            "annals.get_event_info",
            "",
            schema(["aspect"], aspect={**STR, "enum": ["End Date", "Outcome"]}),
            True,
        ),
        # the verb "find" does not make a "finder" tool relevant
        ("Find the variance of these values", "event_finder.upcoming", "", {}, False),
    ],
)
def test_relevance_reads_abbreviations_and_allowed_values(
    text: str, name: str, description: str, tool_schema: dict[str, Any], fits: bool
) -> None:
    assert (relevance(text, name, description, tool_schema) >= MIN_RELEVANCE) is fits


FLAG_AND_NAME_CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]]]] = [
    # a name that says what it is goes to that parameter, not to an optional venue after "in"
    (
        "Show the fixtures of Riverside Rovers in Northern Cup.",
        schema(
            ["team", "cup"],
            team={**STR, "description": "The team."},
            cup={**STR, "description": "The competition."},
            venue={**STR, "description": "Optional city or place where games are held."},
        ),
        [{"cup": "Northern Cup", "team": "Riverside Rovers"}],
    ),
    # a flag named by another form of its word ("normalization" for normalize)
    (
        "Cluster the points in 'pts.csv' with normalization.",
        schema(
            ["file"],
            file={**STR, "description": "The data file."},
            normalize={"type": "boolean", "description": "Scale the columns first."},
        ),
        [{"file": "pts.csv", "normalize": True}],
    ),
    # a required flag needs one word of its name said ("archived" of archived_state)
    (
        "Open ledger 5521 and tell me whether it is archived.",
        schema(
            ["ledger_id", "archived_state"],
            ledger_id={**INT, "description": "The ledger."},
            archived_state={"type": "boolean", "description": "State to check."},
        ),
        [{"ledger_id": 5521, "archived_state": True}],
    ),
    # a four-digit number is a year for an optional year parameter
    (
        "Average rainfall of Lisbon in 1998",
        schema(
            ["city"],
            city={**STR, "description": "The city."},
            year={**INT, "description": "The year."},
        ),
        [{"city": "Lisbon", "year": 1998}],
    ),
]


@pytest.mark.parametrize(("text", "tool_schema", "expected"), FLAG_AND_NAME_CASES)
def test_flags_names_and_years(
    text: str, tool_schema: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    binding = bind_schema(text, tool_schema)
    assert binding.missing == []
    assert [dict(sorted(s.items())) for s in binding.sets] == [
        dict(sorted(s.items())) for s in expected
    ]


def test_a_value_phrase_the_schema_allows_makes_the_tool_relevant() -> None:
    tool = schema(["aspect", "topic"], aspect={**STR, "enum": ["Opening Hours", "Ticket Price"]})
    words = relevance("Tell me the opening hours of the Prado", "site.lookup", "", tool)
    assert words >= MIN_RELEVANCE
