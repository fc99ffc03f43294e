"""Tokens, lemmas, stopwords and keyword extraction."""

from __future__ import annotations

import pytest

from stores.language.keywords import STOPWORDS, extract_keywords, lemmatize, token_spans, tokenize
from stores.language.lexicon import Lexicon


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Create an ORDER, please!", ["create", "an", "order", "please"]),
        ("getUserById", ["get", "user", "by", "id"]),
        ("create_order", ["create", "order"]),
        ("HTTPServer parseJSONBody", ["http", "server", "parse", "json", "body"]),
        ("orders/list-all", ["orders", "list", "all"]),
        ("the rider's address", ["the", "rider", "address"]),
        ("don't cancel", ["don't", "cancel"]),
        ("Café déjà-vu Größe", ["café", "déjà", "vu", "größe"]),
        ("下单 order 42", ["下单", "order", "42"]),
        ("", []),
    ],
)
def test_tokenize(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_token_spans_point_back_into_the_text() -> None:
    text = "placeOrder for the user's cart"
    for start, end, token in token_spans(text):
        assert text[start:end].lower() == token
    assert [t for *_, t in token_spans(text, split_identifiers=False)][0] == "placeorder"


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("orders", "order"),
        ("Coupons", "coupon"),
        ("deliveries", "delivery"),
        ("addresses", "address"),
        ("boxes", "box"),
        ("purchases", "purchase"),
        ("statuses", "status"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("placed", "place"),
        ("creating", "create"),
        ("created", "create"),
        ("updated", "update"),
        ("deleted", "delete"),
        ("shipped", "ship"),
        ("shipping", "ship"),
        ("ordered", "order"),
        ("refunded", "refund"),
        ("billed", "bill"),
        ("cancelled", "cancel"),
        ("canceled", "cancel"),
        ("applied", "apply"),
        ("paid", "pay"),
        ("sent", "send"),
        ("added", "add"),
        ("string", "string"),
        ("goods", "goods"),
        ("bus", "bus"),
        ("id", "id"),
        ("ids", "ids"),
        ("sku42", "sku42"),
    ],
)
def test_lemmatize_without_vocabulary(word: str, expected: str) -> None:
    assert lemmatize(word) == expected


def test_lemmatize_prefers_known_base_forms() -> None:
    vocabulary = frozenset({"generate", "cache", "shipping", "need"})
    assert lemmatize("generating") == "generate"
    assert lemmatize("caches") == "cach"  # the rule-based guess is not always a word ...
    assert lemmatize("caches", vocabulary) == "cache"  # ... the vocabulary fixes it
    assert lemmatize("shipping", vocabulary) == "shipping"  # a known word is kept
    assert lemmatize("needed", vocabulary) == "need"


def test_stopwords_cover_request_fluff_but_not_operations() -> None:
    assert {"please", "can", "you", "i", "want", "need", "would", "like", "me", "my"} <= STOPWORDS
    assert not {"get", "make", "set", "show", "give", "create", "list", "order"} & STOPWORDS


def test_extract_keywords_without_lexicon() -> None:
    assert extract_keywords("Can you please create 3 orders for user u_123?") == [
        "create",
        "orders",
        "user",
    ]
    assert extract_keywords("coupons, coupon and COUPON") == ["coupons"]


def test_extract_keywords_puts_canonical_terms_first() -> None:
    lexicon = Lexicon.default()
    text = "I'd like to quickly place two urgent orders with a promo code for member 42"
    assert extract_keywords(text, lexicon) == ["create", "order", "coupon", "user", "two", "urgent"]


def test_extract_keywords_drops_ids_and_never_matches_phrases_across_them() -> None:
    lexicon = Lexicon.default()
    assert extract_keywords("refund ORD-2024-001 to wallet #7", lexicon) == ["refund", "wallet"]
    # "set 5 up" must not be read as the phrase "set up".
    assert extract_keywords("set 5 up", lexicon) == ["update"]
    assert extract_keywords("set up", lexicon) == ["create"]


def test_extract_keywords_phrases_and_identifiers() -> None:
    lexicon = Lexicon.default()
    assert extract_keywords("check out the shopping cart", lexicon) == ["pay", "cart"]
    assert extract_keywords("call getOrderById", lexicon) == ["get", "order", "call", "id"]


def test_extract_keywords_limits() -> None:
    text = "alpha bravo charlie delta echo foxtrot golf hotel india juliet"
    assert len(extract_keywords(text)) == 8
    assert extract_keywords(text, max_keywords=2) == ["alpha", "bravo"]
    assert extract_keywords(text, max_keywords=0) == []
    assert extract_keywords("please can you", Lexicon.default()) == []
    with pytest.raises(ValueError, match="max_keywords"):
        extract_keywords(text, max_keywords=-1)
