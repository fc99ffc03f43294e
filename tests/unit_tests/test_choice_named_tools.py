"""Which candidate a clause names: by a word of its family, by flags, by the tool's own name.

- "Summarize this review" explains every word of ``review_summarization`` ("summarize" and
  "summarization" are one family): no residue of unsaid name words counts against it.
- "I am tidy, punctual and curious" sets three flags: three things the user said, not one
  value "True" however many parameters it fills.
- "... from store GameHaven": a value that is another candidate's own name consumed by
  one tool names the other one, which the user asked for by name.
- "... Can you find the price for me?" after a clause that gave every value: of the
  candidates fed those borrowed values, the one that is the earlier call again.
- "... and then do the same cafe search for Bergen": the earlier read's values the clause
  does not say itself stay as they were.

Tools and requests are written here.
"""

from __future__ import annotations

from typing import Any

from nodes.context import Context
from nodes.parsing.rules import RuleIntentParser
from nodes.planning.bound_choices import BoundChoice, consumed_values, restating_choice
from nodes.planning.draft import PlanRequest
from nodes.planning.eligibility import name_residue
from nodes.planning.rules import RulePlanner
from nodes.state import PlannedCall, SubIntent
from stores.catalog.depgraph import ToolDependencyGraph
from stores.catalog.model import Catalog, ToolSpec
from stores.language.lexicon import Lexicon


def _sub(text: str) -> SubIntent:
    sub: SubIntent = RuleIntentParser(Lexicon.default()).parse(text)["sub_intents"][0]
    return sub


def test_a_name_word_of_the_clause_verbs_family_is_explained() -> None:
    spec = ToolSpec(id="t/review_summarization", name="review_summarization", agent="t",
                    description="Summary of a review.", input_schema={"type": "object"})
    assert name_residue(_sub("Summarize this review for me"), spec, Lexicon.default()) == 0
    other = ToolSpec(id="t/review_translation", name="review_translation", agent="t",
                     description="Translation of a review.", input_schema={"type": "object"})
    assert name_residue(_sub("Summarize this review for me"), other, Lexicon.default()) == 1


def test_each_flag_is_a_value_of_its_own() -> None:
    call = PlannedCall(
        call_id="c1", sub_intent_id="s1", tool_id="t/traits", role="core",
        args={name: {"value": True, "origin": f"span:{name}"}
              for name in ("tidy", "punctual", "curious")},
        depends_on=[], side_effect=False,
    )
    direct, _ = consumed_values([call])
    assert len(direct) == 3


def _games(extra: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {
        "players": {"type": "integer", "description": "How many people play."},
        "category": {"type": "string", "description": "Kind of game, e.g. party, trivia."},
        **extra,
    }, "required": ["players", "category"]}


TOOLS = [
    {"name": "MegaShopStore.recommend",
     "description": "Game picks from the MegaShop Store by players and category.",
     "input_schema": _games({"budget": {"type": "string", "description": "What to spend."}})},
    {"name": "GameHaven.recommend",
     "description": "Game picks from the GameHaven store by players and category.",
     "input_schema": _games({})},
]


def _cores(request: str, tools: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The core calls the rule planner makes for ``request``: (tool name, argument values)."""
    catalog = Catalog()
    for tool in tools:
        catalog.add_raw_tool({**tool, "agent": "t", "side_effect": False,
                              "environment": "test"}, source="test")
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse(request)
    candidates: dict[str, list[Any]] = {
        sub["id"]: [{"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""}
                    for t in catalog.tools]
        for sub in intent["sub_intents"]
    }
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context())
    draft = planner.plan(PlanRequest(intent=intent, candidates=candidates, retrieval_rounds=9))
    return [(catalog.tools[c["tool_id"]].name, {k: v.get("value") for k, v in c["args"].items()})
            for c in draft.calls if c["role"] == "core"]


def _core_tools(request: str) -> list[str]:
    return [name for name, _ in _cores(request, TOOLS)]


def test_the_tool_the_user_names_is_the_one_called() -> None:
    request = "Any good picks of games for 3 players, party category, from store GameHaven?"
    assert _core_tools(request) == ["GameHaven.recommend"]


def _choice(tool: str, args: dict[str, Any], origin: str) -> BoundChoice:
    spec = ToolSpec(id=f"t/{tool}", name=tool, agent="t", description="",
                    input_schema={"type": "object"})
    call = PlannedCall(call_id="c9", sub_intent_id="s2", tool_id=spec.id, role="core",
                       args={k: {"value": v, "origin": f"{origin}:{k}"} for k, v in args.items()},
                       depends_on=[], side_effect=False)
    return BoundChoice(spec, 0.0, [call], [])


def test_a_clause_of_borrowed_values_asks_the_earlier_call_again() -> None:
    # "I want to book a twin room for 4 nights in Grand Fjord Oslo. Can you find the price
    # for me?": the second clause's best candidate feeds the first clause's words to a van
    # rental; the lodging price, so bound, is the first clause's call again.
    earlier = _choice("lodging_price", {"hotel": "Grand Fjord Oslo", "nights": 4}, "span")
    earlier.calls[-1]["sub_intent_id"] = "s1"
    van = _choice("van_price", {"company": "twin room", "kind": "Grand Fjord Oslo", "days": 4},
                  "elsewhere")
    lodging = _choice("lodging_price", {"hotel": "Grand Fjord Oslo", "nights": 4}, "elsewhere")
    choices = [((2.0, 0), van), ((1.5, -1), lodging)]
    text = "Can you find the price for me?"
    assert restating_choice(text, van, choices, earlier.calls) is lodging
    # "... also get the van price": the clause names the other tool's own words.
    assert restating_choice("Also get the van price", van, choices, earlier.calls) is None
    # A clause that says a value of its own is asked as said.
    own = _choice("van_price", {"company": "Hertz", "days": 4}, "span")
    assert restating_choice(text, own, [((2.0, 0), own), ((1.5, -1), lodging)],
                            earlier.calls) is None


CAFES = {"name": "cafe_finder.find_nearby",
         "description": "Find cafes in a city that are open until a given hour.",
         "input_schema": {"type": "object", "properties": {
             "city": {"type": "string", "description": "The city."},
             "open_until": {"type": "integer",
                            "description": "The hour, 0-23, the cafe stays open until."},
         }, "required": ["city"]}}


def _core_args(request: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [args for _, args in _cores(request, tools)]


def test_a_clause_that_says_the_same_keeps_the_earlier_values() -> None:
    request = ("Can you help me find cafes in Oslo that are open until at least 22:00, "
               "and then do the same cafe search for Bergen and Tromso?")
    assert _core_args(request, [CAFES]) == [
        {"city": "Oslo", "open_until": 22}, {"city": "Bergen", "open_until": 22},
        {"city": "Tromso", "open_until": 22},
    ]
