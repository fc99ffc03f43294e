"""Requests people say to an everyday assistant, against tools written the way APIs are.

Written here (none from a benchmark): a day said relative to today for a parameter that asks
for a calendar date ("yesterday" for "Day, YYYY-MM-DD"), an allowed value said in two words
("uber XL" for "UberXL"), a percentage and the number it is of, each to its own parameter.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from nodes.planning.param_fit import describe_params
from nodes.planning.param_values import calendar_day
from nodes.planning.request_spans import extract_spans
from nodes.planning.said_content import said_content
from nodes.planning.schema_binder import bind_schema
from stores.catalog.model import Catalog
from stores.retrieval.embeddings import Embedder
from tests.unit_tests.test_rule_planner_schema import plan_catalog

STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def _planned(
    request: str, name: str, description: str, params: dict[str, Any],
    embedder: Embedder | None = None,
) -> list[Any]:
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": name, "agent": "t", "description": description, "side_effect": False,
         "environment": "test", "input_schema": params},
        source="test",
    )
    return [
        {k: v.get("value") for k, v in c["args"].items()}
        for c in plan_catalog(request, catalog, embedder).calls
        if c["role"] == "core"
    ]


def test_a_day_said_relative_to_today_is_a_date_span_as_written() -> None:
    for text, said in [
        ("how far did I run yesterday", "yesterday"),
        ("move the call to next Tuesday", "next Tuesday"),
        ("what did I spend last Friday", "last Friday"),
        ("is the gym open the day after tomorrow", "the day after tomorrow"),
    ]:
        dates = [s.value for s in extract_spans(text) if s.kind == "date"]
        assert dates == [said], text


def test_a_written_day_is_the_calendar_day_it_names_from_now() -> None:
    now = datetime(2031, 5, 14, 9, 30)  # a Wednesday
    assert calendar_day("yesterday", now) == "2031-05-13"
    assert calendar_day("tomorrow", now) == "2031-05-15"
    assert calendar_day("next Tuesday", now) == "2031-05-20"
    assert calendar_day("Saturday", now) == "2031-05-17"
    assert calendar_day("March 3rd", now) == "2032-03-03"  # no year: the next March 3rd
    assert calendar_day("2nd of June, 2030", now) == "2030-06-02"
    assert calendar_day("8th September,2029", now) == "2029-09-08"
    assert calendar_day("a while back", now) is None


def test_a_date_parameter_with_a_format_gets_the_day_a_relative_word_names() -> None:
    steps = schema(["day"], day={**STR, "description": "The day to report, as YYYY-MM-DD."})
    bound = bind_schema("How far did I cycle yesterday?", steps)
    assert bound.sets[0]["day"] == (date.today() - timedelta(days=1)).isoformat()

    flights = schema(
        ["leaving"], leaving={**STR, "description": "Departure day in MM/DD/YYYY format"}
    )
    bound = bind_schema("any seats to Oslo tomorrow?", flights)
    tomorrow = date.today() + timedelta(days=1)
    assert bound.sets[0]["leaving"] == tomorrow.strftime("%m/%d/%Y")

    # A date parameter that names no format keeps the words the user said.
    loose = schema(["day"], day={**STR, "description": "The day the walk happened"})
    assert bind_schema("log a walk for yesterday", loose).sets[0]["day"] == "yesterday"


def test_a_day_and_a_time_said_together_make_one_datetime_when_one_is_asked() -> None:
    meeting = schema(
        ["starts"],
        starts={**STR, "description": "Start as ISO-8601, e.g. 2024-01-31T09:00:00"},
    )
    bound = bind_schema("set up a sync with Priya tomorrow at 4pm", meeting)
    tomorrow = date.today() + timedelta(days=1)
    assert bound.sets[0]["starts"] == f"{tomorrow.isoformat()}T16:00:00"


def test_an_allowed_value_written_as_one_word_is_named_by_its_parts_said_apart() -> None:
    ride = schema(
        ["tier", "to"],
        tier={**STR, "enum": ["Lyft", "LyftXL", "Lux"], "description": "Ride tier"},
        to={**STR, "description": "Drop-off address"},
    )
    bound = bind_schema("I need a lyft XL to 40 Harbor Road", ride)
    assert bound.sets[0]["tier"] == "LyftXL"
    # The words the tier was said in fill nothing else.
    assert bound.sets[0]["to"] == "40 Harbor Road"


def test_a_percentage_and_the_number_it_is_of_fill_their_own_parameters() -> None:
    params = schema(
        ["percent", "value"],
        percent={**NUM, "description": "How many percent"},
        value={**NUM, "description": "The whole number"},
    )
    calls = _planned("compute the percentage: 12% of the number 250", "percentage_of_number",
                     "Compute a percentage of a number", params)
    assert calls == [{"percent": 12.0, "value": 250.0}]


def test_the_words_a_description_says_its_value_with_are_never_the_value() -> None:
    # The small embedding model puts "recipe" nearest "the dish whose recipe is fetched".
    near = {"recipe": 0.6, "mushroom risotto": 0.29, "risotto": 0.27, "tonight": 0.01}

    def similarity(query: str, phrases: Any) -> list[float]:
        return [near.get(phrase, 0.0) for phrase in phrases]

    dish = schema(["dish"], dish={**STR, "description": "Name of the dish whose recipe is "
                                  "fetched"})
    bound = bind_schema("show me a recipe for mushroom risotto tonight", dish,
                        similarity=similarity)
    assert bound.sets == [{"dish": "mushroom risotto"}]
    # What the value is of, past a cue word, is the value ("the population of otters").
    near = {"population": 0.5, "population of otters": 0.35, "otters": 0.1}
    animal = schema(["animal"], animal={**STR, "description": "The animal for which "
                                        "population is estimated"})
    bound = bind_schema("estimate the population of otters", animal, similarity=similarity)
    assert bound.sets == [{"animal": "otters"}]
    # A description's head says what kind of thing the value is: "a theory" may be one.
    near = {"theory": 0.5, "theory of gravity": 0.35, "gravity": 0.3}
    idea = schema(["idea"], idea={**STR, "description": "The scientific idea or theory."})
    bound = bind_schema("who came up with the theory of gravity", idea, similarity=similarity)
    assert bound.sets == [{"idea": "theory of gravity"}]
    # Examples the description gives may well be the value.
    near = {"tacos": 0.27, "place": 0.2}
    term = schema(["term"], term={**STR, "description": "Search term, e.g. 'tacos' or 'pizza'"})
    assert bind_schema("find a tacos place", term, similarity=similarity).sets == [
        {"term": "tacos"}]


def test_a_required_free_text_value_a_little_near_its_description_is_taken() -> None:
    # A cosine of 0.27 from the small model is a fair match for a one-word value: asking
    # the user for a hobby they just said helps nobody.
    near = {"knitting": 0.27, "people": 0.2}

    def similarity(query: str, phrases: Any) -> list[float]:
        return [near.get(phrase, 0.0) for phrase in phrases]

    hobby = schema(["hobby"], hobby={**STR, "description": "The hobby of interest."})
    assert bind_schema("what are people who love knitting like", hobby,
                       similarity=similarity).sets == [{"hobby": "knitting"}]
    # Less near, and another phrase hardly less so: nothing says which is the hobby.
    near = {"knitting": 0.2, "people": 0.1}
    assert bind_schema("what are people who love knitting like", hobby,
                       similarity=similarity).missing == ["hobby"]


def test_a_unit_said_with_in_beats_the_symbol_of_the_quantity_in_brackets() -> None:
    # "(R)" is the resistance's symbol, not roentgen; pint knows "ohm", not "ohms" alone.
    coil = schema(
        ["resistance"],
        resistance={**NUM, "description": "The resistance (R) in kiloohms (kΩ)."},
    )
    assert bind_schema("a coil of 2500 ohms", coil).sets == [{"resistance": 2.5}]
    field = schema(
        ["inductance"], inductance={**NUM, "description": "The inductance (L) in henries."}
    )
    assert bind_schema("an inductance of 20mH", field).sets == [{"inductance": 0.02}]


def test_a_word_that_says_when_is_no_free_text_value() -> None:
    near = {"last": 0.3, "last night": 0.2, "won": 0.1}

    def similarity(query: str, phrases: Any) -> list[float]:
        return [near.get(phrase, 0.0) for phrase in phrases]

    board = schema(["state"], state={**STR, "description": "The state of the board."})
    assert bind_schema("who won at chess last night", board, similarity=similarity).missing \
        == ["state"]


def test_a_measure_goes_to_the_parameter_named_for_what_its_unit_measures() -> None:
    # pint's own dimensions: m/s^2 measures an acceleration, seconds a time, nothing says so
    # in the descriptions.
    motion = schema(
        ["acceleration", "time"],
        acceleration={**NUM, "description": "How fast it speeds up."},
        time={**INT, "description": "How long it speeds up."},
    )
    bound = bind_schema("a cart pushed for 4 seconds at 2.5 m/s^2", motion)
    assert bound.sets == [{"acceleration": 2.5, "time": 4}]


MESSAGE = schema(
    ["recipient", "message"],
    recipient={**STR, "description": "Contact name"},
    message={**STR, "description": "Message text"},
)


def test_words_passed_on_are_one_value_whatever_they_hold() -> None:
    bound = bind_schema("send a message to Ines saying Bob and I land at 9", MESSAGE)
    assert bound.sets == [{"recipient": "Ines", "message": "Bob and I land at 9"}]
    note = schema(["body"], body={**STR, "description": "What the note says"})
    assert bind_schema("add a note: call Dr. Lee about the X-ray", note).sets == [
        {"body": "call Dr. Lee about the X-ray"}]
    search = schema(["q"], q={**STR, "description": "What to look for"})
    assert bind_schema("search the web for cheap flights to Lima in May", search).sets == [
        {"q": "cheap flights to Lima in May"}]
    todo = schema(["title", "due"], title={**STR, "description": "Short text"},
                  due={**STR, "description": "Due date, YYYY-MM-DD"})
    bound = bind_schema("create a task called renew passport due 2031-02-01", todo)
    assert bound.sets[0]["due"] == "2031-02-01"
    assert bound.sets[0]["title"].startswith("renew passport")


def test_a_time_said_after_the_passed_on_words_is_not_part_of_them() -> None:
    remind = schema(
        ["text", "time"],
        text={**STR, "description": "What to be reminded of"},
        time={**STR, "description": "When, as HH:MM"},
    )
    bound = bind_schema("remind me to feed the cat at 7:30pm", remind)
    assert bound.sets == [{"text": "feed the cat", "time": "19:30"}]


def test_the_tool_s_own_verb_passes_on_what_follows_it() -> None:
    translate = schema(
        ["text", "target"],
        text={**STR, "description": "Text to translate"},
        target={**STR, "description": "Target language"},
    )
    bound = bind_schema("translate where is the station into German", translate,
                        exclude={"translate"})
    assert bound.sets == [{"text": "where is the station", "target": "German"}]
    # After a plain verb, the values said are values: "fetch 3 newest posts on Rust".
    posts = schema(["topic", "count"], topic={**STR, "description": "The subject"},
                   count={**INT, "description": "How many posts"})
    bound = bind_schema("fetch 3 newest posts on Rust", posts, exclude={"fetch", "post"})
    assert bound.sets == [{"count": 3, "topic": "Rust"}]
    # Without the tool's verb, nothing is passed on.
    params = describe_params(translate)
    assert said_content("where is the station in German", params, {"translate"}) is None


def test_the_power_of_a_unit_is_no_number_said() -> None:
    # "m/s^2" holds a 2 that is no value: the start speed is asked for, not made up.
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": "final_speed", "agent": "t", "description": "Compute the final speed of a cart",
         "side_effect": False, "environment": "test",
         "input_schema": schema(["start_speed", "acceleration", "time"],
                                start_speed={**INT, "description": "The speed at the start"},
                                acceleration={**NUM, "description": "The acceleration"},
                                time={**INT, "description": "The time in seconds"})},
        source="test",
    )
    draft = plan_catalog("compute the final speed of a cart that speeds up at 3.5 m/s^2 for "
                         "4 seconds", catalog)
    assert draft.calls == []
    assert draft.question is not None and draft.question["param"] == "start_speed"


def test_a_place_written_in_lower_case_is_read_after_a_word_that_introduces_it() -> None:
    def names(text: str) -> list[str]:
        return [s.value for s in extract_spans(text) if s.kind == "name"]

    assert names("is it raining in chicago") == ["Chicago"]
    assert names("cheap flights from new york to tokyo") == ["New York", "Tokyo"]
    assert names("the population of brazil") == ["Brazil"]
    # Words first: no introducer, a short word that is also a small city, a stopword.
    assert names("chicago style pizza") == []
    assert names("a car for sale in the city") == []
    assert names("proteins in the cell") == []


def test_a_read_whose_allowed_value_is_named_and_values_all_given_is_admitted() -> None:
    facts = schema(
        ["nation", "fact"],
        nation={**STR, "description": "Nation"},
        fact={**STR, "enum": ["capital", "anthem", "currency"]},
    )
    calls = _planned("what is the anthem of the nation of france", "nation_facts",
                     "Facts about a nation", facts)
    assert calls == [{"nation": "France", "fact": "anthem"}]
    # Naming an allowed value is not enough when another required value is not given.
    assert _planned("what is the anthem", "nation_facts", "Facts about a nation", facts) == []


def test_one_end_said_alone_goes_to_the_parameter_of_that_end() -> None:
    search = schema(
        [],
        min_price={**NUM, "description": "Lowest price"},
        max_price={**NUM, "description": "Highest price"},
    )
    assert bind_schema("bikes over $300", search, read_only=True).sets == [{"min_price": 300.0}]
    assert bind_schema("bikes under $300", search, read_only=True).sets == [{"max_price": 300.0}]
    assert bind_schema("bikes for no less than $300", search, read_only=True).sets == [
        {"min_price": 300.0}]
    assert bind_schema("bikes for no more than $300", search, read_only=True).sets == [
        {"max_price": 300.0}]
    # The other end is no value at all: "under 20 minutes" is no shortest time.
    quick = schema([], min_minutes={**INT, "description": "Shortest time to cook"})
    assert bind_schema("dinners that take under 20 minutes", quick, read_only=True).sets == [{}]
    # Both ends said: a range, whatever word comes before it.
    assert bind_schema("bikes within $300 to $500", search, read_only=True).sets == [
        {"min_price": 300.0, "max_price": 500.0}]


def test_a_number_glued_to_a_unit_with_a_slash_is_a_measure_not_a_code() -> None:
    spans = extract_spans("a heat capacity of 8J/K, case 2019/CV1442")
    assert [(s.kind, s.value, s.unit) for s in spans] == [
        ("number", 8, "J/K"), ("identifier", "2019/CV1442", None)]


def test_what_a_search_is_about_is_its_query_to_the_next_comma() -> None:
    news = schema(["query"], query={**STR, "description": "Search terms"},
                  days={**INT, "description": "Look back this many days"})
    bound = bind_schema("any articles about solar panels in Spain, from the last 3 days", news)
    assert bound.sets == [{"query": "solar panels in Spain", "days": 3}]
    # The comma ends it whether or not a sentence's end comes after.
    bound = bind_schema("any articles about solar panels in Spain, from the last 3 days.", news)
    assert bound.sets == [{"query": "solar panels in Spain", "days": 3}]


def test_a_number_word_counts_for_a_bare_quantity_beside_an_allowed_value() -> None:
    order = schema(
        ["size", "quantity"],
        size={**STR, "enum": ["small", "large"]},
        quantity=INT,
    )
    assert bind_schema("three small coffees please", order).sets == [
        {"size": "small", "quantity": 3}]


def test_a_bare_domain_name_is_one_value() -> None:
    whois = schema(["domain"], domain={**STR, "description": "The domain"})
    assert bind_schema("who owns the domain my-shop.co.uk?", whois).sets == [
        {"domain": "my-shop.co.uk"}]


def test_the_unit_a_number_is_measured_in_beats_a_phrase_near_in_meaning() -> None:
    near = {"change": 0.5, "miles": 0.4}

    def similarity(query: str, phrases: Any) -> list[float]:
        return [near.get(phrase, 0.0) for phrase in phrases]

    units = schema(["amount", "from_unit", "to_unit"], amount=NUM, from_unit=STR, to_unit=STR)
    bound = bind_schema("change 12 kg to pounds", units, similarity=similarity)
    assert bound.sets == [{"amount": 12.0, "from_unit": "kg", "to_unit": "pounds"}]


def test_a_from_and_to_unit_pair_is_filled_by_what_is_measured_and_what_is_asked() -> None:
    kitchen = schema(
        ["value", "from_unit", "to_unit"],
        value=INT,
        from_unit={**STR, "description": "Unit to convert from, e.g. 'cup', 'ounce', 'gram'."},
        to_unit={**STR, "description": "Unit to convert to, e.g. 'cup', 'ounce', 'gram'."},
    )
    bound = bind_schema("how many grams are in 3 ounces of flour", kitchen)
    assert bound.sets == [{"value": 3, "from_unit": "ounce", "to_unit": "gram"}]


def test_a_word_the_tool_says_of_itself_is_no_free_text_value() -> None:
    near = {"hockey": 0.3}

    def similarity(query: str, phrases: Any) -> list[float]:
        return [near.get(phrase, 0.0) for phrase in phrases]

    stats = schema(["player", "season"], player={**STR, "description": "The player"},
                   season={**STR, "description": "The season to get statistics for"})
    text = "what is the goal average of hockey player Wayne Gretzky"
    described = {"average", "goal", "hockey", "player"}  # "Average goals of a hockey player"
    assert bind_schema(text, stats, similarity=similarity, described=described).missing == [
        "season"]
    assert bind_schema(text, stats, similarity=similarity).sets[0]["season"] == "hockey"


def test_the_state_or_country_of_the_city_named_fills_a_parameter_that_asks_for_it() -> None:
    rent = schema(["city", "state"], city={**STR, "description": "The city"},
                  state={**STR, "description": "The state the city is in"})
    assert bind_schema("average rent in Seattle", rent).sets == [
        {"city": "Seattle", "state": "WA"}]
    museums = schema(["city", "country"], city={**STR, "description": "The city"},
                     country={**STR, "description": "The country of the city"})
    assert bind_schema("museums in Osaka", museums).sets == [
        {"city": "Osaka", "country": "Japan"}]
    # A city of that name in several places says no state.
    assert bind_schema("average rent in Springfield", rent).missing == ["state"]


def test_conversions_said_one_after_another_are_one_call_each_with_their_own_amount() -> None:
    fx = schema(
        ["amount", "from_currency", "to_currency"],
        amount=NUM,
        from_currency={**STR, "description": "Currency to convert from"},
        to_currency={**STR, "description": "Currency to convert to"},
    )
    bound = bind_schema("change 250 CHF to SEK and 40 AUD to NZD", fx)
    assert bound.sets == [
        {"from_currency": "CHF", "to_currency": "SEK", "amount": 250.0},
        {"from_currency": "AUD", "to_currency": "NZD", "amount": 40.0},
    ]
