"""An array's allowed values of two words or more, named by one word only they have.

"with parking included" asks for the "Parking Pass" add-on, "a room with a sea view and
late checkout" for "Sea View Room" and "Late Checkout": a word of the value that no other
allowed value has names it. Not a word that names another parameter ("in the hotel's city"
is no "City Tour"), nor one beside a value said whole ("the spa package" names "Spa" and no
"Package Deal"). Tools and requests are written here.
"""

from __future__ import annotations

from typing import Any

from nodes.planning.enum_values import enum_mentions
from nodes.planning.param_fit import describe_params
from nodes.planning.schema_binder import bind_schema

EXTRAS = ["Parking Pass", "Sea View Room", "Late Checkout", "City Tour", "Spa", "Package Deal"]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "hotel_city": {"type": "string", "description": "City of the hotel."},
        "extras": {"type": "array", "items": {"type": "string", "enum": EXTRAS},
                   "description": "Extras to add to the stay."},
    },
    "required": ["hotel_city"],
}


def _extras(text: str) -> Any:
    return bind_schema(text, SCHEMA, segment=0).sets[0].get("extras")


def test_one_word_only_the_value_has_names_it() -> None:
    assert _extras("Book a stay in Lisbon with parking included") == ["Parking Pass"]


def test_several_values_named_by_their_own_words_in_the_order_said() -> None:
    assert _extras("A stay in Porto with a sea view and late checkout") == [
        "Sea View Room", "Late Checkout"
    ]


def test_a_word_of_another_parameter_names_no_value() -> None:
    # "city" is the hotel_city parameter's word: no "City Tour" is asked for.
    assert _extras("Book a stay in the city of Faro") is None


def test_a_word_beside_a_value_said_whole_is_part_of_it() -> None:
    assert _extras("A stay in Braga with the spa package") == ["Spa"]


def test_a_scalar_reading_is_unchanged() -> None:
    param = next(p for p in describe_params(SCHEMA) if p.name == "extras")
    assert enum_mentions("with parking included", param) == []
    assert enum_mentions("with parking included", param, by_one_word=frozenset()) == [
        "Parking Pass"
    ]
