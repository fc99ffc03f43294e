"""`zspace index` of catalog files that did not change since the last sync parses nothing.

The last sync records each file's digest, the enrichment fingerprint and the index's state; a
re-index whose files, fingerprint and index state all match skips parsing, validation, the
stored tools and the index sync: a no-op costs a digest per file, not a step per tool.
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
from stores.catalog.model import Catalog
from stores.catalog.store import CatalogStore
from stores.retrieval import index as index_module
from stores.retrieval.index import ToolIndex
from tests.fakes import HashingEmbedder


def _catalog(path: Path, agent: str, tools: list[str], note: str = "") -> str:
    path.write_text(json.dumps({
        "agents": [{"id": agent, "name": agent, "description": f"the {agent} service"}],
        "tools": [
            {"id": f"{agent}/{tool}", "name": tool, "agent": agent,
             "description": f"{tool.replace('_', ' ')} in {agent}{note}",
             "input_schema": {"type": "object", "properties": {}}}
            for tool in tools
        ],
    }))
    return str(path)


def _forbidden(*_: Any, **__: Any) -> Any:
    raise AssertionError("an unchanged source must not be parsed again")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("ZSPACE_HOME", str(home))
    monkeypatch.setattr(
        indexing, "Deps",
        lambda index_name: Deps(index_name=index_name, embedder=HashingEmbedder(), home=home),
    )
    return home


def _index(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["index", *args, "--json"]) == 0
    counts: dict[str, Any] = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    return counts


def test_an_unchanged_file_is_not_parsed_and_nothing_is_synced(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    weather = _catalog(tmp_path / "weather.json", "weather", ["get_forecast", "get_alerts"])
    notes = _catalog(tmp_path / "notes.json", "notes", ["add_note"])
    first = _index([weather, notes], capsys)
    assert first["indexed"] == 5  # three tools, two agents
    monkeypatch.setattr(Catalog, "load_file", _forbidden)
    monkeypatch.setattr(CatalogStore, "reusable", _forbidden)
    monkeypatch.setattr(ToolIndex, "sync", _forbidden)
    monkeypatch.setattr(index_module, "make_chroma_client", _forbidden)  # ~1 s CPU to import
    again = _index([weather, notes], capsys)
    assert again["indexed"] == 0 and again["unchanged"] == 5 and again["removed"] == 0
    assert (again["tools"], again["agents"]) == (3, 2)


def test_a_changed_file_is_parsed_and_only_its_changed_tool_embedded(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    weather = _catalog(tmp_path / "weather.json", "weather", ["get_forecast", "get_alerts"])
    _index([weather], capsys)
    (tmp_path / "weather.json").write_text(
        (tmp_path / "weather.json").read_text().replace("get alerts in weather", "alerts, now")
    )
    assert _index([weather], capsys)["indexed"] == 1
    monkeypatch.setattr(Catalog, "load_file", _forbidden)
    assert _index([weather], capsys)["indexed"] == 0  # and recorded again: no parse


@pytest.mark.parametrize("change", ["fingerprint", "order", "reset", "chroma files", "index"])
def test_anything_else_that_changed_goes_the_whole_way(
    change: str, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    weather = _catalog(tmp_path / "weather.json", "weather", ["get_forecast"])
    notes = _catalog(tmp_path / "notes.json", "notes", ["add_note"])
    _index([weather, notes], capsys)
    args = [weather, notes]
    if change == "fingerprint":  # another lexicon: the tags may differ
        monkeypatch.setattr(indexing, "enrichment_fingerprint", lambda: "another")
    elif change == "order":
        args = [notes, weather]
    elif change == "reset":
        args.append("--reset")
    elif change == "chroma files":
        shutil.rmtree(home / "index" / "chroma")
    else:  # another command wrote to the index since
        other = Catalog.from_file(_catalog(tmp_path / "other.json", "other", ["ping"]))
        ToolIndex(home / "index", HashingEmbedder()).sync(other)
    parsed: list[str] = []
    load_file = Catalog.load_file

    def counting(self: Catalog, path: str, **kwargs: Any) -> Any:
        parsed.append(Path(path).name)
        return load_file(self, path, **kwargs)

    monkeypatch.setattr(Catalog, "load_file", counting)
    counts = _index(args, capsys)
    assert sorted(parsed) == ["notes.json", "weather.json"]
    assert (counts["tools"], counts["agents"]) == (2, 2)
