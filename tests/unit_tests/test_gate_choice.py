"""Choosing among candidates: the one the request is most about wins a tie of the lexicon.

Two read tools whose names say the same operation ("get") fit a clause equally by the domain
lexicon; the retrieval rank then decided alone, and the earlier-ranked tool won even when the
clause shares far more words and meaning with the other one. What the clause shares with each
candidate, relative to the best candidate, now weighs in. The embedder is a fake whose
vectors are written here.
"""

from __future__ import annotations

from nodes.parsing.rules import RuleIntentParser
from nodes.planning.eligibility import closeness, score_candidates
from nodes.state import SubIntent
from stores.catalog.model import Catalog
from stores.language.lexicon import Lexicon
from tests.fakes import TopicEmbedder

# Test-only: each axis is a topic; words of no topic get a small axis of their own.
TOPICS = ({"forecast", "projected", "projection", "future", "next"}, {"history", "past", "last"})


SCHEMA = {
    "type": "object",
    "properties": {"species": {"type": "string"}, "years": {"type": "integer"}},
    "required": ["species", "years"],
}
TOOLS = [
    {"name": "herd.get_history", "description": "Past head counts of a species.",
     "input_schema": SCHEMA},
    {"name": "herd.get_projection", "description": "Projected future head counts of a species.",
     "input_schema": SCHEMA},
]
REQUEST = "Get me the projected head counts of the species 'lynx' for the next 10 years"


def _scored(text: str, embedder: TopicEmbedder | None) -> list[str]:
    catalog = Catalog()
    for tool in TOOLS:
        catalog.add_raw_tool({**tool, "agent": "t", "side_effect": False}, source="test")
    # Retrieval ranked the history tool first.
    candidates = [
        {"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""} for t in catalog.tools
    ]
    sub: SubIntent = RuleIntentParser(Lexicon.default()).parse(text)["sub_intents"][0]
    scored = score_candidates(sub, candidates, [], catalog, Lexicon.default(), None,
                              embedder=embedder)
    return [c.spec.name for c in scored]


def test_the_candidate_the_clause_is_about_beats_the_better_ranked_one() -> None:
    assert _scored(REQUEST, TopicEmbedder(TOPICS))[0] == "herd.get_projection"


def test_the_other_clause_keeps_the_other_tool() -> None:
    text = "Get me the past head counts of the species 'lynx' for the last 10 years"
    assert _scored(text, TopicEmbedder(TOPICS))[0] == "herd.get_history"


def test_closeness_is_the_score_without_rank_and_lead() -> None:
    catalog = Catalog()
    for tool in TOOLS:
        catalog.add_raw_tool({**tool, "agent": "t", "side_effect": False}, source="test")
    candidates = [
        {"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""} for t in catalog.tools
    ]
    sub: SubIntent = RuleIntentParser(Lexicon.default()).parse(REQUEST)["sub_intents"][0]
    with_lead = score_candidates(sub, candidates, [], catalog, Lexicon.default(), None,
                                 embedder=TopicEmbedder(TOPICS))
    without = score_candidates(sub, candidates, [], catalog, Lexicon.default(), None)
    assert {c.spec.id: closeness(c) for c in with_lead} == {
        c.spec.id: closeness(c) for c in without
    }
