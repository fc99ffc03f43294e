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
from nodes.planning.schema_binder import bind_schema, name_words
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


HERD = {"type": "object", "properties": {
    "animal": {"type": "string",
               "description": "The animal whose headcount is to be projected."},
    "region": {"type": "string", "description": "Region."},
}, "required": ["animal", "region"]}


def test_what_the_tools_own_thing_is_of() -> None:
    # For ``project_headcount``: "headcount" is its own thing, the animal what it is of.
    values = bind_schema("Project the headcount of wolves in the wild in Norway", HERD,
                         exclude=name_words("project_headcount"), segment=0).sets[0]
    assert values["animal"] == "wolves"
    # A noun that is no word of the tool's name is part of the value, not its cue.
    theory = bind_schema("Project the headcount of wolves in the wild in Norway", HERD,
                         exclude=name_words("estimate_population"), segment=0)
    assert "animal" in theory.missing


TREES = {"type": "object", "properties": {
    "soil_type": {"type": "string", "description": "The type of soil like sandy, loam etc."},
    "num_results": {"type": "integer", "description": "The number of top results needed."},
}, "required": ["soil_type", "num_results"]}


def test_the_word_before_the_name_and_a_count_of_the_tools_own_things() -> None:
    # "a clay soil in terms of shade": the soil's kind is said before "soil", not after
    # "in"; "four trees" counts the results of ``get_trees_for_soil``.
    values = bind_schema("Which are the top four trees for a clay soil in terms of shade?",
                         TREES, exclude=name_words("get_trees_for_soil"), segment=0).sets[0]
    assert values == {"soil_type": "clay", "num_results": 4}


EMISSIONS = {"type": "object", "properties": {
    "km": {"type": "integer", "description": "Distance driven in km."},
    "engine_type": {"type": "string", "description": "What the engine runs on."},
}, "required": ["km", "engine_type"]}


def test_what_is_asked_is_no_input_and_a_powered_kind_is_what_it_runs_on() -> None:
    # "How much NOx": what the call answers; "a diesel-powered truck": the engine's kind.
    def near_powered(query: str, phrases: Any) -> list[float]:
        """Test-only similarity: a phrase with "powered" is near, the rest far."""
        return [0.9 if "powered" in p else 0.1 for p in phrases]

    values = bind_schema("How much NOx does a diesel-powered truck emit over 800 km?",
                         EMISSIONS, similarity=near_powered, segment=0).sets[0]
    assert values == {"km": 800, "engine_type": "diesel"}


def test_a_unit_read_into_its_number_is_no_name() -> None:
    from nodes.planning.request_spans import extract_spans

    assert [s.kind for s in extract_spans("a range of 40 MPG ?")] == ["number"]


SHAPE = {"type": "object", "properties": {
    "side": {"type": "integer", "description": "Side of the square."},
    "fill": {"type": "string", "description": "Fill of the square. Default is 'white'."},
}, "required": ["side"]}


def _kinds(query: str, phrases: Any) -> list[float]:
    """Test-only similarity: colours near each other, every other word far."""
    colours = {"white", "green", "blue"}
    return [0.8 if query in colours and p in colours else 0.1 for p in phrases]


def test_an_optional_value_of_the_kind_its_default_shows() -> None:
    values = bind_schema("Paint a square with a side of 4 in green", SHAPE,
                         similarity=_kinds, segment=0).sets[0]
    assert values == {"side": 4, "fill": "green"}
    plain = bind_schema("Paint a square with a side of 4 please", SHAPE,
                        similarity=_kinds, segment=0).sets[0]
    assert plain == {"side": 4}


def test_the_default_said_in_another_form_is_the_default() -> None:
    scope = {"type": "object", "properties": {
        "game": {"type": "string", "description": "The game."},
        "scope": {"type": "string", "description": "Where. Default is 'Worldwide'."},
    }, "required": ["game"]}

    def near(query: str, phrases: Any) -> list[float]:
        """Test-only similarity: 'worldwidely' is near the default, the rest far."""
        return [0.9 if p == "worldwidely" else 0.1 for p in phrases]

    values = bind_schema("the top score in 'Tetris' worldwidely", scope, similarity=near,
                         segment=0).sets[0]
    assert values == {"game": "Tetris", "scope": "Worldwide"}


def test_a_count_of_calls_is_no_count_of_results() -> None:
    schema = {"type": "object", "properties": {
        "values": {"type": "array", "items": {"type": "integer"}, "description": "Data."},
        "bins": {"type": "integer", "description": "The number of bins."},
    }, "required": ["values"]}
    values = bind_schema("Draw two charts of [4, 8, 9] and [1, 2, 3]", schema,
                         exclude=name_words("draw_chart"), segment=0).sets[0]
    assert "bins" not in values


def test_a_city_said_in_lower_case_is_written_as_the_description_asks() -> None:
    from stores.language.codes import value_as_described

    described = "The city and state, such as 'Dallas, TX'."
    assert value_as_described("seattle", described) == "Seattle, WA"
    assert value_as_described("the", described) is None

    def near_city(query: str, phrases: Any) -> list[float]:
        """Test-only similarity: 'seattle' is near the location, the rest far."""
        return [0.9 if p == "seattle" else 0.0 for p in phrases]

    schema = {"type": "object", "properties": {
        "location": {"type": "string", "description": described},
    }, "required": ["location"]}
    sets = bind_schema("forecast for seattle", schema, similarity=near_city, segment=0).sets
    assert sets[0]["location"] == "Seattle, WA"


def test_a_unit_parameter_takes_a_units_name_only() -> None:
    schema = {"type": "object", "properties": {
        "formula": {"type": "string", "description": "The formula of the compound."},
        "to_unit": {"type": "string", "description": "The unit of the result."},
    }, "required": ["formula", "to_unit"]}
    values = _one("The molar mass of NaCl (Salt) in 'kilograms/mole'", schema)
    assert values["to_unit"] == "kilograms/mole"


def test_a_formatted_date_takes_no_name() -> None:
    schema = {"type": "object", "properties": {
        "company": {"type": "string", "description": "Name of the company."},
        "date": {"type": "string", "description": "The day. Format: yyyy-mm-dd."},
    }, "required": ["company", "date"]}
    binding = bind_schema("the price of a Gibson Les Paul in Cherry Sunburst", schema,
                          segment=0)
    assert "date" in binding.missing


def test_a_zone_said_by_its_name_stays_that_zone() -> None:
    from stores.language.codes import value_as_described

    described = "IANA timezone name (e.g., 'Asia/Tokyo'). Use 'UTC' if none is given."
    assert value_as_described("UTC", described) is None  # no town called UTC
    assert value_as_described("Lisbon", described) == "Europe/Lisbon"


def test_a_country_tzdata_keeps_as_an_alias_is_still_a_place() -> None:
    from stores.language.codes import value_as_described

    described = "IANA timezone name (e.g., 'Asia/Tokyo'). Use 'UTC' if none is given."
    assert value_as_described("Japan", described) == "Asia/Tokyo"
    assert value_as_described("GMT", described) is None
