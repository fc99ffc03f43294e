"""More requests people say to an everyday assistant, against tools written the way APIs are.

Written here (none from a benchmark): a context sentence before the question ("I'm on a
diet."), a request that opens with its verb ("Text Maria that ..."), a date and time for a
parameter that asks for ISO 8601 in words, a duration said in other units than the
parameter's, a postal code as the place, a place named by its owner ("at Luigi's"), an owner
and a name ("acme/widgets"), what news is about ("the latest news on ...").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from nodes.parsing.splitting import opens_with_sending, states_facts
from nodes.planning.eligibility import means_the_tool, tool_terms, undoes_the_other
from nodes.planning.param_fit import describe_params
from nodes.planning.relevance import MIN_MEANING, meaning
from nodes.planning.request_spans import extract_spans
from nodes.planning.said_content import said_content, trim_when
from nodes.planning.schema_binder import bind_schema
from stores.catalog.model import Catalog, ToolSpec
from stores.language.date_formats import datetime_as_described
from stores.language.keywords import tokenize
from stores.language.lexicon import Lexicon
from tests.unit_tests.test_everyday_requests import INT, STR, _planned, schema
from tests.unit_tests.test_rule_planner_schema import plan_catalog


def test_a_statement_about_the_speaker_is_context_not_a_request() -> None:
    for said in ["I'm on a diet.", "We're in Paris this week.", "I've got two kids."]:
        assert states_facts(said), said
    for asked in ["I'm looking for a cheap hotel.", "I'd like a taxi.", "How far is Rome?"]:
        assert not states_facts(asked), asked


class MoneyEmbedder:
    """Test-only vectors: one axis for words of money, the other words spread over the rest."""

    name = "money-test-embedder"
    dim = 64
    MONEY = frozenset("currency convert amount money euros dollars".split())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                axis = 0 if word in self.MONEY else 1 + sum(map(ord, word)) % (self.dim - 1)
                out[row, axis] += 1.0
            out[row] /= float(np.linalg.norm(out[row])) or 1.0
        return out


def test_a_question_after_a_statement_is_judged_by_its_own_meaning() -> None:
    spec = ToolSpec(
        id="t/currency_convert", name="currency_convert", agent="t",
        description="Convert an amount of money from one currency to another.",
        input_schema=schema(["amount"], amount={"type": "number"}), side_effect=False,
    )
    embedder = MoneyEmbedder()
    story = ("My sister and I are flying out next week for a long family holiday abroad. "
             "How many euros is 200 dollars?")
    # The story dilutes what the whole says; the question alone is about money.
    assert meaning(story, spec.name, spec.description, embedder) < MIN_MEANING
    assert meaning("How many euros is 200 dollars?", spec.name, spec.description,
                   embedder) >= MIN_MEANING
    assert means_the_tool(story, spec, embedder)
    assert not means_the_tool("My sister and I are flying out next week.", spec, embedder)


def test_words_passed_on_after_a_verb_that_opens_the_request() -> None:
    params = describe_params(schema(
        ["contact", "message"], contact={**STR, "description": "Who to text"},
        message={**STR, "description": "What to say"},
    ))
    found = said_content("Text Omar that the parcel is on the porch.", params)
    assert found is not None and found[1] == "the parcel is on the porch"
    reminder = describe_params(schema(["text"], text={**STR, "description": "The reminder"}))
    found = said_content("Remind me to call the vet", reminder)
    assert found is not None and found[1] == "call the vet"


def test_a_repeating_day_after_the_passed_on_words_is_not_part_of_them() -> None:
    text = "Remind me to take out the bins every Thursday at 7pm"
    params = describe_params(schema(["text"], text={**STR, "description": "The reminder"}))
    found = said_content(text, params)
    assert found is not None
    atoms = [(span, -1) for span in extract_spans(text)]
    assert trim_when(found[1], found[2], atoms) == "take out the bins"


def test_the_verb_a_request_opens_with_is_no_name_but_the_same_word_later_is() -> None:
    names = [s.text for s in extract_spans("Text Maria that dinner is ready") if s.kind == "name"]
    assert names == ["Maria"]
    names = [s.text for s in extract_spans("Show my best lap times on Switch") if s.kind == "name"]
    assert names == ["Switch"]


def test_news_on_a_subject_is_what_the_search_is_about() -> None:
    news = schema(["query"], query={**STR, "description": "Search terms"},
                  region={**STR, "description": "Region code"})
    assert bind_schema("Any updates on the Artemis launch?", news).sets[0]["query"] == (
        "Artemis launch"
    )
    # A place or a number after a preposition is another value, not the subject's words.
    bound = bind_schema("Show me 3 headlines on Ethereum in Canada", news).sets[0]
    assert bound["query"] == "Ethereum"
    # "on the topic of" keeps reading what comes after it.
    params = describe_params(news)
    found = said_content('Get news on the topic of "solar power"', params)
    assert found is None or "topic" not in found[1]


def test_an_owner_and_a_name_with_a_slash_is_one_value() -> None:
    spans = extract_spans("Star the repository kubernetes/dashboard for me")
    assert [(s.kind, s.text) for s in spans] == [("path", "kubernetes/dashboard")]
    for text in ["a speed of 30 km/h", "answer with yes/no", "you can add and/or remove"]:
        assert not [s for s in extract_spans(text) if s.kind == "path"], text


def test_a_date_and_time_asked_for_in_words_is_one_iso_value() -> None:
    assert datetime_as_described("2030-01-08", "4pm", "Start date and time, ISO 8601") == (
        "2030-01-08T16:00:00"
    )
    assert datetime_as_described("2030-01-08", "4pm", "Start time (ISO-8601)") == (
        "2030-01-08T16:00:00"
    )
    assert datetime_as_described("2030-01-08", "4pm", "Day of the event, ISO 8601") is None
    event = schema(["start"], start={**STR, "description": "When it starts, date and time "
                                                          "in ISO 8601"})
    bound = bind_schema("Book the gym tomorrow at 6am", event).sets[0]
    tomorrow = (datetime.now() + timedelta(days=1)).date().isoformat()
    assert bound["start"] == f"{tomorrow}T06:00:00"


def test_a_duration_in_hours_fills_the_one_length_stated_in_minutes() -> None:
    event = schema(["title"], title={**STR, "description": "Event title"},
                   length_min={**INT, "description": "How long it lasts, in minutes"})
    bound = bind_schema("Create an event called Standup for 2 hours", event).sets[0]
    assert bound["length_min"] == 120
    # Two parameters measured in minutes: the hours say which of them by no cue.
    both = schema([], setup={**INT, "description": "Setup in minutes"},
                  talk={**INT, "description": "Talk in minutes"})
    assert bind_schema("Create an event for 2 hours", both).sets[0] == {}


def test_a_postal_code_after_near_is_the_place() -> None:
    shops = schema(["location"], location={**STR, "description": "City, address or ZIP"},
                   kind={**STR, "description": "Type of shop"})
    bound = bind_schema("Find Korean grocery stores near 10027", shops, read_only=True)
    assert bound.sets[0]["location"] == "10027"


def test_a_place_named_by_its_owner_keeps_the_possessive() -> None:
    spans = extract_spans("Get me a booth at Rosa's tonight")
    assert [s.text for s in spans if s.kind == "name"] == ["Rosa's"]
    spans = extract_spans("Show Rosa's last orders")
    assert [s.text for s in spans if s.kind == "name"] == ["Rosa"]


def test_words_told_to_another_need_no_that() -> None:
    mail = schema(["to", "body"], to={**STR, "description": "Recipient address"},
                  body={**STR, "description": "Message text"})
    bound = bind_schema("Email kim@example.net and tell her the keys are under the mat", mail)
    assert bound.sets == [{"to": "kim@example.net", "body": "the keys are under the mat"}]


def test_a_capitalized_word_before_a_colon_introduces_the_words_after_it() -> None:
    translate = schema(["text", "target"], text=STR,
                       target={**STR, "description": "Target language"})
    bound = bind_schema("Put this in Italian: See you on Monday", translate).sets[0]
    assert bound["text"].startswith("See you") and bound["target"] == "Italian"


def test_a_switch_is_on_or_off_as_the_request_turns_it() -> None:
    switch = schema(["enabled"], enabled={"type": "boolean"},
                    until={**STR, "description": "End time HH:MM"})
    assert bind_schema("turn on airplane mode", switch).sets[0]["enabled"] is True
    assert bind_schema("please switch the night light off", switch).sets[0]["enabled"] is False
    assert bind_schema("disable the doorbell chime", switch).sets[0]["enabled"] is False
    assert bind_schema("is the doorbell chime working?", switch).missing == ["enabled"]


def test_a_slashed_name_fills_the_parameter_that_shows_that_form() -> None:
    commits = schema(["repo"], repo={**STR, "description": "Repository as owner/name"},
                     branch={**STR, "description": "Branch name"})
    bound = bind_schema("list the tags on the release branch of acme-labs/rocket", commits)
    assert bound.sets[0]["repo"] == "acme-labs/rocket"


def test_a_large_city_in_lower_case_after_for_is_a_place() -> None:
    spans = extract_spans("what's the 3 day forecast for los angeles")
    assert [s.value for s in spans if s.kind == "name"] == ["Los Angeles"]
    spans = extract_spans("looking for nice shoes")
    assert not [s for s in spans if s.kind == "name"]


def test_a_distance_is_no_price_and_the_amount_of_money_is() -> None:
    cars = schema(["city"], city=STR, max_price={"type": "number"},
                  radius_km={**INT, "description": "Search radius"})
    bound = bind_schema("a used van under $8,500 within 40 km of Leeds", cars, read_only=True)
    assert bound.sets[0]["max_price"] == 8500.0 and bound.sets[0]["radius_km"] == 40


def test_the_ends_of_a_trip_are_said_with_from_and_to() -> None:
    ride = schema(["pickup", "dropoff"], pickup={**STR, "description": "Where to start"},
                  dropoff={**STR, "description": "Where to stop"})
    bound = bind_schema("a ride from Union Station to Navy Pier for 2 people", ride).sets[0]
    assert bound == {"pickup": "Union Station", "dropoff": "Navy Pier"}


def test_a_count_of_things_is_no_text_value() -> None:
    venue = schema(["venue"], venue={**STR, "description": "Where the party is"})
    assert bind_schema("book a party for 12 guests", venue).missing == ["venue"]


def test_the_one_phrase_near_in_meaning_fills_a_required_text() -> None:
    recipes = schema(["dish"], dish={**STR, "description": "Dish name"})

    def near(query: str, phrases: Sequence[str]) -> list[float]:
        return [0.18 if phrase == "risotto" else 0.01 for phrase in phrases]

    bound = bind_schema("find a quick risotto recipe for less money", recipes, similarity=near)
    assert bound.sets[0]["dish"] == "risotto"

    def close(query: str, phrases: Sequence[str]) -> list[float]:
        return [0.18 if phrase in {"risotto", "money"} else 0.01 for phrase in phrases]

    # Two phrases alike near: neither is said to be the dish.
    assert bind_schema("find a quick risotto recipe for less money", recipes,
                       similarity=close).missing == ["dish"]


def test_a_value_written_as_the_description_example_is_that_parameter() -> None:
    quote = schema(["ticker"], ticker={**STR, "description": "Ticker symbol, e.g. MSFT"})
    bound = bind_schema("how is Nvidia (NVDA) doing today", quote)
    assert bound.sets[0]["ticker"] == "NVDA"
    order = schema(["order_id"], order_id={**STR, "description": "Order id such as ORD-1234"})
    assert bind_schema("where is Dana's parcel, order KX-889?", order).sets[0]["order_id"] == (
        "KX-889"
    )


def test_a_greeting_inside_a_title_is_part_of_it() -> None:
    spans = extract_spans("put on Hello Goodbye by the Beatles")
    assert [s.value for s in spans if s.kind == "name"][0] == "Hello Goodbye"
    spans = extract_spans("Hello, is it raining in Lima?")
    assert [s.value for s in spans if s.kind == "name"] == ["Lima"]


def test_the_language_said_after_a_search_is_the_language_not_the_topic() -> None:
    news = schema(["keyword"], keyword=STR,
                  language={**STR, "description": "Two-letter language code"})
    bound = bind_schema("find news about wind farms in Spanish", news).sets[0]
    assert bound == {"keyword": "wind farms", "language": "es"}


def test_a_number_before_a_plain_word_is_no_count_of_things() -> None:
    standings = schema(["season"], season={**STR, "description": "The season"})
    assert bind_schema("the 2023 regular season standings", standings).sets[0] == {
        "season": "2023"
    }


def test_a_removal_is_never_planned_as_a_making_nor_the_other_way() -> None:
    assert undoes_the_other("delete", {"issue"})  # "delete my emails" is no send_email
    assert undoes_the_other("create", {"cancel"})  # "book a table" is no cancel_booking
    assert not undoes_the_other("delete", {"delete"})
    assert not undoes_the_other("create", {"issue"})
    assert not undoes_the_other("", {"cancel"})
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": "send_message", "agent": "t", "description": "Send a chat message.",
         "side_effect": True, "environment": "test",
         "input_schema": schema(["to", "text"], to=STR, text=STR)},
        source="test",
    )
    draft = plan_catalog("Delete all my messages to Ravi", catalog)
    assert not draft.calls and draft.question is None


def test_a_letter_after_an_apostrophe_names_no_allowed_value() -> None:
    shirts = schema(["size"], size={**STR, "enum": ["S", "M", "L"]}, query=STR)
    assert bind_schema("I'm after a linen shirt, size L", shirts).sets[0]["size"] == "L"
    assert bind_schema("I'm after a linen shirt", shirts).missing == ["size"]
    # A quote before the value is no apostrophe inside a word.
    assert bind_schema("I'd like the 'S' one", shirts).sets[0]["size"] == "S"


def test_words_emailed_to_a_group_are_passed_on() -> None:
    params = describe_params(schema(["to", "body"], to=STR, body=STR))
    found = said_content("Email the landlord that the boiler is fixed", params)
    assert found is not None and found[1] == "the boiler is fixed"


def test_a_brand_written_with_its_second_letter_capital_is_a_name() -> None:
    spans = extract_spans("compare the eBay and iPad prices")
    names = [i.value for s in spans for i in (s.items or [s]) if i.kind == "name"]
    assert names == ["eBay", "iPad"]


def test_a_value_said_as_the_parameter_is_that_parameter() -> None:
    pay = schema(["to", "amount"], to=STR, amount={"type": "number"}, memo=STR)
    bound = bind_schema("pay Lena $20 and use 'bus tickets' as the memo", pay, segment=0)
    assert bound.sets[0]["memo"] == "bus tickets"


def test_a_clause_that_names_one_more_argument_of_the_call_before_adds_it() -> None:
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": "transfer_money", "agent": "t", "description": "Transfer money to a person.",
         "side_effect": True, "environment": "test",
         "input_schema": schema(["recipient", "amount"], recipient=STR,
                                amount={"type": "number"}, memo=STR)},
        source="test",
    )
    draft = plan_catalog("Transfer $40 to Ines and put 'concert' as the memo", catalog)
    cores = [c for c in draft.calls if c["role"] == "core"]
    assert len(cores) == 1
    assert {k: v.get("value") for k, v in cores[0]["args"].items()} == {
        "recipient": "Ines", "amount": 40.0, "memo": "concert"
    }


def test_a_scale_after_money_is_a_word_of_its_own() -> None:
    spans = extract_spans("a $450,000 mortgage and a $40 keyboard and $12 mangoes")
    assert [s.value for s in spans if s.kind == "money"] == [450000, 40, 12]
    spans = extract_spans("a $3m budget and a $5k bonus")
    assert [s.value for s in spans if s.kind == "money"] == [3000000.0, 5000]


def test_a_temperature_scale_said_by_its_letter() -> None:
    weather = schema(["location"], location={**STR, "description": "The city and state"},
                     unit={**STR, "enum": ["celsius", "fahrenheit"]})
    bound = bind_schema("how warm is it in Reno right now in C?", weather)
    assert bound.sets == [{"location": "Reno, NV", "unit": "celsius"}]  # "city and state"


def test_a_search_on_a_named_site_passes_on_what_follows_for() -> None:
    videos = schema(["query"], query=STR, max_minutes={**INT, "description": "Longest video"})
    bound = bind_schema("search Vimeo for sourdough shaping under 15 minutes", videos).sets[0]
    assert bound == {"query": "sourdough shaping", "max_minutes": 15}


def test_the_parameter_noun_before_a_name_is_no_part_of_it() -> None:
    films = schema(["movie_title"], movie_title=STR)
    assert bind_schema("showtimes for the movie Arrival", films).sets[0]["movie_title"] == (
        "Arrival"
    )


def test_a_plural_noun_is_no_operation() -> None:
    lexicon = Lexicon.default()
    tokens = tokenize("What files are in the shared folder?")
    assert not [m for m in lexicon.find_terms(tokens) if m.kind == "operation"]
    tokens = tokenize("file a complaint about the noise")
    assert [m.canonical for m in lexicon.find_terms(tokens) if m.kind == "operation"] == [
        "create"
    ]


def test_a_tool_name_says_its_operation_by_its_first_or_last_word() -> None:
    lexicon = Lexicon.default()

    def operations(name: str) -> set[str]:
        spec = ToolSpec(id=f"t/{name}", name=name, agent="t", description="",
                        input_schema=schema([]))
        return tool_terms(spec, lexicon)[0]

    assert operations("read_file") == {"get"}  # the file is no "file a complaint"
    assert operations("delete_file") == {"delete"}
    assert operations("user_delete") == {"delete"}


def test_a_question_is_never_answered_by_a_tool_named_for_a_write() -> None:
    catalog = Catalog()
    for name, description in [("delete_folder", "Delete a folder and its files."),
                              ("list_folder", "List the entries of a folder.")]:
        catalog.add_raw_tool(
            {"name": name, "agent": "t", "description": description, "side_effect": False,
             "environment": "test", "input_schema": schema(["path"], path=STR)},
            source="test",
        )
    draft = plan_catalog("What files are in the folder /srv/media?", catalog)
    assert [c["tool_id"] for c in draft.calls] == ["t/list_folder"]


def test_save_writes() -> None:
    tokens = tokenize("save the draft to notes.txt")
    assert [m.canonical for m in Lexicon.default().find_terms(tokens)
            if m.kind == "operation"] == ["create"]


def test_words_near_a_date_in_meaning_are_no_date() -> None:
    past = schema(["city", "day"], city=STR, day={**STR, "description": "YYYY-MM-DD"})

    def near(query: str, phrases: Sequence[str]) -> list[float]:
        return [0.9 for _ in phrases]

    bound = bind_schema("How's the sea in Split at the moment?", past, similarity=near)
    assert bound.missing == ["day"]


def test_the_ends_of_a_conversion_between_allowed_values() -> None:
    scales = ["celsius", "fahrenheit", "kelvin"]
    convert = schema(["value", "from_scale", "to_scale"], value={"type": "number"},
                     from_scale={**STR, "enum": scales}, to_scale={**STR, "enum": scales})
    bound = bind_schema("what is 451 fahrenheit in kelvin", convert)
    assert bound.sets == [{"value": 451.0, "from_scale": "fahrenheit", "to_scale": "kelvin"}]


def test_scale_letters_as_allowed_values_are_temperatures() -> None:
    thermostat = schema(["temperature"], temperature={"type": "number"},
                        unit={**STR, "enum": ["C", "F"]})
    bound = bind_schema("warm the nursery to 23 degrees celsius", thermostat).sets[0]
    assert bound == {"temperature": 23.0, "unit": "C"}


def test_a_handle_or_a_channel_is_one_value_without_its_sign() -> None:
    spans = extract_spans("post it to #design-team and tag @lea_m")
    assert [(s.kind, s.value) for s in spans] == [
        ("identifier", "design-team"), ("identifier", "lea_m")
    ]
    assert [s.kind for s in extract_spans("mail ana@site.io")] == ["email"]


def test_a_name_after_written_in_is_a_language() -> None:
    repos = schema([], language={**STR, "description": "Programming language"},
                   limit={**INT, "description": "How many repositories"})
    bound = bind_schema("top 3 repositories on GitLab written in Elixir", repos,
                        read_only=True)
    assert bound.sets[0] == {"language": "Elixir", "limit": 3}


def test_a_whole_name_is_as_near_as_its_head_noun() -> None:
    places = schema(["place"], place={**STR, "description": "Name of the place"})

    def near(query: str, phrases: Sequence[str]) -> list[float]:
        scores = {"aquarium": 0.3, "shedd aquarium": 0.2, "shedd": 0.22}
        return [scores.get(phrase, 0.0) for phrase in phrases]

    bound = bind_schema("when does the shedd aquarium close", places, similarity=near)
    assert bound.sets[0]["place"] == "shedd aquarium"


def test_the_site_searched_is_no_value_and_a_bound_with_with_is_cut() -> None:
    repos = schema(["query"], query={**STR, "description": "Search keywords"},
                   language={**STR, "description": "Programming language"},
                   min_stars={**INT, "description": "Minimum number of stars"})
    bound = bind_schema("Search GitLab for parsers with more than 200 stars", repos).sets[0]
    assert bound == {"query": "parsers", "min_stars": 200}


def test_a_list_of_cities_ending_in_new_york_is_one_clause() -> None:
    draft_calls = _planned("What time is it in Oslo, Lima and New York?", "local_time",
                              "Current local time in a city", schema(["city"], city=STR))
    assert [c["city"] for c in draft_calls] == ["Oslo", "Lima", "New York"]


def test_and_then_a_sending_verb_with_its_recipient_is_a_step_of_its_own() -> None:
    catalog = Catalog()
    for name, description, params in [
        ("book_table", "Reserve a restaurant table",
         schema(["restaurant"], restaurant=STR, people=INT)),
        ("send_email", "Send an email", schema(["to", "body"], to=STR, body=STR)),
    ]:
        catalog.add_raw_tool(
            {"name": name, "agent": "t", "description": description, "side_effect": True,
             "environment": "test", "input_schema": params},
            source="test",
        )
    draft = plan_catalog(
        "Book a table at Zuni for 2 people and email kai@home.net that it is booked", catalog
    )
    cores = [(c["tool_id"], {k: v.get("value") for k, v in c["args"].items()})
             for c in draft.calls if c["role"] == "core"]
    assert cores == [
        ("t/book_table", {"restaurant": "Zuni", "people": 2}),
        ("t/send_email", {"to": "kai@home.net", "body": "it is booked"}),
    ]
    # "and email a@b.com" with nothing sent is an attribute of the same step
    assert not opens_with_sending("email a@b.com")



def test_a_phrase_after_from_is_where_a_trip_starts() -> None:
    ride = schema(["pickup", "dropoff"], pickup={**STR, "description": "Pickup address"},
                  dropoff={**STR, "description": "Drop-off address"})

    def near(query: str, phrases: Sequence[str]) -> list[float]:
        return [0.3 if phrase == "van" else 0.2 for phrase in phrases]

    bound = bind_schema("get me a van from the harbour to 12 Elm Road for 3 people", ride,
                        similarity=near)
    assert bound.sets[0]["pickup"] == "harbour"


def test_a_percentage_for_a_parameter_named_for_one_stays_the_number_said() -> None:
    split = schema(["total"], total={"type": "number"}, tip_percent={"type": "number"})
    assert bind_schema("split $90 with an 18% tip", split).sets[0]["tip_percent"] == 18.0
    loan = schema(["rate"], rate={"type": "number", "description": "annual interest rate"})
    assert bind_schema("a loan at 4%", loan).sets[0]["rate"] == 0.04


def test_a_write_that_fits_by_its_operation_alone_is_no_fit() -> None:
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": "create_calendar_event", "agent": "t", "description": "Add an event to the "
         "calendar.", "side_effect": True, "environment": "test",
         "input_schema": schema(["title", "date"], title=STR,
                                date={**STR, "description": "YYYY-MM-DD"})},
        source="test",
    )
    draft = plan_catalog("Order a large tea from the corner cafe", catalog)
    assert not draft.calls and draft.question is None and draft.gaps
    # The same tool when the request says what it is about
    draft = plan_catalog("Add an event called Standup to the calendar on 2031-04-02", catalog)
    assert [c["tool_id"] for c in draft.calls] == ["t/create_calendar_event"]
