"""A number said with the noun a count parameter counts is that count ("five prime numbers")."""

from __future__ import annotations

from typing import Any

from nodes.planning.request_spans import extract_spans
from nodes.planning.schema_binder import bind_schema


def schema(required: list[str], **properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def bind(text: str, tool: dict[str, Any]) -> list[dict[str, Any]]:
    return bind_schema(text, tool, spans=extract_spans(text)).sets


def test_the_counted_noun_of_the_description_is_a_counts_cue() -> None:
    tool = schema(["count"], count={"type": "integer", "description": "How many primes to list."})
    assert bind("Give me the first five prime numbers", tool) == [{"count": 5}]
    photos = schema(
        ["query"],
        query={"type": "string", "description": "What to search for."},
        limit={"type": "integer", "description": "The number of photos to return."},
    )
    assert bind("find 'sunset' pictures, about twelve photos would be great", photos) == [
        {"query": "sunset", "limit": 12}
    ]


def test_a_number_of_other_things_is_no_count() -> None:
    tool = schema(
        ["query"],
        query={"type": "string", "description": "What to search for."},
        limit={"type": "integer", "description": "The number of photos to return."},
    )
    assert bind("find 'two dogs' in the archive", tool) == [{"query": "two dogs"}]


def test_a_quoted_number_fills_a_numeric_parameter_as_a_number() -> None:
    tool = schema(
        ["zip", "days"],
        zip={"type": "integer", "description": "ZIP code of the place."},
        days={"type": "integer", "description": "Number of days to forecast."},
    )
    assert bind("Look up the weather for zip code '94110' for the next 3 days", tool) == [
        {"zip": 94110, "days": 3}
    ]
    ratio = schema(["ratio"], ratio={"type": "number", "description": "The ratio."})
    assert bind('use a ratio of "0.75"', ratio) == [{"ratio": 0.75}]
