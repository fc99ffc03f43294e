"""Repeated argument sets said as groups: each group of a numbered series is one call."""

from __future__ import annotations

from nodes.planning.schema_binder import bind_schema

SERIES = {
    "type": "object",
    "properties": {
        "value1": {"type": "integer", "description": "The first value"},
        "value2": {"type": "integer", "description": "The second value"},
    },
    "required": ["value1", "value2"],
}


def test_each_group_of_a_numbered_series_is_one_set() -> None:
    sets = bind_schema("Find the lowest common multiple of (6, 8) and (10, 4)", SERIES).sets
    assert sets == [{"value1": 6, "value2": 8}, {"value1": 10, "value2": 4}]


def test_one_group_is_one_set() -> None:
    assert bind_schema("Find the lowest common multiple of (6, 8)", SERIES).sets == [
        {"value1": 6, "value2": 8}
    ]
