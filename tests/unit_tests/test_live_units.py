"""Units: a measure goes only to a parameter whose stated unit measures the same thing, and
in that unit ("5000 m" for a distance in kilometers is 5). Requests and schemas written here.
"""

from __future__ import annotations

import pytest

from nodes.planning.schema_binder import bind_schema
from stores.language.units import convert, stated_unit, unit_of

BODY = {
    "type": "object",
    "properties": {
        "weight": {"type": "number", "description": "Weight of the person in kilograms."},
        "height": {"type": "number", "description": "Height of the person in meters."},
    },
    "required": ["weight", "height"],
}
TRIP = {
    "type": "object",
    "properties": {
        "distance": {"type": "number", "description": "The distance in kilometers."},
        "speed": {"type": "number", "description": "Average speed (m/s)."},
    },
    "required": ["distance", "speed"],
}


def test_units_are_read_from_a_description_and_a_span() -> None:
    assert stated_unit("The distance in kilometers.") == unit_of("km")
    assert stated_unit("Average speed (m/s).") == unit_of("meter/second")
    assert stated_unit("The number of people in a room.") is None
    assert unit_of("tickets") is None


def test_conversion_keeps_the_dimension() -> None:
    assert convert(5000, unit_of("m"), unit_of("km")) == pytest.approx(5.0)
    assert convert(5, unit_of("kg"), unit_of("km")) is None


def test_a_length_never_fills_a_weight() -> None:
    binding = bind_schema("A triangle with base 10 meters and height 5 meters", BODY)
    assert "weight" not in binding.sets[0]
    assert "weight" in binding.missing


def test_a_measure_is_converted_to_the_parameters_unit() -> None:
    binding = bind_schema("How long does a trip of 5000 m take at 36 km/h?", TRIP)
    assert binding.sets == [{"distance": pytest.approx(5.0), "speed": pytest.approx(10.0)}]


def test_a_count_in_one_unit_goes_to_the_parameter_counting_it_whole() -> None:
    schema = {
        "type": "object",
        "properties": {
            "months": {"type": "integer", "description": "Length in months of 30 days."},
            "days": {"type": "integer", "description": "Length in days."},
        },
    }
    assert bind_schema("Rent it for 10 days", schema).sets == [{"days": 10}]
