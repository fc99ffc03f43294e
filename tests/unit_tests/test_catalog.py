import json
import re
from pathlib import Path

import pytest

from stores.catalog.model import CALL_NAME_PATTERN, Catalog, CatalogError, call_name_for

GOOD_SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def write(tmp_path: Path, document: object, name: str = "catalog.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document, ensure_ascii=False, indent=1))
    return path


def test_loads_format_md_catalog(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        {
            "agents": [{"id": "osm", "name": "OSM", "description": "maps"}],
            "tools": [
                {
                    "id": "osm/geocode",
                    "name": "geocode",
                    "description": "Find a place.",
                    "input_schema": GOOD_SCHEMA,
                    "agent": "osm",
                    "environment": "test",
                    "side_effect": False,
                    "entity_tags": ["place"],
                }
            ],
        },
    )
    catalog = Catalog.from_file(path)
    tool = catalog.tools["osm/geocode"]
    assert tool.agent == "osm" and tool.environment == "test" and tool.entity_tags == ["place"]
    assert catalog.agents["osm"].description == "maps"
    assert catalog.quarantined == []


def test_yaml_catalog(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "tools:\n  - name: ping\n    agent: net\n    input_schema: {type: object, properties: {}}\n"
    )
    catalog = Catalog.from_file(path)
    assert list(catalog.tools) == ["net/ping"]


def test_bad_tools_are_quarantined_and_the_rest_loads(tmp_path: Path) -> None:
    document = {
        "tools": [
            {"name": "ok", "agent": "a", "input_schema": GOOD_SCHEMA},
            {"agent": "a", "input_schema": GOOD_SCHEMA},
            {"name": "arr", "agent": "a", "input_schema": {"type": "array"}},
            {"name": "noschema", "agent": "a"},
            {
                "name": "badtype",
                "agent": "a",
                "input_schema": {"type": "object", "properties": {"x": {"type": "nonsense"}}},
            },
            {"name": "orphan", "input_schema": GOOD_SCHEMA},
            {"id": "b/x", "name": "y", "agent": "b", "input_schema": GOOD_SCHEMA},
            {"name": "env", "agent": "a", "input_schema": GOOD_SCHEMA, "environment": "moon"},
            "not an object",
        ]
    }
    catalog = Catalog.from_file(write(tmp_path, document))
    assert list(catalog.tools) == ["a/ok"]
    reasons = {q.field: q for q in catalog.quarantined}
    assert len(catalog.quarantined) == 8
    assert "name" in reasons and "agent" in reasons and "id" in reasons and "environment" in reasons
    for q in catalog.quarantined:
        assert "catalog.json" in q.source and "tools[" in q.source
    arr = next(q for q in catalog.quarantined if q.tool == "arr")
    assert arr.field == "input_schema" and "'object'" in arr.reason and "line" in arr.source
    bad = next(q for q in catalog.quarantined if q.tool == "badtype")
    assert "properties/x/type" in bad.reason


def test_undecodable_text_quarantines_only_that_tool(tmp_path: Path) -> None:
    good = json.dumps({"name": "ok", "agent": "a", "input_schema": GOOD_SCHEMA}).encode()
    bad = (
        b'{"name": "bad", "agent": "a", "description": "caf\xe9", '
        b'"input_schema": {"type": "object"}}'
    )
    path = tmp_path / "c.json"
    path.write_bytes(b'{"tools": [' + good + b", " + bad + b"]}")
    catalog = Catalog.from_file(path)
    assert list(catalog.tools) == ["a/ok"]
    assert catalog.quarantined[0].field == "description"
    assert "UTF-8" in catalog.quarantined[0].reason


def test_same_name_other_agents_stay_distinct_and_duplicates_never_overwrite(
    tmp_path: Path,
) -> None:
    document = {
        "tools": [
            {
                "name": "create_order",
                "agent": "shop",
                "description": "first",
                "input_schema": GOOD_SCHEMA,
            },
            {"name": "create_order", "agent": "legacy", "input_schema": GOOD_SCHEMA},
            {
                "name": "create_order",
                "agent": "shop",
                "description": "second",
                "input_schema": GOOD_SCHEMA,
            },
        ]
    }
    catalog = Catalog.from_file(write(tmp_path, document))
    assert set(catalog.tools) == {"shop/create_order", "legacy/create_order"}
    assert catalog.tools["shop/create_order"].description == "first"
    assert catalog.quarantined[0].field == "id" and "duplicate" in catalog.quarantined[0].reason
    names = {t.call_name for t in catalog.tools.values()}
    assert len(names) == 2


def test_call_names_are_safe_unique_and_map_back() -> None:
    ids = [
        "scoring_tables_api//marks/women/{points}",
        "café/naïve tool",
        "a/" + "x" * 100,
        "a b/c",
        "a_b/c",
        "日本/検索",
    ]
    catalog = Catalog()
    for tool_id in ids:
        agent, name = tool_id.split("/", 1)
        catalog.add_raw_tool(
            {"id": tool_id, "name": name, "agent": agent, "input_schema": GOOD_SCHEMA}, source="t"
        )
    names = [catalog.tools[i].call_name for i in ids]
    assert all(CALL_NAME_PATTERN.match(n) for n in names)
    assert len(set(names)) == len(ids)
    for tool_id, name in zip(ids, names, strict=True):
        assert catalog.tool_by_call_name(name).id == tool_id
    assert call_name_for("shop/create_order") == "shop__create_order"


def test_long_descriptions_are_truncated_for_indexing_and_flagged(tmp_path: Path) -> None:
    catalog = Catalog.from_file(
        write(
            tmp_path,
            {
                "tools": [
                    {
                        "name": "big",
                        "agent": "a",
                        "description": "word " * 2000,
                        "input_schema": GOOD_SCHEMA,
                    }
                ]
            },
        )
    )
    tool = catalog.tools["a/big"]
    assert "description_truncated" in tool.flags
    assert len(tool.indexed_description()) == 2000


def test_control_and_bidi_characters_are_escaped() -> None:
    catalog = Catalog()
    spec = catalog.add_raw_tool(
        {
            "name": "t",
            "agent": "a",
            "description": "ok\x00 \u202eevil",
            "input_schema": GOOD_SCHEMA,
        },
        source="t",
    )
    assert spec is not None
    assert "\x00" not in spec.description and "\u202e" not in spec.description
    assert "description_sanitized" in spec.flags


def test_content_hash_changes_with_indexed_fields_only(tmp_path: Path) -> None:
    catalog = Catalog()
    spec = catalog.add_raw_tool(
        {"name": "t", "agent": "a", "description": "d", "input_schema": GOOD_SCHEMA}, source="t"
    )
    assert spec is not None
    before = spec.content_hash()
    spec.source = "elsewhere"
    assert spec.content_hash() == before
    spec.description = "changed"
    assert spec.content_hash() != before


def test_unreadable_catalog_raises_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="not valid JSON"):
        bad = tmp_path / "x.json"
        bad.write_text("{oops")
        Catalog.from_file(bad)
    with pytest.raises(CatalogError, match="cannot read"):
        Catalog.from_file(tmp_path / "missing.json")
    with pytest.raises(CatalogError, match="'tools' list"):
        Catalog.from_file(write(tmp_path, {"tools": "nope"}))


def test_register_python_function_and_langchain_tool() -> None:
    from langchain_core.tools import tool

    def create_order(user_id: int, quantity: int = 1) -> dict[str, int]:
        """Create an order for a user."""
        return {"order_id": 1}

    @tool
    def lookup_user(account_number: str) -> str:
        """Look up a user by account number."""
        return "u1"

    catalog = Catalog()
    spec = catalog.register_function(create_order, agent="shop", side_effect=True)
    assert spec.id == "shop/create_order"
    assert spec.input_schema["required"] == ["user_id"]
    assert spec.input_schema["properties"]["user_id"]["type"] == "integer"
    assert spec.description.startswith("Create an order")
    assert catalog.implementations["shop/create_order"] is create_order
    lc = catalog.register_langchain_tool(lookup_user, agent="crm")
    assert lc.input_schema["properties"]["account_number"]["type"] == "string"
    with pytest.raises(CatalogError, match="duplicate"):
        catalog.register_function(create_order, agent="shop")


def test_dev_catalog_loads_completely() -> None:
    path = Path(__file__).resolve().parents[2] / "bench/data/stabletoolbench/catalog.json"
    catalog = Catalog.from_file(path)
    assert len(catalog.tools) + len(catalog.quarantined) == 2490
    assert len(catalog.tools) >= 2480
    assert all(re.match(r"^[A-Za-z0-9_-]{1,64}$", t.call_name) for t in catalog.tools.values())


def test_validation_never_rewrites_a_tool_schema() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    catalog = Catalog()
    spec = catalog.add_raw_tool({"name": "t", "agent": "a", "input_schema": schema}, source="t")
    assert spec is not None
    assert spec.input_schema == {"type": "object", "properties": {"q": {"type": "string"}}}
