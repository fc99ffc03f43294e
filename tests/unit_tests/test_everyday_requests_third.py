"""Requests to one tool that say a little more after the request itself.

Written here (none from a benchmark): a sentence about the speaker after the question ("I'm
traveling to Japan."), a sentence that names one more argument ("Put it under the name
Smith."), a topic followed by another parameter's name ("with a limit of 3"), a value said
after "It's", a street named with an ordinal ("5th Avenue").
"""

from __future__ import annotations

from typing import Any

from nodes.parsing.splitting import about_the_speaker
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema
from stores.language.units import system_option
from stores.retrieval.embeddings import default_embedder
from tests.unit_tests.test_everyday_requests import INT, NUM, STR, _planned, schema


def _planned_by_meaning(
    request: str, name: str, description: str, params: dict[str, Any]
) -> list[dict[str, Any]]:
    """The core calls the rule planner makes with the offline embedding model, as zspace runs."""
    return _planned(request, name, description, params, default_embedder())


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


def test_turn_on_and_switch_off_set_a_switch_named_on() -> None:
    lights = schema(["room", "on"], room=STR, on={"type": "boolean"},
                    brightness={**INT, "description": "Brightness percent, 0-100"})
    on = _planned_by_meaning("Turn on the kitchen lights at 50% brightness.", "set_lights",
                  "Turn the lights of a room on or off and set their brightness", lights)
    assert on == [{"room": "kitchen", "on": True, "brightness": 50}]
    off = _planned_by_meaning("Switch off the lights in the bedroom please.", "set_lights",
                   "Turn the lights of a room on or off and set their brightness", lights)
    assert off == [{"room": "bedroom", "on": False}]


def test_a_person_is_no_language_and_the_tools_own_name_is_no_value() -> None:
    summary = schema(["title"], title={**STR, "description": "Article title"},
                     language={**STR, "description": "Language code, e.g. en"})
    calls = _planned("Give me the Wikipedia summary for Alan Turing.", "get_wikipedia_summary",
                     "Get the summary of a Wikipedia article", summary)
    assert calls == [{"title": "Alan Turing"}]
    # A language of one word keeps its place, listed or not ("Rust" for a repository's).
    repos = schema(["language"], language={**STR, "description": "Programming language"})
    assert _planned("Show trending repositories written in Rust", "trending_repositories",
                    "Trending repositories on GitHub by language", repos) == [
        {"language": "Rust"}
    ]


PRODUCTS = schema(
    ["query"], query=STR, category=STR, max_price=NUM, in_stock={"type": "boolean"},
    sort_by={**STR, "enum": ["price", "rating", "newest"]},
)
_SEARCHES = "Search the store's products"


def test_what_a_request_asks_to_be_shown_is_a_searchs_query() -> None:
    for request, wanted in [
        ("Find wireless headphones under $100.",
         {"query": "wireless headphones", "max_price": 100.0}),
        ("Show me laptops sorted by price.", {"query": "laptops", "sort_by": "price"}),
        ("Search for wireless headphones under $100 that are in stock.",
         {"query": "wireless headphones", "max_price": 100.0, "in_stock": True}),
        ("Look for red sneakers in the shoes category.",
         {"query": "red sneakers", "category": "shoes"}),
    ]:
        assert _planned_by_meaning(request, "search_products", _SEARCHES, PRODUCTS) == [
            wanted
        ], request


def test_a_search_drops_its_ranking_words_and_the_tools_own_noun() -> None:
    videos = schema(["query"], query=STR, max_results=INT)
    calls = _planned_by_meaning("Find videos of cats playing piano.", "search_videos",
                                "Search videos", videos)
    assert calls == [{"query": "cats playing piano"}]
    recipes = schema(["query"], query=STR,
                     diet={**STR, "enum": ["vegan", "vegetarian", "keto"]})
    calls = _planned_by_meaning("Find the newest vegetarian lasagna recipes.", "find_recipe",
                                "Find recipes", recipes)
    assert calls == [{"query": "lasagna", "diet": "vegetarian"}]


def test_the_tools_own_object_before_digits_names_its_one_identifier() -> None:
    track = schema(["tracking_number"], tracking_number=STR,
                   carrier={**STR, "enum": ["ups", "fedex", "usps", "dhl"]})
    calls = _planned("track package 123456789012", "track_package",
                     "Track a package by its tracking number", track)
    assert calls == [{"tracking_number": "123456789012"}]
    # Another object's number is still no identifier of this tool ("account 123456").
    user = schema(["user_id"], user_id=STR)
    calls = _planned("get the user for account 123456", "get_user", "Get a user", user)
    assert all(call.get("user_id") != "123456" for call in calls)
    # The tool's own object names only an identifier of that object: "order 5" is no user.
    calls = _planned("list the refunds of order 5", "list_orders", "List the orders of a user",
                     user)
    assert all(call.get("user_id") != "5" for call in calls)


def test_a_label_is_what_a_thing_is_called_or_labeled() -> None:
    timer = schema(["duration_seconds"], duration_seconds={
        **INT, "description": "Length of the timer in seconds"}, label=STR)
    calls = _planned_by_meaning("Start a 90 second timer called eggs", "set_timer",
                                "Start a countdown timer", timer)
    assert calls == [{"duration_seconds": 90, "label": "eggs"}]
    alarm = schema(["time"], time={**STR, "description": "HH:MM in 24-hour format"}, label=STR)
    calls = _planned_by_meaning("Set an alarm for 7am labeled gym", "set_alarm",
                                "Set an alarm", alarm)
    assert calls == [{"time": "07:00", "label": "gym"}]


def test_thousands_written_short() -> None:
    numbers = [(s.value, s.unit) for s in extract_spans("25k borrowed at 298K for a 2.5k fee")
               if s.kind == "number"]
    assert numbers == [(25000, None), (298, "K"), (2500.0, None)]


def test_a_time_goes_to_the_parameter_that_asks_for_a_clock_time() -> None:
    tickets = schema(
        ["movie", "theater", "showtime", "tickets"], movie=STR, theater=STR,
        showtime={**STR, "description": "Show time in HH:MM 24-hour format"},
        tickets={**INT, "description": "Number of tickets"},
    )
    calls = _planned_by_meaning("I want three tickets to Oppenheimer, 9 PM at the Castro "
                                "Theatre.", "book_movie_tickets",
                                "Book tickets for a movie at a theater", tickets)
    assert calls == [{"movie": "Oppenheimer", "theater": "Castro Theatre", "showtime": "21:00",
                      "tickets": 3}]


def test_an_optional_list_said_after_with_is_the_things_added() -> None:
    pizza = schema(["size", "address"], size={**STR, "enum": ["small", "medium", "large"]},
                   toppings={"type": "array", "items": STR}, address=STR)
    calls = _planned_by_meaning("Order a large pizza with pepperoni and mushrooms to 42 Elm "
                                "Street", "order_pizza", "Order a pizza for delivery", pizza)
    assert calls == [{"size": "large", "address": "42 Elm Street",
                      "toppings": ["pepperoni", "mushrooms"]}]


def test_fields_written_as_name_colon_words() -> None:
    email = schema(
        ["to", "subject", "body"],
        to={"type": "array", "items": STR, "description": "Recipient email addresses"},
        subject=STR, body=STR, cc={"type": "array", "items": STR},
    )
    calls = _planned_by_meaning("Send an email to team@corp.com, subject: Release, body: v2 is "
                                "out. cc boss@corp.com", "send_email", "Send an email", email)
    # "corp.com, subject" is no list of two things: a part of an address is no item.
    assert calls == [{"to": ["team@corp.com"], "subject": "Release", "body": "v2 is out",
                      "cc": ["boss@corp.com"]}]


def test_the_word_before_the_tools_own_things_is_what_kind_they_are() -> None:
    movies = schema(["location"], location=STR, genre=STR,
                    date={**STR, "description": "Date, e.g. today"})
    calls = _planned_by_meaning("Find horror movies in Denver. Thanks!", "find_movies",
                                "Find movies showing in theaters", movies)
    assert calls == [{"location": "Denver", "genre": "horror"}]
    # A word of which or how many is no kind: "the latest movies" sets no genre.
    calls = _planned_by_meaning("Find the latest movies in Denver", "find_movies",
                                "Find movies showing in theaters", movies)
    assert calls == [{"location": "Denver"}]


def test_a_count_of_the_tools_own_things_is_how_many_results() -> None:
    videos = schema(["query"], query=STR, max_results=INT)
    calls = _planned_by_meaning("Find 5 videos about sourdough baking.", "search_videos",
                                "Search videos", videos)
    assert calls == [{"query": "sourdough baking", "max_results": 5}]
    calls = _planned_by_meaning("Search for 10 videos of cats", "search_videos",
                                "Search videos", videos)
    assert calls == [{"query": "cats", "max_results": 10}]


def test_a_unit_said_names_its_system_of_units() -> None:
    assert system_option("weather london in fahrenheit pls", ["metric", "imperial"]) == (
        "imperial", 18)
    assert system_option("how far is it in km", ["metric", "imperial"]) == ("metric", 17)
    assert system_option("the distance in miles", ["standard", "metric", "imperial"])[0] \
        == "imperial"
    assert system_option("in fahrenheit", ["celsius", "fahrenheit"]) is None


def test_a_bound_said_in_a_sentence_of_its_own_adds_to_the_call_before() -> None:
    hotels = schema(
        ["city", "check_in", "check_out"], city=STR,
        check_in={**STR, "description": "YYYY-MM-DD"}, check_out={**STR, "description":
                                                                 "YYYY-MM-DD"},
        max_price={**NUM, "description": "Maximum price per night in USD"},
    )
    calls = _planned_by_meaning("Find hotels in Paris from 2024-07-01 to 2024-07-05. Nothing "
                                "above 200 dollars a night.", "search_hotels",
                                "Search for hotels in a city", hotels)
    assert calls == [{"city": "Paris", "check_in": "2024-07-01", "check_out": "2024-07-05",
                      "max_price": 200.0}]


def test_the_allowed_value_said_after_its_parameters_name_is_the_one() -> None:
    calls = _planned_by_meaning("Show me the newest running shoes, sorted by rating.",
                                "search_products", _SEARCHES, PRODUCTS)
    assert calls == [{"query": "running shoes", "sort_by": "rating"}]
    # Two values said alike are two calls still.
    weather = schema(["city"], city=STR, unit={**STR, "enum": ["celsius", "fahrenheit"]})
    calls = _planned_by_meaning("What's the temperature in Paris in celsius and in "
                                "fahrenheit?", "get_weather", "Get the current weather of a "
                                "city", weather)
    assert len(calls) == 2


def test_words_after_a_recipient_and_a_colon_keep_their_time() -> None:
    sms = schema(["phone_number", "message"], phone_number={
        **STR, "description": "E.164, e.g. +14155550100"}, message=STR)
    calls = _planned_by_meaning("Send an SMS to +447700900123: Meeting moved to 3pm",
                                "send_sms", "Send a text message to a phone number", sms)
    # No parameter takes a time: the time is part of the message.
    assert calls == [{"phone_number": "+447700900123", "message": "Meeting moved to 3pm"}]


def test_the_end_of_a_stay_is_its_start_plus_its_length() -> None:
    booking = schema(
        ["hotel_name", "start_date", "end_date"], hotel_name=STR,
        start_date={**STR, "description": "The start date. Use format 'YYYY-MM-DD'."},
        end_date={**STR, "description": "The end date. Use format 'YYYY-MM-DD'."},
    )
    bound = bind_schema("Book the Plaza Hotel for 3 nights starting from 1st June 2022", booking)
    assert bound.sets == [{"hotel_name": "Plaza Hotel", "start_date": "2022-06-01",
                           "end_date": "2022-06-04"}]
    stay = schema(["check_in", "check_out"], check_in={**STR, "description": "YYYY-MM-DD"},
                  check_out={**STR, "description": "YYYY-MM-DD"})
    assert bind_schema("a room from 2024-09-10 for two weeks", stay).sets == [
        {"check_in": "2024-09-10", "check_out": "2024-09-24"}]
    # An end said is kept.
    assert bind_schema("a room from 2024-09-10 to 2024-09-12 for 2 guests", stay).sets == [
        {"check_in": "2024-09-10", "check_out": "2024-09-12"}]


def test_the_language_a_text_is_written_in_is_read_from_the_text() -> None:
    sentiment = schema(["text", "language"], text={
        **STR, "description": "The text on which to perform sentiment analysis."},
        language={**STR, "description": "The language in which the text is written."})
    bound = bind_schema("Analyze the sentiment of 'I love the food here! It's always fresh.'",
                        sentiment)
    assert bound.sets == [{"text": "I love the food here! It's always fresh.",
                           "language": "English"}]
    # A language to translate into is never guessed from the text.
    into = schema(["text", "language"], text=STR,
                  language={**STR, "description": "The language to translate into."})
    assert bind_schema("Translate the text 'I love the food here, it is great'",
                       into).missing == ["language"]
    # Nor is a quoted sentence a language.
    assert bind_schema("Translate 'I love the food here, it is great'", into).sets == [
        {"text": "I love the food here, it is great"}]


def test_with_a_text_parameters_name_then_its_words() -> None:
    note = schema(["body"], title=STR, body=STR)
    assert bind_schema("Save a note titled Ideas with body build a treehouse", note).sets == [
        {"body": "build a treehouse", "title": "Ideas"}]
    assert bind_schema("Create a note with title Groceries and body buy milk", note).sets == [
        {"title": "Groceries", "body": "buy milk"}]
    # A name is a name's business: "with name John Doe in New York" passes no words on.
    record = schema(["criminal_name"], criminal_name=STR, region=STR)
    bound = bind_schema("Find the conviction status of a criminal with name John Doe in New "
                        "York", record)
    assert bound.sets[0]["criminal_name"] == "John Doe"
