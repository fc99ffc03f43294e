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
