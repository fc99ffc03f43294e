"""`zspace index` says when a source indexed before is left out of this command (and removed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import graph.indexing as indexing
from graph.cli import main
from graph.deps import Deps
from tests.fakes import HashingEmbedder


def _catalog(path: Path, agent: str, tools: list[str]) -> str:
    path.write_text(json.dumps({
        "agents": [{"id": agent, "name": agent, "description": f"the {agent} service"}],
        "tools": [
            {"id": f"{agent}/{tool}", "name": tool, "agent": agent,
             "description": f"{tool.replace('_', ' ')} in {agent}",
             "input_schema": {"type": "object", "properties": {}}}
            for tool in tools
        ],
    }))
    return str(path)


def test_a_source_left_out_is_named_when_its_tools_are_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(
        indexing, "Deps",
        lambda index_name: Deps(index_name=index_name, embedder=HashingEmbedder(),
                                home=tmp_path / "home"),
    )
    weather = _catalog(tmp_path / "weather.json", "weather", ["get_forecast", "get_alerts"])
    notes = _catalog(tmp_path / "notes.json", "notes", ["add_note"])
    assert main(["index", weather, notes]) == 0
    assert "removed every tool" not in capsys.readouterr().out

    assert main(["index", notes]) == 0
    out = capsys.readouterr().out
    assert ", removed 3," in out  # the two weather tools and the weather agent entry
    assert "removed every tool of weather (2)" in out and "notes (" not in out
