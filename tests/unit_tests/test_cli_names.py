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


def test_index_progress_shows_rate_and_time_left_only_when_asked(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["index", str(home / "shop.json"), "--json"]) == 0
    assert "entry/s" not in capsys.readouterr().err  # not a terminal, not asked
    assert cli.main(["index", str(home / "weather.json"), "--progress", "--name", "p"]) == 0
    err = capsys.readouterr().err
    assert "embedding" in err and "2/2" in err
    last = err.split("\r")[-2] if err.endswith("\r") else err.rsplit("\r", 1)[-1]
    assert "?entry/s" not in last and "entry/s" in last  # the rate


def fake_mcp_loader(failing: dict[str, str]) -> Any:
    """A stand-in for load_mcp_catalog: two servers, each with one tool, some failing."""
    from stores.catalog.mcp import McpLoadReport, ServerLoadResult

    async def load(config_path: Any, *, catalog: Any) -> Any:
        report = McpLoadReport(source=str(config_path))
        for server, tool in (("files", "read_file"), ("memory", "read_graph")):
            if server in failing:
                report.servers[server] = ServerLoadResult(server, ok=False, error=failing[server])
                continue
            catalog.load_document({"agents": [{"id": server, "description": f"{server} server"}]},
                                  source=f"mcp:{server}")
            catalog.add_raw_tool(
                {"name": tool, "agent": server, "description": f"{tool} of {server}",
                 "side_effect": False, "input_schema": {"type": "object", "properties": {}}},
                source=f"mcp:{server}",
            )
            report.servers[server] = ServerLoadResult(server, ok=True, tools=1)
        return catalog, report

    return load


def test_a_server_failing_at_reindex_keeps_its_last_good_tools_marked_stale(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import stores.catalog.mcp as mcp_module
    from stores.catalog.store import CatalogStore

    config = home / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {}}))
    monkeypatch.setattr(mcp_module, "load_mcp_catalog", fake_mcp_loader({}))
    assert cli.main(["index", "--mcp", str(config), "--json"]) == 0
    assert last_json(capsys.readouterr().out)["tools"] == 2

    monkeypatch.setattr(
        mcp_module, "load_mcp_catalog", fake_mcp_loader({"files": "connection refused"})
    )
    assert cli.main(["index", "--mcp", str(config), "--json"]) == cli.EXIT_INDEX_PARTIAL
    out = capsys.readouterr().out
    assert "files: kept 1 last good tool (stale): connection refused" in out
    counts = last_json(out)
    assert counts["tools"] == 2 and counts["removed"] == 0
    assert counts["stale"] == {"files": {"tools": 1, "error": "connection refused"}}
    saved = CatalogStore(home / "home" / "catalog.sqlite").load("default")
    assert saved is not None and "stale" in saved.tools["files/read_file"].flags
    assert "stale" not in saved.tools["memory/read_graph"].flags
    assert cli.main(["search", "read file", "--json"]) == 0
    assert "files/read_file" in [t["tool_id"] for t in last_json(capsys.readouterr().out)["tools"]]

    # Back up: fresh tools, nothing stale, exit 0.
    monkeypatch.setattr(mcp_module, "load_mcp_catalog", fake_mcp_loader({}))
    assert cli.main(["index", "--mcp", str(config), "--json"]) == 0
    assert last_json(capsys.readouterr().out)["stale"] == {}
    saved = CatalogStore(home / "home" / "catalog.sqlite").load("default")
    assert saved is not None and "stale" not in saved.tools["files/read_file"].flags


def test_a_server_failing_on_its_first_index_is_partial_with_nothing_kept(
    home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import stores.catalog.mcp as mcp_module

    config = home / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {}}))
    monkeypatch.setattr(mcp_module, "load_mcp_catalog", fake_mcp_loader({"memory": "timed out"}))
    assert cli.main(["index", "--mcp", str(config), "--json"]) == cli.EXIT_INDEX_PARTIAL
    out = capsys.readouterr().out
    assert "memory: no earlier tools to keep: timed out" in out
    assert last_json(out)["stale"] == {"memory": {"tools": 0, "error": "timed out"}}
