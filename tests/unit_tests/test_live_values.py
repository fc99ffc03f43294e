"""Values the schema binder reads for tools written by others (requests written here).

Each test is a general form a user's request takes, checked against the binder's reading:
an enum parameter only ever takes one of its values; a flag written as a string enum
('True'/'False') is set like a boolean.
"""

from __future__ import annotations

from collections.abc import Sequence

from nodes.planning.schema_binder import bind_schema

ACTIONS = {
    "type": "object",
    "properties": {
        "operation": {"type": "string", "enum": ["add", "delete", "update"],
                      "description": "The operation on the item."},
        "item": {"type": "string", "description": "The item name."},
    },
    "required": ["operation", "item"],
}
PLACES = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "The city, e.g. 'Oslo'."},
        "has_garden": {"type": "string", "enum": ["True", "False", "dontcare"],
                       "description": "Whether the house has a garden."},
    },
    "required": ["city"],
}


def _anything(_query: str, phrases: Sequence[str]) -> list[float]:
    """A model that finds every phrase near every description."""
    return [0.9] * len(phrases)


def test_an_enum_parameter_never_takes_a_phrase_outside_its_values() -> None:
    binding = bind_schema("Please handle the item 'pencil' now", ACTIONS, similarity=_anything)
    assert binding.sets[0].get("operation") in (None, "add", "delete", "update")
    assert "operation" in binding.missing or binding.sets[0]["operation"] in ACTIONS[
        "properties"]["operation"]["enum"]


def test_an_enum_value_named_is_still_bound() -> None:
    binding = bind_schema("Delete the item 'pencil'", ACTIONS, similarity=_anything)
    assert binding.sets == [{"operation": "delete", "item": "pencil"}]


def test_a_string_enum_flag_is_set_when_named() -> None:
    binding = bind_schema("Find a house with a garden in 'Oslo'", PLACES)
    assert binding.sets[0].get("has_garden") == "True"
    binding = bind_schema("Find a house without a garden in 'Oslo'", PLACES)
    assert binding.sets[0].get("has_garden") == "False"


def test_a_string_enum_flag_not_named_is_left_alone() -> None:
    binding = bind_schema("Find a house in 'Oslo'", PLACES)
    assert "has_garden" not in binding.sets[0]


SLOPE = {
    "type": "object",
    "properties": {
        "function": {"type": "string", "description": "The function to differentiate."},
        "point": {"type": "number", "description": "Where the slope is wanted."},
    },
    "required": ["function", "point"],
}


def test_a_written_polynomial_is_one_value_in_python_notation() -> None:
    binding = bind_schema("Find the slope of the curve 4t^3 - t + 7 at t = 2", SLOPE)
    assert binding.sets == [{"function": "4t**3 - t + 7", "point": 2.0}]
    binding = bind_schema("Find the slope of y = 5x^2 where x is 3", SLOPE)
    assert binding.sets[0]["function"] == "5x**2"


def test_a_unit_with_a_power_is_no_expression() -> None:
    schema = {
        "type": "object",
        "properties": {"volume": {"type": "number", "description": "Volume in m^3."},
                       "acceleration": {"type": "number", "description": "In m/s^2."}},
        "required": ["volume", "acceleration"],
    }
    binding = bind_schema("A tank of 12 m^3 accelerating at 3 m/s^2", schema)
    assert binding.sets == [{"volume": 12.0, "acceleration": 3.0}]


BLOOD = {
    "type": "object",
    "properties": {
        "level": {"type": "number", "description": "The level measured."},
        "grade": {"type": "string", "enum": ["BB", "Bb", "bb"], "description": "The grade."},
    },
    "required": ["level", "grade"],
}


def test_enum_values_that_differ_only_in_case_are_told_apart() -> None:
    binding = bind_schema("What is the chance of grade BB when the level of B is 0.4?", BLOOD)
    assert binding.sets == [{"grade": "BB", "level": 0.4}]


NUMBERS = {
    "type": "object",
    "properties": {"numbers": {"type": "array", "items": {"type": "integer"},
                               "description": "The numbers to sort."}},
    "required": ["numbers"],
}


def test_a_list_after_a_colon_keeps_its_first_item() -> None:
    binding = bind_schema("Sort these: 7, 1, 7, 3 and 9", NUMBERS)
    assert binding.sets == [{"numbers": [7, 1, 7, 3, 9]}]


def test_pairs_after_a_colon_still_read_as_pairs() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer", "description": "First."},
                       "b": {"type": "integer", "description": "Second."}},
        "required": ["a", "b"],
    }
    assert bind_schema("Add them: a: 4, b: 6", schema).sets == [{"a": 4, "b": 6}]


WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "The city to get the weather for."}},
    "required": ["city"],
}


def test_a_name_said_in_a_later_sentence_for_another_reason_is_no_second_call() -> None:
    text = "What is the weather like in Paris today? I am travelling with Anna Weber"
    assert bind_schema(text, WEATHER).sets == [{"city": "Paris"}]


def test_two_places_each_with_its_cue_are_two_calls() -> None:
    text = "What is the weather like in Paris today? And in Rome?"
    assert bind_schema(text, WEATHER).sets == [{"city": "Paris"}, {"city": "Rome"}]
