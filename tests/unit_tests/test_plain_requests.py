"""Plain requests the binder and the gate used to refuse or ask about.

Each case is a request a user writes without thinking of the schema: a plural the tool's name
holds in the singular ("movies" and "a movie"), an identifier said with its object a few words
back ("employee whose ID is 345"), a whole request wrapped in quotes, a date written with
dashes in the format a parameter asks for.
"""

from __future__ import annotations

from typing import Any

from nodes.planning.param_fit import content_words
from nodes.planning.relevance import MIN_RELEVANCE, relevance
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema

INT = {"type": "integer"}
STR = {"type": "string"}


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def test_a_plural_in_ies_and_its_singular_are_one_word() -> None:
    # "movies" lost its "e" ("movy") while "movie" kept it: the tool's name shared nothing.
    assert content_words("Movies") == content_words("movie")
    assert content_words("cookies") == content_words("a cookie")
    assert content_words("cities") == content_words("city")


def test_a_tool_named_by_a_plural_fits_a_request_for_one() -> None:
    movies = schema(
        [],
        directed_by={**STR, "description": "Director of the movie."},
        genre={**STR, "description": "Genre of the movie."},
    )
    text = "Can you find me a thriller movie directed by Alexander Mackendrick?"
    assert relevance(text, "Movies_3_FindMovies", "Retrieves a list of movies.", movies) >= (
        MIN_RELEVANCE
    )


def test_an_identifier_said_with_its_object_a_few_words_back() -> None:
    fetch = schema(
        ["company_name", "employee_id"],
        company_name={**STR, "description": "The name of the company."},
        employee_id={**INT, "description": "The unique ID of the employee."},
    )
    bound = bind_schema(
        "Retrieve the data of a specific employee whose ID is 345 in company 'ABC Ltd.'", fetch
    )
    assert bound.missing == []
    assert bound.sets[0]["employee_id"] == 345

    case = schema(
        ["case_number", "year"],
        case_number={**INT, "description": "The specific number of the law case."},
        year={**INT, "description": "The year in which the law case took place."},
    )
    bound = bind_schema("Fetch details of a law case with number 43403 for year 2018.", case)
    assert bound.sets[0] == {"case_number": 43403, "year": 2018}


def test_an_identifier_is_still_no_guess_for_a_bare_number() -> None:
    order = schema(
        ["order_id"],
        order_id={**INT, "description": "The order."},
        price={**INT, "description": "The new price."},
    )
    # "the price ... with 20" names no order: the value stays out of the identifier.
    bound = bind_schema("Set the price of the product with 20", order)
    assert bound.missing == ["order_id"]


def test_a_request_wrapped_in_quotes_is_read_inside_them() -> None:
    stock = schema(
        ["company", "days"],
        company={**STR, "description": "The ticker symbol of the company."},
        days={**INT, "description": "Number of past days for which the stock price is required."},
    )
    bound = bind_schema("'Get stock price of Apple for the last 5 days in NASDAQ.'", stock)
    assert bound.missing == []
    assert bound.sets[0]["days"] == 5
    assert bound.sets[0]["company"] == "Apple"
    # A quoted value inside a request stays one quoted value.
    kinds = [s.kind for s in extract_spans("Search for 'Baby Shark' now")]
    assert "quoted" in kinds


def test_a_dashed_date_in_the_format_the_parameter_asks_for() -> None:
    felonies = schema(
        ["full_name", "birth_date"],
        full_name={**STR, "description": "The full name of the individual."},
        birth_date={**STR, "description": "The birth date. Must be in MM-DD-YYYY format."},
    )
    bound = bind_schema(
        "Find out if John Doe with a birthday 01-01-1980 has any prior felony convictions.",
        felonies,
    )
    assert bound.missing == []
    assert bound.sets[0]["birth_date"] == "01-01-1980"


def test_a_required_value_the_schema_gives_by_default_is_not_asked_for() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan

    factors = (
        "get_prime_factors", "Retrieve the prime factors of a number.",
        {"number": INT, "formatted": {"type": "boolean",
                                      "description": "Return a string if true. Default is true."}},
        ["number", "formatted"],
    )
    draft = plan("Find the prime factors of 450", factors)
    assert calls(draft) == [("get_prime_factors", {"number": 450, "formatted": True})]
    assert draft.question is None

    poker = (
        "poker_probability_full_house", "Calculate the probability of a full house in poker.",
        {"deck_size": {**INT, "description": "The size of the deck. Default is 52."},
         "hand_size": {**INT, "description": "The size of the hand.", "default": 5}},
        ["deck_size", "hand_size"],
    )
    draft = plan("What is the probability of getting a full house in poker?", poker)
    assert calls(draft) == [
        ("poker_probability_full_house", {"deck_size": 52, "hand_size": 5})
    ]


def test_a_default_said_in_other_words_is_no_value() -> None:
    from nodes.planning.param_values import stated_default

    assert stated_default({"type": "boolean", "description": "Default is true."}) == (True, True)
    assert stated_default({"type": "string", "description": "Default is 'NYSE'."}) == (
        True, "NYSE"
    )
    assert stated_default({"type": "number", "description": "Defaults to 0.5"}) == (True, 0.5)
    # Nothing a call could send: an absence, a sentence, a value of the wrong type.
    for description in (
        "Default is not use if not specified.", "Default to 'None', which searches everywhere.",
        "Default is the current date.", "The size. Default is all.",
    ):
        assert stated_default({"type": "string", "description": description}) == (False, None)
    assert stated_default({"type": "integer", "description": "Default is five."}) == (False, None)


def test_a_code_the_description_explains_is_bound_from_what_it_stands_for() -> None:
    from nodes.planning.code_values import described_codes

    service = (
        "The unique identifier of the service. For example, '1' represents cleaning service, "
        "'2' represents ironing service, '3' represents extensive cleaning service."
    )
    assert described_codes(service) == (
        ("1", "cleaning service"), ("2", "ironing service"), ("3", "extensive cleaning service")
    )
    province = "The province. For example, 1 represents Bangkok, 2 for Chiang Mai, 3 for Phuket."
    assert described_codes(province) == (("1", "Bangkok"), ("2", "Chiang Mai"), ("3", "Phuket"))
    # One number said "for" something is no code table.
    assert described_codes("The number of results, 5 for the default page.") == ()

    finder = schema(
        ["service_id", "province_id"],
        service_id={**INT, "description": service},
        province_id={**INT, "description": province},
    )
    bound = bind_schema("Help find a housekeeper who provides ironing services in Chiang Mai",
                        finder)
    assert bound.missing == []
    assert bound.sets[0] == {"service_id": 2, "province_id": 2}
    # The most specific meaning wins; a meaning not said binds nothing.
    bound = bind_schema("I need extensive cleaning in Phuket", finder)
    assert bound.sets[0] == {"service_id": 3, "province_id": 3}
    bound = bind_schema("Find a gardener in Phuket", finder)
    assert bound.missing == ["service_id"]


def test_a_number_of_the_things_the_description_measures_is_the_value() -> None:
    steps = schema(["calorie"], calorie={"type": "number",
                                         "description": "The amount of calories to burn."})
    bound = bind_schema("How many steps do I need to walk to lose 500 calories?", steps)
    assert bound.sets[0] == {"calorie": 500}


def test_a_shortened_name_ends_no_sentence() -> None:
    from nodes.parsing.rules import RuleIntentParser
    from stores.language.lexicon import Lexicon

    parser = RuleIntentParser(Lexicon.default())
    for request in (
        "Find the value of a vintage Super Mario Bros. game from 1985 like new.",
        "Get the stock of Acme LLC. for the last 5 days.",
    ):
        subs = parser.parse(request)["sub_intents"]
        assert len(subs) == 1, [s["text"] for s in subs]


def test_an_identifier_of_letters_and_digits_is_one_value() -> None:
    spans = extract_spans("specifications for part with the MPN identifier 3pak7?")
    assert ("identifier", "3pak7") in [(s.kind, s.value) for s in spans]
    spans = extract_spans("and vulnerability ef903ac-893-f00?")
    assert [(s.kind, s.value) for s in spans] == [("identifier", "ef903ac-893-f00")]
    # Numbers with their units, scientific notation and plain numbers stay numbers.
    for text, value in (("weighs 5kg", 5), ("about 1e5 cells", 100000.0), ("at 3pm", None)):
        kinds = [(s.kind, s.value) for s in extract_spans(text)]
        assert all(kind != "identifier" for kind, _ in kinds), kinds
        if value is not None:
            assert ("number", value) in kinds


def test_south_and_west_coordinates_are_negative() -> None:
    place = schema(
        ["latitude", "longitude"],
        latitude={"type": "number", "description": "Latitude of the place."},
        longitude={"type": "number", "description": "Longitude of the place."},
    )
    bound = bind_schema("the forecast at the coordinates 37.8651 N, 119.5383 W", place)
    assert bound.sets[0] == {"latitude": 37.8651, "longitude": -119.5383}


def test_a_month_is_no_place() -> None:
    weather = schema(
        ["location"], location={**STR, "description": "The city and state, e.g. Boston, MA."}
    )
    bound = bind_schema(
        "I'm planning a trip to New York, NY in December. What is the weather there?", weather
    )
    assert bound.sets[0] == {"location": "New York, NY"}


def test_the_one_identifier_a_tool_takes_is_the_id_the_request_says() -> None:
    profile = schema(
        ["user_id"],
        user_id={**STR, "description": "The unique identifier of the user."},
        include_contacts={"type": "boolean", "description": "Include contact details."},
    )
    for text in (
        "fetch the profile information for Adriel, id 12345, including his personal details",
        "List all the projects. her id is 12345",
    ):
        bound = bind_schema(text, profile)
        assert bound.sets[0].get("user_id") == "12345", (text, bound)
    # Two identifiers: "id" alone names neither.
    two = schema(["user_id", "order_id"], user_id=INT, order_id=INT)
    assert bind_schema("show it, id 12345", two).missing == ["user_id", "order_id"]


def test_a_word_made_from_an_allowed_value_names_it() -> None:
    events = schema(
        ["event_type", "city"],
        event_type={**STR, "enum": ["Music", "Theater"], "description": "The kind of event."},
        city={**STR, "description": "The city, e.g. New York, NY."},
    )
    bound = bind_schema("Find me some musical events happening in New York, NY?", events)
    assert bound.sets[0]["event_type"] == "Music"


def test_a_tool_that_requires_nothing_fits_a_request_that_names_one_of_its_values() -> None:
    from nodes.planning.relevance import values_fit

    lookup = schema(
        [],
        genre={**STR, "enum": ["Pop", "Rock", "Country", "dontcare"],
               "description": "The genre of the songs."},
        year={**STR, "description": "The year the song came out."},
    )
    assert values_fit("Search me some songs, something country-like.", lookup)
    # Nothing of its own said: no evidence of fit.
    assert not values_fit("What's the weather like tomorrow?", lookup)


def test_a_name_followed_by_what_it_is_goes_to_that_parameter() -> None:
    movies = schema(
        [],
        directed_by={**STR, "description": "Name of the director to filter the movies."},
        cast={**STR, "description": "Name of the main actor to filter the movies."},
    )
    for text in (
        "I am looking for a nice movie with Martin Kove as an actor to watch.",
        "I'm looking for a movie that features Daniel Camp in the cast.",
    ):
        bound = bind_schema(text, movies, read_only=True)
        assert list(bound.sets[0]) == ["cast"], (text, bound)


MOVIES = (
    "Movies_3_FindMovies", "Retrieves a list of movies by director, genre and cast.",
    {"directed_by": {**STR, "description": "Name of the director."},
     "genre": {**STR, "enum": ["Comedy", "Drama", "Comic", "dontcare"],
               "description": "Genre of the movies."},
     "cast": {**STR, "description": "Name of the main actor."}},
    [],
)


def test_a_bare_read_said_again_more_fully_is_one_call() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan

    draft = plan("I would like to choose a movie to watch. Can you help me find a movie in the "
                 "Comic genre with James Corden as the actor?", MOVIES)
    assert calls(draft) == [
        ("Movies_3_FindMovies", {"genre": "Comic", "cast": "James Corden"})
    ]
    draft = plan("Find me a Comedy movie. I want to watch a movie.", MOVIES)
    assert calls(draft) == [("Movies_3_FindMovies", {"genre": "Comedy"})]


def test_a_street_address_is_one_value() -> None:
    for text, address in (
        ("I need a Comfort Uber ride from 2020 Addison Street, Berkeley, CA, USA, and I can "
         "wait up to 600 seconds", "2020 Addison Street, Berkeley, CA, USA"),
        ("Can you find me a taxi to take me to 2508 University Avenue, Palo Alto, CA .",
         "2508 University Avenue, Palo Alto, CA"),
        ("I need a cab to 123 Main St, Anytown, with 2 seats", "123 Main St, Anytown"),
        ("ship it to 221B Baker Street, London", "221B Baker Street, London"),
    ):
        values = [s.value for s in extract_spans(text)]
        assert address in values, (text, values)
    ride = schema(
        ["loc", "time"],
        loc={**STR, "description": "The starting location, e.g. '123 Main St, Springfield, IL'."},
        time={**INT, "description": "The most seconds the customer waits."},
    )
    bound = bind_schema("I need a ride from 2020 Addison Street, Berkeley, CA, USA, and I can "
                        "wait up to 600 seconds for it.", ride)
    assert bound.sets == [{"loc": "2020 Addison Street, Berkeley, CA, USA", "time": 600}]


def test_a_weekday_said_alone_is_a_day_not_a_name() -> None:
    kinds = {s.text: s.kind for s in extract_spans(
        "Could you provide the forecast for Alameda on the upcoming Wednesday, today is Monday")}
    assert kinds == {"Alameda": "name", "Wednesday": "date", "Monday": "date"}
    weather = schema(
        ["city"],
        city={**STR, "description": "The city, e.g. New York, NY."},
        date={**STR, "description": "The date, e.g. 2019-03-01."},
    )
    bound = bind_schema("What's the weather forecast for Berkeley on the upcoming Saturday? "
                        "Today is Tuesday April 25th 2023", weather)
    assert [s["city"] for s in bound.sets] == ["Berkeley, CA"]


def test_numbers_written_as_codes_are_identifiers() -> None:
    for text, code in (
        ("The account number is 1-523-1713-5704, under my name.", "1-523-1713-5704"),
        ("Their CIK is 0001067983.", "0001067983"),
        ("I want the violation badge for project ID badae.", "badae"),
    ):
        found = [(s.kind, s.value) for s in extract_spans(text)]
        assert ("identifier", code) in found, (text, found)
    # The word "ID" itself is no value; dates and plain numbers stay what they are.
    assert all(s.value != "ID" for s in extract_spans("project ID badae"))
    assert [(s.kind, s.value) for s in extract_spans("on 2023-10-01 buy 15 apples")] == [
        ("date", "2023-10-01"), ("number", 15)
    ]


def test_the_words_of_the_next_value_are_no_cue_for_this_one() -> None:
    ranking = schema(
        ["team", "league"],
        team={**STR, "description": "The name of the team."},
        league={**STR, "description": "The name of the league."},
    )
    bound = bind_schema(
        "Tell me the ranking of the New York Yankees in the Major League Baseball", ranking
    )
    assert bound.sets[0] == {"team": "New York Yankees", "league": "Major League Baseball"}


def test_a_language_names_the_locale_an_enum_lists() -> None:
    from stores.language.codes import code_in

    locales = ["en-US", "es-ES", "de-DE", "fr-FR"]
    assert code_in("Say it in Spanish with a female voice", locales) == ("es-ES", 10)
    # Two locales of one language: the language alone names neither.
    assert code_in("Say it in English", ["en-US", "en-GB"]) is None


def test_a_time_zone_is_named_by_its_place() -> None:
    event = schema(
        ["identifier", "timezone"],
        identifier={**STR, "description": "The event."},
        timezone={**STR, "enum": ["Asia/Tokyo", "America/New_York", "Europe/London", "UTC"],
                  "description": "The Olson timezone identifier."},
    )
    bound = bind_schema("Reschedule event 'Bob-123' to 4pm London time", event)
    assert bound.sets[0]["timezone"] == "Europe/London"
    bound = bind_schema("Reschedule event 'Bob-123' to 4pm in New York", event)
    assert bound.sets[0]["timezone"] == "America/New_York"


def test_a_date_and_a_time_said_together_are_one_iso_datetime() -> None:
    event = schema(
        ["identifier", "dateOrTime"],
        identifier={**STR, "description": "The event."},
        dateOrTime={**STR, "description": "The new date and time, in ISO-8601 format (e.g., "
                                          "'YYYY-MM-DDTHH:MM:SS')."},
    )
    bound = bind_schema("Reschedule event 'Bob-123' to November 1, 2023 at 4pm", event)
    assert bound.sets[0]["dateOrTime"] == "2023-11-01T16:00:00"
    zoned = schema(["when"], when={**STR, "description": "The date and time, such as "
                                                         "'2023-04-15T13:45:00Z'."})
    bound = bind_schema("Move it to 2022-10-30 at 4:30 PM", zoned)
    assert bound.sets[0]["when"] == "2022-10-30T16:30:00Z"


def test_counted_items_fill_an_item_list_and_its_quantities() -> None:
    order = schema(
        ["restaurant", "items", "quantities"],
        restaurant={**STR, "description": "The restaurant."},
        items={"type": "array", "items": STR, "description": "The items to order."},
        quantities={"type": "array", "items": INT,
                    "description": "The quantity of each item, by index."},
    )
    for text, items, quantities in (
        ("I want to order five 'burgers' and six 'chicken wings' from uber pitada",
         ["burgers", "chicken wings"], [5, 6]),
        ("Order two Big Macs and one McFlurry from McDonald's.", ["Big Macs", "McFlurry"], [2, 1]),
        ("Check the total price for three pumpkins, 2 cartons of milk and two dozen eggs.",
         ["pumpkins", "cartons of milk", "eggs"], [3, 2, 24]),
    ):
        bound = bind_schema(text, order)
        assert bound.sets[0]["items"] == items, (text, bound)
        assert bound.sets[0]["quantities"] == quantities, (text, bound)
    # One count alone is no list of items.
    single = bind_schema("Order five burgers from Joe's", order)
    assert "quantities" not in single.sets[0]


def test_a_date_said_with_of_is_written_in_the_format_asked() -> None:
    from stores.language.date_formats import date_as_described

    assert date_as_described("15th of March, 2024", "in the format of 'dd/mm/yyyy'") == (
        "15/03/2024"
    )
    assert date_as_described("the 1st of May 2023", "YYYY-MM-DD") == "2023-05-01"


def test_a_city_is_not_read_with_the_word_after_it() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan

    weather = (
        "Weather_1_GetWeather", "Retrieves the weather forecast of a city on a date.",
        {"city": {**STR, "description": "The name of the city."},
         "date": {**STR, "description": "The date, in the format 'YYYY-MM-DD'."}},
        ["city"],
    )
    draft = plan("Can you tell me what the weather will be like in Sacramento on April 22nd "
                 "2023?", weather)
    assert calls(draft) == [("Weather_1_GetWeather", {"city": "Sacramento",
                                                      "date": "2023-04-22"})]


def test_a_code_with_a_capital_e_is_no_power_of_ten() -> None:
    found = [(s.kind, s.value) for s in extract_spans("the status of my Indigo flight 6E123?")]
    assert ("identifier", "6E123") in found


def test_a_date_written_out_beats_the_word_today_before_it() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan

    weather = (
        "Weather_1_GetWeather", "Retrieves the weather forecast of a city on a date.",
        {"city": {**STR, "description": "The name of the city."},
         "date": {**STR, "description": "The date, in the format 'YYYY-MM-DD'."}},
        ["city"],
    )
    draft = plan("What's the weather forecast for Palo Alto for today April 25th 2023?", weather)
    assert calls(draft) == [("Weather_1_GetWeather", {"city": "Palo Alto",
                                                      "date": "2023-04-25"})]


def test_a_quoted_text_may_hold_an_apostrophe_and_an_address_goes_to_the_address() -> None:
    email = schema(
        ["to", "subject", "body"],
        to={**STR, "description": "The email address to send to."},
        subject={**STR, "description": "The subject of the email."},
        body={**STR, "description": "The body content of the email."},
    )
    bound = bind_schema("Send an email to John Doe at john.doe@example.com with the subject "
                        "'Meeting' and body 'Let's meet at 10 AM tomorrow'.", email)
    assert bound.sets[0] == {"to": "john.doe@example.com", "subject": "Meeting",
                             "body": "Let's meet at 10 AM tomorrow"}


def test_a_date_range_goes_to_its_start_and_end_with_its_year() -> None:
    hotel = schema(
        ["location", "check_in_date", "check_out_date", "no_of_adults"],
        location={**STR, "description": "The city."},
        check_in_date={**STR, "description": "The check-in date, YYYY-MM-DD."},
        check_out_date={**STR, "description": "The check-out date, YYYY-MM-DD."},
        no_of_adults={**INT, "description": "The number of adults."},
    )
    bound = bind_schema("Is any Hilton available for two adults in Paris from 2023 April 4th to "
                        "April 8th?", hotel)
    assert bound.sets[0] == {"location": "Paris", "check_in_date": "2023-04-04",
                             "check_out_date": "2023-04-08", "no_of_adults": 2}


def test_a_country_named_is_the_country() -> None:
    gdp = schema(
        ["country", "start_year", "end_year"],
        country={**STR, "description": "The country for which the historical GDP data is required."},
        start_year={**INT, "description": "Starting year."},
        end_year={**INT, "description": "Ending year."},
    )
    bound = bind_schema("Get historical GDP data for United States from 1960 to 2000.", gdp)
    assert bound.sets[0] == {"country": "United States", "start_year": 1960, "end_year": 2000}


def test_a_title_before_a_name_is_part_of_it() -> None:
    names = [s.value for s in extract_spans("Find the criminal cases of Mr. X in New York") if
             s.kind == "name"]
    assert names == ["Mr. X", "New York"]
    names = [s.value for s in extract_spans("the city where Dr. Jane Smith works") if
             s.kind == "name"]
    assert names == ["Dr. Jane Smith"]


def test_parameters_named_together_take_their_values_in_order() -> None:
    area = schema(
        ["base", "height"],
        base={**INT, "description": "The base of the triangle."},
        height={**INT, "description": "The height of the triangle."},
        unit={**STR, "description": "The unit of measure."},
    )
    bound = bind_schema("Calculate the area of a right-angled triangle given the lengths of its "
                        "base and height as 6cm and 10cm.", area)
    assert bound.sets[0]["base"] == 6 and bound.sets[0]["height"] == 10
    bound = bind_schema("What is the area if the height and base are 3 and 8?", area)
    assert bound.sets[0]["base"] == 8 and bound.sets[0]["height"] == 3


def test_a_count_before_a_title_is_no_address() -> None:
    assert all(s.kind != "name" or "2" not in str(s.value)
               for s in extract_spans("Book 2 Dr. appointments for Monday"))


def test_a_zone_named_whole_picks_the_tool_that_takes_it() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan

    zone = "IANA timezone name (e.g., 'America/New_York', 'Europe/London')."
    now = ("get_current_time", "Get current time in a specific timezone",
           {"timezone": {**STR, "description": zone}}, ["timezone"])
    convert = ("convert_time", "Convert time between timezones",
               {"source_timezone": {**STR, "description": "Source " + zone},
                "time": {**STR, "description": "Time to convert in 24-hour format (HH:MM)"},
                "target_timezone": {**STR, "description": "Target IANA timezone name (e.g., "
                                                          "'Asia/Tokyo')."}},
               ["source_timezone", "time", "target_timezone"])
    draft = plan("what time is it in timezone=America/New_York", now, convert)
    assert calls(draft) == [("get_current_time", {"timezone": "America/New_York"})]


def test_ordinals_years_and_snake_case_names_are_read_as_said() -> None:
    history = schema(
        ["religion", "century"],
        religion={**STR, "description": "Name of the religion."},
        century={**INT, "description": "The century in which the events took place."},
        count={**INT, "description": "Number of events to return. Default is 5."},
    )
    bound = bind_schema("Find ten major events related to Christianity in the 16th century.",
                        history)
    assert bound.sets[0] == {"religion": "Christianity", "century": 16, "count": 10}
    game = schema(
        ["game_name", "release_year"],
        game_name={**STR, "description": "The name of the game."},
        release_year={**INT, "description": "The year the game was released."},
        condition={**STR, "enum": ["New", "Like New", "Used"], "description": "The condition."},
    )
    bound = bind_schema("Find the value of a vintage Super Mario Bros. game from 1985 like new.",
                        game)
    assert bound.sets[0]["release_year"] == 1985
    forest = schema(["dataset"], dataset={**STR, "description": "The dataset to train on."},
                    max_depth={**INT, "description": "The maximum depth of the trees."})
    bound = bind_schema("Train a random forest on dataset your_dataset_name with a maximum depth "
                        "of 5", forest)
    assert bound.sets[0] == {"dataset": "your_dataset_name", "max_depth": 5}


def test_a_place_is_not_read_with_the_lower_case_word_after_it() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan

    museum = ("museum_info", "Get information about a museum.",
              {"museum": {**STR, "description": "The name of the museum."},
               "city": {**STR, "description": "The city of the museum."}},
              ["museum", "city"])
    draft = plan("Get me information about Natural History Museum in London including timings "
                 "and exhibitions.", museum)
    assert calls(draft) == [("museum_info", {"museum": "Natural History Museum",
                                              "city": "London"})]


def test_a_list_after_a_colon_fills_the_array_not_its_first_item() -> None:
    from tests.unit_tests.test_rule_planner_schema import calls, plan

    histogram = ("make_histogram", "Plot a histogram of the data.",
                 {"values": {"type": "array", "items": INT, "description": "The values."},
                  "bins": {**INT, "description": "The number of bins."}},
                 ["values"])
    # "values: 3, 5, 8" reads as a key and its value; the schema wants the whole list.
    draft = plan("Make a histogram of these values: 3, 5, 8, 13 with 4 bins", histogram)
    assert calls(draft) == [("make_histogram", {"values": [3, 5, 8, 13], "bins": 4})]
    samples = ("compare_groups", "Compare two groups of measurements.",
               {"first": {"type": "array", "items": INT, "description": "The first group."},
                "second": {"type": "array", "items": INT, "description": "The second group."}},
               ["first", "second"])
    draft = plan("Compare groups with first: [4,7,9] and second: [5,6,1]", samples)
    assert calls(draft) == [("compare_groups", {"first": [4, 7, 9], "second": [5, 6, 1]})]


def test_a_nested_list_with_spaces_is_one_value() -> None:
    spans = extract_spans("Run the test on the table [ [10, 20], [30, 40] ] please")
    assert [(s.kind, s.value) for s in spans] == [("json", [[10, 20], [30, 40]])]
    grid = schema(["table"], table={"type": "array", "items": {"type": "array", "items": INT},
                                    "description": "A table of counts."})
    bound = bind_schema("Test independence on the table [ [10, 20], [30, 40] ]", grid)
    assert bound.sets == [{"table": [[10, 20], [30, 40]]}]


def test_a_number_is_no_name() -> None:
    standings = schema(
        ["club", "competition", "year"],
        club={**STR, "description": "The name of the club."},
        competition={**STR, "description": "The name of the competition."},
        year={**STR, "description": "The year the standings are for."},
    )
    bound = bind_schema("Where did Ajax finish in the 2019 Eredivisie year?", standings)
    assert bound.sets[0] == {"club": "Ajax", "competition": "Eredivisie", "year": "2019"}


def test_values_that_fit_two_parameters_alike_go_in_the_order_said() -> None:
    floor = schema(
        ["tile_area", "length", "width"],
        tile_area={**INT, "description": "The area one box of tiles covers, in square meters."},
        length={**INT, "description": "Length of the floor in meters."},
        width={**INT, "description": "Width of the floor in meters."},
    )
    bound = bind_schema("How many boxes to tile a floor of 9 meters by 4 meters with boxes that "
                        "cover 3 square meters each?", floor)
    assert bound.sets[0] == {"tile_area": 3, "length": 9, "width": 4}
    point = schema(["x", "y"], x={**INT, "description": "The x value."},
                   y={**INT, "description": "The y value."})
    assert bind_schema("Get the distance to the origin of the two values 7 and 2", point
                       ).sets[0] == {"x": 7, "y": 2}


def test_a_capital_the_inside_a_sentence_is_part_of_the_name() -> None:
    spans = extract_spans("Reserve a table for four at The Ivy tonight")
    assert ("name", "The Ivy") in [(s.kind, s.text) for s in spans]
    # At the start of a sentence "The" is only the sentence's first word.
    spans = extract_spans("The Louvre opening hours on Monday")
    assert ("name", "Louvre") in [(s.kind, s.text) for s in spans]


def test_a_code_of_capitals_and_digits_joined_by_slashes_is_one_identifier() -> None:
    spans = extract_spans("Open the file for claim 2023/NY8841 in Boston")
    assert ("identifier", "2023/NY8841") in [(s.kind, s.text) for s in spans]
    # Lower-case units and plain fractions keep their own readings.
    assert all(s.kind != "identifier" for s in extract_spans("a density of 1000 kg/m3, 3/4 cup"))


def test_a_measure_goes_to_the_parameter_measured_in_its_unit() -> None:
    push = schema(
        ["force", "distance"],
        force={"type": "number", "description": "The force applied, in newtons."},
        distance={"type": "number", "description": "How far the load moves, in meters."},
    )
    # No word names either parameter: only the units say which is which.
    for text in ("What work is done moving a crate 12m with 30N?", "Work done over 12m at 30N"):
        assert bind_schema(text, push).sets[0] == {"force": 30, "distance": 12}


def test_each_bracketed_list_of_one_array_parameter_is_another_call() -> None:
    mean = schema(["values"], values={"type": "array", "items": INT,
                                      "description": "The numbers to average."})
    bound = bind_schema("Average each group: the first is [3, 5, 7], the second is [10, 20] and "
                        "the last is [1, 1, 4].", mean)
    assert [s["values"] for s in bound.sets] == [[3, 5, 7], [10, 20], [1, 1, 4]]
    # Two array parameters take one list each, in one call.
    pair = schema(["before", "after"],
                  before={"type": "array", "items": INT, "description": "Scores before."},
                  after={"type": "array", "items": INT, "description": "Scores after."})
    bound = bind_schema("Compare scores before [3, 4] and after [5, 6]", pair)
    assert bound.sets == [{"before": [3, 4], "after": [5, 6]}]


def test_values_a_description_lists_after_i_e_are_named_values() -> None:
    claim = schema(
        ["claim", "field"],
        claim={**STR, "description": "The claim number."},
        field={**STR, "description": "What to return about the claim, i.e., adjuster, payout, "
                                     "status etc."},
    )
    bound = bind_schema("Who was the adjuster on claim number 2023/NY8841?", claim)
    assert bound.sets[0] == {"claim": "2023/NY8841", "field": "adjuster"}


def test_a_range_said_from_one_end_to_the_other_fills_an_array_of_two() -> None:
    area = schema(["bounds"], bounds={"type": "array", "items": {"type": "number"},
                                      "description": "Lower and upper bound."})
    assert bind_schema("Integrate sin(x) from x=0 to x=2", area).sets == [{"bounds": [0, 2]}]
    assert bind_schema("Integrate it between t = -3 and t = 5", area).sets == [
        {"bounds": [-3, 5]}]
    years = schema(["span"], span={"type": "array", "items": INT, "description": "Years."})
    assert bind_schema("Rulings from 2001 to 2009", years).sets == [{"span": [2001, 2009]}]


def test_ordinals_said_in_a_row_are_one_list() -> None:
    floors = schema(["levels"], levels={"type": "array", "items": INT,
                                        "description": "The floors to inspect."})
    assert bind_schema("Inspect the 1st, 5th and 22nd floors", floors).sets == [
        {"levels": [1, 5, 22]}]


def test_a_month_written_with_a_dot_against_its_day_is_a_date() -> None:
    quote = schema(["day"], day={**STR, "description": "The date, in YYYY-MM-DD format."})
    assert bind_schema("Closing price on Mar.11, 2022 please", quote).sets == [
        {"day": "2022-03-11"}]
    assert bind_schema("Closing price on Jun.20,2023", quote).sets == [{"day": "2023-06-20"}]


def test_lower_case_things_said_with_and_fill_a_list_of_strings() -> None:
    from nodes.planning.value_forms import lower_case_lists

    assert lower_case_lists("a salad that uses spinach and goat cheese") == [
        ["spinach", "goat cheese"]]
    assert lower_case_lists("a shop selling nails, wood glue and also sandpaper near Leeds") == [
        ["nails", "wood glue", "sandpaper"]]
    assert lower_case_lists("drop their phone numbers and home addresses") == [
        ["phone numbers", "home addresses"]]
    dish = schema(["city", "ingredients"],
                  city={**STR, "description": "The city."},
                  ingredients={"type": "array", "items": STR,
                               "description": "What the dish must contain."})
    bound = bind_schema("Find a dinner in Oslo that uses salmon and dill", dish)
    assert bound.sets == [{"city": "Oslo", "ingredients": ["salmon", "dill"]}]
    # A lone name is no list of things: "at the Fresh Market" is where, not what.
    basket = schema(["products"], products={"type": "array", "items": STR,
                                            "description": "The products to price."},
                    city={**STR, "description": "The city."})
    bound = bind_schema("Price plums and green beans at the Fresh Market in Leeds", basket)
    assert bound.sets[0]["products"] == ["plums", "green beans"]
    # Two such lists say nothing of which is meant: the value is asked for.
    bound = bind_schema("Find bread and butter in Oslo that uses salmon and dill", dish)
    assert bound.missing == ["ingredients"]


def test_a_noun_said_with_what_it_is_of_is_one_value() -> None:
    near = {"theory": 0.40, "theory of evolution": 0.30, "made of marble": 0.9, "marble": 0.5}

    def similarity(query: str, phrases: Any) -> list[float]:
        return [near.get(phrase, 0.0) for phrase in phrases]

    who = schema(["idea"], idea={**STR, "description": "The idea to look up."})
    bound = bind_schema("Who first proposed the theory of evolution?", who, similarity=similarity)
    assert bound.sets == [{"idea": "theory of evolution"}]
    # "made of" follows a noun, not an article: "made of marble" is no name of a thing.
    bound = bind_schema("Price a statue made of marble", who, similarity=similarity)
    assert bound.sets == [{"idea": "marble"}]


def test_a_noun_said_with_the_words_before_it_is_one_value() -> None:
    near = {"membrane": 0.45, "nuclear membrane": 0.38, "names": 0.05}

    def similarity(query: str, phrases: Any) -> list[float]:
        return [near.get(phrase, 0.0) for phrase in phrases]

    part = schema(["part"], part={**STR, "description": "The part of the cell."})
    bound = bind_schema("List the names of proteins in the nuclear membrane", part,
                        similarity=similarity)
    assert bound.sets == [{"part": "nuclear membrane"}]


def test_free_text_after_its_parameter_name_is_taken_whole() -> None:
    note = schema(["body"], body={**STR, "description": "What the note says."},
                  pinned={"type": "boolean", "description": "Pin the note."})
    bound = bind_schema("Add a note with body call the dentist at 3 pm", note)
    assert bound.sets == [{"body": "call the dentist at 3 pm"}]
    bound = bind_schema("Add a note, body: buy 2 loaves, then pin it", note)
    assert bound.sets[0]["body"] == "buy 2 loaves"
    # A value right after the name with nothing more is that value alone.
    timer = schema(["label", "at"], label={**STR, "description": "The label."},
                   at={**STR, "description": "The time, e.g. 7 am."})
    bound = bind_schema("Set an alarm with label Gym at 6 am", timer)
    assert bound.sets == [{"label": "Gym", "at": "6 am"}]
    # An identifier or a date said after its name stays the value alone.
    ticket = schema(["ticket_id", "due_date"], ticket_id={**STR, "description": "The ticket."},
                    due_date={**STR, "description": "When it is due."})
    bound = bind_schema("Move the ticket with id 5463 to due date from 3 March 2025", ticket)
    assert bound.sets[0]["ticket_id"] == "5463"


def test_a_clock_time_fills_hour_and_minute_parameters() -> None:
    angle = schema(["hours", "minutes"], hours={**INT, "description": "The hour shown."},
                   minutes={**INT, "description": "The minute shown."})
    assert bind_schema("What angle do the hands make at 4:45 PM?", angle).sets == [
        {"hours": 4, "minutes": 45}]
    assert bind_schema("the angle of the hands at 11 am", angle).sets == [
        {"hours": 11, "minutes": 0}]


def test_a_when_question_fits_a_tool_that_gets_a_date() -> None:
    dated = schema(["battle"], battle={**STR, "description": "The name of the battle."})
    text = "When was the Siege of Orleans?"
    assert relevance(text, "get_battle_date", "Look up a battle.", dated) >= MIN_RELEVANCE
    # The question word counts only for a tool named for what it asks.
    assert relevance(text, "get_battle_casualties", "Look up a battle.", dated) < (
        relevance(text, "get_battle_date", "Look up a battle.", dated))


def test_an_enum_value_inside_a_longer_one_said_is_not_said() -> None:
    from nodes.planning.enum_values import enum_mentions
    from nodes.planning.param_fit import describe_params

    [state] = describe_params(schema(["state"], state={
        **STR, "enum": ["New", "Like New", "Used"], "description": "The condition."}))
    assert enum_mentions("Price my old camera, like new", state) == ["Like New"]
    assert enum_mentions("one new and one used", state) == ["New", "Used"]


def test_a_minus_before_a_currency_sign_makes_the_amount_negative() -> None:
    flows = schema(["flows"], flows={"type": "array", "items": {"type": "number"},
                                     "description": "Cash flows, the outlay first."})
    assert bind_schema("Rate of return of flows -$250, $80, $90 and $120", flows).sets == [
        {"flows": [-250, 80, 90, 120]}]
    # A dash between two amounts is a range, not a sign.
    assert [s.value for s in extract_spans("rooms for $5-$10")] == [5, 10]


def test_an_optional_value_said_right_before_its_parameter_name() -> None:
    integrate = schema(["function"], function={**STR, "description": "The function."},
                       method={**STR, "description": "The numerical method to use."})
    bound = bind_schema("Integrate 'x**2' from 0 to 2 using trapezoid method", integrate)
    assert bound.sets[0]["method"] == "trapezoid"
    room = schema(["hotel"], hotel={**STR, "description": "The hotel."},
                  view={**STR, "description": "The view from the room."},
                  clock={**STR, "description": "How times are shown."})
    bound = bind_schema("Book the Grand Hotel showing a 24 hour clock, with a garden view", room)
    assert bound.sets[0] == {"hotel": "Grand Hotel", "view": "garden", "clock": "24 hour"}
    # "different rewards" says which, not what; the tool's own words are no value either.
    quest = schema(["game"], game={**STR, "description": "The game."},
                   reward={**STR, "description": "A reward kind."},
                   style={**STR, "description": "The style."})
    bound = bind_schema("In the game Zelda, list different rewards in chess style", quest,
                        exclude={"chess"})
    assert bound.sets[0] == {"game": "Zelda"}


def test_a_bracketed_list_takes_the_item_type_of_its_array() -> None:
    mean = schema(["values"], values={"type": "array", "items": {"type": "number"},
                                      "description": "The numbers."})
    [bound] = bind_schema("Average of [12, 15, 18]", mean).sets
    assert bound["values"] == [12.0, 15.0, 18.0]
    assert all(isinstance(v, float) for v in bound["values"])


def test_numbers_said_in_pairs_are_one_call_per_pair() -> None:
    legs = schema(["a", "b"], a={**INT, "description": "One leg."},
                  b={**INT, "description": "The other leg."})
    assert bind_schema("Hypotenuses of legs 6 and 8, 9 and 40", legs).sets == [
        {"a": 6, "b": 8}, {"a": 9, "b": 40}]
    # A plain list of four stays one list.
    assert [s.kind for s in extract_spans("the values 1, 2, 3 and 4")] == ["list"]


def test_a_lower_case_value_listed_with_others_is_one_call_each() -> None:
    shade = schema(["shade"], shade={**STR, "description": "The shade to convert."})

    def similarity(query: str, phrases: Any) -> list[float]:
        return [0.5 if phrase == "coral" else 0.1 for phrase in phrases]

    bound = bind_schema("What are the hex codes for teal, coral and olive?", shade,
                        similarity=similarity)
    assert [s["shade"] for s in bound.sets] == ["teal", "coral", "olive"]
    # Two things joined by "and" may be two clauses: "to oil and change size".
    paint = schema(["medium"], medium={**STR, "description": "The medium."},
                   size={**STR, "description": "The size."})
    bound = bind_schema("Change the medium to oil and change size to 12x18", paint)
    assert bound.sets == [{"medium": "oil", "size": "12x18"}]


def test_a_country_code_after_a_city_is_the_country() -> None:
    clock = schema(["city", "country"],
                   city={**STR, "description": "The city you want the current time for."},
                   country={**STR, "description": "The country the city is in."})
    for text, city, country in (("What time is it currently in Leeds, UK in 24 hour format?",
                                 "Leeds", "UK"),
                                ("Local time in Lyon, FRA in 12 hour format", "Lyon", "FRA")):
        assert bind_schema(text, clock).sets == [{"city": city, "country": country}]


def test_a_list_item_of_one_parameter_is_no_value_of_another_in_its_call() -> None:
    track = schema(
        ["region", "religion", "start_year", "end_year"],
        region={**STR, "description": "The area where the religion's history is tracked."},
        religion={**STR, "description": "The name of the religion."},
        start_year={**INT, "description": "The first year of the time frame."},
        end_year={**INT, "description": "The last year of the time frame."})
    bound = bind_schema("Show the history of Buddhism in Nepal and Bhutan from 600 to 1200.", track)
    assert [(s["region"], s["religion"]) for s in bound.sets] == [
        ("Nepal", "Buddhism"), ("Bhutan", "Buddhism")]


def test_a_count_goes_to_the_parameter_whose_description_counts_its_noun() -> None:
    # Both names hold "crate"; only one description counts crates ("number of crates"), the
    # other counts slots. "four crates" is how many crates.
    ship = schema(
        ["crate_number", "destination"],
        destination={**STR, "description": "The city to ship to."},
        crate_number={**INT, "description": "The number of crates to ship."},
        crate_slots={**INT, "description": "The number of slots in each crate. Default is 12."},
    )
    bound = bind_schema("Ship four crates of apples to Denver.", ship)
    assert bound.missing == []
    assert bound.sets[0]["crate_number"] == 4
    assert "crate_slots" not in bound.sets[0]


CONVERT = schema(
    ["amount", "from_unit", "to_unit"],
    amount={**INT, "description": "The amount to convert."},
    from_unit={**STR, "description": "The unit to convert from."},
    to_unit={**STR, "description": "The unit to convert to."},
)


def test_how_many_of_a_unit_asks_the_unit_to_convert_to() -> None:
    bound = bind_schema("How many grams are there in 3 ounces of flour?", CONVERT)
    assert bound.missing == []
    assert bound.sets[0] == {"amount": 3, "from_unit": "ounces", "to_unit": "grams"}


def test_pounds_of_a_thing_weigh_they_are_no_money_for_a_unit_parameter() -> None:
    bound = bind_schema("How many kilograms in 5 pounds of sugar?", CONVERT)
    assert bound.missing == []
    assert bound.sets[0] == {"amount": 5, "from_unit": "pounds", "to_unit": "kilograms"}


def test_two_numbered_parameters_take_the_two_things_said_together() -> None:
    compare = schema(
        ["animal1", "animal2"],
        animal1={**STR, "description": "The first animal to compare."},
        animal2={**STR, "description": "The second animal to compare."},
    )
    bound = bind_schema("How closely related are a wolf and a coyote?", compare)
    assert bound.missing == []
    assert bound.sets[0] == {"animal1": "wolf", "animal2": "coyote"}


def test_a_shortened_word_names_the_allowed_value_it_begins() -> None:
    facts = schema(
        ["details"],
        details={
            "type": "array",
            "items": {"type": "string", "enum": ["Sugar", "Carbohydrates", "Sodium", "Fat"]},
            "description": "Which facts to show.",
        },
    )
    bound = bind_schema("Show me the fat, sodium and carbs of a bagel.", facts)
    assert bound.missing == []
    assert sorted(bound.sets[0]["details"]) == ["Carbohydrates", "Fat", "Sodium"]


def test_a_period_said_in_weeks_fills_a_count_of_days() -> None:
    # "Number of days" states its unit as a count: "the next week" is 7 of them, "the past
    # two years" 24 months; "10 days" is no whole number of weeks.
    outlook = schema(
        ["city", "days"],
        city={**STR, "description": "The city of the outlook."},
        days={**INT, "description": "Number of days the outlook covers."},
    )
    bound = bind_schema("Give me the pollen outlook of Denver for the next week.", outlook)
    assert bound.missing == []
    assert bound.sets[0] == {"city": "Denver", "days": 7}
    history = schema(
        ["months"], months={**INT, "description": "The number of months of history to show."}
    )
    assert bind_schema("Show the rent history of the past two years.", history).sets[0] == {
        "months": 24
    }
    weeks = schema(["weeks"], weeks={**INT, "description": "Number of weeks to plan."})
    assert bind_schema("Plan the next 10 days.", weeks).missing == ["weeks"]


def test_a_value_after_its_description_in_other_words_is_that_parameter() -> None:
    # "the payments made in each year are 12" says most of k's description: k, though its
    # name is one letter and "year" is also the other parameter's word.
    loan = schema(
        ["amount", "years"],
        amount={**INT, "description": "The amount borrowed."},
        years={**INT, "description": "The length of the loan in years."},
        k={**INT, "description": "How many payments are made each year. Default is 1."},
    )
    bound = bind_schema("Price a loan of $2000 for 3 years, and the payments made in each year are 12.",
                        loan)
    assert bound.sets[0] == {"amount": 2000, "years": 3, "k": 12}


def test_a_year_parameter_of_text_takes_the_year_not_a_name() -> None:
    density = schema(
        ["region", "year"],
        region={**STR, "description": "The region to measure."},
        year={**STR, "description": "The year in which the index is measured."},
    )
    bound = bind_schema("Compute the Rainfall Index for Kenya in 2019 if the rain is 300 mm.",
                        density)
    assert bound.sets[0]["year"] == "2019"


def test_a_name_another_parameter_took_as_its_allowed_value_is_no_second_place() -> None:
    # "in Kelvin" is the unit's value: no second call for a place named Kelvin.
    outlook = schema(
        ["city", "days"],
        city={**STR, "description": "The city to get the mean temperature for."},
        days={**INT, "description": "The number of days to average over."},
        scale={**STR, "description": "The scale ('Kelvin' or 'Celsius'). Default is 'Celsius'."},
    )
    bound = bind_schema("Get the mean temperature in Lisbon for the next 4 days in Kelvin.", outlook)
    assert bound.sets == [{"city": "Lisbon", "days": 4, "scale": "Kelvin"}]


def test_a_place_and_its_country_after_a_comma_are_one_place_in_a_list() -> None:
    route = schema(
        ["origin", "destination"],
        origin={**STR, "description": "Where the trip starts."},
        destination={**STR, "description": "Where the trip ends."},
    )
    bound = bind_schema("Get the driving time between Lyon, France and Turin, ITA.", route)
    assert bound.sets == [{"origin": "Lyon, France", "destination": "Turin, ITA"}]
    spans = extract_spans("Compare rents in Porto, Portugal and Graz, Austria.")
    assert [item.text for item in spans[0].items] == ["Porto, Portugal", "Graz, Austria"]


def test_a_required_kind_said_as_the_word_before_its_noun() -> None:
    rent = schema(
        ["car_type", "days"],
        car_type={**STR, "description": "The class of vehicle to rent."},
        days={**INT, "description": "How many days to rent for."},
    )
    bound = bind_schema("I want to rent a compact car for two days at the airport.", rent)
    assert bound.sets == [{"car_type": "compact", "days": 2}]
    bees = schema(["bee_type"], bee_type={**STR, "description": "Kind of bee."})
    assert bind_schema("How long does a worker bee live?", bees).sets == [{"bee_type": "worker"}]


def test_the_verb_that_opens_a_request_is_no_value_by_meaning() -> None:
    def alike(query: str, phrases: list[str]) -> list[float]:
        # A scripted similarity that likes every capitalised word: only the rule keeps the
        # opening verb out.
        return [0.9 if phrase[:1].isupper() else 0.1 for phrase in phrases]

    gifts = schema(
        ["hobby", "count"],
        hobby={**STR, "description": "The pastime of the people."},
        count={**INT, "description": "The number of gifts."},
    )
    bound = bind_schema("Choose three gifts for people who like knitting.", gifts,
                        similarity=alike)
    assert bound.sets[0].get("hobby") != "Choose"
    assert bound.sets[0]["count"] == 3


def test_a_known_city_after_in_is_the_place_when_another_word_cues_it_too() -> None:
    # "... design in Portland": "design" cues the specialty, "in" the place; the city is a
    # place the tables know, so it is the location.
    find = schema(
        ["location", "specialty"],
        location={**STR, "description": "City and state where they work, e.g. Austin, TX."},
        specialty={**STR, "description": "Area of work. Common areas include bath design."},
    )
    bound = bind_schema("Find a Master Builder with 5 years in small kitchen design in Portland",
                        find)
    assert bound.sets[0]["location"] == "Portland, OR"  # city and state, as described


def test_a_number_in_words_after_a_described_clause_still_counts_things() -> None:
    # "the total water output of two different farms": the clause says the month's
    # description, but "two different farms" counts farms; it is no month.
    farm = schema(
        ["size"],
        size={**INT, "description": "The farm's size in acres."},
        month={**STR, "description": "The month for which to compute the total water output."},
    )
    bound = bind_schema("Can you help me compare the total water output of two different farms?",
                        farm)
    assert "month" not in bound.sets[0]


def test_the_items_of_one_list_are_values_of_one_kind() -> None:
    # "near Lisbon and Porto": two places, one call each; Porto is no genre. Two ends of a
    # route still split one list ("between Lisbon and Porto").
    shows = schema(
        ["location", "genre"],
        location={**STR, "description": "The city of the shows."},
        genre={**STR, "description": "The genre of the shows."},
    )
    bound = bind_schema("Find me the fado shows near Lisbon and Porto.", shows)
    assert [s["location"] for s in bound.sets] == ["Lisbon", "Porto"]
    assert all(s.get("genre") != "Porto" for s in bound.sets)
    route = schema(
        ["start_city", "end_city"],
        start_city={**STR, "description": "Where the drive starts."},
        end_city={**STR, "description": "Where the drive ends."},
    )
    assert bind_schema("How long is the drive between Lisbon and Porto?", route).sets == [
        {"start_city": "Lisbon", "end_city": "Porto"}
    ]


def test_a_name_and_the_model_code_after_it_are_one_name() -> None:
    spans = extract_spans("What does a Roland FP30 keyboard cost in Oslo?")
    assert [(s.kind, s.text) for s in spans] == [("name", "Roland FP30"), ("name", "Oslo")]
    # An identifier that follows a name only after a word stays an identifier.
    spans = extract_spans("Ship order XK42 to Anna now")
    assert ("identifier", "XK42") in [(s.kind, s.text) for s in spans]


def test_a_hyphenated_word_after_a_number_is_what_it_counts() -> None:
    # "90 pull-ups" counts pull-ups: the two numbers are two measures, not one list.
    spans = extract_spans("She did 40 squats and 90 pull-ups today.")
    assert [(s.text, s.unit) for s in spans if s.kind == "number"] == [
        ("40 squats", "squats"), ("90 pull-ups", "pull-ups")]


def test_a_date_one_day_off_the_description_example_is_no_typo_of_it() -> None:
    trip = schema(
        ["day"],
        day={**STR, "description": "The day of the trip. Accepts dates e.g., 2021-05-10."},
    )
    assert bind_schema("Plan a trip to Oslo on 2021-05-11.", trip).sets == [{"day": "2021-05-11"}]


def test_a_frequency_word_fills_a_count_per_year() -> None:
    savings = schema(
        ["deposit", "years", "times"],
        deposit={**INT, "description": "The amount put in."},
        years={**INT, "description": "How long it stays, in years."},
        times={**INT, "description": "The number of times the interest is paid per year."},
    )
    bound = bind_schema("What does $800 grow to in 4 years if interest is paid monthly?", savings)
    assert bound.sets == [{"deposit": 800, "years": 4, "times": 12}]
    bound = bind_schema("Grow $800 for 4 years, paid quarterly.", savings)
    assert bound.sets == [{"deposit": 800, "years": 4, "times": 4}]
    # "an annual rate" says how a rate is quoted, not how often anything happens.
    annual = bind_schema("Grow $800 at an annual rate of 3% for 4 years.", savings)
    assert annual.sets[0].get("times") != 1


def test_feet_and_inches_said_together_are_one_height() -> None:
    for said in ("6 feet 2 inches", "6ft 2in", "6'2\""):
        spans = [s for s in extract_spans(f"I am {said} tall and weigh 180 lbs.")
                 if s.kind == "number"]
        assert [(s.value, s.unit) for s in spans] == [(74, "in"), (180, "lbs")], said
    person = schema(
        ["height"], height={**INT, "description": "Height of the person in inches."}
    )
    assert bind_schema("A person 5ft 10in tall.", person).sets == [{"height": 70}]


def test_a_clock_time_fills_an_hour_counted_in_a_whole_number() -> None:
    # "until 10 PM" for "the latest closing hour, in 24 hour format": 22.
    bars = schema(
        ["city"],
        city={**STR, "description": "The city to search."},
        closing_hour={**INT, "description": "The latest closing hour, in 24 hour format."},
    )
    assert bind_schema("Find a bar in Leeds open until 10 PM.", bars).sets == [
        {"city": "Leeds", "closing_hour": 22}
    ]
    # Half past is no whole hour: left out rather than rounded.
    assert "closing_hour" not in bind_schema("Find a bar in Leeds open until 10:30 PM.",
                                             bars).sets[0]


def test_a_name_another_parameter_is_named_after_is_no_value() -> None:
    # "my weight on Earth is 70 kg" names the parameter weight_earth_kg: Earth is no planet
    # to go to; Mars is.
    space = schema(
        ["weight_earth_kg", "planet"],
        weight_earth_kg={**INT, "description": "Your weight on Earth in kilograms."},
        planet={**STR, "description": "The planet to weigh yourself on."},
    )
    bound = bind_schema("What would I weigh on Venus if my weight on Earth is 64 kg?", space)
    assert bound.sets == [{"weight_earth_kg": 64, "planet": "Venus"}]


def test_one_list_is_no_two_argument_sets() -> None:
    # "in seasons 2017, 2018 and 2019" is one list of seasons; the id said before it is
    # every call's, not a value of a second set.
    check = schema(
        ["player_id", "season"],
        player_id={**INT, "description": "The player's id."},
        season={**INT, "description": "The season to check."},
    )
    bound = bind_schema("Check the player with id 5521 in seasons 2015, 2016 and 2017.", check)
    assert bound.sets == [{"player_id": 5521, "season": year} for year in (2015, 2016, 2017)]


def test_quoted_examples_after_could_be_are_the_values_allowed() -> None:
    films = schema(
        ["city"],
        city={**STR, "description": "The city of the cinemas."},
        screen={**STR, "description": "Screen of the film - could be 'IMAX', '3D', 'HFR' etc."},
    )
    bound = bind_schema("Films on IMAX screens in Oslo, and on 3D screens in Bergen.", films)
    assert sorted((s["city"], s.get("screen")) for s in bound.sets) == [
        ("Bergen", "3D"), ("Oslo", "IMAX")]


def test_a_plural_is_as_near_in_meaning_as_its_singular() -> None:
    from tests.fakes import TopicEmbedder

    embedder = TopicEmbedder([{"animal", "species", "otter"}])

    def alike(query: str, phrases: list[str]) -> list[float]:
        vectors = embedder.embed([query, *phrases])
        return [float(vectors[0] @ v) for v in vectors[1:]]

    count = schema(
        ["species", "country"],
        species={**STR, "description": "Species of the animal."},
        country={**STR, "description": "The country."},
    )
    bound = bind_schema("How many otters live in Norway?", count, similarity=alike)
    assert bound.sets == [{"species": "otters", "country": "Norway"}]


def test_a_known_country_is_no_value_of_a_parameter_that_holds_no_place() -> None:
    # Four countries and two animals: the countries fill the country, never the species.
    counts = schema(
        ["country", "species", "years"],
        country={**STR, "description": "The country of interest."},
        species={**STR, "description": "Species of the animal."},
        years={**INT, "description": "Number of years."},
    )
    bound = bind_schema("Show the otter counts in Norway and Sweden for the last 4 years, and "
                        "in Finland and Denmark for 6 years.", counts)
    assert all(s.get("species") not in {"Norway", "Sweden", "Finland", "Denmark"}
               for s in bound.sets)


def test_a_measure_is_no_value_of_a_text_parameter_that_measures_nothing() -> None:
    # "5 years" says how long; the species is a word, not a duration.
    counts = schema(
        ["species", "years"],
        species={**STR, "description": "Species of the animal."},
        years={**INT, "description": "Number of years."},
    )
    bound = bind_schema("Give me the otter counts in the last 5 years and the next 5 years.",
                        counts)
    assert all(s.get("species") != "5" for s in bound.sets)
    stay = schema(["length"], length={**STR, "description": "How long to stay, e.g. '2 weeks'."})
    assert bind_schema("Book a stay of 3 weeks.", stay).missing == []  # a length takes it


def test_the_past_decade_is_ten_years_of_a_period_counted_in_years() -> None:
    growth = schema(
        ["city", "period"],
        city={**STR, "description": "The city."},
        period={**INT, "description": "The time period to look at, in years."},
    )
    bound = bind_schema("How has Leeds grown over the past decade?", growth)
    assert bound.sets == [{"city": "Leeds", "period": 10}]
    days = schema(["days"], days={**INT, "description": "Number of days to look ahead."})
    assert bind_schema("Any storms in the coming week?", days).sets == [{"days": 7}]


def test_the_variable_of_a_point_names_one_value_and_its_number_another() -> None:
    slope = schema(
        ["curve", "point"],
        curve={**STR, "description": "The curve to differentiate."},
        point={**INT, "description": "The value where the slope is taken."},
        variable={**STR, "description": "The variable of the curve, for instance x or t."},
    )
    bound = bind_schema("Find the slope of the curve 3t^2 at t = 4.", slope)
    assert bound.sets == [{"curve": "3t**2", "point": 4, "variable": "t"}]


def test_the_noun_a_description_says_its_value_is_of_is_no_part_of_the_value() -> None:
    # "Genre of music": "jazz music" is the genre jazz.
    gigs = schema(
        ["city", "genre"],
        city={**STR, "description": "The city."},
        genre={**STR, "description": "Genre of music to be played."},
    )
    def alike(query: str, phrases: list[str]) -> list[float]:
        # Scripted: the model finds "blues music" nearest the genre, as a real one may.
        return [{"blues music": 0.9, "blues": 0.5}.get(p, 0.1) for p in phrases]

    bound = bind_schema("Find gigs in Leeds with blues music.", gigs, similarity=alike)
    assert bound.sets == [{"city": "Leeds", "genre": "blues"}]


def test_a_description_that_ends_in_a_preposition_cues_the_value_after_it() -> None:
    # "The console the user plays on": "on Xbox" is the console, though it is optional.
    stats = schema(
        ["game", "user"],
        game={**STR, "description": "The name of the game."},
        user={**STR, "description": "The user's name."},
        console={**STR, "description": "The console the user plays on."},
    )
    bound = bind_schema("Fetch stats of 'Halo' on Xbox for user 'Kim'.", stats)
    assert bound.sets == [{"game": "Halo", "user": "Kim", "console": "Xbox"}]


def test_a_period_in_words_given_to_a_text_parameter_is_said_as_written() -> None:
    shows = schema(
        ["city", "time_frame"],
        city={**STR, "description": "The city."},
        time_frame={**STR, "description": "Time frame of the shows."},
    )
    assert bind_schema("Any shows in Oslo with a time frame of next month?", shows).sets == [
        {"city": "Oslo", "time_frame": "next month"}]


def test_an_allowed_value_of_several_words_is_named_by_them_said_close_together() -> None:
    outlook = schema(
        ["city", "details"],
        city={**STR, "description": "The city."},
        details={"type": "array", "items": {"type": "string", "enum": [
            "min_max_pressure", "wind", "rain"]}, "description": "Details to show."},
    )
    bound = bind_schema("Show the min and max pressure and the rain for Oslo.", outlook)
    assert bound.sets == [{"city": "Oslo", "details": ["min_max_pressure", "rain"]}]


def test_a_hyphenated_allowed_value_is_named_with_its_hyphen() -> None:
    rooms = schema(
        ["city", "amenities"],
        city={**STR, "description": "The city."},
        amenities={"type": "array", "items": {"type": "string", "enum": [
            "Wi-Fi", "Gym", "Pool"]}, "description": "Amenities wanted."},
    )
    bound = bind_schema("Find a hotel in Oslo with a gym and free Wi-Fi.", rooms)
    assert bound.sets == [{"city": "Oslo", "amenities": ["Gym", "Wi-Fi"]}]
