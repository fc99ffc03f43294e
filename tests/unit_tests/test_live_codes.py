"""Names the user writes out, given as the code a parameter's schema asks for.

Requests written here: "into Spanish" for a language enum of codes, "Berkeley, California"
for a location "in the format 'City, State (abbr)'", currencies named in words for a
"three-letter currency code". The codes come from the ISO tables (``stores.language.codes``);
a parameter that asks for a name keeps the name.
"""

from __future__ import annotations

from stores.language.codes import code_in, value_as_described
from tests.unit_tests.test_live_later_values import STR, calls, plan

TRANSLATE = (
    "translate_text", "Translate a text into another language.",
    {"text": {**STR, "description": "The text to translate."},
     "target_language": {**STR, "enum": ["en", "es", "fr", "de"],
                         "description": "Target language code."}},
    ["text", "target_language"],
)
WEATHER = (
    "get_current_weather", "Retrieves the current weather conditions for a location.",
    {"location": {**STR, "description": "The location, in the format of 'City, State (abbr)',"
                  " such as 'Berkeley, CA' or 'New York, NY'."}},
    ["location"],
)
CONVERT = (
    "convert_currency", "Convert an amount of money from one currency to another.",
    {"amount": {"type": "number", "description": "The amount to convert."},
     "from_currency": {**STR, "description": "Three-letter currency code to convert from."},
     "to_currency": {**STR, "description": "Three-letter currency code to convert to."}},
    ["amount", "from_currency", "to_currency"],
)


def test_a_language_named_fills_an_enum_of_codes() -> None:
    draft = plan("Please translate 'good morning' into Spanish for me.", TRANSLATE)
    assert calls(draft) == [("translate_text", {"text": "good morning",
                                                "target_language": "es"})]


def test_a_region_spelled_out_is_abbreviated_when_the_format_asks() -> None:
    draft = plan("What's the weather like in Berkeley, California right now?", WEATHER)
    assert calls(draft) == [("get_current_weather", {"location": "Berkeley, CA"})]


def test_currencies_named_in_words_become_their_codes() -> None:
    description = CONVERT[2]["from_currency"]["description"]
    assert value_as_described("euros", description) == "EUR"
    assert value_as_described("Canadian dollars", description) == "CAD"
    assert value_as_described("dollars", description) is None  # which dollar is not said
    assert code_in("Convert 150 euros to Canadian dollars", ["USD", "CAD"]) == ("CAD", 21)


def test_a_parameter_that_asks_for_a_name_keeps_it() -> None:
    assert value_as_described("Spanish", "The language of the text.") is None
    assert value_as_described("Paris, France", "City and state, e.g. 'Boston, MA'") is None
    assert code_in("Tell me a story about dogs", ["en", "es"]) is None
