"""Secrets never reach checkpoints, the ledger, logs, stream events or answers (canaries)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph.builder import build_graph
from graph.deps import Deps
from nodes.context import Context
from stores.catalog.model import Catalog
from stores.checkpoint import sqlite_checkpointer
from stores.mcp.config import parse_mcp_config
from stores.retrieval.index import ToolIndex
from stores.secrets import REDACTED, is_secret_name, redact_args
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


TYPED_CANARY = "sk-proj-typedCanary0a1b2c3d4e5f6g7h8"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("create a user with password Hunter2Secret!", ["Hunter2Secret!"]),
        (f"use api key {TYPED_CANARY}", [TYPED_CANARY]),
        ("my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789",
         ["ghp_abcdefghijklmnopqrstuvwxyz0123456789"]),
        ("reset the password reset flow", []),
        ("token count 12", []),
        ("order 12345678 for account 123456", []),
    ],
)
def test_credentials_typed_in_text_are_found(text: str, found: list[str]) -> None:
    from stores.secrets import secrets_in_text

    assert secrets_in_text(text) == found


def test_masking_keeps_serialized_checkpoints_loadable() -> None:
    from langchain_core.messages import HumanMessage

    from stores.checkpoint import SecretMaskingSerializer

    serde = SecretMaskingSerializer()
    value = {"request": f"use api key {TYPED_CANARY} now", "messages": [
        HumanMessage(f"key {TYPED_CANARY}")], "n": 3}
    kind, data = serde.dumps_typed(value)
    assert TYPED_CANARY.encode() not in data
    loaded = serde.loads_typed((kind, data))
    assert loaded["request"] == f"use api key {'*' * len(TYPED_CANARY)} now"
    assert loaded["messages"][0].content == f"key {'*' * len(TYPED_CANARY)}"
    assert loaded["n"] == 3


async def test_a_secret_typed_into_the_request_never_reaches_a_checkpoint(
    tmp_path: Path,
) -> None:
    calls: list[dict[str, Any]] = []

    def create_product(name: str = "Test product") -> dict[str, Any]:
        """Create a test product in the catalog."""
        calls.append({"name": name})
        return {"product_id": 1, "name": name}

    catalog = Catalog()
    catalog.register_function(create_product, agent="shop", environment="test", side_effect=True)
    index = ToolIndex(tmp_path / "index", HashingEmbedder(), name="t")
    index.sync(catalog)
    deps = Deps(catalog=catalog, index=index, home=tmp_path / "home")
    request = f"create a test product, my api key is {TYPED_CANARY}"
    async with sqlite_checkpointer(tmp_path / "checkpoints.sqlite") as saver:
        graph = build_graph(deps).compile(checkpointer=saver)
        config = {"configurable": {"thread_id": "typed"}}
        final = await graph.ainvoke(
            {"request": request}, config, context=Context(run_id="typed-run"), durability="sync"
        )
        stored = (await graph.aget_state(config)).values
    deps.get_ledger().close()
    assert len(calls) == 1
    assert TYPED_CANARY not in final["answer"] and "looks like a credential" in final["answer"]
    said = stored["intent"]["request"]
    assert TYPED_CANARY not in said and "********" in said
    for path in tmp_path.glob("checkpoints.sqlite*"):
        assert TYPED_CANARY.encode() not in path.read_bytes(), path.name


async def test_a_masked_secret_is_never_sent_as_an_argument(tmp_path: Path) -> None:
    from stores.execution.executor import ToolExecutor

    sent: list[str] = []

    def set_password(user_id: int, password: str) -> dict[str, Any]:
        """Set a user's password."""
        sent.append(password)
        return {"ok": True}

    catalog = Catalog()
    catalog.register_function(set_password, agent="shop", environment="test", side_effect=False)
    executor = ToolExecutor(catalog, results_dir=tmp_path / "results")
    outcome = await executor.execute(
        {"call_id": "s1.core", "tool_id": "shop/set_password",
         "args": {"user_id": 1, "password": "*" * 14}}
    )
    assert outcome["status"] == "error" and outcome["error_kind"] == "validation"
    assert "masked" in str(outcome["error"]) and sent == []


_PIECES = ["my", "api key", "API_KEY", "password", "token", "Bearer", "client secret", "is",
           "=", ":", " ", "\t", "Hunter2!x9", "sk-proj-" + "a1" * 12, "ghp_" + "b" * 36,
           "abcdefgh", "s3cr3t-value", "token_ledger", "é", "\n", "'", "x"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_the_byte_prefilter_never_misses_a_typed_secret(pieces: list[str]) -> None:
    """The cheap check that skips most checkpoints must flag everything the scan would find."""
    from stores.secrets import may_hold_typed_secret, secrets_in_text

    text = "".join(pieces)
    if secrets_in_text(text):
        assert may_hold_typed_secret(text.encode("utf-8"))
