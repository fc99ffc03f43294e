"""Secrets never reach checkpoints, the ledger, logs, stream events or answers (canaries)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from graph.builder import build_graph
from graph.deps import Deps
from nodes.context import Context
from stores.catalog import Catalog
from stores.checkpoint import sqlite_checkpointer
from stores.index import ToolIndex
from stores.mcp_source import parse_mcp_config
from stores.policy import REDACTED, is_secret_name, redact_args
from tests.fakes import HashingEmbedder

ARG_CANARY = "canary-arg-7f3a9c1e5b"
ENV_CANARY = "canary-env-2d8e4b6a0f"


@pytest.mark.parametrize("name", ["api_key", "X-Api-Key", "accessToken", "client_secret",
                                  "password", "Authorization", "API_TOKEN", "private_key"])
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["token_count", "author", "name", "order_id", "keyword"])
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_redaction_is_recursive() -> None:
    assert redact_args({"api_key": "x", "nested": {"password": "y"}, "n": 1}) == {
        "api_key": REDACTED, "nested": {"password": REDACTED}, "n": 1}


async def test_canaries_stay_out_of_every_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("ZSPACE_SECRET_API_KEY", ARG_CANARY)
    # An MCP config whose server gets a token through its environment.
    parse_mcp_config({"mcpServers": {"shop": {"command": "python", "args": ["-m", "x"],
                                              "env": {"API_TOKEN": ENV_CANARY}}}})
    seen: dict[str, Any] = {}

    def create_product(name: str = "Test product", api_key: str | None = None) -> dict[str, Any]:
        """Create a test product in the catalog."""
        seen["api_key"] = api_key
        # A careless server echoes its credentials back, in data and in logs.
        logging.getLogger("careless").info("called with %s", api_key)
        return {"product_id": 1, "name": name, "debug": f"key={api_key} token={ENV_CANARY}"}

    catalog = Catalog()
    catalog.register_function(create_product, agent="shop", environment="test", side_effect=True)
    index = ToolIndex(tmp_path / "index", HashingEmbedder(), name="s")
    index.sync(catalog)
    home = tmp_path / "home"
    deps = Deps(catalog=catalog, index=index, home=home)
    events: list[Any] = []
    async with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver:
        graph = build_graph(deps).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "s"}}
        async for mode, chunk in graph.astream(
            {"request": "create a test product"}, config, context=Context(run_id="secret-run"),
            stream_mode=["custom", "updates", "values"], durability="sync",
        ):
            events.append((mode, chunk))
        state = (await graph.aget_state(config)).values
    deps.get_ledger().close()
    assert seen["api_key"] == ARG_CANARY  # the tool did get its key, injected at the edge
    result = state["results"]["s1.core"]
    assert result["status"] == "ok" and REDACTED in result["output"]["debug"]
    texts = {
        "answer": state["answer"],
        "stream": repr(events),
        "logs": caplog.text.replace("called with " + ARG_CANARY, ""),  # the tool's own log line
    }
    for path in [*tmp_path.glob("checkpoints.sqlite*"), *home.glob("ledger.sqlite*")]:
        texts[path.name] = path.read_bytes().decode("latin-1")
    for where, text in texts.items():
        assert ARG_CANARY not in text, where
        assert ENV_CANARY not in text, where
