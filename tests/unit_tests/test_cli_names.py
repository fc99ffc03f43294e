"""`zspace index --name` end to end: search, run and resume use that index and its catalog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import graph.cli as cli
import graph.deps as deps_module
from tests.fakes import HashingEmbedder

SHOP = {
    "agents": [{"id": "shop", "name": "shop", "description": "orders"}],
    "tools": [
        {"name": "list_orders", "agent": "shop", "description": "list the orders of the shop",
         "side_effect": False, "input_schema": {"type": "object", "properties": {}}},
    ],
}
WEATHER = {
    "agents": [{"id": "weather", "name": "weather", "description": "forecasts"}],
    "tools": [
        {"name": "get_forecast", "agent": "weather", "description": "weather forecast for a city",
         "side_effect": False,
         "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"]}},
    ],
}


def last_json(out: str) -> Any:
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("ZSPACE_INDEX", raising=False)
    monkeypatch.delenv("ZSPACE_POSTGRES_URL", raising=False)
    monkeypatch.setattr(deps_module, "configured_embedder", HashingEmbedder)
    for name, document in (("shop.json", SHOP), ("weather.json", WEATHER)):
        (tmp_path / name).write_text(json.dumps(document))
    return tmp_path


def test_a_named_index_keeps_its_own_catalog_for_search_and_run(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli.main(["index", str(home / "shop.json"), "--json"]) == 0
    assert cli.main(["index", str(home / "weather.json"), "--name", "wx", "--json"]) == 0
    capsys.readouterr()

    assert cli.main(["search", "forecast", "--name", "wx", "--json"]) == 0
    assert [t["tool_id"] for t in last_json(capsys.readouterr().out)["tools"]] == [
        "weather/get_forecast"
    ]
    assert cli.main(["search", "orders", "--json"]) == 0
    assert [t["tool_id"] for t in last_json(capsys.readouterr().out)["tools"]] == [
        "shop/list_orders"
    ]

    # Indexing "wx" once replaced the one catalog every run read: the default index's
    # tools were then missing from it and the run found "no suitable tool".
    cli.main(["run", "list the orders of the shop", "--json"])
    assert "shop/list_orders" in last_json(capsys.readouterr().out)["answer"]

    assert cli.main(["run", "get the weather forecast", "--name", "wx", "--json"]) == 3
    assert last_json(capsys.readouterr().out)["interrupt"]["tool_id"] == "weather/get_forecast"

    monkeypatch.setenv("ZSPACE_INDEX", "wx")
    assert cli.main(["search", "forecast", "--json"]) == 0
    assert last_json(capsys.readouterr().out)["tools"][0]["tool_id"] == "weather/get_forecast"


def test_a_name_never_indexed_is_a_one_line_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["index", str(home / "shop.json"), "--json"]) == 0
    capsys.readouterr()
    assert cli.main(["run", "list the orders", "--name", "nope"]) == 2
    err = capsys.readouterr().err
    assert "no catalog indexed under the name 'nope'" in err
    assert "zspace index CATALOG --name nope" in err


def test_an_older_home_with_catalog_json_is_migrated(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["index", str(home / "shop.json"), "--json"]) == 0
    capsys.readouterr()
    zhome = home / "home"
    (zhome / "catalog.sqlite").unlink()
    for suffix in ("-wal", "-shm"):
        (zhome / f"catalog.sqlite{suffix}").unlink(missing_ok=True)
    (zhome / "catalog.json").write_text(json.dumps(SHOP))
    cli.main(["run", "list the orders of the shop", "--json"])
    assert "shop/list_orders" in last_json(capsys.readouterr().out)["answer"]
    assert (zhome / "catalog.json.migrated").is_file()
    assert (zhome / "catalog.sqlite").is_file()
