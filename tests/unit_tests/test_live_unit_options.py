"""An enum of unit symbols takes the unit a request names in words ("in miles" is "mi").

Schemas and requests written here; the units are pint's, so any unit pint knows works and a
word that names no unit of the enum leaves the parameter alone.
"""

from __future__ import annotations

from nodes.planning.schema_binder import bind_schema
from stores.language.units import unit_option

DISTANCE = {
    "type": "object",
    "properties": {
        "origin": {"type": "string", "description": "Start city."},
        "destination": {"type": "string", "description": "End city."},
        "unit": {"type": "string", "enum": ["km", "mi"], "description": "Unit of distance."},
    },
    "required": ["origin", "destination"],
}


def test_a_unit_named_in_words_picks_its_symbol() -> None:
    assert unit_option("How far is it in miles?", ["km", "mi"]) == ("mi", 17)
    assert unit_option("the weight in kilograms", ["lb", "kg"]) == ("kg", 14)


def test_a_unit_that_is_no_option_or_no_unit_picks_nothing() -> None:
    assert unit_option("How far is it in feet?", ["km", "mi"]) is None
    assert unit_option("Tell me a story in a minute", ["km", "mi"]) is None


def test_the_binder_reads_the_unit_option() -> None:
    binding = bind_schema("What is the distance from 'London' to 'Paris' in miles?", DISTANCE)
    assert binding.sets[0] == {"origin": "London", "destination": "Paris", "unit": "mi"}
