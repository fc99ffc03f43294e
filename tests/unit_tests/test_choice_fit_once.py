"""An object a clause inherits counts once when the rule planner chooses among candidates.

The candidates' scores (:func:`nodes.planning.eligibility.score_candidates`) already hold how
well a tool's name says the clause's operation and object, and what the clause shares with
each candidate in words and meaning. The planner added that name fit a second time on top of
the binding, so a clause that inherits the object of the clause before it ("also get the past
dues she paid" after "the status of the member ...") kept the first clause's tool though its
words and meaning are the other tool's. The second count now holds only what the clause's own
words say. Tools, request and the fake embedder's topics are written here.
"""

from __future__ import annotations

from typing import Any

from nodes.context import Context
from nodes.parsing.rules import RuleIntentParser
from nodes.planning.draft import PlanRequest
from nodes.planning.rules import RulePlanner
from stores.catalog.depgraph import ToolDependencyGraph
from stores.catalog.model import Catalog
from stores.language.lexicon import Lexicon
from tests.fakes import TopicEmbedder

# Test-only: each axis is a topic; words of no topic get a small axis of their own.
TOPICS = (
    {"past", "dues", "paid", "history", "payments"},
    {"status", "membership", "standing"},
)


SCHEMA = {
    "type": "object",
    "properties": {
        "member_name": {"type": "string", "description": "Name of the member."},
        "city": {"type": "string", "description": "City of the club."},
    },
    "required": ["member_name"],
}
TOOLS = [
    # Its name says the object the second clause inherits ("member"): the lexicon favours it.
    {"name": "club.get_member_status",
     "description": "Find the membership status of a member in a city."},
    {"name": "club.get_dues_history", "description": "Past dues payments made by a member."},
]


def _core_tools(request: str) -> list[str]:
    catalog = Catalog()
    for tool in TOOLS:
        catalog.add_raw_tool(
            {**tool, "input_schema": SCHEMA, "agent": "t", "side_effect": False,
             "environment": "test"},
            source="test",
        )
    lexicon = Lexicon.default()
    intent = RuleIntentParser(lexicon).parse(request)
    candidates: dict[str, list[Any]] = {
        sub["id"]: [{"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""}
                    for t in catalog.tools]
        for sub in intent["sub_intents"]
    }
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context(), embedder=TopicEmbedder(TOPICS))
    draft = planner.plan(PlanRequest(intent=intent, candidates=candidates, retrieval_rounds=9))
    return [catalog.tools[c["tool_id"]].name for c in draft.calls if c["role"] == "core"]


def test_a_clause_that_inherits_the_object_takes_the_tool_it_is_about() -> None:
    request = "Get the status of the member named 'Ann Lee' in Oslo, also get the past dues she paid."
    assert _core_tools(request) == ["club.get_member_status", "club.get_dues_history"]


def test_the_name_fit_still_decides_a_clause_it_is_about() -> None:
    assert _core_tools("Get the status of the member named 'Ann Lee' in Oslo") == [
        "club.get_member_status"
    ]
