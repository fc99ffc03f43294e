"""Searches said plainly, fields after a sentence, pronouns, reminders, region names.

Written here (none from a benchmark), in the style people use with assistants: a search whose
query is most of the request ("Search for the latest news about electric cars"), "Look up"
and "google" opening a request, a field named after a sentence's end ("... Subject: Q3
numbers. Body: ..."), "and say ...", a reminder "to" something, a time zone written as a
region's name ("Europe/Berlin"), and "it" pointing at what an earlier sentence named.
"""

from __future__ import annotations

from nodes.planning.eligibility import request_frame
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import Binding, bind_schema
from tests.unit_tests.test_everyday_requests import INT, STR, schema
from tests.unit_tests.test_everyday_requests_third import _planned_by_meaning

SEARCH = schema(["query"], query={**STR, "description": "The search query"},
                num_results={**INT, "description": "How many results to return"})
EMAIL = schema(["to", "subject", "body"], to={**STR, "description": "Recipient email address"},
               subject={**STR, "description": "Subject line"},
               body={**STR, "description": "Body of the email"})
REMINDER = schema(["message", "time"], message={**STR, "description": "What to be reminded about"},
                  time={**STR, "description": "When, in ISO 8601 format"})
CLOCK = schema(["timezone"],
               timezone={**STR, "description": "IANA timezone name such as America/New_York"})


def test_a_search_whose_query_is_the_request_is_made() -> None:
    calls = _planned_by_meaning("Search for the latest news about electric cars", "web_search",
                                "Search the web for a query and return the top results.", SEARCH)
    assert calls == [{"query": "the latest news about electric cars"}]


def test_the_frame_of_a_request_says_its_lower_case_text_as_something() -> None:
    bound = Binding(sets=[{"query": "the latest news about electric cars"}])
    assert request_frame("Search for the latest news about electric cars", bound) == \
        "Search for something"
    # A name is what the request is about; one word too.
    named = Binding(sets=[{"key": "Moonlight Sonata", "city": "Tokyo"}])
    assert request_frame("Who was the composer of Moonlight Sonata?", named) == \
        "Who was the composer of Moonlight Sonata?"


def test_look_up_and_google_open_a_search_whose_words_follow() -> None:
    bound = bind_schema("Look up best hiking trails near Portland and give me 3 results", SEARCH)
    assert bound.sets == [{"query": "best hiking trails near Portland", "num_results": 3}]
    bound = bind_schema("Can you google how to bake sourdough bread? Just the top 5 results.",
                        SEARCH)
    assert bound.sets == [{"query": "how to bake sourdough bread", "num_results": 5}]


def test_a_pronoun_is_no_value_and_the_earlier_sentence_names_it() -> None:
    assert bind_schema("Search the web for it", SEARCH).missing == ["query"]
    calls = _planned_by_meaning("I need info on the James Webb telescope. Search the web for it.",
                                "web_search", "Search the web for a query.", SEARCH)
    assert calls == [{"query": "James Webb telescope"}]


def test_fields_named_after_a_sentence_end_take_their_words() -> None:
    bound = bind_schema("Send an email to alice@corp.io. Subject: Q3 numbers. Body: Please find "
                        "the draft attached.", EMAIL)
    assert bound.sets == [{"to": "alice@corp.io", "subject": "Q3 numbers",
                           "body": "Please find the draft attached"}]


def test_and_say_passes_on_the_words_after_it() -> None:
    bound = bind_schema("Email bob@example.com with subject Lunch and say we are still on for "
                        "noon", EMAIL)
    assert bound.sets == [{"to": "bob@example.com", "subject": "Lunch",
                           "body": "we are still on for noon"}]


def test_a_reminder_to_do_something_is_its_message() -> None:
    for request in ["Set a reminder for 2024-06-03T09:30 to submit the quarterly report",
                    "Set a reminder to submit the quarterly report at 2024-06-03T09:30"]:
        calls = _planned_by_meaning(request, "create_reminder", "Create a reminder.", REMINDER)
        assert calls == [{"message": "submit the quarterly report",
                          "time": "2024-06-03T09:30"}], request
    # Said of another thing than the tool's own, the words are not its message.
    assert bind_schema("Set a reminder to submit the report at 2024-06-03T09:30",
                       REMINDER).missing == ["message"]


def test_a_region_name_is_an_identifier_not_a_path() -> None:
    spans = extract_spans("What is the current time in Europe/Berlin?")
    assert [(s.kind, s.value) for s in spans] == [("identifier", "Europe/Berlin")]
    assert bind_schema("current time America/New_York", CLOCK).sets == [
        {"timezone": "America/New_York"}]
    # A repository and a file stay paths.
    assert [s.kind for s in extract_spans("open torvalds/linux")] == ["path"]


def test_a_relative_clause_and_a_searched_collection_pass_nothing_on() -> None:
    status = schema([], status={**STR, "description": "Filter by status"})
    calls = _planned_by_meaning("List the orders that were cancelled", "list_orders",
                                "List orders.", status)
    assert calls == [{"status": "cancelled"}]  # not "were cancelled"
    bound = bind_schema("Search the products for 'milk'", SEARCH)
    assert bound.sets == [{"query": "milk"}]


TICKET = schema(["title", "description"], title={**STR, "description": "Short summary"},
                description={**STR, "description": "Details of the issue"},
                priority={**STR, "enum": ["low", "medium", "high"]})


def test_words_said_after_a_quoted_title_are_the_other_text() -> None:
    bound = bind_schema("File a high priority ticket titled 'Printer jam' saying the 3rd floor "
                        "printer is jammed again", TICKET)
    assert bound.sets == [{"priority": "high", "title": "Printer jam",
                           "description": "the 3rd floor printer is jammed again"}]


def test_a_description_naming_iso_8601_asks_for_a_date() -> None:
    event = schema(["title", "start"], title={**STR, "description": "Event title"},
                   start={**STR, "description": "Start time, ISO 8601"})
    bound = bind_schema("Put 'Dentist' on my calendar at 2024-03-04T15:00", event)
    assert bound.sets == [{"title": "Dentist", "start": "2024-03-04T15:00"}]
    assert bind_schema("Schedule a sync on 2024-03-05T10:00", event).sets[0].get("title") is None


def test_a_request_verb_opening_the_request_is_no_part_of_a_name() -> None:
    names = {s.value for t in ["Tell Mark Smith I'm late", "Invite Anna Lee to the meeting",
                               "Play Hey Jude"]
             for s in extract_spans(t) if s.kind == "name"}
    assert names == {"Mark Smith", "Anna Lee", "Hey Jude"}


def test_a_known_city_is_the_place_parameters_not_another_texts() -> None:
    jobs = schema(["title"], title={**STR, "description": "Job title or keywords"},
                  location=STR)
    bound = bind_schema("Any product manager openings in Berlin?", jobs, read_only=True)
    assert bound.sets[0].get("location") == "Berlin"
    assert bound.sets[0].get("title") != "Berlin"
    # Said otherwise than as where, a city's name may be another word: "Thai" food.
    food = schema(["location"], location=STR, food_type={**STR, "description": "Cuisine"})
    assert bind_schema("restaurants in Manhattan offering Thai food", food,
                       read_only=True).sets[0].get("location") == "Manhattan"


def test_a_title_opened_by_a_function_word_keeps_its_small_words() -> None:
    names = [s.value for s in extract_spans("Who wrote To Kill a Mockingbird?") if s.kind == "name"]
    assert names == ["To Kill a Mockingbird"]
    names = [s.value for s in extract_spans("book a room at The Plaza in New York")
             if s.kind == "name"]
    assert names == ["The Plaza", "New York"]


WEATHER = schema(["location"], location={**STR, "description": "City, State"},
                 unit={**STR, "enum": ["celsius", "fahrenheit"]})


def test_a_value_declined_is_not_asked_for() -> None:
    for request in ["Weather in Boston, MA? I prefer celsius over fahrenheit.",
                    "Weather in Boston, MA, in celsius rather than fahrenheit",
                    "Weather in Boston, MA, not in fahrenheit but celsius"]:
        assert bind_schema(request, WEATHER).sets == [
            {"location": "Boston, MA", "unit": "celsius"}], request


def test_a_place_said_in_a_statement_about_the_speaker_is_no_second_call() -> None:
    bound = bind_schema("Weather in Paris, France? My friend in Lyon says it's sunny.", WEATHER)
    assert bound.sets == [{"location": "Paris, France"}]
    # Asked for, a second place is a second call.
    assert bind_schema("Weather in Paris and in Lyon?", WEATHER).sets == [
        {"location": "Paris"}, {"location": "Lyon"}]


def test_a_language_an_enum_took_ends_the_topic() -> None:
    news = schema(["topic"], topic=STR, language={**STR, "enum": ["en", "es", "fr"]})
    bound = bind_schema("News about the Olympics in English and Spanish", news)
    assert bound.sets == [{"topic": "the Olympics", "language": "en"},
                          {"topic": "the Olympics", "language": "es"}]


def test_src_and_dst_name_the_two_sides_of_a_conversion() -> None:
    convert = schema(["amount", "src", "dst"], amount={"type": "number"},
                     src={**STR, "description": "currency code"},
                     dst={**STR, "description": "currency code"})
    bound = bind_schema("How much is 75 GBP in euros", convert)
    assert bound.sets == [{"amount": 75.0, "src": "GBP", "dst": "EUR"}]


def test_numbers_added_up_are_a_list_and_plus_is_no_unit() -> None:
    spans = extract_spans("Add up 133 plus 34 plus 12 with the calculator")
    assert [(s.kind, s.value) for s in spans] == [("list", [133, 34, 12])]
    total = schema(["numbers"], numbers={"type": "array", "items": {"type": "number"}})
    assert bind_schema("Add up 133 plus 34 plus 12", total).sets == [
        {"numbers": [133.0, 34.0, 12.0]}]


def test_named_values_after_a_search_verb_are_not_its_words() -> None:
    nodes = schema(["query"], query={**STR, "description": "The search query"})
    assert bind_schema("search nodes query=Bob", nodes).sets == [{"query": "Bob"}]
    tickets = schema([], q=STR, status=STR)
    assert bind_schema("search tickets with q=printer status=open", tickets).sets == [
        {"q": "printer", "status": "open"}]


def test_quoted_words_after_saying_are_the_message_not_the_recipient() -> None:
    message = schema(["recipient", "message"], recipient={**STR, "description": "Contact name"},
                     message={**STR, "description": "Message text"})
    binding = bind_schema("Send a message to John saying 'Meet me at 5 and bring the docs'",
                          message)
    assert binding.sets == [{"recipient": "John", "message": "Meet me at 5 and bring the docs"}]
    colon = bind_schema('Text Anna: "running late, start without me"', message)
    assert colon.sets == [{"recipient": "Anna", "message": "running late, start without me"}]


def test_a_compound_with_the_parameters_own_name_is_its_value() -> None:
    light = schema(["room", "brightness"], room={**STR, "description": "Room"},
                   brightness={**INT, "description": "Brightness 0-100"})
    calls = _planned_by_meaning("Turn the living room lights to 40% brightness", "set_light",
                                "Set a light's brightness.", light)
    assert calls == [{"room": "living room", "brightness": 40}]


def test_a_quoted_message_and_a_bare_name_find_their_parameters() -> None:
    message = schema(["recipient", "message"],
                     recipient={**STR, "description": "Who to send it to"},
                     message={**STR, "description": "The message"})
    assert bind_schema("Message Sarah 'running 10 minutes late'", message).sets == [
        {"recipient": "Sarah", "message": "running 10 minutes late"}]
    assert bind_schema("Send 'Happy birthday!' to Grandma", message).sets == [
        {"recipient": "Grandma", "message": "Happy birthday!"}]


def test_a_quoted_title_is_the_title_and_the_person_the_assignee() -> None:
    issue = schema(["title", "assignee"], title={**STR, "description": "Issue title"},
                   assignee={**STR, "description": "Person assigned"})
    assert bind_schema("Assign the bug 'Login fails on Safari' to Priya", issue).sets == [
        {"title": "Login fails on Safari", "assignee": "Priya"}]


def test_a_bare_file_name_is_a_name() -> None:
    rename = schema(["old_name", "new_name"], old_name={**STR, "description": "Current name"},
                    new_name={**STR, "description": "New name"})
    assert bind_schema("Rename the file report.txt to final_report.txt", rename).sets == [
        {"old_name": "report.txt", "new_name": "final_report.txt"}]
    node = schema(["name"], name={**STR, "description": "The node's name"})
    assert bind_schema("Open /srv/readme.md", node).missing == ["name"]  # a path is no name
