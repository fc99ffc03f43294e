"""One call per asked value set: coordinated phrases, values said alike, continued clauses.

Requests written here (none from a benchmark), each planned against tools of its own.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from nodes.planning.schema_binder import bind_schema
from nodes.planning.value_forms import coordinated_phrases
from nodes.state import SubIntent
from stores.catalog.model import Catalog
from tests.unit_tests.test_pm_call_count import _planned, _tool

STR = {"type": "string"}
INT = {"type": "integer"}


def test_lower_case_phrases_coordinated_with_a_value_are_values_too() -> None:
    text = "List the shops of the old town, harbour district, and university quarter, please"
    first_end = text.index("old town") + len("old town")
    assert coordinated_phrases(text, first_end) == ["harbour district", "university quarter"]


def test_a_phrase_that_goes_on_with_of_is_no_coordinated_value() -> None:
    text = "the melting point of tin and the density of lead"
    assert coordinated_phrases(text, text.index("tin") + 3) == []


def test_a_coordinated_phrase_list_makes_one_call_per_item() -> None:
    tool = {"type": "object", "required": ["district"],
            "properties": {"district": {**STR, "description": "The district to list."}}}
    bound = bind_schema("Show the bakeries in the district of old town and harbour quarter.",
                        tool)
    assert [s["district"] for s in bound.sets] == ["old town", "harbour quarter"]


def test_a_value_said_again_in_the_same_frame_is_another_call() -> None:
    tool = {"type": "object", "required": ["number"],
            "properties": {"number": {**INT, "description": "The value to factor."}}}
    bound = bind_schema("Factor the number 391 and the number 4087 for me", tool, segment=0)
    assert [s["number"] for s in bound.sets] == [391, 4087]


ROUTE = _tool("get_driving_distance", "The driving distance of a route between two places.",
              {"origin": {**STR, "description": "Where the route starts."},
               "destination": {**STR, "description": "Where the route ends."},
               "unit": {**STR, "description": "The unit of length, e.g. km or miles."}},
              ["origin", "destination"])


def test_a_clause_with_no_operation_goes_on_with_the_read_before_it() -> None:
    planned = _planned(
        "What is the driving distance from Denver to Boulder in miles? And then from Boulder "
        "to New Castle?",
        ROUTE,
    )
    assert [(c["origin"], c["destination"], c.get("unit")) for c in planned] == [
        ("Denver", "Boulder", "miles"), ("Boulder", "New Castle", "miles")
    ]


def test_a_shortened_unit_before_a_stop_ends_no_sentence() -> None:
    from nodes.parsing.splitting import _split_sentences

    text = "Price a flat of 80 sq ft. in Lyon and 95 sq ft. in Nice."
    assert _split_sentences(text) == [text]
    assert _split_sentences("Weather in NYC. Weather in LA.") == ["Weather in NYC.",
                                                                  "Weather in LA."]


def test_argument_sets_said_in_one_shape_ignore_a_name_left_after_them() -> None:
    tool = {"type": "object", "required": ["city", "size"],
            "properties": {"city": {**STR, "description": "Where the flat is."},
                           "size": {**INT, "description": "Size of the flat in square feet."}}}
    bound = bind_schema("Price a flat of 80 sq ft. in Lyon and 95 sq ft. in Nice using "
                        "Price Model Pro.", tool)
    assert [(s["size"], s["city"]) for s in bound.sets] == [(80, "Lyon"), (95, "Nice")]


CASE = _tool("court_case_info", "Details of a court case.",
             {"case_number": {**STR, "description": "The case number."},
              "year": {**INT, "description": "The year the case was opened."},
              "court": {**STR, "description": "The court the case is at."}},
             ["case_number"])


def test_a_clause_that_only_adds_a_value_completes_the_call_before_it() -> None:
    planned = _planned(
        "Get the details of case 'A-11' opened in 2018 at the Ohio court. Also, retrieve the "
        "case 'B-22' opened in 2019, filed at the Utah court.",
        CASE,
    )
    assert sorted((c["case_number"], c.get("court")) for c in planned) == [
        ("A-11", "Ohio"), ("B-22", "Utah")
    ]


# From BFCL's development category (parallel): the second clause shares no word with the tool,
# so only the continuation of the first clause's read calls it, with the values it keeps.
INTERVAL = _tool("confidence_interval.calculate", "Calculate the confidence interval for a mean.",
                 {"sample_std_dev": {**INT, "description": "The standard deviation of the sample."},
                  "sample_size": {**INT, "description": "The size of the sample."},
                  "sample_mean": {**INT, "description": "The mean of the sample."},
                  "confidence_level": {"type": "number",
                                       "description": "The level of confidence. Default is 0.9."}},
                 ["sample_std_dev", "sample_size", "sample_mean"])


def test_a_continued_read_keeps_the_earlier_values_it_does_not_say_again() -> None:
    planned = _planned(
        "Can you give me 95% confidence interval for a sample mean with standard deviation of "
        "10, sample size of 50 and sample mean of 25? And can you do the same but for a sample "
        "size of 150 instead?",
        INTERVAL,
    )
    assert [(c["sample_mean"], c["sample_std_dev"], c["sample_size"]) for c in planned] == [
        (25, 10, 50), (25, 10, 150)
    ]



def test_relative_and_participle_clauses_add_to_the_call_they_describe() -> None:
    planned = _planned(
        "Get the details of the case with the case number 'A-11', which was opened in the year "
        "2018, filed at the Ohio court?",
        CASE,
    )
    assert [(c["case_number"], c.get("year"), c.get("court")) for c in planned] == [
        ("A-11", 2018, "Ohio")
    ]


GCD = _tool("math.gcd", "The greatest common divisor of two integers.",
            {"num1": {**INT, "description": "The first number."},
             "num2": {**INT, "description": "The second number."}}, ["num1", "num2"])


def test_a_statement_that_gives_every_value_of_the_read_before_it_is_another_call() -> None:
    planned = _planned(
        "Find the greatest common divisor of the numbers Ann picked. Ann picked the numbers 12 "
        "and 18, while Bo picked the numbers 35 and 49.",
        GCD,
    )
    assert sorted((c["num1"], c["num2"]) for c in planned) == [(12, 18), (35, 49)]


def test_a_statement_that_borrows_values_continues_nothing() -> None:
    planned = _planned(
        "What is the driving distance from Denver to Boulder in miles? I am writing a story "
        "about Aspen.",
        ROUTE,
    )
    assert [(c["origin"], c["destination"]) for c in planned] == [("Denver", "Boulder")]


WAVE = _tool("plot_wave", "Plot a wave over a range.",
             {"start": {"type": "number", "description": "Start of the range."},
              "end": {"type": "number", "description": "End of the range."},
              "freq": {"type": "number", "description": "Frequency of the wave in Hz."},
              "amplitude": {"type": "number", "description": "Amplitude of the wave."}},
             ["start", "end", "freq"])


def test_a_later_wish_that_only_sets_values_completes_the_earlier_call() -> None:
    planned = _planned(
        "First, find the area of my garden. Second, I need to plot a wave. The range I want is "
        "from 1 to 4. The freq of the wave should be 3 Hz. I want the amplitude to be 2.5.",
        WAVE,
    )
    assert len(planned) == 1 and planned[0]["start"] == 1 and planned[0]["end"] == 4


ERA = _tool("geology.get_era", "Get the estimated date of a geological era.",
            {"era_name": {**STR, "description": "The name of the geological era."},
             "calculate_years_ago": {"type": "boolean", "description": "Years ago too."}},
            ["era_name"])
EVENT = _tool("history.get_event_date", "Get the date of a historical event.",
              {"event_name": {**STR, "description": "The name of the event."},
               "calculate_years_ago": {"type": "boolean", "description": "Years ago too."}},
              ["event_name"])


def test_a_clause_that_refers_back_reads_the_clause_before_it_first() -> None:
    planned = _planned(
        "Could you tell me the estimated date of the Cretaceous geological era and calculate "
        "how many years ago it was? Also, could you provide the date of the fall of the Berlin "
        "Wall and calculate how many years ago that event took place?",
        ERA, EVENT,
    )
    assert sorted((c["tool"], c.get("era_name") or c.get("event_name")) for c in planned) == [
        ("geology.get_era", "Cretaceous"), ("history.get_event_date", "Berlin Wall")
    ]


WEATHER = _tool("get_weather_report", "Get the weather report of a city.",
                {"city": {**STR, "description": "The name of the city."},
                 "date": {**STR, "description": "The date, in the format 'YYYY-MM-DD'."}},
                ["city"])


def test_a_later_clause_no_tool_fits_completes_the_read_it_says_again() -> None:
    planned = _planned(
        "I need to know the weather report for my trip. Can you tell me the forecast for "
        "Tucson, AZ on 2024-05-17?",
        WEATHER,
    )
    assert planned == [{"tool": "get_weather_report", "city": "Tucson, AZ",
                        "date": "2024-05-17"}]


def test_a_later_clause_about_something_else_completes_nothing() -> None:
    planned = _planned(
        "I need to know the weather report for Tucson, AZ. Can you tell me the population of "
        "Tempe, AZ as well?",
        WEATHER,
    )
    assert planned == [{"tool": "get_weather_report", "city": "Tucson, AZ"}]


GCD_SHORT = _tool("gcd", "Greatest common divisor of two integers.",
                  {"num1": INT, "num2": INT}, ["num1", "num2"])
LCM_SHORT = _tool("lcm", "Least common multiple of two integers.",
                  {"num1": INT, "num2": INT}, ["num1", "num2"])


def test_a_clause_naming_two_reads_with_values_of_their_own_is_cut_between_them() -> None:
    from nodes.planning.other_reads import cut_at_other_read

    catalog = Catalog()
    gcd = catalog.add_raw_tool(GCD_SHORT, source="test")
    lcm = catalog.add_raw_tool(LCM_SHORT, source="test")
    assert gcd is not None and lcm is not None
    text = "Find the GCD of 12 and 18, and the LCM of 4 and 10."
    sub = SubIntent(id="s1", text=text)  # type: ignore[typeddict-item]

    def scored(_: SubIntent) -> list[Any]:
        return [SimpleNamespace(spec=gcd), SimpleNamespace(spec=lcm)]

    def bind(part: SubIntent, spec: Any) -> tuple[list[Any], list[str]]:
        bound = bind_schema(part["text"], spec.input_schema, segment=0)
        return [{"args": s} for s in bound.sets], bound.missing

    left, right = cut_at_other_read(sub, gcd, scored, bind)
    assert right is not None
    assert (left["text"], right["text"]) == ("Find the GCD of 12 and 18", "and the LCM of 4 and 10.")


MIXTURE = _tool("mix_ratio", "The concentration of a mixture.",
                {"strength": {"type": "number", "description": "The strength of the stock."},
                 "dilution": {**INT, "description": "How many times the stock is diluted."}},
                ["strength", "dilution"])


def test_a_where_clause_that_describes_is_no_question_of_its_own() -> None:
    # ", where the mix is diluted 4 times" says more of the same call; ", where is" would ask.
    planned = _planned("Work out the concentration of a mixture with a strength of 0.8, where the "
                       "stock dilution is 4 times.", MIXTURE)
    assert [(c["strength"], c["dilution"]) for c in planned] == [(0.8, 4)]


def test_dotted_initials_before_a_lower_case_word_end_no_sentence() -> None:
    from nodes.parsing.splitting import _split_sentences

    assert _split_sentences("How far is Austin from Washington, D.C. in miles?") == [
        "How far is Austin from Washington, D.C. in miles?"]
    assert _split_sentences("I moved to the U.K. Find me a bank.") == [
        "I moved to the U.K.", "Find me a bank."]


def test_a_clause_that_only_gives_more_values_of_the_call_before_is_no_call_of_its_own() -> None:
    from nodes.planning.clause_calls import restated_call

    def call(sub: str, **args: tuple[object, str]) -> Any:
        return {"call_id": sub, "sub_intent_id": sub, "role": "core", "tool_id": "t/house",
                "args": {k: {"value": v, "origin": o} for k, (v, o) in args.items()}}

    first = call("s1", area=(1800, "span:area"), city=("Leeds", "span:city"),
                 rooms=(3, "elsewhere:rooms"))
    # "number of rooms as 3": the same rooms; its leftover number 3 guessed for the area and
    # the city taken from the first clause are no values of its own.
    second = call("s2", rooms=(3, "span:rooms"), area=(3, "text"), city=("Leeds", "elsewhere:city"))
    assert restated_call(second, [first]) is first
    # "Could you find them for me?": a clause of borrowed values only says the call again.
    again = call("s3", city=("Leeds", "elsewhere:city"))
    assert restated_call(again, [first]) is first
    # A value the clause says itself and the first call says otherwise: two asks.
    other = call("s2", rooms=(4, "span:rooms"))
    assert restated_call(other, [first]) is None


FOREST = _tool("fit_boosted_trees", "Fit a boosted trees model on a dataset.",
               {"dataset": {**STR, "description": "The dataset to fit."},
                "max_depth": {**INT, "description": "The maximum depth of each tree."},
                "rounds": {**INT, "description": "The number of boosting rounds (trees)."}},
               ["dataset", "max_depth", "rounds"])


def test_a_number_one_parameter_took_is_no_leftover_for_another() -> None:
    planned = _planned("Fit boosted trees on dataset my_data_set with maximum depth of trees "
                       "as 4, and number of rounds as 300.", FOREST)
    assert [(c["max_depth"], c["rounds"]) for c in planned] == [(4, 300)]


CHART = _tool("charts_most_played", "The most played song of a genre in a region.",
              {"genre": {**STR, "description": "Music genre e.g., Jazz, Blues, Rock etc."},
               "region": {**STR, "description": "Region where the tune popularity is checked"}},
              ["genre", "region"])


def test_a_phrase_found_only_by_meaning_yields_to_a_value_another_clause_says() -> None:
    from nodes.context import Context
    from nodes.parsing.rules import RuleIntentParser
    from nodes.planning.draft import PlanRequest
    from nodes.planning.rules import RulePlanner
    from stores.catalog.depgraph import ToolDependencyGraph
    from stores.language.lexicon import Lexicon
    from tests.fakes import TopicEmbedder

    catalog = Catalog()
    catalog.add_raw_tool(CHART, source="test")
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse(
        "What's the most played Jazz tune, and find me the most played Blues tune in Norway.")
    candidates = {s["id"]: [{"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""}
                            for t in catalog.tools] for s in intent["sub_intents"]}
    # The test's model finds "tune" near the region's description ("... tune popularity").
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context(), embedder=TopicEmbedder([{"tune", "popularity"}]))
    draft = planner.plan(PlanRequest(intent=intent, candidates=candidates, retrieval_rounds=9))
    assert sorted((c["args"]["genre"]["value"], c["args"]["region"]["value"])
                  for c in draft.calls) == [("Blues", "Norway"), ("Jazz", "Norway")]
