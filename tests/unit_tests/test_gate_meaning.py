"""The relevance gate by meaning: a request in other words than the tool's schema still fits it.

The embedder here is a fake whose vectors are concepts written in this file (words that mean
the same share an axis), so the tests say what the gate does with *some* sense of meaning,
not what MiniLM thinks of these words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from nodes.context import Context
from nodes.parsing.rules import RuleIntentParser
from nodes.planning.draft import PlanDraft, PlanRequest
from nodes.planning.eligibility import score_candidates
from nodes.planning.relevance import (
    MIN_MEANING,
    MIN_RELEVANCE,
    cached_vectors,
    meaning,
    meaning_texts,
    relevance,
)
from nodes.planning.rules import RulePlanner
from nodes.state import SubIntent
from stores.catalog.depgraph import ToolDependencyGraph
from stores.catalog.model import Catalog
from stores.language.lexicon import Lexicon

# Test-only concepts: words on one axis mean the same thing to the fake model.
CONCEPTS = {
    "money": {"dollar", "dollars", "euro", "euros", "currency", "usd", "cad", "exchange",
              "convert", "conversion", "amount"},
    "geography": {"capital", "country", "city", "france", "brazil"},
    "music": {"song", "melody", "music", "play", "tempo", "generate"},
}
AXES = sorted(CONCEPTS)


class ConceptEmbedder:
    """Vectors over the concept axes above, plus one axis for every other word."""

    name = "concept-test-embedder"
    dim = len(AXES) + 1

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                axes = [i for i, axis in enumerate(AXES) if word in CONCEPTS[axis]]
                out[row, axes[0] if axes else len(AXES)] += 1.0 if axes else 0.2
            norm = float(np.linalg.norm(out[row]))
            if norm:
                out[row] /= norm
        return out


CONVERTER = {
    "name": "currency_exchange.convert",
    "description": "Converts an amount from a base currency to a target currency.",
    "input_schema": {
        "type": "object",
        "properties": {"base_currency": {"type": "string"}, "target_currency": {"type": "string"},
                       "amount": {"type": "integer"}},
        "required": ["base_currency", "target_currency", "amount"],
    },
}
SYNONYMS = "How many Canadian dollars can I get for 500 US dollars?"
UNRELATED = "What is the capital of France?"


def _catalog(*tools: dict[str, Any], side_effect: bool | None = False) -> Catalog:
    catalog = Catalog()
    for tool in tools:
        catalog.add_raw_tool({**tool, "agent": "t", "side_effect": side_effect}, source="test")
    return catalog


def _sub(text: str) -> SubIntent:
    return RuleIntentParser(Lexicon.default()).parse(text)["sub_intents"][0]


def _eligible(
    text: str, embedder: ConceptEmbedder | None, side_effect: bool | None = False
) -> list[str]:
    catalog = _catalog(CONVERTER, side_effect=side_effect)
    candidates = [{"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""}
                  for t in catalog.tools]
    scored = score_candidates(_sub(text), candidates, [], catalog, Lexicon.default(), None,
                              embedder=embedder)
    return [c.spec.name for c in scored]


def test_the_synonym_request_shares_too_few_words_for_the_word_test() -> None:
    shared = relevance(SYNONYMS, CONVERTER["name"], CONVERTER["description"],
                       CONVERTER["input_schema"])
    assert shared < MIN_RELEVANCE
    assert _eligible(SYNONYMS, None) == []


def test_a_request_in_other_words_passes_the_gate_by_meaning() -> None:
    assert _eligible(SYNONYMS, ConceptEmbedder()) == ["currency_exchange.convert"]


def test_a_tool_that_may_write_is_never_admitted_by_meaning_alone() -> None:
    assert _eligible(SYNONYMS, ConceptEmbedder(), side_effect=True) == []
    assert _eligible(SYNONYMS, ConceptEmbedder(), side_effect=None) == []


def test_an_unrelated_request_stays_out_with_the_embedder() -> None:
    embedder = ConceptEmbedder()
    assert meaning(UNRELATED, CONVERTER["name"], CONVERTER["description"], embedder) \
        < MIN_MEANING
    assert _eligible(UNRELATED, embedder) == []


def test_tool_texts_are_embedded_once_per_model() -> None:
    embedder = ConceptEmbedder()
    name, description = "music.generate", "Generate a melody at a tempo."
    meaning("Play a song at 120 bpm", name, description, embedder)
    meaning("Play a song at 90 bpm", name, description, embedder)
    embedded = [text for batch in embedder.calls for text in batch]
    for text in meaning_texts(name, description):
        assert embedded.count(text) == 1
    again = cached_vectors(embedder, ["Play a song at 120 bpm"])
    assert len(embedder.calls) == 2 and again[0].shape == (embedder.dim,)


def _plan(text: str, embedder: ConceptEmbedder | None) -> PlanDraft:
    lexicon = Lexicon.default()
    catalog = _catalog(CONVERTER)
    intent = RuleIntentParser(lexicon).parse(text)
    candidates = {sub["id"]: [{"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""}
                              for t in catalog.tools] for sub in intent["sub_intents"]}
    planner = RulePlanner(catalog, ToolDependencyGraph.build(catalog.tools.values()), lexicon,
                          Context(), embedder=embedder)
    return planner.plan(PlanRequest(intent=intent, candidates=candidates, retrieval_rounds=9))


def test_the_rule_planner_gates_with_its_embedder() -> None:
    [without] = _plan(SYNONYMS, None).decisions.values()
    assert without["action"] == "gap"
    [decided] = _plan(SYNONYMS, ConceptEmbedder()).decisions.values()
    assert decided["action"] != "gap" and decided["tool"].endswith("currency_exchange.convert")
    unrelated = _plan(UNRELATED, ConceptEmbedder())
    assert unrelated.calls == [] and unrelated.question is None and unrelated.gaps
