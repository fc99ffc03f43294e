"""`zspace index` after tool records changed in place does O(changed) work.

Only the changed records are parsed, validated, enriched, embedded and written; the stored
tools are not read back, the whole catalog is not built. What cannot be done in place
(records inserted or removed, a renamed tool, a quarantined record) takes the whole path,
where unchanged records are still reused by a key that does not depend on their file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import graph.indexing as indexing
from graph.cli import main
from graph.deps import Deps
from stores.catalog import enrich as enrich_module
from stores.catalog import model as model_module
from stores.catalog.model import Catalog
from stores.catalog.records import changed_positions, scan_catalog_text
from stores.catalog.store import CatalogStore
from stores.retrieval.index import ToolIndex
from tests.fakes import HashingEmbedder

TOOLS = ["get_forecast", "get_alerts", "add_note", "list_notes"]


def _document(descriptions: dict[str, str] | None = None, tools: list[str] = TOOLS) -> str:
    descriptions = descriptions or {}
    return json.dumps({
        "agents": [{"id": "desk", "name": "Desk", "description": "the desk service"}],
        "tools": [
            {"id": f"desk/{tool}", "name": tool, "agent": "desk",
             "description": descriptions.get(tool, f"{tool.replace('_', ' ')} at the desk"),
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
            for tool in tools
        ],
    }, indent=1)


def _forbidden(*_: Any, **__: Any) -> Any:
    raise AssertionError("an in-place change must not read or build the whole catalog")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ZSPACE_HOME", str(home))
    monkeypatch.setattr(
        indexing, "Deps",
        lambda index_name: Deps(index_name=index_name, embedder=HashingEmbedder(), home=home),
    )
    return home


@pytest.fixture
def validated(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the tool records validated (and enriched) from now on."""
    names: list[str] = []
    real_validate = model_module._validate_tool
    real_derive = enrich_module.derive_tags

    def counting_validate(raw: Any, source: str) -> Any:
        names.append(raw["name"])
        return real_validate(raw, source)

    def checked_derive(spec: Any, lexicon: Any) -> Any:
        assert spec.name in names, f"{spec.name} enriched without being validated"
        return real_derive(spec, lexicon)

    monkeypatch.setattr(model_module, "_validate_tool", counting_validate)
    monkeypatch.setattr(enrich_module, "derive_tags", checked_derive)
    return names


def _index(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status = main(["index", *args, "--json"])
    counts: dict[str, Any] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert status == 0, counts
    return counts


def _stored_descriptions(home: Path) -> dict[str, str]:
    store = CatalogStore(home / "catalog.sqlite")
    try:
        catalog = store.load("default")
        assert catalog is not None
        return {spec.name: spec.description for spec in catalog.tools.values()}
    finally:
        store.close()


def test_one_changed_record_is_the_only_one_parsed_validated_and_embedded(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], validated: list[str],
) -> None:
    path = tmp_path / "desk.json"
    path.write_text(_document())
    assert _index([str(path)], capsys)["indexed"] == 5  # four tools, one agent
    path.write_text(_document({"get_alerts": "weather warnings for a city"}))
    validated.clear()
    with monkeypatch.context() as patch:
        patch.setattr(Catalog, "load_file", _forbidden)
        patch.setattr(CatalogStore, "reusable", _forbidden)
        patch.setattr(CatalogStore, "load", _forbidden)
        patch.setattr(CatalogStore, "save", _forbidden)
        patch.setattr(ToolIndex, "sync", _forbidden)
        counts = _index([str(path)], capsys)
    assert validated == ["get_alerts"]
    assert (counts["indexed"], counts["unchanged"], counts["removed"]) == (1, 4, 0)
    assert (counts["tools"], counts["agents"]) == (4, 1)
    assert _stored_descriptions(home)["get_alerts"] == "weather warnings for a city"
    # The same state as the whole path leaves: a full re-index finds nothing to do.
    store = CatalogStore(home / "catalog.sqlite")
    store.record_sync("default", None)
    store.close()
    validated.clear()
    again = _index([str(path)], capsys)
    assert validated == [] and again["indexed"] == 0
    index = ToolIndex(home / "index", HashingEmbedder())
    assert "weather warnings" in index.entries["tool:desk/get_alerts"].text


def test_a_removed_record_is_removed_and_the_others_are_not_validated_again(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], validated: list[str],
) -> None:
    path = tmp_path / "desk.json"
    path.write_text(_document())
    _index([str(path)], capsys)
    path.write_text(_document(tools=["get_forecast", "add_note", "list_notes"]))
    validated.clear()
    counts = _index([str(path)], capsys)
    assert validated == []
    assert counts["removed"] == 1 and counts["tools"] == 3
    assert counts["indexed"] == 1  # the agent's entry lists its tools' names
    assert "get_alerts" not in _stored_descriptions(home)


def test_a_renamed_or_copied_file_reuses_every_record(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], validated: list[str],
) -> None:
    path = tmp_path / "desk.json"
    path.write_text(_document())
    _index([str(path)], capsys)
    moved = tmp_path / "elsewhere" / "renamed.json"
    moved.parent.mkdir()
    shutil.copy(path, moved)
    validated.clear()
    counts = _index([str(moved)], capsys)
    assert validated == [] and counts["indexed"] == 0 and counts["tools"] == 4
    store = CatalogStore(home / "catalog.sqlite")
    catalog = store.load("default")
    store.close()
    assert catalog is not None
    assert all(spec.source.startswith(str(moved)) for spec in catalog.tools.values())


def test_an_interrupted_change_loses_nothing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], validated: list[str],
) -> None:
    path = tmp_path / "desk.json"
    path.write_text(_document())
    _index([str(path)], capsys)
    path.write_text(_document({"add_note": "write a note down"}))

    def killed(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(CatalogStore, "save_tools", killed)  # after the index, before the store
        assert main(["index", str(path), "--json"]) != 0  # the CLI says "interrupted"
    capsys.readouterr()
    validated.clear()
    counts = _index([str(path)], capsys)
    assert counts["indexed"] == 0  # embedded before the interruption, not again
    assert validated == ["add_note"]  # the store still held the old record
    assert _stored_descriptions(home)["add_note"] == "write a note down"


@pytest.mark.parametrize("change", ["inserted", "agents", "renamed tool", "quarantined"])
def test_what_is_not_an_in_place_edit_takes_the_whole_path(
    change: str, home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    validated: list[str],
) -> None:
    path = tmp_path / "desk.json"
    path.write_text(_document())
    _index([str(path)], capsys)
    document = json.loads(_document())
    if change == "inserted":
        document["tools"].insert(0, {**document["tools"][0], "id": "desk/new", "name": "new"})
    elif change == "agents":
        document["agents"][0]["name"] = "Front Desk"
    elif change == "renamed tool":
        document["tools"][1].update(id="desk/get_warnings", name="get_warnings")
    else:
        document["tools"][1]["input_schema"] = "not a schema"
    path.write_text(json.dumps(document, indent=1))
    validated.clear()
    status = main(["index", str(path), "--json"])
    counts = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert status == 0
    expected = {
        "inserted": ({"new"}, 5, 0),
        "agents": (set(), 4, 0),
        "renamed tool": ({"get_warnings"}, 4, 0),
        "quarantined": ({"get_alerts"}, 3, 1),
    }[change]
    # A record tried in place first is validated twice: never an unchanged one.
    assert (set(validated), counts["tools"], counts["quarantined"]) == expected
    assert counts["indexed"] >= 1


def test_scanning_matches_json_and_keys_do_not_depend_on_position() -> None:
    records = [{"name": "a", "x": [1, {"y": "}]"}]}, {"name": "b"}, {"name": "a", "x": [1]}]
    for text in (
        json.dumps({"agents": [], "tools": records, "other": {"tools": 1}}),
        json.dumps({"tools": records}, indent=3) + "\n",
        '{ "tools" : [ ] }',
        "{}",
    ):
        scanned = scan_catalog_text(text)
        assert scanned is not None and scanned.document == json.loads(text)
        assert [scanned.tool_record(i) for i in range(len(scanned.spans))] == (
            json.loads(text).get("tools", [])
        )
    moved = scan_catalog_text(json.dumps({"tools": [records[1], records[0]]}))
    first = scan_catalog_text(json.dumps({"tools": records}))
    assert moved is not None and first is not None
    assert moved.tool_keys() == [first.tool_keys()[1], first.tool_keys()[0]]
    assert changed_positions(first.tool_keys(), first.tool_keys()) == []
    assert changed_positions(first.tool_keys(), moved.tool_keys()) is None
    for broken in ("[]", '{"tools": [1,]}', '{"tools": {}}', '{"tools": []} x', "", "{"):
        assert scan_catalog_text(broken) is None
