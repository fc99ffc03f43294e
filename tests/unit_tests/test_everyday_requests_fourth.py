"""Requests to one tool said plainly, the way people talk to an assistant (fourth round).

Written here (none from a benchmark): a device switched on or off with no word of the tool's
own ("turn off the light in the kitchen" for a smart-home command tool), a size of a menu
item, a place whose region is written with dots ("Washington, D.C."), the tool's own name
spelled out in capitals ("the Body Mass Index"), a thing named by a pronoun ("label it
gym", "Call it focus."), a value stated by its parameter's name in a sentence after the
request ("The ticker is AAPL."), an allowed value said in a sentence of its own ("Economy
class, 2 passengers."), an hour after "tonight at", a count after "for" ("a table for two").
"""

from __future__ import annotations

from nodes.planning.eligibility import fit_reason, names_its_values
from nodes.planning.relevance import cosines
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import Binding, bind_schema, bind_tool
from stores.catalog.model import ToolSpec
from stores.retrieval.embeddings import default_embedder
from tests.unit_tests.test_everyday_requests import INT, NUM, STR, _planned, schema

DEVICE = schema(
    ["device", "command"],
    device={**STR, "description": "Device name, e.g. 'living room lamp'"},
    command={**STR, "enum": ["on", "off", "toggle"], "description": "What to do"},
)
NUTRITION = schema(
    ["food"], food=STR, nutrient={**STR, "enum": ["calories", "protein", "fat"]},
)


def _spec(name: str, description: str, params: dict[str, object]) -> ToolSpec:
    return ToolSpec(id=f"t/{name}", name=name, description=description, agent="t",
                    input_schema=params, side_effect=False)


def test_a_value_only_the_tool_allows_named_outright_with_the_rest_read_fits_it() -> None:
    embedder = default_embedder()
    device = _spec("control_device", "Send a command to a smart home device", DEVICE)
    # No word shared, the meaning rated far by the small model: the named "off" and the
    # device read by meaning are the evidence.
    assert fit_reason("turn off the light in the kitchen", device, None, embedder) \
        == "named values"
    calls = _planned("turn off the light in the kitchen", "control_device",
                     "Send a command to a smart home device", DEVICE, embedder)
    assert len(calls) == 1 and calls[0]["command"] == "off"
    assert "light" in calls[0]["device"]
    # Without the embedding model the device is read by nothing: no fit.
    assert fit_reason("turn off the light in the kitchen", device, None, None) is None


def test_an_allowed_value_of_an_optional_parameter_is_no_fit_alone() -> None:
    embedder = default_embedder()
    food = _spec("nutrition", "Nutrition facts for a food", NUTRITION)
    text = "How many calories are in a banana?"

    def read() -> Binding:
        return bind_tool(text, food, cosines(embedder), segment=0)

    # "calories" is allowed for the optional nutrient, "banana" is the food by meaning; but
    # an optional allowed value is weak evidence ("the distance in kilometers" names the
    # unit of a tool that tells time differences).
    assert read().sets == [{"food": "banana", "nutrient": "calories"}]
    assert not names_its_values(text, food, read)


def test_a_request_that_names_no_allowed_value_gets_no_named_values_fit() -> None:
    embedder = default_embedder()
    device = _spec("control_device", "Send a command to a smart home device", DEVICE)
    # A far request naming none of on/off/toggle stays out, whatever a phrase means.
    assert fit_reason("what is the capital of France", device, None, embedder) is None


def test_a_region_written_with_dots_belongs_to_its_place() -> None:
    distance = schema(
        ["start_location", "end_location"],
        start_location={**STR, "description": "The city you start from."},
        end_location={**STR, "description": "The city you end at."},
    )
    bound = bind_schema("What's the distance between Boston, MA, and Washington, D.C. in miles?",
                        distance, segment=0)
    assert bound.sets == [{"start_location": "Boston, MA", "end_location": "Washington, D.C."}]


def test_the_tools_own_name_spelled_out_in_capitals_is_no_value() -> None:
    bmi = schema(["weight", "height"], weight=INT, height=INT,
                 system={**STR, "description": "The system of units, metric or imperial."})
    spec = _spec("calculate_bmi", "Calculate the Body Mass Index", bmi)
    bound = bind_tool("Calculate the Body Mass Index for a person with a weight of 70 kg and "
                      "a height of 175 cm.", spec, None)
    assert bound.sets == [{"weight": 70, "height": 175}]


ALARM = schema(["time"], time={**STR, "description": "Alarm time in HH:MM 24h format"},
               label={**STR, "description": "Alarm label"})
TIMER = schema(["minutes"], minutes=INT, name={**STR, "description": "Timer name"})


def test_a_thing_named_by_a_pronoun_takes_the_name() -> None:
    bound = bind_schema("Set an alarm for 6:30 AM tomorrow and label it gym.", ALARM,
                        read_only=True)
    assert bound.sets == [{"time": "06:30", "label": "gym"}]
    # "tag it" names the tags, a list; nothing is a title's that "tag" names.
    task = schema(["title"], title=STR, tags={"type": "array", "items": STR})
    bound = bind_schema("Create a task to renew my passport, tag it travel and documents.",
                        task, read_only=True)
    assert bound.sets[0].get("tags") == ["travel", "documents"]
    assert bound.sets[0].get("title") != "travel and documents"
    calls = _planned("Start a 25 minute timer. Call it focus.", "start_timer",
                     "Start a countdown timer", TIMER)
    assert calls == [{"minutes": 25, "name": "focus"}]


def test_a_value_stated_by_its_parameters_name_corrects_the_call_before() -> None:
    price = schema(["ticker"], ticker={**STR, "description": "Ticker symbol"})
    calls = _planned("Get me the stock price of Apple. The ticker is AAPL.",
                     "get_stock_price", "Get the price of a stock", price)
    assert calls == [{"ticker": "AAPL"}]
    # Another value said for another call stays its own call.
    calls = _planned("Get me the stock price of AAPL. Also get the stock price of MSFT.",
                     "get_stock_price", "Get the price of a stock", price)
    assert calls == [{"ticker": "AAPL"}, {"ticker": "MSFT"}]


def test_an_allowed_value_said_in_a_sentence_of_its_own_joins_the_call() -> None:
    flights = schema(
        ["origin", "destination", "date"], origin=STR, destination=STR,
        date={**STR, "description": "Departure date YYYY-MM-DD"},
        cabin={**STR, "enum": ["economy", "business", "first"]},
        passengers={**INT, "description": "Number of passengers"},
    )
    calls = _planned("Search for flights from New York to London on 2024-07-15. Economy "
                     "class, 2 passengers.", "search_flights", "Search for flights", flights)
    assert calls == [{"origin": "New York", "destination": "London", "date": "2024-07-15",
                      "cabin": "economy", "passengers": 2}]


def test_a_bare_number_is_no_free_text_when_another_parameter_takes_numbers() -> None:
    light = schema(["room"], room={**STR, "description": "Room"},
                   brightness={**INT, "description": "0-100"})
    bound = bind_schema("Dim the bedroom lights to 20 percent", light, read_only=True)
    assert "20" not in [str(v) for s in bound.sets for v in s.values()]


def test_an_hour_after_tonight_at_is_a_time_and_for_two_a_count() -> None:
    table = schema(
        ["restaurant", "party_size", "time"], restaurant=STR,
        party_size={**INT, "description": "Number of people"},
        time={**STR, "description": "Time, HH:MM"},
    )
    bound = bind_schema("Book a table for two at Chez Panisse tonight at 8.", table,
                        read_only=True)
    assert bound.sets == [{"restaurant": "Chez Panisse", "party_size": 2, "time": "20:00"}]
    # A count said after "for" is only a count's: "for four individuals" is no weight.
    bmi = schema(["weight", "height"], weight={**INT, "description": "Weight in kilograms"},
                 height={**INT, "description": "Height in centimeters"})
    assert bind_schema("Could you calculate the BMI for four individuals?", bmi,
                       read_only=True).missing == ["weight", "height"]
    times = [s.value for s in extract_spans("Set it to 350 tonight at 8 percent")
             if s.kind == "time"]
    assert times == []


def test_values_each_said_with_what_they_mean_close_the_list() -> None:
    traffic = schema(
        ["start_location", "end_location"], start_location=STR, end_location=STR,
        time_period={**STR, "description": "Specify a time frame, 'now' for current, "
                                           "'weekend' for the coming weekend. Default 'now'"},
    )
    bound = bind_schema("How much traffic should I expect from Las Vegas to Los Angeles this "
                        "weekend?", traffic, read_only=True)
    assert bound.sets == [{"start_location": "Las Vegas", "end_location": "Los Angeles",
                           "time_period": "weekend"}]


def test_a_month_said_by_its_name_is_the_month() -> None:
    solar = schema(["area"], area=INT,
                   month={**STR, "description": "The month for which to calculate output."})
    bound = bind_schema("What would a solar farm of 8000 sq ft make in December?", solar,
                        read_only=True)
    assert bound.sets == [{"area": 8000, "month": "December"}]


def test_an_allowed_word_inside_a_name_is_not_said() -> None:
    museum = schema(
        ["museum"], museum=STR,
        features={"type": "array", "items": {"type": "string", "enum": [
            "timings", "exhibitions", "history"]}},
    )
    bound = bind_schema("Get me information about Natural History Museum including timings "
                        "and exhibitions.", museum, read_only=True)
    assert bound.sets == [{"museum": "Natural History Museum",
                           "features": ["timings", "exhibitions"]}]
    bound = bind_schema("Get me the history of the Louvre Museum.", museum, read_only=True)
    assert bound.sets[0]["features"] == ["history"]


def test_a_street_address_in_lower_case_is_one_place() -> None:
    spans = extract_spans("the records of my house at 123 main street, in Santa Clara county")
    assert [(s.kind, s.value) for s in spans][:1] == [("name", "123 main street")]
    # Not a distance down a road, nor a sentence's period after a street's whole word.
    assert all(s.kind != "name" for s in extract_spans("I ran 5 miles down the road"))
    assert [s.value for s in extract_spans("Deliver to 42 Elm Street. Cash, please.")
            if s.kind == "name"][:1] == ["42 Elm Street"]


KIND = {**STR, "description": "The kind of board game, e.g. strategy, family, party"}


def test_a_value_that_is_another_tools_name_chooses_that_tool() -> None:
    from stores.catalog.model import Catalog
    from tests.unit_tests.test_rule_planner_schema import plan_catalog

    catalog = Catalog()
    for name, description, params in [
        ("BoardGameGeek.recommend", "Game recommendations from the BoardGameGeek store",
         schema(["numPlayers", "category"], numPlayers=INT, category=KIND,
                difficulty={**STR, "description": "Difficulty, e.g. beginner. Optional."})),
        ("AmazonGameStore.recommend", "Game recommendations from the Amazon Game Store",
         schema(["numOfPlayers", "category"], numOfPlayers=INT, category=KIND,
                priceRange={**STR, "description": "The price range to pay. Optional."})),
    ]:
        catalog.add_raw_tool({"name": name, "agent": "t", "description": description,
                              "side_effect": False, "environment": "test",
                              "input_schema": params}, source="test")
    draft = plan_catalog("Recommend strategy board games for 2 players from store "
                         "BoardGameGeek.", catalog, default_embedder())
    # "BoardGameGeek" is no category of the Amazon store's: it names the other tool.
    assert [catalog.tools[c["tool_id"]].name for c in draft.calls if c["role"] == "core"] \
        == ["BoardGameGeek.recommend"]


def test_a_city_said_with_its_country_fills_both() -> None:
    population = schema(["city"], city={**STR, "description": "City"},
                        country={**STR, "description": "Country"})
    assert bind_schema("What's the population of Tokyo, Japan?", population,
                       read_only=True).sets == [{"city": "Tokyo", "country": "Japan"}]
    alone = schema(["city"], city={**STR, "description": "City"})
    assert bind_schema("What's the population of Tokyo, Japan?", alone,
                       read_only=True).sets == [{"city": "Tokyo, Japan"}]


def test_a_day_said_by_its_name_is_no_free_text() -> None:
    spa = schema(["business", "service"], business={**STR, "description": "Business name"},
                 service={**STR, "description": "Service"})
    bound = bind_schema("Book a massage at Serenity Spa on Friday.", spa, read_only=True)
    assert "Friday" not in bound.sets[0].values()


def test_the_tools_own_noun_before_a_name_is_no_part_of_it() -> None:
    lawyer = schema(["name", "law_type"], name={**STR, "description": "Full name"},
                    law_type={**STR, "description": "The type of law, e.g. Bankruptcy"})
    spec = _spec("lawyer.get_experience", "Experience of a lawyer", lawyer)
    bound = bind_tool("How many months of experience does Lawyer John Doe have in "
                      "Bankruptcy cases?", spec, None)
    assert bound.sets[0]["name"] == "John Doe"


TRANSLATE = schema(
    ["text", "source_language", "target_language"],
    text={**STR, "description": "The text to be translated."},
    source_language={**STR, "description": "The language the text is in."},
    target_language={**STR, "description": "The language to translate to."},
)


def test_words_passed_on_end_where_the_languages_start() -> None:
    spec = _spec("translate", "Translate text", TRANSLATE)
    assert bind_tool("Translate Hello, how are you? from English to French.", spec,
                     None).sets == [{"text": "Hello, how are you?",
                                     "source_language": "English",
                                     "target_language": "French"}]
    # "into Spanish" is where the words go, the target.
    assert bind_tool("Translate good morning into Spanish", spec, None).sets[0] \
        .get("target_language") == "Spanish"


def test_a_name_the_tools_description_says_of_itself_is_no_value() -> None:
    trending = schema(["language"], language={**STR, "description": "Programming language"},
                      limit={**INT, "description": "How many"})
    spec = _spec("trending_repos", "Trending GitHub repositories", trending)
    bound = bind_tool("Show me the top 10 trending repositories on GitHub for Python.", spec,
                      None)
    assert bound.sets[0]["language"] == "Python"
    # A name a parameter also speaks of stays a value ("listed on NASDAQ").
    quote = schema(["symbol", "exchange"], symbol=STR,
                   exchange={**STR, "description": "Exchange, NASDAQ or NYSE"})
    spec = _spec("quote", "Price of a stock listed on NASDAQ or NYSE", quote)
    assert bind_tool("Price of AAPL on NASDAQ", spec, None).sets[0].get("exchange") == "NASDAQ"


def test_a_telephone_number_in_international_form_is_one_value() -> None:
    sms = schema(["phone_number", "message"],
                 phone_number={**STR, "description": "E.164, e.g. +14155550100"}, message=STR)
    bound = bind_schema("text +14155550123 saying running late, be there in 10", sms)
    assert bound.sets == [{"phone_number": "+14155550123",
                           "message": "running late, be there in 10"}]
    assert [s.value for s in extract_spans("call +44 20 7946 0958 now")] == ["+44 20 7946 0958"]
    # A parameter that wants the number written as a number gets its digits.
    whatsapp = schema(["phone"], phone={**NUM, "description": "The number, digits only"})
    assert bind_schema("Is +1234567890 on WhatsApp?", whatsapp).sets == [{"phone": 1234567890.0}]


def test_a_length_said_in_words_is_a_measure() -> None:
    timer = schema(["minutes"], minutes={**INT, "description": "Duration in minutes"})
    assert bind_schema("set a timer for an hour and a half", timer).sets == [{"minutes": 90}]
    assert bind_schema("remind me in half an hour", timer).sets == [{"minutes": 30}]
    assert bind_schema("start a timer for an hour", timer).sets == [{"minutes": 60}]


def test_the_word_before_the_thing_a_name_parameter_names_is_its_name() -> None:
    from nodes.planning.relevance import cosines

    add = schema(["list_name", "items"], list_name={**STR, "description": "Name of the list"},
                 items={"type": "array", "items": STR})
    similarity = cosines(default_embedder())
    bound = bind_schema("Add milk and eggs to my shopping list", add, similarity=similarity)
    assert bound.sets == [{"items": ["milk", "eggs"], "list_name": "shopping"}]
    # No word before it: the list is not named, the planner asks.
    assert bind_schema("Add milk and eggs to my list", add,
                       similarity=similarity).missing == ["list_name"]


def test_how_do_you_say_passes_the_words_on_and_names_the_language() -> None:
    translate = schema(["text", "to"], text={**STR, "description": "Text to translate"},
                       to={**STR, "description": "Target language code, e.g. es"})
    assert bind_schema("How do you say thank you in Japanese?", translate).sets == [
        {"text": "thank you", "to": "ja"}]


def test_a_long_code_said_to_the_tools_own_verb_is_its_one_identifier() -> None:
    track = schema(["tracking_number"], tracking_number=STR,
                   carrier={**STR, "enum": ["ups", "fedex", "usps", "dhl"]})
    spec = _spec("track_package", "Track a parcel", track)
    assert bind_tool("Track FedEx 123456789012", spec, None).sets == [
        {"carrier": "fedex", "tracking_number": "123456789012"}]
    # A short number said with no word of the tool's is no identifier's guess.
    assert bind_tool("FedEx 1234 please", spec, None).missing == ["tracking_number"]


def test_iso_4217_says_a_parameter_holds_a_currency() -> None:
    convert = schema(["amount", "from_code", "to_code"], amount=NUM,
                     from_code={**STR, "description": "ISO 4217 code"},
                     to_code={**STR, "description": "ISO 4217 code"})
    assert bind_schema("How much is 300 Swiss francs in British pounds?", convert).sets == [
        {"amount": 300.0, "from_code": "CHF", "to_code": "GBP"}]


def test_a_name_ends_where_the_place_it_goes_starts() -> None:
    folder = schema(["parent", "name"], parent={**STR, "description": "Parent path"},
                    name={**STR, "description": "New folder name"})
    assert bind_schema("Create a new folder called reports inside /home/ana/docs.",
                       folder).sets == [{"name": "reports", "parent": "/home/ana/docs"}]


def test_a_local_phone_number_after_a_word_that_dials_it() -> None:
    sms = schema(["number", "body"], number={**STR, "description": "Phone number"}, body=STR)
    assert bind_schema("Text 555-0134 that I'm outside.", sms).sets == [
        {"number": "555-0134", "body": "I'm outside"}]
    # A range is no phone number.
    assert [s.kind for s in extract_spans("numbers between 100-2000")] == ["number", "number"]


def test_the_thing_switched_on_or_off_is_the_device() -> None:
    from nodes.planning.relevance import cosines

    power = schema(["device", "state"], device={**STR, "description": "Device name"},
                   state={**STR, "enum": ["on", "off"]})
    similarity = cosines(default_embedder())
    for said, device in [("Turn the kitchen fan off.", "kitchen fan"),
                         ("switch on the porch light", "porch light"),
                         ("turn off the light in the kitchen", "light")]:
        assert bind_schema(said, power, similarity=similarity).sets[0]["device"] == device


def test_a_percent_goes_to_the_parameter_named_for_one() -> None:
    tip = schema(["amount", "percentage"], amount={**NUM, "description": "Bill"},
                 percentage={**NUM, "description": "Percent"})
    assert bind_schema("Calculate a 20% tip on 56.40.", tip).sets == [
        {"percentage": 20.0, "amount": 56.4}]


def test_an_article_counts_one_in_a_list_of_counted_things() -> None:
    order = schema(
        ["restaurant", "items", "quantities"], restaurant=STR,
        items={"type": "array", "items": STR, "description": "Item names"},
        quantities={"type": "array", "items": INT, "description": "Quantity of each item"},
    )
    bound = bind_schema("Get me two lattes and a croissant from Starbucks", order,
                        read_only=True)
    assert bound.sets == [{"items": ["lattes", "croissant"], "quantities": [2, 1],
                           "restaurant": "Starbucks"}]


def test_a_unit_the_parameters_name_ends_with_converts_a_measure() -> None:
    court = schema(["sport", "start_time"], sport=STR,
                   start_time={**STR, "description": "HH:MM"},
                   duration_minutes={**INT, "description": "Minutes"})
    bound = bind_schema("Reserve a tennis court at 6pm tomorrow for an hour.", court,
                        read_only=True)
    assert bound.sets[0].get("duration_minutes") == 60


def test_called_names_the_title_when_there_is_no_name() -> None:
    event = schema(["title", "day", "time"], title={**STR, "description": "Title"},
                   day={**STR, "description": "Day of week"},
                   time={**STR, "description": "HH:MM"},
                   attendees={"type": "array", "items": STR, "description": "People"})
    bound = bind_schema("Add a 2pm meeting with Sam on Thursday called Budget Review.", event,
                        read_only=True)
    assert bound.sets[0]["title"] == "Budget Review"
    assert bound.sets[0]["attendees"] == ["Sam"]


def test_one_value_a_description_gives_a_meaning_is_allowed_by_name() -> None:
    rate = schema(["movie", "stars"],
                  movie={**STR, "description": "Title, or 'last' for the last watched"},
                  stars={**INT, "description": "1-5"})
    spec = _spec("rate_movie", "Rate a movie", rate)
    assert bind_tool("Rate the last movie I watched 4 stars.", spec, None).sets == [
        {"movie": "last", "stars": 4}]
    # The tool's own verb that opens the request is no part of the title after it.
    assert bind_tool("Rate Inception 5 stars.", spec, None).sets == [
        {"movie": "Inception", "stars": 5}]


def test_the_first_hour_of_a_range_is_in_the_half_of_the_day_said_last() -> None:
    times = [s.value for s in extract_spans("Block my calendar from 1 to 3 pm on Wednesday")
             if s.kind == "time"]
    assert times == ["1:00pm", "3 pm"]
    assert [s.value for s in extract_spans("open 9-5pm")][:1] == ["9:00am"]
    assert [s.kind for s in extract_spans("pages 1 to 3 please")] == ["number", "number"]


def test_two_capitalised_words_joined_by_and_are_one_title() -> None:
    book = schema(["title"], title={**STR, "description": "Book title"},
                  field={**STR, "enum": ["author", "year", "genre"]})
    assert bind_schema("Who is the author of Pride and Prejudice?", book,
                       read_only=True).sets == [{"title": "Pride and Prejudice",
                                                 "field": "author"}]
    city = schema(["city"], city=STR)
    assert bind_schema("weather in Paris and Rome", city, read_only=True).sets == [
        {"city": "Paris"}, {"city": "Rome"}]


def test_a_series_by_letters_takes_a_list_of_two_names() -> None:
    phones = schema(["phone_a", "phone_b"], phone_a={**STR, "description": "First phone"},
                    phone_b={**STR, "description": "Second phone"})
    assert bind_schema("Compare the iPhone 15 and the Galaxy S24.", phones,
                       read_only=True).sets == [{"phone_a": "iPhone 15",
                                                 "phone_b": "Galaxy S24"}]


def test_the_same_word_twice_joined_by_and_is_one_name() -> None:
    stock = schema(["company"], company={**STR, "description": "Company name"})
    assert bind_schema("Get me the Johnson and Johnson stock price.", stock,
                       read_only=True).sets == [{"company": "Johnson and Johnson"}]
