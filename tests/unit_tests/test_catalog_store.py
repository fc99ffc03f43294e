"""The SQLite catalog store: a faithful round trip, and saves that write only what changed."""

from pathlib import Path

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
