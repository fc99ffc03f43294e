"""The gate by given values for a tool whose terse name shares no word with the request.

A request said in other words than a terse schema ("Which hour is it in 'Lisbon'" for a tool
``tzq`` about the "current local time of a city") shares no word of the tool's name or
description; its meaning is somewhat close (above the partial threshold, below the full
one), and it gives every value the tool requires: it fits. A shared description word with a
meaning far off is not enough, nor are values alone. The fake embedder is the one of
``test_live_gate_values``.
"""

from __future__ import annotations

from nodes.planning.relevance import MIN_MEANING, MIN_PARTIAL_MEANING, meaning, relevance
from tests.unit_tests.test_live_gate_values import TERSE, ClockEmbedder, _eligible

OTHER_WORDS = "Which hour is it in 'Lisbon'"


def test_the_request_shares_no_word_of_name_or_description() -> None:
    shared = relevance(OTHER_WORDS, TERSE["name"], TERSE["description"], TERSE["input_schema"])
    close = meaning(OTHER_WORDS, TERSE["name"], TERSE["description"], ClockEmbedder())
    assert shared < 0.4
    assert MIN_PARTIAL_MEANING <= close < MIN_MEANING


def test_close_meaning_and_every_required_value_given_is_a_fit() -> None:
    assert _eligible(OTHER_WORDS) == ["tzq"]


def test_a_shared_word_with_a_far_meaning_stays_out() -> None:
    assert _eligible("I need the city figure for 'Lisbon' please") == []


def test_close_meaning_without_the_values_stays_out() -> None:
    assert _eligible("Which hour is it where she lives") == []
