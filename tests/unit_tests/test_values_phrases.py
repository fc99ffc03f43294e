"""A phrase found by meaning is never the parameter's own name word ("room" of "living room")."""

from __future__ import annotations

from collections.abc import Sequence

from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema

ROOM = {
    "type": "object",
    "properties": {
        "room": {"type": "string", "description": "Room where the device is"},
        "device": {"type": "string", "description": "Device name"},
    },
    "required": ["room"],
}


def name_loving_similarity(query: str, phrases: Sequence[str]) -> list[float]:
    """Like the embedding model: a phrase sharing more of the query's words scores higher,
    the shorter the better."""
    words = set(query.lower().replace(":", " ").split())
    return [
        len(words & set(p.lower().split())) / len(p.split()) for p in phrases
    ]


def test_the_name_word_said_is_a_cue_the_modifier_is_the_value() -> None:
    text = "turn on the air conditioner in the living room"
    binding = bind_schema(text, ROOM, spans=extract_spans(text),
                          similarity=name_loving_similarity)
    assert binding.sets == [{"room": "living room"}]


HOTEL = {
    "type": "object",
    "properties": {
        "hotel_name": {"type": "string", "description": "Name of the hotel."},
        "room_type": {"type": "string", "description": "Kind of room to book."},
        "nights": {"type": "integer", "description": "Number of nights."},
    },
    "required": ["hotel_name", "room_type", "nights"],
}


def test_the_parameters_noun_after_a_lower_case_value_is_left_out() -> None:
    text = "I'd like a double room for three nights at the Grand Budapest Hotel"
    binding = bind_schema(text, HOTEL, spans=extract_spans(text),
                          similarity=name_loving_similarity)
    assert binding.sets == [
        {"hotel_name": "Grand Budapest Hotel", "room_type": "double", "nights": 3}
    ]


def test_a_string_parameter_takes_a_range_of_years_whole() -> None:
    schema = {
        "type": "object",
        "properties": {
            "team": {"type": "string", "description": "Name of the team."},
            "season": {"type": "string", "description": "The season."},
        },
        "required": ["team", "season"],
    }
    text = "How did the Chicago Bulls do in the 1995-1996 season?"
    binding = bind_schema(text, schema, spans=extract_spans(text))
    assert binding.sets == [{"team": "Chicago Bulls", "season": "1995-1996"}]
    years = {
        "type": "object",
        "properties": {
            "start_year": {"type": "integer", "description": "First year."},
            "end_year": {"type": "integer", "description": "Last year."},
        },
        "required": ["start_year", "end_year"],
    }
    text = "cases between 2015-2021"
    assert bind_schema(text, years, spans=extract_spans(text)).sets == [
        {"start_year": 2015, "end_year": 2021}
    ]


def test_an_optional_parameter_takes_no_words_after_its_name_as_a_guess() -> None:
    schema = {
        "type": "object",
        "properties": {
            "weight_kg": {"type": "number", "description": "Weight in kilograms."},
            "cooking_method": {"type": "string", "description": "How, default 'roast'."},
        },
        "required": ["weight_kg"],
    }
    text = "How long should I cook a stuffed turkey of 5 kg?"
    binding = bind_schema(text, schema, spans=extract_spans(text))
    assert binding.sets == [{"weight_kg": 5.0}]
