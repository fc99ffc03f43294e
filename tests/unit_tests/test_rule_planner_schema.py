"""The rule planner on tools it has never seen: binding by schema, calls not clauses, gaps."""

from __future__ import annotations

from typing import Any

from nodes.context import Context
from nodes.parsing.rules import RuleIntentParser
from nodes.planning.draft import PlanDraft, PlanRequest
from nodes.planning.rules import RulePlanner
from stores.catalog.depgraph import ToolDependencyGraph
from stores.catalog.model import Catalog
from stores.language.lexicon import Lexicon
from stores.retrieval.embeddings import Embedder

INT = {"type": "integer"}
STR = {"type": "string"}


def plan(request: str, *tools: tuple[str, str, dict[str, Any], list[str]]) -> PlanDraft:
    catalog = Catalog()
    for name, description, properties, required in tools:
        catalog.add_raw_tool(
            {"name": name, "agent": "t", "description": description, "side_effect": False,
             "input_schema": {"type": "object", "properties": properties,
                              "required": required}},
            source="test",
        )
    return plan_catalog(request, catalog)


def plan_catalog(
    request: str, catalog: Catalog, embedder: Embedder | None = None,
    clarifications: dict[str, Any] | None = None,
) -> PlanDraft:
    """The rule planner's draft for ``request``, every tool of ``catalog`` a candidate.

    With ``embedder`` (the offline model, as zspace runs) the planner reads meanings too;
    ``clarifications`` are the user's answers to earlier questions ("s1.time": "8pm").
    """
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse(request)
    candidates = {
        sub["id"]: [{"tool_id": tool_id, "agent": "t", "score": 1.0, "call_name": ""}
                    for tool_id in catalog.tools]
        for sub in intent["sub_intents"]
    }
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context(), embedder=embedder)
    return planner.plan(PlanRequest(intent=intent, candidates=candidates,
                                    clarifications=clarifications or {}, retrieval_rounds=9))


def calls(draft: PlanDraft) -> list[tuple[str, dict[str, Any]]]:
    return [
        (c["tool_id"].split("/")[-1], {k: v.get("value") for k, v in c["args"].items()})
        for c in draft.calls
    ]


TRIANGLE = ("calculate_triangle_area", "Calculate the area of a triangle given its base and "
            "height.", {"base": INT, "height": INT}, ["base", "height"])
WEATHER = ("get_weather", "Get the current weather of a city.",
           {"city": {**STR, "description": "The city"}}, ["city"])
INVEST = ("investment_invest", "Invest an amount in a company.",
          {"company": STR, "amount": INT}, ["company", "amount"])
WITHDRAW = ("investment_withdraw", "Withdraw an amount from a company.",
            {"company": STR, "amount": INT}, ["company", "amount"])


def test_values_bind_to_an_unseen_tool() -> None:
    draft = plan("Find the area of a triangle with a base of 10 units and height of 5 units.",
                 TRIANGLE)
    assert calls(draft) == [("calculate_triangle_area", {"base": 10, "height": 5})]


def test_a_list_filling_a_scalar_makes_one_call_per_item() -> None:
    draft = plan("What is the weather in Paris and Rome?", WEATHER)
    assert calls(draft) == [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})]


def test_two_actions_are_two_calls_each_with_its_tool() -> None:
    draft = plan("Invest $2000 in Google and withdraw $1000 from Apple.", INVEST, WITHDRAW)
    assert sorted(calls(draft)) == [
        ("investment_invest", {"company": "Google", "amount": 2000}),
        ("investment_withdraw", {"company": "Apple", "amount": 1000}),
    ]


def test_a_tool_the_request_is_not_about_is_a_gap_not_a_call() -> None:
    draft = plan("What is the capital of Brazil?", TRIANGLE)
    assert draft.calls == [] and draft.question is None and draft.gaps


def test_a_clause_that_only_adds_an_argument_completes_the_earlier_call() -> None:
    profile = ("create_player_profile", "Create a new player profile.",
               {"player_name": STR, "_class": STR, "starting_level": INT},
               ["player_name", "_class"])
    draft = plan("Create a new player profile with name 'StarPlayer' and class 'Mage', then set "
                 "the starting level to 5.", profile)
    assert calls(draft) == [("create_player_profile", {
        "player_name": "StarPlayer", "_class": "Mage", "starting_level": 5})]


def test_ask_only_when_a_required_value_comes_from_nowhere() -> None:
    draft = plan("Find the area of a triangle with a base of 10 units.", TRIANGLE)
    assert draft.calls == []
    assert draft.question is not None and draft.question["param"] == "height"


def test_then_orders_calls_even_when_no_value_flows() -> None:
    draft = plan("Find the area of a triangle with a base of 10 and height of 5, then get the "
                 "weather in Paris.", TRIANGLE, WEATHER)
    first, second = draft.calls
    assert second["depends_on"] == [first["call_id"]]
    independent = plan("Find the area of a triangle with a base of 10 and height of 5 and get "
                       "the weather in Paris.", TRIANGLE, WEATHER)
    assert [c["depends_on"] for c in independent.calls] == [[], []]
