"""Words a request passes on as they are, and a tool's name said in another form (twelfth round).

Written here (none from a benchmark): a word for passed-on words before them ("the sentence
I loved it", "the command ls -la"), a note "that says" its words, a question asked of
someone ("Ask the assistant what ..."), the tool's own thing and what it is of ("an image of
a cat ..."), passed-on words that run past a comma or hold a question mark the sentence goes
on after; and a request naming what the tool does in another form of its word ("Translate"
for a translation service, "reserve" for a reservation); a day written on to its month's name
("June01 2023"); the verb after "want to" is no value; "the CEO of Microsoft" gives the company;
a channel is written with the sign its example shows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from nodes.parsing.rules import RuleIntentParser
from nodes.planning.relevance import MIN_RELEVANCE, cosines, relevance
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema, bind_tool
from stores.catalog.model import ToolSpec
from stores.language.codes import value_as_described
from stores.language.lexicon import Lexicon
from stores.language.spans_dates import find_dates
from stores.retrieval.embeddings import default_embedder
from tests.unit_tests.test_everyday_requests import INT, STR, _planned, schema


def _one(request: str, name: str, description: str, params: dict[str, Any]) -> dict[str, Any]:
    calls = _planned(request, name, description, params, default_embedder())
    assert len(calls) == 1, (request, calls)
    return dict(calls[0])


def _tool(name: str, description: str, params: dict[str, Any]) -> ToolSpec:
    return ToolSpec(id=f"t/{name}", name=name, description=description, agent="t",
                    input_schema=params, side_effect=False)


def _clauses(request: str) -> list[str]:
    return [s["text"] for s in RuleIntentParser(Lexicon.default()).parse(request)["sub_intents"]]


TEXT_ONLY = schema(["text"], text={**STR, "description": "Text to analyze"})


def test_a_word_for_passed_on_words_before_them_passes_them_on() -> None:
    call = _one("What is the sentiment of the sentence I absolutely loved the new movie",
                "analyze_sentiment", "Sentiment analysis of a text.", TEXT_ONLY)
    assert call == {"text": "I absolutely loved the new movie"}
    shell = schema(["command"], command={**STR, "description": "The command to execute"})
    call = _one("Run the command ls -la /var/log", "execute_shell", "Execute a shell command.",
                shell)
    assert call == {"command": "ls -la /var/log"}


def test_a_note_that_says_its_words_passes_on_the_words_only() -> None:
    note = schema(["content"], content={**STR, "description": "Note content"})
    call = _one("Write a note that says buy milk and eggs", "create_note", "Create a note.", note)
    assert call == {"content": "buy milk and eggs"}


def test_a_question_asked_of_someone_keeps_its_question_word() -> None:
    ask = schema(["question"], question={**STR, "description": "The question to ask"})
    call = _one("Ask the assistant what the capital of Peru is", "ask_question",
                "Ask a question to the knowledge assistant.", ask)
    assert call == {"question": "what the capital of Peru is"}


def test_the_tools_own_thing_and_what_it_is_of_is_the_prompt() -> None:
    image = schema(
        ["prompt"], prompt={**STR, "description": "Description of the image"},
        size={**STR, "enum": ["256x256", "512x512"], "default": "512x512"},
    )
    call = _one("Generate an image of a cat riding a bicycle on the moon", "generate_image",
                "Create an image from a text prompt.", image)
    assert call == {"prompt": "a cat riding a bicycle on the moon"}


def test_passed_on_words_run_past_a_comma() -> None:
    assert _clauses("Post a tweet saying Just landed in Tokyo, see you all soon!") == [
        "Post a tweet saying Just landed in Tokyo, see you all soon!"
    ]
    # a step after "then" is still a step of its own, and two steps said with a comma too
    assert _clauses("Write a note that says buy milk, eggs and bread, then email it to Ann") \
        == ["Write a note that says buy milk, eggs and bread", "email it to Ann"]
    assert _clauses("Get the weather in Paris, what is the time in Tokyo?") == [
        "Get the weather in Paris", "what is the time in Tokyo?"
    ]


def test_a_question_the_sentence_goes_on_after_is_passed_on() -> None:
    assert _clauses("Translate Hello, how are you? from English to French.") == [
        "Translate Hello, how are you? from English to French"
    ]
    translate = schema(
        ["text", "source_language", "target_language"],
        text={**STR, "description": "The text to be translated."},
        source_language=STR, target_language=STR,
    )
    call = _one("Translate Hello, how are you? from English to French.", "translate",
                "Translate text from a source language to a target language.", translate)
    assert call == {"text": "Hello, how are you?", "source_language": "English",
                    "target_language": "French"}
    # a question of the user's own, then another sentence, is two
    assert len(_clauses("What time is it in Tokyo? Then list my orders.")) == 2


def test_another_form_of_the_tools_word_is_its_word() -> None:
    for text, name in [
        ("Translate this text to French", "translation_service"),
        ("Reserve a table at 7", "make_reservation"),
        ("Convert 5 miles", "unit_conversion"),
    ]:
        assert relevance(text, name, "", {}) >= MIN_RELEVANCE, (text, name)
    # words that only begin alike are no family
    assert relevance("Read this sentence", "sentiment_score", "", {}) < MIN_RELEVANCE
    assert relevance("Count to ten", "party_size", "", {"properties": {"size": INT}}) \
        < MIN_RELEVANCE


def test_a_day_written_on_to_its_months_name_is_the_date_that_restates_tomorrow() -> None:
    dates = [(s.kind, s.value) for s in extract_spans("the UV index in Tokyo for tomorrow, "
                                                      "June01 2023")
             if s.kind in {"date", "list", "identifier"}]
    assert dates == [("date", "June01 2023")]
    # "may" is a word too: "may2" stays what it was
    assert [s.kind for s in extract_spans("ticket may2")] == ["identifier"]
    moment = datetime(2026, 11, 29)
    assert [h.value for h in find_dates("tomorrow, June01 2023", moment)] == [
        "2026-11-30", "2023-06-01"
    ]


def test_a_text_parameter_of_a_comma_separated_list_takes_the_values_said_as_one() -> None:
    restaurants = schema(
        ["location", "cuisine"], location=STR,
        cuisine={**STR, "description": "Comma-separated list of cuisines, e.g. 'thai,indian'"},
    )
    calls = _planned("Find Italian and Mexican restaurants in Austin", "search_restaurants",
                     "Search restaurants.", restaurants, default_embedder())
    assert calls == [{"location": "Austin", "cuisine": "Italian,Mexican"}]
    # without the description's word for a list, each cuisine is a search of its own
    plain = schema(["location", "cuisine"], location=STR, cuisine=STR)
    calls = _planned("Find Italian and Mexican restaurants in Austin", "search_restaurants",
                     "Search restaurants.", plain, default_embedder())
    assert sorted(c["cuisine"] for c in calls) == ["Italian", "Mexican"]
    # said in lower case, the one list is the value
    tags = schema(["tags"], tags={**STR, "description": "tags separated by commas"})
    assert bind_schema("Tag the photo with beach, sunset and family", tags, segment=0,
                       exclude={"tag", "photo"}).sets == [{"tags": "beach, sunset, family"}]


def test_the_speaker_after_an_address_is_no_part_of_it() -> None:
    names = [s.value for s in extract_spans(
        "Order an Uber Plus ride from 2150 Shattuck Ave, Berkeley, CA, I can wait 10 minutes")
        if s.kind == "name"]
    assert "2150 Shattuck Ave, Berkeley, CA" in names
    assert [s.value for s in extract_spans("ship to 2020 Addison Street, Berkeley, CA, USA")
            if s.kind == "name"] == ["2020 Addison Street, Berkeley, CA, USA"]


def test_two_names_joined_by_and_stay_a_list_when_a_parameter_takes_a_list() -> None:
    meeting = schema(
        ["title", "start", "attendees"], title=STR,
        start={**STR, "description": "ISO 8601 datetime"},
        attendees={"type": "array", "items": STR},
    )
    binding = bind_schema("Schedule a meeting with Anna and Tom next Monday at 3pm", meeting,
                          segment=0)
    assert binding.sets[0]["attendees"] == ["Anna", "Tom"]
    # a title alone: "Pride and Prejudice" is one name
    book = schema(["title"], title=STR)
    assert bind_schema("Find the book Pride and Prejudice", book, segment=0).sets == [
        {"title": "Pride and Prejudice"}
    ]


def test_the_verb_wished_for_is_no_value() -> None:
    play = schema(
        ["track"], track={**STR, "description": "The title of the song"},
        artist={**STR, "default": "Any"}, genre={**STR, "default": "dontcare"},
        device={**STR, "enum": ["Living room", "Kitchen"], "default": "Living room"},
    )
    binding = bind_tool("I want to listen to some jazz music in the kitchen",
                        _tool("Music_3_PlayMedia", "Plays the specified track on the designated "
                              "device.", play), cosines(default_embedder()), segment=0)
    assert "listen" not in str(binding.sets[0].get("track"))
    assert binding.sets[0].get("device") == "Kitchen"


def test_the_tools_own_thing_of_a_name_leaves_the_name() -> None:
    ceo = schema(["company"], company=STR)
    binding = bind_tool("Who is the CEO of Microsoft?",
                        _tool("company.ceo", "Current CEO of a company.", ceo), None, segment=0)
    assert binding.sets == [{"company": "Microsoft"}]


def test_a_channel_is_written_with_the_sign_its_example_shows() -> None:
    post = schema(["channel", "text"], channel={**STR, "description": "channel name, e.g. #random"},
                  text=STR)
    binding = bind_tool("Post a message to the #general channel saying the deploy is done",
                        _tool("slack.post_message", "Post a message to a Slack channel.", post),
                        None, segment=0)
    assert binding.sets == [{"channel": "#general", "text": "the deploy is done"}]
    # no sign in the example, none added; an e-mail address is no example of a sign
    assert value_as_described("general", "channel name") is None
    assert value_as_described("bob", "Send mail to user@example.com") is None
