"""Requests to one tool that say a little more after the request itself.

Written here (none from a benchmark): a sentence about the speaker after the question ("I'm
traveling to Japan."), a sentence that names one more argument ("Put it under the name
Smith."), a topic followed by another parameter's name ("with a limit of 3"), a value said
after "It's", a street named with an ordinal ("5th Avenue").
"""

from __future__ import annotations

from nodes.parsing.splitting import about_the_speaker
from nodes.planning.request_spans import extract_spans
from tests.unit_tests.test_everyday_requests import INT, NUM, STR, _planned, schema

CONVERT = schema(
    ["amount", "from_currency", "to_currency"], amount=NUM,
    from_currency={**STR, "description": "ISO code, e.g. USD"},
    to_currency={**STR, "description": "ISO code, e.g. EUR"},
)

# Words the request shares with the tool (no embedding model in these tests).
_CONVERTS = "How many yen, dollars or pounds is an amount in euros, or in any currency"


def test_a_sentence_about_the_speaker_is_context_wherever_it_stands() -> None:
    for said in ["I'm traveling to Japan.", "We're flying out tomorrow.", "My flight is at 9."]:
        assert about_the_speaker(said), said
    for other in ["It's English.", "I'd like a taxi.", "Show me the news.", "How far is Rome?",
                  "The car weighs 1200 kg."]:
        assert not about_the_speaker(other), other


def test_a_place_in_a_sentence_about_the_speaker_opens_no_second_call() -> None:
    calls = _planned("What is 50 euros in yen? I'm traveling to Japan.", "euros_in_yen",
                     _CONVERTS, CONVERT)
    assert calls == [{"amount": 50.0, "from_currency": "EUR", "to_currency": "JPY"}]


def test_the_places_asked_for_make_the_calls_not_the_place_the_speaker_goes() -> None:
    weather = schema(["city"], city={**STR, "description": "The city"})
    calls = _planned("What's the weather in Boston and in Miami? I'm moving to Denver.",
                     "get_weather", "Get the current weather of a city", weather)
    assert calls == [{"city": "Boston"}, {"city": "Miami"}]


def test_a_value_said_after_its_is_the_value_alone() -> None:
    names = [s.value for s in extract_spans("Translate it into French. It's English.")
             if s.kind == "name"]
    assert names == ["French", "English"]


def test_an_ordinal_before_a_capital_word_is_part_of_the_place() -> None:
    spans = extract_spans("I need a ride from 5th Avenue to Central Park.")
    assert [(s.kind, s.value) for s in spans] == [
        ("name", "5th Avenue"), ("name", "Central Park"),
    ]
    # A count is no name: "2 tickets", "the 3rd of May" keep their numbers.
    assert any(s.kind == "number" for s in extract_spans("Book 2 Tickets for Rome"))


def test_a_sentence_that_names_a_parameter_adds_it_to_the_call_before() -> None:
    book = schema(
        ["restaurant", "date", "time", "party_size"], restaurant=STR,
        date={**STR, "description": "YYYY-MM-DD"}, time={**STR, "description": "HH:MM"},
        party_size=INT, name={**STR, "description": "Name the reservation is under"},
    )
    calls = _planned("Book a table for 4 at Nopa on 2024-05-03 at 19:30. Put it under the "
                     "name Smith.", "book_table", "Reserve a table at a restaurant", book)
    assert calls == [{"restaurant": "Nopa", "date": "2024-05-03", "time": "19:30",
                      "party_size": 4, "name": "Smith"}]


def test_a_topic_ends_where_another_parameter_is_named() -> None:
    news = schema(["topic"], topic=STR, limit={**INT, "description": "Number of headlines"})
    calls = _planned("Show me news about the election with a limit of 3.", "get_news",
                     "Show me news about a topic, with a limit", news)
    assert calls == [{"topic": "the election", "limit": 3}]
