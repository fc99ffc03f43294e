"""One call per action: how many calls the rule planner makes for a request.

Requests written here (none from a benchmark), each planned against one or two tools of its
own: a "City, ST" pair is one value, a parenthesised pair is never a numbered step, a
closing question that restates the request asks nothing new.
"""

from __future__ import annotations

from typing import Any

from nodes.parsing.rules import RuleIntentParser
from nodes.parsing.splitting import ClauseSplitter
from nodes.planning.argument_sets import cut_points
from stores.catalog.model import Catalog
from stores.language.lexicon import Lexicon
from stores.language.vocabulary import domain_vocabulary
from tests.unit_tests.test_rule_planner_schema import plan_catalog


def _tool(name: str, description: str, properties: dict[str, Any],
          required: list[str]) -> dict[str, Any]:
    return {
        "name": name, "agent": "t", "description": description, "side_effect": False,
        "environment": "test",
        "input_schema": {"type": "object", "properties": properties, "required": required},
    }


def _planned(request: str, *tools: dict[str, Any]) -> list[dict[str, Any]]:
    """The core calls the rule planner makes for ``request``: tool name and argument values."""
    catalog = Catalog()
    for tool in tools:
        catalog.add_raw_tool(tool, source="test")
    draft = plan_catalog(request, catalog)
    return [
        {"tool": catalog.tools[c["tool_id"]].name,
         **{k: v.get("value") for k, v in c["args"].items()}}
        for c in draft.calls
        if c["role"] == "core"
    ]


BOOKSTORES = _tool(
    "bookstore_finder", "Find bookstores near a location.",
    {"location": {"type": "string", "description": "City and state, e.g. Boston, MA"}},
    ["location"],
)
LCM = _tool(
    "least_common_multiple", "Compute the least common multiple of two integers.",
    {"a": {"type": "integer", "description": "First integer"},
     "b": {"type": "integer", "description": "Second integer"}},
    ["a", "b"],
)


def test_a_city_and_its_state_code_are_one_value_not_two_calls() -> None:
    calls = _planned("Find bookstores in Denver, CO and Austin, TX", BOOKSTORES)
    assert sorted(c["location"] for c in calls) == ["Austin, TX", "Denver, CO"]


def test_a_comma_before_a_state_code_is_no_cut_between_argument_sets() -> None:
    text = "bookstores in Denver, CO and Austin, TX"
    assert [text[a:b] for a, b in cut_points(text, 2)] == [text]


def test_a_parenthesised_pair_is_no_numbered_step() -> None:
    splitter = ClauseSplitter(Lexicon.default(), domain_vocabulary())
    request = "What is the least common multiple of the pairs (12, 18) and (20, 30)?"
    assert len(splitter.split(request)) == 1
    calls = _planned(request, LCM)
    assert sorted((c["a"], c["b"]) for c in calls) == [(12, 18), (20, 30)]


DISTANCE = _tool(
    "get_driving_distance", "Calculate the driving distance between two locations.",
    {"origin": {"type": "string", "description": "Starting point"},
     "destination": {"type": "string", "description": "End point"}},
    ["origin", "destination"],
)


def test_a_clause_that_is_only_a_phrase_repeats_the_ask_before_it() -> None:
    splitter = ClauseSplitter(Lexicon.default(), domain_vocabulary())
    assert splitter.split(
        "Get the driving distance from Boston to Albany and then from Albany to Buffalo"
    ) == ["Get the driving distance from Boston to Albany",
          "Get the driving distance from Albany to Buffalo"]
    calls = _planned(
        "What is the driving distance from Boston to Albany, then from Albany to Buffalo, "
        "and finally from Buffalo back to Boston?", DISTANCE)
    assert [(c["origin"], c["destination"]) for c in calls] == [
        ("Boston", "Albany"), ("Albany", "Buffalo"), ("Buffalo", "Boston")]


def test_a_phrase_clause_with_its_own_verb_keeps_its_words() -> None:
    splitter = ClauseSplitter(Lexicon.default(), domain_vocabulary())
    assert splitter.split("Create an order for account 1, then for account 2 cancel it") == [
        "Create an order for account 1", "for account 2 cancel it"]


WEATHER = _tool(
    "get_current_weather", "Get the current weather in a given location.",
    {"location": {"type": "string", "description": "The city and state, e.g. Boston, MA"},
     "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    ["location"],
)


def test_a_closing_question_that_restates_the_request_makes_no_second_call() -> None:
    calls = _planned("Can you check the weather for Austin, TX in fahrenheit? I need to know "
                     "the current weather conditions in Austin.", WEATHER)
    assert calls == [{"tool": "get_current_weather", "location": "Austin, TX",
                      "unit": "fahrenheit"}]


def test_a_restatement_that_names_the_place_more_fully_completes_the_first_call() -> None:
    calls = _planned("What's the weather in Austin? I mean the weather in Austin, TX.", WEATHER)
    assert calls == [{"tool": "get_current_weather", "location": "Austin, TX"}]


def test_two_clauses_with_different_places_keep_two_calls() -> None:
    calls = _planned("What's the weather in Austin, TX? Also the weather in Boston.", WEATHER)
    # "Boston" alone takes its state: the description asks for 'city and state'.
    assert sorted(c["location"] for c in calls) == ["Austin, TX", "Boston, MA"]


def test_a_statement_that_opens_with_a_time_word_is_context_not_an_ask() -> None:
    request = ("I drive a lot for work. Yesterday I went from Reno to Sacramento. How far is "
               "the driving distance from Reno to Sacramento?")
    splitter = ClauseSplitter(Lexicon.default(), domain_vocabulary())
    assert len(splitter.split(request)) == 1
    assert len(_planned(request, DISTANCE)) == 1


def test_a_number_after_a_comma_is_no_step_unless_steps_count_up_from_one() -> None:
    splitter = ClauseSplitter(Lexicon.default(), domain_vocabulary())
    [(_, _, in_context)] = splitter.split_with_context(
        "I have a number, 6. Can you calculate its factorial?")
    assert "number, 6." in in_context
    assert splitter.split("1) create a user 2) create a product") == [
        "create a user", "create a product"]


def test_a_statement_after_later_is_context_of_the_ask_after_it() -> None:
    splitter = ClauseSplitter(Lexicon.default(), domain_vocabulary())
    clauses = splitter.split_with_context(
        "Calculate the factorial of 4. Later, you obtain another number, 9. "
        "Can you calculate its factorial?")
    assert [c for c, *_ in clauses] == ["Calculate the factorial of 4",
                                        "Can you calculate its factorial?"]


def test_a_closing_summary_ask_is_no_clause_of_its_own() -> None:
    parser = RuleIntentParser(Lexicon.default())
    for closing in ("Can you solve these for me?", "Could you please calculate these for me?",
                    "Can you help me with all of this?"):
        intent = parser.parse("Calculate the integral of x^2 from 0 to 3. Then calculate the "
                              f"derivative of x^3 at x = 2. {closing}")
        assert [s["text"] for s in intent["sub_intents"]] == [
            "Calculate the integral of x^2 from 0 to 3", "calculate the derivative of x^3 at x = 2"]


def test_a_lone_ask_that_points_at_its_context_stays() -> None:
    intent = RuleIntentParser(Lexicon.default()).parse(
        "The first number is 5. The second number is 7. Can you calculate these?")
    assert len(intent["sub_intents"]) == 1


def test_a_place_written_like_the_description_s_example_is_one_value() -> None:
    library = _tool(
        "library_finder", "Find a library near a city.",
        {"location": {"type": "string", "description": "The city, for example, Denver, CO"}},
        ["location"],
    )
    assert _planned("Find a library in Austin, TX", library) == [
        {"tool": "library_finder", "location": "Austin, TX"}]
    assert _planned("Find a library in Denver, CO", library) == [
        {"tool": "library_finder", "location": "Denver, CO"}]


def test_do_the_same_for_other_places_keeps_the_first_calls_other_values() -> None:
    cafes = _tool(
        "cafe_finder", "Find cafes in a city.",
        {"location": {"type": "string", "description": "The city."},
         "closing_hour": {"type": "integer",
                          "description": "Latest closing hour, in 24 hour format."}},
        ["location"],
    )
    calls = _planned(
        "Can you find cafes in Lyon, France that are open until at least 21:00, and then do the"
        " same for Nice, France and Metz, France?",
        cafes,
    )
    assert sorted((c["location"], c.get("closing_hour")) for c in calls) == [
        ("Lyon, France", 21), ("Metz, France", 21), ("Nice, France", 21)]


def test_two_look_alike_tools_tie_and_the_nearer_in_meaning_is_chosen() -> None:
    from nodes.context import Context
    from nodes.parsing.rules import RuleIntentParser
    from nodes.planning.draft import PlanRequest
    from nodes.planning.rules import RulePlanner
    from stores.catalog.depgraph import ToolDependencyGraph
    from tests.fakes import TopicEmbedder

    params = {"city": {"type": "string", "description": "The city."},
              "years": {"type": "integer", "description": "How many years."}}
    catalog = Catalog()
    # The projection first: without meaning, the tie goes to the first candidate.
    for name, description in (("rain.get_projection", "Predict the future rainfall of a city."),
                              ("rain.get_record", "Retrieve historical rainfall of a city.")):
        catalog.add_raw_tool(_tool(name, description, params, ["city", "years"]), source="t")
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse("Give me the rainfall of Leeds for the last 5 years.")
    candidates = {sub["id"]: [{"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""}
                              for t in catalog.tools] for sub in intent["sub_intents"]}
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context(), embedder=TopicEmbedder(
                              [{"past", "last", "historical"}, {"future", "next", "predict"}]))
    draft = planner.plan(PlanRequest(intent=intent, candidates=candidates, retrieval_rounds=9))
    assert [c["tool_id"].split("/")[-1] for c in draft.calls if c["role"] == "core"] == [
        "rain.get_record"]
