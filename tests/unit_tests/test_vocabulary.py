"""The domain vocabulary is a data file: shipped, replaceable section by section, checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from nodes.parsing.rules import RuleIntentParser
from stores.language.entities import extract_entities
from stores.language.vocabulary import (
    VOCABULARY_ENV,
    DomainVocabulary,
    VocabularyError,
    domain_vocabulary,
)


def test_the_shipped_vocabulary_is_read_once_and_has_every_section() -> None:
    vocabulary = domain_vocabulary()
    assert vocabulary is domain_vocabulary() is DomainVocabulary.default()
    assert vocabulary.statuses["pending payment"] == "pending_payment"
    assert vocabulary.statuses["offline"] == "off"  # quoted in the file: YAML reads off as False
    assert vocabulary.consumes["order"] >= {"product", "user", "address"}
    assert vocabulary.status_phrases[0] == ("waiting", "for", "payment")
    assert "e-commerce" in vocabulary.greeting_answer


def test_a_user_file_replaces_the_sections_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "vocabulary.yaml"
    path.write_text(
        "statuses:\n  on hold: ON_HOLD\n  pending payment: AWAITING_PAYMENT\n"
        "greeting_answer: Hi! I manage the warehouse.\n",
        encoding="utf-8",
    )
    monkeypatch.setenv(VOCABULARY_ENV, str(path))
    vocabulary = domain_vocabulary()
    assert dict(vocabulary.statuses) == {"on hold": "ON_HOLD", "pending payment": "AWAITING_PAYMENT"}
    assert vocabulary.tiers == DomainVocabulary.default().tiers  # sections left out are kept
    assert extract_entities("mark order 5 as on hold")["named"]["status"] == "ON_HOLD"
    assert extract_entities("move order 5 to shipped")["named"].get("status") is None
    hello = RuleIntentParser().parse("hello")["sub_intents"][0]
    assert hello["answer"] == "Hi! I manage the warehouse."
    monkeypatch.delenv(VOCABULARY_ENV)
    assert domain_vocabulary() is DomainVocabulary.default()


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("statuses:\n  offline: off\n", 2, "'statuses: offline'"),
        ("tiers: gold\n", 1, "section 'tiers' must be a list of words"),
        ("colours: [red]\n", 1, "unknown section 'colours'"),
        ("consumes:\n  order: product\n", 2, "'consumes: order' must be a list"),
        ("tiers: [gold]\ntiers: [silver]\n", 2, "section 'tiers' appears twice"),
        ("tiers: [gold\n", 2, "invalid YAML"),
    ],
)
def test_a_malformed_file_is_named_with_its_line_and_key(text: str, line: int, says: str) -> None:
    with pytest.raises(VocabularyError) as raised:
        DomainVocabulary.from_yaml_text(text, "mine.yaml", base=DomainVocabulary.default())
    assert str(raised.value).startswith(f"mine.yaml, line {line}: ")
    assert says in str(raised.value)
    assert raised.value.source == "mine.yaml" and raised.value.line == line


def test_without_a_base_every_section_is_required() -> None:
    with pytest.raises(VocabularyError, match="missing"):
        DomainVocabulary.from_yaml_text("tiers: [gold]\n", "mine.yaml")


def test_a_missing_file_says_which_variable_named_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(VOCABULARY_ENV, str(tmp_path / "nowhere.yaml"))
    with pytest.raises(VocabularyError, match=f"nowhere.yaml, line 1: cannot read.*{VOCABULARY_ENV}"):
        domain_vocabulary()


def test_the_planners_domain_words_come_from_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from nodes.planning.binding import own_identifier_spaces

    assert own_identifier_spaces() == frozenset({"account"})
    assert DomainVocabulary.default().param_aliases["value"] == {"amount", "percent"}
    path = tmp_path / "vocabulary.yaml"
    path.write_text("own_identifier_spaces: [wallet]\nnumeric_slots: [points]\n", encoding="utf-8")
    monkeypatch.setenv(VOCABULARY_ENV, str(path))
    assert own_identifier_spaces() == frozenset({"wallet"})
    assert domain_vocabulary().numeric_slots == frozenset({"points"})
