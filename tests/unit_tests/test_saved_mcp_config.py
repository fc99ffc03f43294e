"""Each index of a home remembers the MCP config that serves its tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.runtime import MCP_CONFIG_POINTER, remember_mcp_config, saved_mcp_config


def _config(path: Path) -> Path:
    path.write_text(json.dumps({"mcpServers": {}}))
    return path


def test_two_indexes_keep_their_own_configs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZSPACE_INDEX", raising=False)
    shop, files = _config(tmp_path / "shop.json"), _config(tmp_path / "files.json")
    remember_mcp_config(tmp_path, shop)
    remember_mcp_config(tmp_path, files, "files")
    assert saved_mcp_config(tmp_path) == shop.resolve()
    assert saved_mcp_config(tmp_path, "default") == shop.resolve()
    assert saved_mcp_config(tmp_path, "files") == files.resolve()
    assert saved_mcp_config(tmp_path, "other") is None
    monkeypatch.setenv("ZSPACE_INDEX", "files")
    assert saved_mcp_config(tmp_path) == files.resolve()


def test_a_pointer_from_before_names_serves_every_index_until_one_is_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZSPACE_INDEX", raising=False)
    old, files = _config(tmp_path / "old.json"), _config(tmp_path / "files.json")
    (tmp_path / MCP_CONFIG_POINTER).write_text(json.dumps({"path": str(old)}))
    assert saved_mcp_config(tmp_path, "anything") == old
    remember_mcp_config(tmp_path, files, "files")
    assert saved_mcp_config(tmp_path, "files") == files.resolve()
    assert saved_mcp_config(tmp_path) == old  # the old pointer was the default index's


def test_a_config_file_that_is_gone_is_not_returned(tmp_path: Path) -> None:
    shop = _config(tmp_path / "shop.json")
    remember_mcp_config(tmp_path, shop, "shop")
    shop.unlink()
    assert saved_mcp_config(tmp_path, "shop") is None
