"""Catalog fuzzing: broken schemas, odd text, duplicates, thousands of tools never crash loading."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stores.catalog.model import Catalog

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True),
                      st.text(max_size=20))
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12,
)
odd_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1,
            max_size=3),  # lone surrogates: undecodable input
    st.sampled_from(["\x00nul", "bidi\u202eevil", "ctl\x07", "ok_name", "", " "]),
    st.builds(lambda n: "d" * n, st.integers(0, 50_000)),
)
schema = st.one_of(
    json_value,
    st.fixed_dictionaries({"type": st.just("object"),
                           "properties": st.dictionaries(st.text(max_size=8), json_value,
                                                         max_size=3)}),
    st.just({"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}),
    st.just({"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}}),
    st.just({"type": "object", "required": "x"}),
)
raw_tool = st.one_of(
    json_value,
    st.fixed_dictionaries(
        {"name": odd_text, "agent": st.one_of(odd_text, st.just("a")), "input_schema": schema},
        optional={"description": st.one_of(odd_text, json_value),
                  "environment": st.one_of(st.sampled_from(["test", "prod", "moon"]), json_value),
                  "side_effect": json_value, "id": st.one_of(odd_text, json_value),
                  "entity_tags": json_value, "annotations": json_value},
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(raw_tool, max_size=8))
def test_any_document_loads_and_bad_tools_are_quarantined_with_a_reason(
    tools: list[Any],
) -> None:
    catalog = Catalog()
    catalog.load_document({"tools": tools}, source="fuzz")
    assert len(catalog.tools) + len(catalog.quarantined) == len(tools)
    assert all(q.reason and q.field for q in catalog.quarantined)
    json.dumps(catalog.to_document(), ensure_ascii=False).encode("utf-8")  # serializable


def test_duplicates_are_quarantined_never_overwritten() -> None:
    tool = {"name": "t", "agent": "a", "description": "first", "input_schema": {"type": "object"}}
    catalog = Catalog()
    catalog.load_document({"tools": [tool, {**tool, "description": "second"}]}, source="dup")
    assert catalog.tools["a/t"].description == "first"
    assert "duplicate id" in catalog.quarantined[0].reason


def test_non_utf8_file_quarantines_only_the_bad_tool(tmp_path: Path) -> None:
    good = b'{"name": "good", "agent": "a", "input_schema": {"type": "object"}}'
    bad = b'{"name": "caf\xe9", "agent": "a", "input_schema": {"type": "object"}}'
    path = tmp_path / "catalog.json"
    path.write_bytes(b'{"tools": [' + good + b", " + bad + b"]}")
    catalog = Catalog.from_file(path)
    assert list(catalog.tools) == ["a/good"]
    assert "UTF-8" in catalog.quarantined[0].reason


def test_thousands_of_tools_load_quickly() -> None:
    tools: list[Any] = []
    for n in range(5000):
        tools.append({"name": f"tool_{n}", "agent": f"agent_{n % 50}",
                      "description": "word " * (n % 300),
                      "input_schema": {"type": "object", "properties": {"x": {"type": "string"}}}
                      if n % 10 else {"type": "array"}})
    started = time.perf_counter()
    catalog = Catalog()
    catalog.load_document({"tools": tools}, source="many")
    assert len(catalog.tools) == 4500 and len(catalog.quarantined) == 500
    assert time.perf_counter() - started < 20
