"""A unit parameter takes the unit the request measures in ("4 inches", "in miles")."""

from __future__ import annotations

from typing import Any

from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema

NUM = {"type": "integer", "description": "The radius of the circle."}


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def bind(text: str, tool: dict[str, Any]) -> list[dict[str, Any]]:
    return bind_schema(text, tool, spans=extract_spans(text)).sets


UNIT = {"type": "string", "description": "The unit of measurement. Default is 'cm'."}


def test_the_unit_a_number_was_said_in_fills_the_unit_parameter() -> None:
    tool = schema(["radius"], radius=NUM, unit=UNIT)
    assert bind("How long is the edge of a round table with a radius of 30 inches?", tool) == [
        {"radius": 30, "unit": "inches"}
    ]


def test_one_unit_said_for_several_numbers() -> None:
    tool = schema(
        ["width", "depth"],
        width={"type": "number", "description": "Width of the box."},
        depth={"type": "number", "description": "Depth of the box."},
        units={"type": "string", "description": "Units the sizes are given in."},
    )
    assert bind("My box is 12cm wide and 40cm deep, what volume?", tool)[0]["units"] == "cm"


def test_the_unit_an_answer_is_asked_in_fills_the_unit_parameter() -> None:
    tool = schema(
        ["origin", "destination"],
        origin={"type": "string", "description": "Start city."},
        destination={"type": "string", "description": "End city."},
        unit={"type": "string", "description": "Unit of distance. Default 'km'."},
    )
    sets = bind("How far is it from Denver to Omaha by road, in miles please?", tool)
    assert sets[0]["unit"] == "miles"


def test_no_unit_when_the_request_says_none_or_mixes_them() -> None:
    tool = schema(["radius"], radius=NUM, unit=UNIT)
    assert "unit" not in bind("Circumference of a circle whose radius is 4?", tool)[0]
    mixed = schema(
        ["weight", "height"],
        weight={"type": "number", "description": "Weight of the person."},
        height={"type": "number", "description": "Height of the person."},
        unit={"type": "string", "description": "The unit system, e.g. metric."},
    )
    assert "unit" not in bind("BMI for someone 85 kilograms heavy and 175 centimeters tall", mixed)[0]


def test_degrees_fahrenheit_is_one_unit_converted_to_the_parameters_celsius() -> None:
    tool = schema(
        ["temperature"],
        temperature={"type": "number", "description": "Target temperature in Celsius."},
    )
    assert bind("Please set the heating to 77 degrees Fahrenheit tonight", tool) == [
        {"temperature": 25.0}
    ]


def test_degrees_celsius_fill_the_temperature_and_its_unit() -> None:
    tool = schema(
        ["temperature"],
        temperature={"type": "integer", "description": "The temperature to set."},
        unit={"type": "string", "description": "Temperature unit."},
    )
    assert bind("warm the oven up to 180 degrees celsius", tool) == [
        {"temperature": 180, "unit": "celsius"}
    ]
