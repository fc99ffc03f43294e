"""Tool output normalisation: MCP results, messages, models and bytes to JSON data."""


from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from stores.errors import ToolReportedError


# ---------------------------------------------------------------------- output
def normalize_output(raw: Any) -> tuple[Any, list[str]]:
    """Turn a tool's raw output into JSON-serializable data.

    Handles MCP results and content blocks (text blocks are joined, JSON text is parsed),
    LangChain messages, pydantic models, dataclasses, bytes (decoded as UTF-8 with
    replacement) and arbitrary objects (their ``str``).

    Returns:
        The normalized output and notes on lossy conversions.

    Raises:
        ToolReportedError: the output is an error result (MCP ``isError``, ToolMessage error).
    """
    notes: list[str] = []
    return _normalize(raw, notes, depth=0), notes


def _normalize(value: Any, notes: list[str], depth: int) -> Any:
    if depth > 50:
        notes.append("output nested deeper than 50 levels; the rest was stringified")
        return _clean_text(repr(value))[:1000]
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        notes.append(f"non-finite number {value!r} replaced by a string")
        return str(value)
    if isinstance(value, str):
        return _clean_text(value)
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        text = data.decode("utf-8", errors="replace")
        replaced = "" if "\ufffd" not in text else "; undecodable bytes replaced by U+FFFD"
        notes.append(f"output was {len(data)} bytes, decoded as UTF-8{replaced}")
        return text
    message = _message_content(value)
    if message is not _NOT_A_MESSAGE:
        return _normalize(message, notes, depth + 1)
    mcp_result = _mcp_result_payload(value)
    if mcp_result is not _NOT_A_MESSAGE:
        return _normalize(mcp_result, notes, depth + 1)
    if isinstance(value, BaseModel):
        return _normalize(value.model_dump(mode="json"), notes, depth + 1)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _normalize(dataclasses.asdict(value), notes, depth + 1)
    if isinstance(value, Mapping):
        return {
            _clean_text(str(key)): _normalize(item, notes, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        items = list(value)
        if items and all(_is_content_block(item) for item in items):
            return _normalize_blocks(items, notes, depth)
        return [_normalize(item, notes, depth + 1) for item in items]
    notes.append(f"output of type {type(value).__name__} converted to text")
    return _clean_text(str(value))


_NOT_A_MESSAGE = object()


def _message_content(value: Any) -> Any:
    try:
        from langchain_core.messages import BaseMessage, ToolMessage
    except ImportError:  # pragma: no cover - langchain-core is a dependency
        return _NOT_A_MESSAGE
    if isinstance(value, ToolMessage) and value.status == "error":
        raise ToolReportedError(_clean_text(str(value.content))[:2000])
    if isinstance(value, BaseMessage):
        return value.content
    return _NOT_A_MESSAGE


def _mcp_result_payload(value: Any) -> Any:
    """Return the payload of an MCP ``CallToolResult``-like object, or the sentinel."""
    if isinstance(value, Mapping) or not hasattr(value, "content") or not hasattr(
        value, "isError"
    ):
        return _NOT_A_MESSAGE
    if value.isError:
        texts = [getattr(block, "text", "") for block in value.content or []]
        raise ToolReportedError(_clean_text(" ".join(t for t in texts if t))[:2000] or
                                "the MCP tool reported an error without a message")
    structured = getattr(value, "structuredContent", None)
    return structured if structured is not None else list(value.content or [])


def _is_content_block(item: Any) -> bool:
    if isinstance(item, Mapping):
        block_type, has_text = item.get("type"), "text" in item
    else:
        block_type, has_text = getattr(item, "type", None), hasattr(item, "text")
    if block_type == "text":
        return has_text
    return block_type in ("image", "audio", "resource", "resource_link", "file")


def _normalize_blocks(blocks: list[Any], notes: list[str], depth: int) -> Any:
    texts: list[str] = []
    others: list[Any] = []
    for block in blocks:
        if isinstance(block, BaseModel):
            block = block.model_dump(mode="json")
        block_type = block.get("type") if isinstance(block, Mapping) else None
        if block_type == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        else:
            others.append(_normalize(block, notes, depth + 1))
    if texts and not others:
        joined = "\n".join(texts)
        parsed = _parse_json_text(joined)
        if parsed is not None:
            notes.append("text content parsed as JSON")
            return _normalize(parsed, notes, depth + 1)
        return _clean_text(joined)
    if texts:
        others.insert(0, {"type": "text", "text": _clean_text("\n".join(texts))})
    return others


def _parse_json_text(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        parsed = json.loads(stripped)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


def _clean_text(text: str) -> str:
    """Replace lone surrogates (undecodable input) so the text serializes everywhere."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text




