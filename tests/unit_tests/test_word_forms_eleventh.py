"""Forms of words and values the planner reads as anyone writes them.

A drive's path ("D:/logs/app.txt"); a past tense that is the clause's verb, no part of a
phrase ("Who painted the ceiling"); a noun with what it is of after a cue ("invented the
wheel of fortune"); a date format written "MM-DD-YYY" or "YY"; words of one family
("summarize" / "summary"). Requests and tools are written here.
"""

from __future__ import annotations

from typing import Any

from nodes.planning.name_phrases import phrase_after_cue
from nodes.planning.param_fit import describe_params
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema
from stores.language.date_formats import date_as_described
from stores.language.keywords import same_root


def test_a_drive_path_is_one_path() -> None:
    spans = extract_spans("load the table at D:/logs/app.csv please")
    assert [(s.kind, s.text) for s in spans] == [("path", "D:/logs/app.csv")]
    spans = extract_spans("open E:\\reports\\q1.xlsx now")
    assert [(s.kind, s.text) for s in spans] == [("path", "E:\\reports\\q1.xlsx")]


def test_a_colon_between_words_is_no_drive() -> None:
    assert [s.kind for s in extract_spans("the ratio a:b is 3")] == ["number"]


def _longest(query: str, phrases: Any) -> list[float]:
    """Test-only similarity: the longer the phrase, the nearer (the verb would win)."""
    return [len(p) / 40 for p in phrases]


SUBSTANCE = {
    "type": "object",
    "properties": {"substance": {"type": "string", "description": "The substance."}},
    "required": ["substance"],
}


def test_a_past_tense_after_who_is_the_verb_not_the_value() -> None:
    sets = bind_schema("Who isolated penicillin?", SUBSTANCE, similarity=_longest,
                       segment=0).sets
    assert sets[0]["substance"] == "penicillin"


def test_a_past_tense_before_by_is_the_verb_not_the_value() -> None:
    sets = bind_schema("the year penicillin isolated by a lab", SUBSTANCE,
                       similarity=_longest, segment=0).sets
    assert "isolated" not in sets[0]["substance"]


def test_an_adjective_in_ed_stays_in_the_phrase() -> None:
    sets = bind_schema("a recipe with smoked salmon", SUBSTANCE, similarity=_longest,
                       segment=0).sets
    assert sets[0]["substance"] == "smoked salmon"


def test_the_noun_after_its_article_keeps_what_it_is_of() -> None:
    param = next(p for p in describe_params({
        "type": "object",
        "properties": {"invention_name": {"type": "string"}},
        "required": ["invention_name"],
    }))
    found = phrase_after_cue("Who invented the wheel of fortune game?", param, [])
    assert found is not None and found.value == "wheel of fortune"
    # Right after the cue, "of" is the cue's own ("the resistivity of copper").
    resist = next(p for p in describe_params({
        "type": "object", "properties": {"resistivity": {"type": "string"}},
    }))
    found = phrase_after_cue("the resistivity of copper wire", resist, [])
    assert found is not None and found.value == "copper wire"


def test_a_year_written_with_three_letters_or_two() -> None:
    assert date_as_described("March 5, 2024", "Filed since, in the format MM-DD-YYY.") == (
        "03-05-2024"
    )
    assert date_as_described("2024-03-05", "Date as MM/DD/YY") == "03/05/24"


def test_words_of_one_family() -> None:
    assert same_root("summarize", "summarization")
    assert same_root("prediction", "predict")
    assert same_root("analysis", "analyse")
    assert not same_root("sentence", "sentiment")
    assert not same_root("station", "state")


def test_quoted_pairs_without_braces_are_one_object() -> None:
    text = "Change profile 77 to 'city':'Oslo', 'phone':'555-0101' please"
    found = [(s.kind, s.value) for s in extract_spans(text)]
    assert ("json", {"city": "Oslo", "phone": "555-0101"}) in found
    assert [(s.kind, s.key, s.value) for s in extract_spans("set 'mode': 'dark'")] == [
        ("keyvalue", "mode", "dark")
    ]
    # Quoted words with no colon between stay quoted texts.
    assert [s.kind for s in extract_spans("she wrote 'hi' and 'bye'")] == ["list"]
