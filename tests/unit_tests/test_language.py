"""The offline English guess that lets the rule parser decline other languages clearly."""

from __future__ import annotations

import pytest

from nodes.parsing import IntentParseError
from nodes.parsing.rules import RuleIntentParser
from stores.language.detect import guess_non_english


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("crée un produit de test et passe une commande avec le compte 123456", "French"),
        ("erstelle ein Testprodukt", "German"),
        ("crear un producto de prueba", "Spanish"),
        ("crea un prodotto di prova", "Italian"),
        ("maak een testproduct", "Dutch"),
        ("创建一个测试产品", "Chinese or Japanese"),
        ("создай тестовый продукт", "a Cyrillic-script language"),
    ],
)
def test_other_languages_are_named(text: str, language: str) -> None:
    assert guess_non_english(text) == language


@pytest.mark.parametrize(
    "text",
    [
        "create a test product",
        "advance order 17 to pending payment",
        "create a user named Jean de la Fontaine",
        "place an order for the product Café Olé",
        "hola",  # no evidence either way: not called a language
        "12345",
        "",
    ],
)
def test_english_and_weak_evidence_are_not_flagged(text: str) -> None:
    assert guess_non_english(text) is None


def test_the_rule_parser_declines_a_foreign_request_with_the_reason() -> None:
    with pytest.raises(IntentParseError, match="written in French.*--model"):
        RuleIntentParser().parse("crée un produit de test et passe une commande")


def test_foreign_names_in_an_english_request_do_not_trip_it() -> None:
    parser = RuleIntentParser()
    intent = parser.parse("create a user named Maria de los Santos y Garcia")
    assert intent["sub_intents"][0]["operation"] == "create"
    intent = parser.parse("create a product called 'Le Petit Prince de la Mer'")
    assert intent["sub_intents"][0]["target"] == "product"
