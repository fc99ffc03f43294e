"""The synonym lexicon: default file, phrase precedence, error lines, user overrides."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from stores.language.keywords import tokenize
from stores.language.lexicon import Lexicon, LexiconError


def _write(tmp_path: Path, text: str, name: str = "lexicon.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def test_default_lexicon_loads_and_is_cached() -> None:
    lexicon = Lexicon.default()
    assert lexicon is Lexicon.default()
    for operation in ("create", "get", "update", "delete", "cancel", "advance", "issue", "pay"):
        assert operation in lexicon.operations
    for obj in ("user", "order", "coupon", "product", "sku", "delivery", "rider", "refund"):
        assert obj in lexicon.objects
    assert "voucher" in lexicon.synonyms("coupon")
    assert lexicon.synonyms("no such term") == []


@pytest.mark.parametrize(
    ("term", "kind", "expected"),
    [
        ("place", "operation", "create"),
        ("Placed", None, "create"),
        ("creating", None, "create"),
        ("set up", None, "create"),
        ("set", None, "update"),
        ("set status", None, "advance"),
        ("check out", None, "pay"),
        ("check", None, "get"),
        ("paid", None, "pay"),
        ("cancelled", None, "cancel"),
        ("orders", "object", "order"),
        ("Promo Codes", "object", "coupon"),
        ("delivery address", "object", "address"),
        ("deliveries", "object", "delivery"),
        ("voucher", "operation", None),
        ("teleport", None, None),
    ],
)
def test_canonical(term: str, kind: str | None, expected: str | None) -> None:
    assert Lexicon.default().canonical(term, kind) == expected  # type: ignore[arg-type]


def test_phrases_win_over_words() -> None:
    lexicon = Lexicon.default()
    assert lexicon.normalize_text("Set up a shop") == "create a shop"
    assert lexicon.normalize_text("set the price") == "update the price"
    assert lexicon.normalize_text("Check out my shopping cart!") == "pay my cart!"
    assert lexicon.normalize_text("show all orders") == "list order"
    terms = lexicon.find_terms(tokenize("update the delivery address"))
    assert [(t.canonical, t.kind, t.start, t.stop) for t in terms] == [
        ("update", "operation", 0, 1),
        ("address", "object", 2, 4),
    ]


def test_normalize_text_keeps_everything_else() -> None:
    lexicon = Lexicon.default()
    assert (
        lexicon.normalize_text("Please place 2 orders for user 42, then issue vouchers.")
        == "Please create 2 order for user 42, then issue coupon."
    )
    assert lexicon.normalize_text("the rider's address") == "the rider's address"
    assert lexicon.normalize_text("the courier's parcel") == "the rider's delivery"
    # Identifiers are not split, so they are never rewritten half-way.
    assert lexicon.normalize_text("call placeOrder now") == "call placeOrder now"
    # "settle" contains "set" but only whole words match.
    assert lexicon.normalize_text("settle it") == "pay it"


def test_conflicting_surface_reports_both_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
        operations:
          create: [add, make]
          update:
            - modify
            - add
        """,
    )
    with pytest.raises(LexiconError) as caught:
        Lexicon.load(path)
    message = str(caught.value)
    assert caught.value.line == 5 and caught.value.source == str(path)
    assert f"{path}, line 5" in message and "line 2" in message
    assert "'add'" in message and "'create'" in message and "'update'" in message


def test_conflict_is_found_through_irregular_forms(tmp_path: Path) -> None:
    path = _write(tmp_path, "operations:\n  pay: [settle]\n  advance: [paid]\n")
    with pytest.raises(
        LexiconError, match="line 3: 'paid' .*'advance'.*'pay' \\(as 'pay' on line 2\\)"
    ):
        Lexicon.load(path)


def test_listed_inflected_form_beats_the_lemma(tmp_path: Path) -> None:
    path = _write(tmp_path, "objects:\n  order: [purchase]\n  payment: [purchases]\n")
    lexicon = Lexicon.load(path)
    assert lexicon.canonical("purchases") == "payment"
    assert lexicon.canonical("purchase") == "order"
    assert lexicon.canonical("purchased") == "order"


def test_same_word_in_both_sections_is_allowed(tmp_path: Path) -> None:
    lexicon = Lexicon.load(_write(tmp_path, "operations:\n  refund: []\nobjects:\n  refund: []\n"))
    assert lexicon.canonical("refund", "operation") == lexicon.canonical("refund", "object")


@pytest.mark.parametrize(
    ("text", "line", "hint"),
    [
        ("operations:\n  create: [add, make\n  get: [fetch]\n", 3, "invalid YAML"),
        ("operations:\n  create: [add, yes]\n", 2, "quotes"),
        ("operations:\n  create: [add, 42]\n", 2, "number"),
        ("operations:\n  create:\n    - add\n    - [make, build]\n", 4, "list"),
        ("operations:\n  create: add\n", 2, "must be a list"),
        ("operations:\n  create: [add]\n  create: [make]\n", 3, "defined twice"),
        ("verbs:\n  create: [add]\n", 1, "unknown section"),
        ("operations:\n  create: [add]\noperations: {}\n", 3, "appears twice"),
        ("- create\n- add\n", 1, "top level"),
        ("objects:\n  order: ['---']\n", 2, "no word"),
    ],
)
def test_malformed_files_name_the_line(tmp_path: Path, text: str, line: int, hint: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(LexiconError, match=hint) as caught:
        Lexicon.load(path)
    assert caught.value.line == line, str(caught.value)
    assert str(caught.value).startswith(f"{path}, line {line}: ")


def test_missing_file_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(LexiconError, match="check the path"):
        Lexicon.load(tmp_path / "nope.yaml")


def test_empty_file_is_an_empty_lexicon(tmp_path: Path) -> None:
    lexicon = Lexicon.load(_write(tmp_path, "# nothing yet\n"))
    assert lexicon.canonical("create") is None
    assert lexicon.normalize_text("place an order") == "place an order"


def test_user_file_extends_and_overrides_default(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
        operations:
          ship: [send, courier off]
        objects:
          coupon: [ticket]
          gift card: [gift voucher, stored value card]
        """,
    )
    lexicon = Lexicon.load(path, base=Lexicon.default())
    assert lexicon.canonical("send", "operation") == "ship"  # moved away from "issue"
    assert "send" not in lexicon.synonyms("issue")
    assert lexicon.canonical("grant", "operation") == "issue"  # the rest of "issue" stays
    assert lexicon.canonical("tickets", "object") == "coupon"
    assert lexicon.canonical("voucher", "object") == "coupon"
    assert lexicon.canonical("gift vouchers", "object") == "gift card"
    assert lexicon.normalize_text("courier off the parcel") == "ship the delivery"
    assert Lexicon.default().canonical("send") == "issue"  # the default is untouched
