"""Which phrase of a request fills a required text parameter (issue 15).

Each case is written in our own words and schemas: a name that says what it is by its first
word ("Gallery Nova" is a gallery) belongs to the parameter that word names, not to the one a
preposition before it points at.
"""

from __future__ import annotations

from typing import Any

from nodes.planning.schema_binder import bind_schema


def _schema(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props)}


_VENUE = _schema(
    {
        "gallery_name": {"type": "string", "description": "Name of the gallery."},
        "city": {"type": "string", "description": "City where the gallery is."},
    }
)


def test_a_name_whose_first_word_is_the_parameters_noun_fills_it() -> None:
    binding = bind_schema("Book a tour in Oslo at Gallery Nova.", _VENUE)
    assert binding.sets == [{"gallery_name": "Gallery Nova", "city": "Oslo"}]


def test_a_name_that_says_what_it_is_outweighs_the_place_preposition() -> None:
    binding = bind_schema("Book a tour in Oslo at Nova Gallery.", _VENUE)
    assert binding.sets == [{"gallery_name": "Nova Gallery", "city": "Oslo"}]


def test_a_name_with_an_of_phrase_keeps_its_first_word_as_its_noun() -> None:
    binding = bind_schema("Book a tour in Bergen at the Gallery of Northern Light.", _VENUE)
    assert binding.sets == [{"gallery_name": "Gallery of Northern Light", "city": "Bergen"}]



_STAY = _schema(
    {
        "inn_name": {"type": "string", "description": "Name of the inn."},
        "location": {"type": "string", "description": "Where the inn is."},
        "room_type": {"type": "string", "description": "Kind of room, e.g. single or twin."},
    }
)


def test_a_place_after_a_named_venue_and_its_comma_is_the_location() -> None:
    binding = bind_schema("Reserve a twin room at Inn Solace, Porto, for next week.", _STAY)
    assert binding.sets[0]["inn_name"] == "Inn Solace"
    assert binding.sets[0]["location"] == "Porto"


def test_a_place_after_a_place_and_its_comma_stays_one_call() -> None:
    schema = _schema(
        {
            "location": {"type": "string", "description": "Where to stay."},
            "room_type": {"type": "string", "description": "Kind of room, e.g. single or twin."},
        }
    )
    binding = bind_schema("Reserve a twin room near Soho Square, Greater London.", schema)
    assert len(binding.sets) == 1
