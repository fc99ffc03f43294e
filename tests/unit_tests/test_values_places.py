"""A city alone, written the way a parameter's description asks ("City, State", "e.g. Boston, MA")."""

from __future__ import annotations

from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema
from stores.language.codes import value_as_described
from stores.language.places import region_of_city

CITY_STATE = "The city and state, e.g. Denver, CO"


def test_a_city_gets_the_state_the_description_shows() -> None:
    assert value_as_described("San Francisco", CITY_STATE) == "San Francisco, CA"
    assert value_as_described("Portland", "City and state, for instance Austin, TX.") == \
        "Portland, OR"
    assert value_as_described("Chicago", "Specify the location in the format of City, State.") \
        == "Chicago, IL"


def test_a_city_named_as_the_user_wrote_it_keeps_that_name() -> None:
    # geonames calls it "New York City"; the user's words stay, the state is added.
    assert value_as_described("New York", CITY_STATE) == "New York, NY"


def test_no_state_is_guessed_for_a_place_outside_the_states_or_an_ambiguous_one() -> None:
    assert value_as_described("London", CITY_STATE) is None  # London, England is larger
    assert value_as_described("Springfield", CITY_STATE) is None  # three of like size
    assert value_as_described("Yellowstone National Park", CITY_STATE) is None
    assert value_as_described("Boston", "The city where the museum is.") is None


def test_region_of_city() -> None:
    assert region_of_city("Seattle") == "WA"
    assert region_of_city("seattle") is None  # a lower-case word is no name
    assert region_of_city("Paris") is None


def test_the_binder_fills_a_city_and_state_parameter_from_the_city_alone() -> None:
    schema = {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": CITY_STATE},
            "cuisine": {"type": "string", "description": "Type of food."},
        },
        "required": ["location"],
    }
    text = "Find me a good sushi place in Seattle for tonight"
    binding = bind_schema(text, schema, spans=extract_spans(text))
    assert binding.sets == [{"location": "Seattle, WA"}]


def test_two_places_of_one_kind_keep_their_countries() -> None:
    schema = {
        "type": "object",
        "properties": {
            "start_location": {"type": "string", "description": "Where the trip starts."},
            "end_location": {"type": "string", "description": "Where the trip ends."},
        },
        "required": ["start_location", "end_location"],
    }
    text = "Quickest way from Lyon, France to Turin, Italy by train?"
    binding = bind_schema(text, schema, spans=extract_spans(text))
    assert binding.sets == [{"start_location": "Lyon, France", "end_location": "Turin, Italy"}]


def test_a_city_and_a_state_parameter_still_take_the_parts() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city."},
            "state": {"type": "string", "description": "The state."},
        },
        "required": ["city", "state"],
    }
    text = "What's the crime rate in Fresno, California?"
    binding = bind_schema(text, schema, spans=extract_spans(text))
    assert binding.sets == [{"city": "Fresno", "state": "California"}]


STATE_OR_COUNTRY = (
    "The city, as 'City, State' (e.g. 'Austin, TX') for a city of the United States, "
    "else as 'City, Country'."
)


def test_a_city_outside_the_states_gets_its_country_when_the_format_asks() -> None:
    assert value_as_described("Tokyo", STATE_OR_COUNTRY) == "Tokyo, Japan"
    assert value_as_described("Seattle", STATE_OR_COUNTRY) == "Seattle, WA"
    assert value_as_described("Tokyo", CITY_STATE) is None  # no country asked for
    assert value_as_described("Tokyo", "The city name, e.g. Berlin") is None


IANA = "IANA timezone name (e.g., 'America/New_York', 'Europe/London')."


def test_a_city_or_a_country_with_one_zone_is_its_iana_time_zone() -> None:
    assert value_as_described("Tokyo", IANA) == "Asia/Tokyo"
    assert value_as_described("San Francisco", IANA) == "America/Los_Angeles"
    assert value_as_described("Berlin, Germany", IANA) == "Europe/Berlin"
    assert value_as_described("India", IANA) == "Asia/Kolkata"  # the country, not a town
    # A zone asked for only by its example, checked against the IANA database.
    assert value_as_described("Sydney", "The zone, e.g. Asia/Tokyo") == "Australia/Sydney"


def test_no_zone_is_guessed_where_the_place_has_several_or_none_is_asked() -> None:
    assert value_as_described("Australia", IANA) is None  # several zones
    assert value_as_described("Springfield", IANA) is None  # three of like size
    assert value_as_described("Asia/Tokyo", IANA) is None  # already a zone
    assert value_as_described("Paris", "Answer Yes/No") is None  # not a zone's example
    assert value_as_described("Paris", "The city of the hotel.") is None


def test_the_binder_fills_a_time_zone_from_the_city_the_user_names() -> None:
    schema = {
        "type": "object",
        "properties": {"timezone": {"type": "string", "description": IANA}},
        "required": ["timezone"],
    }
    text = "what time is it in Tokyo"
    binding = bind_schema(text, schema, spans=extract_spans(text))
    assert binding.sets == [{"timezone": "Asia/Tokyo"}]
