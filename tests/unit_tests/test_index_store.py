"""The index's entry table in SQLite: syncs write only what changed, BM25 comes from stored tokens."""

import json
from pathlib import Path
from typing import Any

import pytest

from stores.retrieval import index as index_module
from stores.retrieval.bm25 import BM25Index
from stores.retrieval.index import ToolIndex
from stores.settings import HnswSettings
from tests.fakes import HashingEmbedder
from tests.unit_tests.test_index import make_catalog


def open_index(directory: Path) -> ToolIndex:
    return ToolIndex(directory, HashingEmbedder(), name="t")


def test_a_noop_sync_reads_and_writes_nothing_but_the_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = make_catalog()
    open_index(tmp_path).sync(catalog)
    reopened = open_index(tmp_path)
    generation = reopened._table.generation_key()

    def forbidden(*_: Any, **__: Any) -> Any:
        raise AssertionError("a no-op sync must not read every Chroma record or tokenize")

    monkeypatch.setattr(reopened, "_stored_metadata", forbidden)
    monkeypatch.setattr(index_module, "lexical_tokens", forbidden)
    report = reopened.sync(catalog)
    assert (report.indexed, report.unchanged) == (0, 7)
    assert reopened._table.generation_key() == generation


def test_one_change_tokenizes_and_writes_one_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = make_catalog()
    index = open_index(tmp_path)
    index.sync(catalog)
    before = index._table.generation_key()
    tokenized: list[str] = []
    real = index_module.lexical_tokens

    def counting(text: str) -> list[str]:
        tokenized.append(text)
        return real(text)

    monkeypatch.setattr(index_module, "lexical_tokens", counting)
    catalog.tools["weather/get_forecast"].description = "weather forecast for any harbour"
    assert index.sync(catalog).indexed == 1
    assert len(tokenized) == 1
    assert index._table.generation_key() != before
    # BM25 is rebuilt from the stored tokens: the changed text is found, nothing re-tokenized.
    hits = index.lexical_search("harbour", 3)
    assert hits and hits[0].entry_id == "tool:weather/get_forecast"
    assert len(tokenized) == 2  # the query itself


def test_bm25_is_loaded_not_rebuilt_when_nothing_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = open_index(tmp_path)
    index.sync(make_catalog())
    assert index.lexical_search("forecast", 1, kinds=("tool",))[0].entry_id == "tool:weather/get_forecast"

    def forbidden(*_: Any, **__: Any) -> Any:
        raise AssertionError("BM25 must be loaded from disk when the entries did not change")

    monkeypatch.setattr(BM25Index, "from_tokens", forbidden)
    reopened = open_index(tmp_path)
    assert reopened.lexical_search("forecast", 1, kinds=("tool",))[0].entry_id == "tool:weather/get_forecast"


def test_an_older_json_entry_table_is_migrated(tmp_path: Path) -> None:
    catalog = make_catalog()
    index = open_index(tmp_path)
    index.sync(catalog)
    rows = [
        {**entry.__dict__, "tags": list(entry.tags)} for entry in index.entries.values()
    ]
    index._table.clear()
    (tmp_path / "t.entries.json").write_text(json.dumps(rows))
    migrated = open_index(tmp_path)
    assert len(migrated) == 7
    assert not (tmp_path / "t.entries.json").exists()
    assert migrated.sync(catalog).indexed == 0
    assert migrated.lexical_search("forecast", 1, kinds=("tool",))[0].entry_id == "tool:weather/get_forecast"


def test_hnsw_settings_reach_chroma_and_ef_search_follows_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZSPACE_HNSW_EF_SEARCH", raising=False)
    index = open_index(tmp_path)
    hnsw = index._collection.configuration["hnsw"]
    defaults = HnswSettings()
    assert (hnsw["ef_search"], hnsw["ef_construction"], hnsw["max_neighbors"]) == (
        defaults.ef_search, defaults.ef_construction, defaults.max_neighbors
    )
    index.sync(make_catalog())
    monkeypatch.setenv("ZSPACE_HNSW_EF_SEARCH", "64")
    reopened = open_index(tmp_path)
    assert reopened._collection.configuration["hnsw"]["ef_search"] == 64
    assert reopened.sync(make_catalog()).indexed == 0


def test_a_bad_hnsw_setting_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import graph.cli as cli

    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path))
    monkeypatch.setenv("ZSPACE_HNSW_M", "many")
    assert cli.main(["search", "forecast"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: ZSPACE_HNSW_M='many': give a positive whole number"
    )
