"""The SQLite catalog store: a faithful round trip, and saves that write only what changed."""

import json
from pathlib import Path
from typing import Any

import pytest

import stores.catalog.enrich as enrich_module
import stores.catalog.model as model_module
from stores.catalog.enrich import enrich_catalog
from stores.catalog.model import Catalog
from stores.catalog.store import CatalogStore
from tests.unit_tests.test_index import make_catalog


def test_a_saved_catalog_loads_back_the_same(tmp_path: Path) -> None:
    catalog = make_catalog()
    store = CatalogStore(tmp_path / "catalog.sqlite")
    store.save("default", catalog)
    loaded = store.load("default")
    assert loaded is not None
    assert list(loaded.tools) == list(catalog.tools)
    assert list(loaded.agents) == list(catalog.agents)
    for tool_id, spec in catalog.tools.items():
        assert loaded.tools[tool_id].model_dump() == spec.model_dump()
        assert loaded.tool_by_call_name(spec.call_name).id == tool_id
    assert store.load("other") is None


def test_saves_write_only_the_rows_that_changed(tmp_path: Path) -> None:
    store = CatalogStore(tmp_path / "catalog.sqlite")
    catalog = make_catalog()
    first = store.save("default", catalog)
    assert first.written == len(catalog.tools) + len(catalog.agents)
    assert store.save("default", make_catalog()).written == 0
    changed = make_catalog()
    changed.tools["weather/get_forecast"].description = "a forecast"
    del changed.tools["shop/cancel_order"]
    report = store.save("default", changed)
    # The removed tool was the last of its agent's list: nothing after it moved.
    assert (report.written, report.deleted) == (1, 1)
    loaded = store.load("default")
    assert loaded is not None and "shop/cancel_order" not in loaded.tools
    assert loaded.tools["weather/get_forecast"].description == "a forecast"


def test_names_are_separate_and_an_agents_tools_can_be_read_back(tmp_path: Path) -> None:
    store = CatalogStore(tmp_path / "catalog.sqlite")
    store.save("default", make_catalog())
    store.save("other", Catalog())
    owner, tools = store.tools_of("default", "shop")
    assert owner is not None and owner.description == "orders and products"
    assert {spec.id for spec in tools} == {"shop/create_order", "shop/cancel_order"}
    assert store.tools_of("default", "nobody") == (None, [])


def test_an_unchanged_record_is_neither_validated_nor_enriched_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = {
        "tools": [
            {"name": "get_forecast", "agent": "weather", "description": "weather forecast",
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
            {"name": "list_orders", "agent": "shop", "description": "list the orders",
             "input_schema": {"type": "object", "properties": {}}},
        ]
    }
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(document))
    store = CatalogStore(tmp_path / "catalog.sqlite")
    first = Catalog()
    first.load_file(path, reuse=store.reusable("default", "f1"))
    enrich_catalog(first)
    store.save("default", first, "f1")

    validated: list[str] = []
    real_derive = enrich_module.derive_tags
    real_validate = model_module._validate_tool

    def counting_validate(raw: Any, source: str) -> Any:
        validated.append(raw["name"])
        return real_validate(raw, source)

    def no_derivation(*_: Any) -> Any:
        raise AssertionError("an unchanged tool must not be enriched again")

    monkeypatch.setattr(model_module, "_validate_tool", counting_validate)
    monkeypatch.setattr(enrich_module, "derive_tags", no_derivation)
    again = Catalog()
    again.load_file(path, reuse=store.reusable("default", "f1"))
    enrich_catalog(again)
    assert validated == []
    assert [s.model_dump() for s in again.tools.values()] == [
        s.model_dump() for s in first.tools.values()
    ]
    assert store.save("default", again, "f1").written == 0

    document["tools"][1]["description"] = "list every order"
    path.write_text(json.dumps(document))
    monkeypatch.setattr(enrich_module, "derive_tags", real_derive)
    changed = Catalog()
    changed.load_file(path, reuse=store.reusable("default", "f1"))
    enrich_catalog(changed)
    assert validated == ["list_orders"]
    assert store.save("default", changed, "f1").written == 1
    # Another enrichment fingerprint: nothing is offered for reuse.
    assert store.reusable("default", "f2") == {}
