"""Faults found on requests written by someone else (two sets of 70 requests, one tool each).

Each case is said here in our own words: a value the request holds went to the wrong
parameter or to none, a span was cut wrong, a clause made a call of its own, or the gate
refused a tool whose values the request gives in forms only that tool's parameters take.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from nodes.planning.eligibility import tells_its_values
from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema
from nodes.planning.telling_values import telling_values
from stores.catalog.model import Catalog, ToolSpec
from stores.language.entities import extract_entities


def _schema(props: dict[str, Any], required: Sequence[str] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


def _read(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    binding = bind_schema(text, schema, segment=0, read_only=True)
    assert len(binding.sets) == 1
    return binding.sets[0]


# ----------------------------------------------------------------------------- the binder
def test_codes_after_from_and_to_are_the_route_ends() -> None:
    schema = _schema({
        "origin_zip": {"type": "string", "description": "Origin postal code"},
        "destination_zip": {"type": "string", "description": "Destination postal code"},
        "weight_lbs": {"type": "number", "description": "Parcel weight in pounds"},
    }, ["origin_zip", "destination_zip", "weight_lbs"])
    args = _read("what does a 3 lb parcel cost from 60601 to 30301 express?", schema)
    assert (args["origin_zip"], args["destination_zip"]) == ("60601", "30301")


def test_a_duration_is_written_as_the_examples_write_one() -> None:
    schema = _schema({
        "query": {"type": "string", "description": "Text to search for"},
        "since": {"type": "string", "description": "How far back to look, e.g. '30m', '6h', '2d'"},
        "limit": {"type": "integer", "description": "Maximum number of lines", "default": 50},
    }, ["query"])
    args = _read("search the audit log for 'denied' over the last 6 hours", schema)
    assert args.get("since") == "6h"
    assert "limit" not in args  # "the last 6 hours" is a window, no count of lines


def test_a_flag_said_as_its_description_says_it() -> None:
    schema = _schema({
        "document": {"type": "string", "description": "Path to the file"},
        "duplex": {"type": "boolean", "description": "Print double-sided", "default": False},
        "color": {"type": "boolean",
                  "description": "Print in colour; false for black and white", "default": True},
    }, ["document"])
    args = _read("print /srv/minutes.pdf double sided in black and white", schema)
    assert args["duplex"] is True and args["color"] is False
    assert _read("print /srv/minutes.pdf, no double sided", schema).get("duplex") is False


def test_a_number_after_top_is_how_many_results() -> None:
    schema = _schema({
        "q": {"type": "string", "description": "Search query"},
        "num_results": {"type": "integer", "description": "Number of results", "default": 10},
    }, ["q"])
    assert _read('look up "sourdough starter ratios", the top 3', schema)["num_results"] == 3


def test_a_description_opening_with_its_unit_measures_the_value() -> None:
    schema = _schema({
        "service": {"type": "string", "description": "Service name"},
        "grace": {"type": "integer", "description": "Seconds to wait before a forced stop"},
    }, ["service"])
    args = _read("stop service billing-worker, allow it twenty seconds", schema)
    assert args.get("grace") == 20


def test_an_allowed_value_written_short_is_named_by_its_word() -> None:
    schema = _schema({
        "station": {"type": "string", "description": "Station identifier"},
        "agg": {"type": "string", "enum": ["raw", "avg", "min", "max"]},
    }, ["station"])
    assert _read("the maximum wind speed at station KSEA-7", schema)["agg"] == "max"


def test_names_joined_by_slashes_fill_text_parameters() -> None:
    schema = _schema({
        "project": {"type": "string", "description": "Project slug, e.g. 'team/app'"},
        "ref": {"type": "string", "description": "Branch or tag to build"},
    }, ["project", "ref"])
    args = _read("build infra/api-gateway on branch hotfix/3.1", schema)
    assert args == {"project": "infra/api-gateway", "ref": "hotfix/3.1"}


def test_pairs_fill_an_object_of_free_keys() -> None:
    schema = _schema({
        "job": {"type": "string", "description": "Job name"},
        "variables": {"type": "object", "description": "Variables as key/value pairs"},
    }, ["job"])
    args = _read("run the job nightly-export with REGION=eu and DRY_RUN=1", schema)
    assert args["variables"] == {"REGION": "eu", "DRY_RUN": 1}


# ------------------------------------------------------------------------------ the spans
def test_a_street_named_by_an_ordinal_is_one_address() -> None:
    spans = extract_spans("a cab from 220 3rd St, Oakland, CA to the airport")
    assert ("name", "220 3rd St, Oakland, CA") in [(s.kind, s.text) for s in spans]


def test_interjections_and_contractions_are_no_names() -> None:
    texts = [s.text for s in extract_spans("Oh and copy my manager, Dana. I'll do the rest.")]
    assert "Oh" not in texts and "I'll" not in texts and "Dana" in texts
    assert "Hey Jude" in [s.text for s in extract_spans("play Hey Jude by the Beatles")]


def test_a_place_after_in_stops_at_its_capitals() -> None:
    entities = extract_entities("Will it snow in Oslo over the weekend?")
    assert entities["named"].get("city") == "Oslo"


# -------------------------------------------------------------------------------- the gate
def _spec(name: str, description: str, schema: dict[str, Any]) -> ToolSpec:
    return Catalog().add_raw_tool(
        {"name": name, "agent": "a", "description": description, "input_schema": schema,
         "side_effect": False},
        source="test",
    )


class _SameEmbedder:
    """Every text one vector: the meaning test passes, the values decide."""

    name = "same-test-embedder"
    dim = 2

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.tile(np.array([1.0, 0.0], dtype=np.float32), (len(texts), 1))


class _ApartEmbedder:
    """Every text its own direction: no meaning is shared."""

    name = "apart-test-embedder"
    dim = 1024

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            rng = np.random.default_rng(zlib.crc32(text.encode()))
            row = rng.standard_normal(self.dim).astype(np.float32)
            rows.append(row / np.linalg.norm(row))
        return np.stack(rows)


_STOCK = _spec("inventory.on_hand", "Returns on-hand quantities for a SKU.", _schema({
    "sku": {"type": "string", "description": "Stock keeping unit code"},
    "site_id": {"type": "string", "description": "Restrict to one site"},
}, ["sku"]))


def test_an_identifier_for_an_identifier_parameter_tells_the_tool() -> None:
    text = "how many units of KB-4410-RED are left at SITE-2?"
    read = bind_schema(text, _STOCK.input_schema, segment=0, read_only=True)
    assert set(telling_values(text, _STOCK.input_schema, read)) == {"sku", "site_id"}
    assert tells_its_values(text, _STOCK, _SameEmbedder())  # type: ignore[arg-type]
    # Meaning nowhere near the tool's: the values alone do not admit it.
    assert not tells_its_values(text, _STOCK, _ApartEmbedder())  # type: ignore[arg-type]


def test_names_numbers_and_quoted_names_tell_nothing() -> None:
    game = _spec("game.items", "Collectable items of a game.", _schema({
        "game_name": {"type": "string", "description": "Name of the game"},
        "season": {"type": "string", "description": "Season"},
    }, ["game_name"]))
    text = "the best score in 'Tetris' on the arcade in Asia"
    read = bind_schema(text, game.input_schema, segment=0, read_only=True)
    assert telling_values(text, game.input_schema, read) == []
    assert not tells_its_values(text, game, _SameEmbedder())  # type: ignore[arg-type]


def test_an_identifier_of_something_else_and_a_quoted_title_tell_nothing() -> None:
    titles = _spec("titles.get", "Details of a title.", _schema({
        "id": {"type": "string", "description": "Title identifier"},
    }, ["id"]))
    text = "where is my parcel CA107308006SI right now?"
    read = bind_schema(text, titles.input_schema, segment=0, read_only=True)
    assert telling_values(text, titles.input_schema, read) == []
    search = _spec("movies.search", "Search movies.", _schema({
        "query": {"type": "string", "description": "Search terms"},
    }, ["query"]))
    text = "movies like 'Heat', please"
    read = bind_schema(text, search.input_schema, segment=0, read_only=True)
    assert telling_values(text, search.input_schema, read) == []


def test_the_word_before_a_required_parameters_name_names_it() -> None:
    schema = _schema({
        "table": {"type": "string", "description": "Table name"},
        "order_by": {"type": "string", "description": "Column to sort by"},
    }, ["table"])
    assert _read("the latest rows of the invoices table, sorted by issued_at", schema) == {
        "table": "invoices", "order_by": "issued_at"}
    game = _schema({"game": {"type": "string", "description": "Name of the game"}}, ["game"])
    assert _read("the best score in the online game Overwatch", game) == {"game": "Overwatch"}


def test_a_name_after_by_is_who_made_it() -> None:
    schema = _schema({
        "track": {"type": "string", "description": "Track title"},
        "device": {"type": "string", "description": "Speaker to play on"},
        "artist": {"type": "string", "description": "Artist name"},
    }, ["track"])
    args = _read("play Wonderwall by Oasis", schema)
    assert args.get("artist") == "Oasis" and "device" not in args


def test_a_hyphenated_header_is_one_pair_and_no_body() -> None:
    schema = _schema({
        "url": {"type": "string", "description": "Full URL"},
        "headers": {"type": "object", "description": "Request headers as key-value pairs"},
        "body": {"type": "string", "description": "Raw request body"},
    }, ["url"])
    args = _read("GET https://status.example.org/ping with header X-Trace-Id: t42", schema)
    assert args["headers"] == {"X-Trace-Id": "t42"} and "body" not in args


def test_number_words_with_a_measure_are_values() -> None:
    volume = _schema({"level": {"type": "integer",
                                "description": "Volume level as a percentage from 0 to 100"}},
                     ["level"])
    assert _read("bring the volume down to forty percent", volume) == {"level": 40}
    convert = _schema({
        "value": {"type": "number", "description": "The numeric value to convert"},
        "from_unit": {"type": "string", "description": "Unit of the input, e.g. 'mi', 'kg'"},
        "to_unit": {"type": "string", "description": "Unit to convert to"},
    }, ["value", "from_unit", "to_unit"])
    assert _read("convert three and a half miles to km", convert)["value"] == 3.5


def test_a_reminders_text_leaves_its_delay_out() -> None:
    schema = _schema({
        "message": {"type": "string", "description": "What to remind the user about"},
        "delay_minutes": {"type": "integer", "description": "Minutes from now until it fires"},
    }, ["message", "delay_minutes"])
    assert _read("remind me to feed the cat in 20 minutes", schema) == {
        "message": "feed the cat", "delay_minutes": 20}


def test_titles_keep_their_number_and_their_subtitle() -> None:
    texts = [s.text for s in extract_spans("when is Toy Story 4 showing near Boston")]
    assert "Toy Story 4" in texts
    texts = [s.text for s in extract_spans("two seats for Star Wars: A New Hope at the Rex")]
    assert "Star Wars: A New Hope" in texts
    texts = [s.text for s in extract_spans("Tell Sarah: Meeting moved")]
    assert "Sarah" in texts


def test_a_day_and_a_time_said_apart_make_one_datetime() -> None:
    schema = _schema({
        "movie": {"type": "string", "description": "Title of the movie"},
        "showtime": {"type": "string",
                     "description": "Start time in ISO 8601, e.g. 2024-03-09T19:30"},
    }, ["movie", "showtime"])
    args = _read("book the 9:15pm show of Heat on March 2 2025", schema)
    assert args["showtime"] == "2025-03-02T21:15:00"


def test_a_name_written_as_one_token_ends_with_it() -> None:
    schema = _schema({
        "branch_name": {"type": "string", "description": "Name of the new branch"},
    }, ["branch_name"])
    args = _read("create a branch called release/7.2 from main, but stay where I am", schema)
    assert args == {"branch_name": "release/7.2"}


def test_a_flag_said_negated_is_off() -> None:
    schema = _schema({
        "event_id": {"type": "string", "description": "ID of the event"},
        "notifyGuests": {"type": "boolean", "description": "Email the guests", "default": True},
        "sendInvite": {"type": "boolean", "description": "Send a calendar invite"},
    }, ["event_id"])
    assert _read("drop event ev_77, no need to notify anybody", schema).get(
        "notifyGuests") is False
    assert _read("move event ev_77 and send no invite", schema).get("sendInvite") is False
    assert _read("move event ev_77 and send the invite", schema).get("sendInvite") is True


def test_a_language_code_is_kept_not_read_as_a_languages_name() -> None:
    schema = _schema({
        "text": {"type": "string", "description": "The text to translate"},
        "target": {"type": "string", "description": "Target language code (ISO 639-1)"},
    }, ["text", "target"])
    assert _read("translate 'buenas noches' to English", schema)["target"] == "en"


def test_decimals_and_money_said_in_words() -> None:
    spans = [(s.kind, s.value) for s in extract_spans(
        "borrow thirty-two thousand dollars at five point seven five percent")]
    assert ("money", 32000) in spans and ("number", 5.75) in spans


def test_a_season_and_a_handle_are_one_value_each() -> None:
    spans = [(s.kind, s.text) for s in extract_spans(
        "stats of gamer tag zzNightOwlzz for the 2022-23 season")]
    assert ("identifier", "2022-23") in spans and ("name", "zzNightOwlzz") in spans


def test_the_word_before_a_time_is_no_time() -> None:
    schema = _schema({
        "source_timezone": {"type": "string", "description": "Source IANA timezone name"},
        "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
    }, ["source_timezone", "time"])
    assert "time" not in _read("the local time in Mumbai", schema)
