"""A clause that names its own thing keeps its own words; it borrows no later clause's object.

Before: "Find a recipe that uses chicken, then find a restaurant that serves pasta" read the
relative "that" as a pronoun pointing elsewhere, so the first clause took the object of the
second ("restaurant", a shop in the lexicon) and retrieval and tool fit followed it to the
restaurant search.
"""

from __future__ import annotations

from nodes.parsing.rules import RuleIntentParser
from stores.language.lexicon import Lexicon


def _targets(request: str) -> list[tuple[str, str]]:
    intent = RuleIntentParser(Lexicon.default()).parse(request)
    return [(sub["text"], sub["target"]) for sub in intent["sub_intents"]]


def test_a_relative_that_is_no_pronoun_and_the_clause_keeps_its_own_thing() -> None:
    first, second = _targets(
        "Find a recipe that uses chicken, then find a restaurant that serves pasta."
    )
    assert first[1] == "" and second[1] == "shop"


def test_a_clause_without_a_thing_of_its_own_still_refers_ahead() -> None:
    (_, creating), (_, paying) = _targets("pay the order after creating it")
    assert creating == paying == "order"


def test_a_demonstrative_still_points_back() -> None:
    subs = _targets("Create an order for account 123456 and then cancel that order")
    assert [target for _, target in subs] == ["order", "order"]


def test_a_clause_without_a_known_verb_keeps_its_own_words_too() -> None:
    first, second = _targets(
        "Can you provide me with the exhibition details of the city museum for the next 2 "
        "months and then tell me about the best Greek restaurants in Athens?"
    )
    assert first[1] == "" and second[1] == "shop"
