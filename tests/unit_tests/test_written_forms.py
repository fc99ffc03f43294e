"""Values of a written form: e-mails, URLs, named things and dated ranges bind whole and right."""

from __future__ import annotations

from typing import Any

from nodes.planning.object_binding import build_object
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


STR = {"type": "string"}


def test_an_email_address_parameter_takes_the_email_not_the_name_after_to() -> None:
    tool = schema(
        ["to_address", "subject"],
        to_address={**STR, "description": "The email address of the recipient."},
        subject={**STR, "description": "The subject line."},
    )
    bound = bind_schema("Write an email to Kim at kim@lab.example with the subject 'Budget'",
                        tool, segment=0)
    assert bound.sets == [{"to_address": "kim@lab.example", "subject": "Budget"}]


def test_a_schema_format_names_the_written_form() -> None:
    tool = schema(["target"], target={**STR, "format": "uri", "description": "Where to go."})
    bound = bind_schema("Open Bob's page https://bob.example/home for me", tool, segment=0)
    assert bound.sets == [{"target": "https://bob.example/home"}]


def test_a_url_ends_before_the_question_mark_of_the_sentence() -> None:
    spans = extract_spans("Can you read https://example.com/data.json?")
    assert [(s.kind, s.value) for s in spans] == [("url", "https://example.com/data.json")]


def test_an_objects_property_takes_a_whole_email_after_its_name() -> None:
    item = schema(["email"], email={**STR, "description": "The new e-mail."},
                  age={"type": "integer", "description": "The new age."})
    built = build_object("set my new email, ana.lopez@example.org, and my new age, 41",
                         item, "profile_data", bind_schema)
    assert built is not None and built["email"] == "ana.lopez@example.org"


def test_a_value_after_a_naming_verb_is_the_name() -> None:
    tool = schema(["device_name"], device_name={**STR, "description": "The device to pair."})
    bound = bind_schema("Pair my Bluetooth headset named 'blue cans'", tool, segment=0)
    assert bound.sets == [{"device_name": "blue cans"}]


def test_a_range_said_with_one_year_dates_both_ends() -> None:
    tool = schema(
        ["start_date", "end_date"],
        start_date={**STR, "description": "First day, in YYYY-MM-DD format."},
        end_date={**STR, "description": "Last day, in YYYY-MM-DD format."},
    )
    bound = bind_schema("Book the hall from March 9th to March 12th 2025", tool, segment=0)
    assert bound.sets == [{"start_date": "2025-03-09", "end_date": "2025-03-12"}]


ACTION = {**STR, "enum": ["add", "delete", "update"], "description": "The action to perform."}


def test_an_action_enum_takes_the_value_the_request_names_by_a_synonym() -> None:
    tool = schema(["type", "content"], type=ACTION,
                  content={**STR, "description": "The text of the item."})
    removed = bind_schema("Remove the 'water plants' item from my list", tool, segment=0)
    created = bind_schema("Please create an item 'call mum'", tool, segment=0)
    assert removed.sets == [{"type": "delete", "content": "water plants"}]
    assert created.sets == [{"type": "add", "content": "call mum"}]


def test_a_status_enum_is_not_read_as_an_action() -> None:
    tool = schema(["state"], state={**STR, "enum": ["open", "closed"],
                                     "description": "The ticket state."})
    assert bind_schema("Create a ticket for the printer", tool, segment=0).missing == ["state"]


def test_a_date_parameter_without_a_format_takes_whole_dates_the_iso_way() -> None:
    tool = schema(["show", "date"], show={**STR, "description": "The show to see."},
                  date={**STR, "description": "The day of the show."})
    whole = bind_schema("Get me a seat at 'Hamlet' on Saturday, July 8th 2028", tool, segment=0)
    no_year = bind_schema("Get me a seat at 'Hamlet' on July 8th", tool, segment=0)
    assert whole.sets == [{"show": "Hamlet", "date": "2028-07-08"}]
    assert no_year.sets == [{"show": "Hamlet", "date": "July 8th"}]


def test_the_unit_of_a_measure_is_no_name() -> None:
    spans = extract_spans("Cool 2 litres of oil from 90 degrees Celsius to 300 Kelvin")
    assert [s.kind for s in spans] == ["number", "number", "number"]
    assert "Newton" in [s.value for s in extract_spans("A paper by Newton on 3 laws")]


def test_the_ends_of_a_range_go_to_the_parameters_for_each_end() -> None:
    # the parameters listed high end first: the order of the schema says nothing here
    integral = schema(
        ["function", "b", "a"], function={**STR, "description": "The function."},
        b={"type": "number", "description": "The upper bound."},
        a={"type": "number", "description": "The lower bound."},
    )
    heating = schema(
        ["final_temperature", "initial_temperature"],
        final_temperature={"type": "number", "description": "Where it ends."},
        initial_temperature={"type": "number", "description": "Where it starts."},
    )
    bound = bind_schema("Integrate 'x**3' from x=2 to x=7", integral, segment=0)
    heated = bind_schema("Warm the oil from 30 degrees Celsius to 180 degrees Celsius", heating,
                         segment=0)
    assert (bound.sets[0]["a"], bound.sets[0]["b"]) == (2, 7)
    assert heated.sets == [{"final_temperature": 180, "initial_temperature": 30}]


def test_words_an_array_of_allowed_values_took_fill_no_other_parameter() -> None:
    tool = schema(
        ["location"], location={**STR, "description": "The city to look in."},
        amenities={"type": "array", "description": "What the place must have.",
                   "items": {"type": "string", "enum": ["Patio", "Garden", "Parking"]}},
    )
    bound = bind_schema("Find the closest cafe that has a Patio and Parking", tool, segment=0)
    assert bound.sets[0].get("amenities") == ["Patio", "Parking"]
    assert bound.missing == ["location"]
