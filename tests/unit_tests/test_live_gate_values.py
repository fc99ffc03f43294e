"""The relevance gate's third test: a tool whose required values the request gives fits it.

A request that shares a little with a tool in words and in meaning (below either gate alone)
still fits it when the schema binder fills every required parameter of the tool from the
request's typed spans: that it can is evidence of fit. Without the values, or without any
shared word, the tool stays out. The embedder is a fake whose vectors are written here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from nodes.parsing.rules import RuleIntentParser
from nodes.planning.eligibility import score_candidates
from nodes.planning.relevance import (
    MIN_MEANING,
    MIN_PARTIAL_MEANING,
    MIN_RELEVANCE,
    meaning,
    relevance,
    values_fit,
)
from nodes.state import SubIntent
from stores.catalog.model import Catalog
from stores.language.lexicon import Lexicon

# Test-only: words of one axis mean the same to the fake model; every other word has a
# small axis of its own, so a long text is only partly about its concept.
CLOCK = {"time", "clock", "hour", "local", "current"}


class ClockEmbedder:
    """Vectors over one "clock" axis and one axis per other word."""

    name = "clock-test-embedder"
    dim = 64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                if word in CLOCK:
                    out[row, 0] += 1.0
                else:
                    out[row, 1 + sum(map(ord, word)) % (self.dim - 1)] += 0.8
            out[row] /= float(np.linalg.norm(out[row])) or 1.0
        return out


TERSE = {
    "name": "tzq",
    "description": "Current local time of a city.",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city, e.g. 'Lisbon'."},
                       "hours": {"type": "string", "description": "12h or 24h."}},
        "required": ["city"],
    },
}
GIVEN = "Tell me what time it is now in 'Lisbon' please"
NOT_GIVEN = "Tell me what time zones there are please"


def _eligible(text: str, tool: dict[str, Any] = TERSE, side_effect: bool = False) -> list[str]:
    catalog = Catalog()
    catalog.add_raw_tool({**tool, "agent": "t", "side_effect": side_effect}, source="test")
    candidates = [{"tool_id": t, "agent": "t", "score": 1.0, "call_name": ""}
                  for t in catalog.tools]
    sub: SubIntent = RuleIntentParser(Lexicon.default()).parse(text)["sub_intents"][0]
    scored = score_candidates(sub, candidates, [], catalog, Lexicon.default(), None,
                              embedder=ClockEmbedder())
    return [c.spec.name for c in scored]


def test_the_request_fits_neither_gate_alone() -> None:
    shared = relevance(GIVEN, TERSE["name"], TERSE["description"], TERSE["input_schema"])
    close = meaning(GIVEN, TERSE["name"], TERSE["description"], ClockEmbedder())
    assert 0 < shared < MIN_RELEVANCE
    assert MIN_PARTIAL_MEANING <= close < MIN_MEANING


def test_a_tool_whose_required_values_are_given_is_eligible() -> None:
    assert values_fit(GIVEN, TERSE["input_schema"])
    assert _eligible(GIVEN) == ["tzq"]


def test_without_the_required_value_the_tool_stays_out() -> None:
    assert not values_fit(NOT_GIVEN, TERSE["input_schema"])
    assert _eligible(NOT_GIVEN) == []


def test_values_alone_without_a_shared_word_are_no_fit() -> None:
    assert _eligible("Book a table in 'Lisbon' for dinner please") == []


def test_a_tool_that_may_write_is_not_admitted_by_its_values() -> None:
    assert _eligible(GIVEN, side_effect=True) == []


def test_a_tool_without_required_parameters_is_not_admitted_by_values() -> None:
    schema = {**TERSE["input_schema"], "required": []}
    assert not values_fit(GIVEN, schema)
