"""Statements are context, not clauses: they give their values to the request they serve."""

from __future__ import annotations

import pytest

from nodes.parsing.rules import RuleIntentParser
from nodes.parsing.splitting import states_facts
from nodes.planning.schema_binder import bind_schema


@pytest.mark.parametrize(
    "sentence",
    [
        "A kettle holds 2 liters of water.",
        "At noon, it stands at 20 degrees.",
        "Suddenly, the pump stops for 30 seconds.",
        "Maria has 300 euros in her account.",
        "I deposited 300 euros last week.",
        "They plan to walk 12 km on the first day.",
        "All lengths are in meters.",
    ],
)
def test_a_statement_asks_for_nothing(sentence: str) -> None:
    assert states_facts(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "How long does the kettle take to boil?",
        "Convert 300 euros to dollars.",
        "For account 123456, create an order.",
        "I would like to know the boiling time.",
        "I am new to Lyon and would like to know the nearby parks.",
        "We need to convert 300 euros to dollars.",
        "Please help me convert the amount.",
        "Could you convert it to dollars",
    ],
)
def test_a_request_is_no_statement(sentence: str) -> None:
    assert not states_facts(sentence)


def test_statements_join_the_request_after_them() -> None:
    intent = RuleIntentParser().parse(
        "A kettle holds 2 liters of water. It heats at 1500 watts. "
        "How long does it take to boil the water?"
    )
    subs = intent["sub_intents"]
    assert len(subs) == 1
    assert "2 liters" in subs[0]["text"] and "1500 watts" in subs[0]["text"]
    assert subs[0]["text"].endswith("boil the water?")


def test_trailing_statements_join_the_request_before_them() -> None:
    intent = RuleIntentParser().parse(
        "Convert the deposit to dollars. She deposited 300 euros. The rate is 1.1."
    )
    subs = intent["sub_intents"]
    assert len(subs) == 1
    assert subs[0]["text"].startswith("Convert the deposit to dollars.")
    assert "300 euros" in subs[0]["text"] and subs[0]["text"].endswith("1.1.")


def test_statements_alone_are_split_as_before() -> None:
    intent = RuleIntentParser().parse("Maria has 300 euros. Tom has 200 euros.")
    assert [s["text"] for s in intent["sub_intents"]] == [
        "Maria has 300 euros", "Tom has 200 euros"
    ]


def test_after_this_with_a_duration_is_no_step() -> None:
    intent = RuleIntentParser().parse("What is the speed of the cart after this 10 seconds?")
    assert len(intent["sub_intents"]) == 1


def test_a_clause_that_names_its_own_thing_keeps_its_own_target() -> None:
    intent = RuleIntentParser().parse(
        "Show the stock of product 5, then give the weather forecast for Rome for 3 days."
    )
    first, second = intent["sub_intents"]
    assert second["target"] != first["target"] or not first["target"]
    assert second["depends_on"] == []


def test_a_clause_that_only_goes_on_keeps_the_object_before_it() -> None:
    intent = RuleIntentParser().parse("Create a user named Ann and then update it")
    assert intent["sub_intents"][1]["target"] == intent["sub_intents"][0]["target"]


def test_a_company_abbreviation_ends_no_sentence() -> None:
    intent = RuleIntentParser().parse("Forecast the share price of Apple Inc. for the next 30 days")
    assert len(intent["sub_intents"]) == 1


def test_a_number_that_counts_the_things_is_none_of_them() -> None:
    schema = {
        "type": "object",
        "properties": {
            "charge": {"type": "integer", "description": "The charge in coulombs"},
            "distance": {"type": "integer", "description": "Distance in meters"},
        },
        "required": ["charge", "distance"],
    }
    sets = bind_schema(
        "There are two charges. The first charge is 5 coulombs at 2 meters. "
        "The second charge is 3 coulombs at 4 meters.",
        schema,
    ).sets
    assert sets == [{"charge": 5, "distance": 2}, {"charge": 3, "distance": 4}]
