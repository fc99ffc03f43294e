"""At size, a no-op sync and a search start-up do nothing in proportion to the catalog.

A finished sync is trusted without a call into Chroma (the first one loads the HNSW index);
agent names are tokenized once per change of the entries, not on every start-up; the local
embedding model is loaded only when something is embedded.
"""

import shutil
from pathlib import Path
from typing import Any

import pytest

from stores.retrieval import index as index_module
from stores.retrieval.embeddings import MiniLMOnnxEmbedder
from stores.retrieval.index import ToolIndex
from tests.fakes import HashingEmbedder
from tests.unit_tests.test_index import make_catalog


def open_index(directory: Path) -> ToolIndex:
    return ToolIndex(directory, HashingEmbedder(), name="t")


def _forbidden(*_: Any, **__: Any) -> Any:
    raise AssertionError("must not be called")


def test_a_noop_sync_after_a_finished_one_does_not_ask_chroma(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = make_catalog()
    open_index(tmp_path).sync(catalog)
    reopened = open_index(tmp_path)
    monkeypatch.setattr(reopened, "_collection", _forbidden)
    assert reopened.sync(catalog).indexed == 0


def test_an_interrupted_sync_is_checked_against_chroma(tmp_path: Path) -> None:
    catalog = make_catalog()
    first = open_index(tmp_path)
    first.sync(catalog)
    first._table.mark_sync(False)  # a sync that wrote to Chroma and never finished
    first._table.delete(["tool:weather/get_forecast"])  # Chroma holds it, the table not
    reopened = open_index(tmp_path)
    counted: list[int] = []
    count = reopened._collection.count
    reopened._collection.count = lambda: counted.append(1) or count()  # type: ignore[method-assign]
    report = reopened.sync(catalog)
    assert counted and report.indexed == 0  # found in Chroma under its key: not embedded
    assert reopened._table.sync_completed() is True


def test_an_entry_table_without_its_chroma_files_embeds_everything_again(
    tmp_path: Path,
) -> None:
    catalog = make_catalog()
    open_index(tmp_path / "a").sync(catalog)
    (tmp_path / "b").mkdir()
    shutil.copy(tmp_path / "a" / "entries.sqlite", tmp_path / "b" / "entries.sqlite")
    assert open_index(tmp_path / "b").sync(catalog).indexed == 7


def test_agent_names_are_read_back_until_the_entries_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalog = make_catalog()
    index = open_index(tmp_path)
    index.sync(catalog)
    built = index.agent_names()
    reopened = open_index(tmp_path)
    monkeypatch.setattr(index_module, "lexical_tokens", _forbidden)
    assert reopened.agent_names().tokens == built.tokens
    monkeypatch.undo()
    agent = next(iter(catalog.agents.values()))
    agent.name = "Renamed Provider"
    reopened.sync(catalog)
    expected = frozenset(index_module.lexical_tokens("Renamed Provider"))
    assert reopened.agent_names().tokens[agent.id] == expected


def test_the_local_model_is_loaded_on_the_first_embedding_only() -> None:
    embedder = MiniLMOnnxEmbedder()
    assert embedder._session is None
    assert embedder.embed(["weather"]).shape == (1, 384)
    assert embedder._session is not None
