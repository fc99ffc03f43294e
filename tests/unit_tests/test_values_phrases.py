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
