"""Values read as a description lists them and as a request says them.

- A description's examples: "E.g: Jazz Trio, String Quartet" after a colon; "e.g. Thai,
  Greek" are two, "e.g. Austin, TX" and "e.g. Lyon, France" one place each, and "e.g. Salem,
  OR, written as City, State" keeps "Salem, OR" whatever follows. An example said in a list
  with others ("Muon and Electron" for "e.g. Electron, Proton") is one item of that list.
- One letter allowed ("A", "T") is said as written: "a" is an article.
- "rebounds per game, steals and turnovers per game" is a list of three items.
- A date parameter takes no phrase by meaning ("minutes" is no date).
- "specialized in tax law near me" for a required array ``specialization``: the words after
  a word of its name's family, up to a place said.

Requests and schemas are written here.
"""

from __future__ import annotations

from typing import Any

from nodes.planning.descriptions import allowed_values
from nodes.planning.schema_binder import bind_schema
from nodes.planning.value_forms import lower_case_lists


def test_examples_after_a_colon() -> None:
    assert allowed_values("The band style. E.g: Jazz Trio, String Quartet, etc.")[0] == (
        "Jazz Trio", "String Quartet")


def test_a_place_with_its_region_is_one_example_two_kinds_are_two() -> None:
    assert allowed_values("Kind of food, e.g. Thai, Greek etc.")[0] == ("Thai", "Greek")
    assert allowed_values("City and state, e.g. Austin, TX")[0] == ("Austin, TX",)
    assert allowed_values("City and country, e.g. Lyon, France")[0] == ("Lyon, France",)
    assert allowed_values("Where, e.g. Salem, OR, written as City, State.")[0][0] == (
        "Salem, OR")
    assert allowed_values("Codes, e.g. US, GB, FR")[0] == ("US", "GB", "FR")


def _one(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    return bind_schema(text, schema, segment=0).sets[0]


BASES = {"type": "object", "properties": {
    "length": {"type": "integer", "description": "How many bases."},
    "favoured": {"type": "array", "description": "Bases to favour.",
                 "items": {"type": "string", "enum": ["A", "C", "G", "T"]}},
}, "required": ["length"]}


def test_one_letter_is_said_as_written() -> None:
    assert _one("Make a strand of 40 bases rich in T and C", BASES)["favoured"] == ["T", "C"]


def test_a_rate_is_one_item_of_a_list() -> None:
    lists = lower_case_lists("show rebounds per game, steals and turnovers per game")
    assert ["rebounds per game", "steals", "turnovers per game"] in lists


def _far_from_everything(query: str, phrases: Any) -> list[float]:
    """Test-only similarity: every phrase is near enough."""
    return [0.9 for _ in phrases]


GAME = {"type": "object", "properties": {
    "team": {"type": "string", "description": "The team."},
    "date": {"type": "string", "description": "When the game was played."},
}, "required": ["team", "date"]}


def test_a_date_takes_no_phrase_by_meaning() -> None:
    binding = bind_schema("the Hawks game stats with minutes played", GAME,
                          similarity=_far_from_everything, segment=0)
    assert "date" in binding.missing


LAWYERS = {"type": "object", "properties": {
    "location": {"type": "string", "description": "City."},
    "specialization": {"type": "array", "items": {"type": "string"},
                       "description": "Areas of law."},
}, "required": ["location", "specialization"]}


def test_a_required_array_after_a_word_of_its_family() -> None:
    values = _one("Find attorneys specialized in tax law near me in Denver", LAWYERS)
    assert values["specialization"] == ["tax law"]


PARTICLE = {"type": "object", "properties": {
    "particle": {"type": "string", "description": "The particle, e.g. Electron, Proton"},
}, "required": ["particle"]}


def test_an_example_said_in_a_list_is_one_of_its_items() -> None:
    sets = bind_schema("the mass of Muon and Electron", PARTICLE).sets
    assert [s["particle"] for s in sets] == ["Muon", "Electron"]
    assert _one("the mass of an Electron", PARTICLE)["particle"] == "Electron"
