"""A JSON catalog file read record by record: each tool record's byte span and key.

A tool record's key is a hash of its own text, so it names the record wherever it sits: the
same record in a renamed or copied file, or at another position, has the same key. Keys let
``zspace index`` validate, enrich and embed only the records whose text changed, and, with
the keys of the last sync, find those records without building the whole catalog.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class FileRecords:
    """The keys of one catalog file's records at a sync.

    ``agents_key``: the key of its ``agents`` list as a whole; ``tool_keys``: one per tool
    record, in file order.
    """

    agents_key: str
    tool_keys: tuple[str, ...]


@dataclass(frozen=True)
class ScannedCatalog:
    """A JSON catalog document read with the span of each tool record.

    ``document`` holds the top-level keys as parsed (``tools`` included); ``spans`` the
    ``(start, end)`` character offsets of each tool record in ``text``; ``agents_key`` a
    hash of the ``agents`` value's text ("" when there is none).
    """

    text: str
    document: dict[str, Any]
    spans: tuple[tuple[int, int], ...]
    agents_key: str

    def tool_keys(self) -> list[str]:
        """The key of every tool record, in file order."""
        return [record_key(self.text[start:end]) for start, end in self.spans]

    def file_records(self, keys: Sequence[str] | None = None) -> FileRecords:
        """The file's record keys (``keys``: the tool keys when already computed)."""
        return FileRecords(self.agents_key, tuple(self.tool_keys() if keys is None else keys))

    def tool_record(self, position: int) -> Any:
        """The tool record at ``position``, parsed again from its span."""
        start, end = self.spans[position]
        return json.loads(self.text[start:end])


def record_key(record_text: str) -> str:
    """The key of one record: a hash of its exact text (independent of file and position)."""
    return hashlib.sha256(record_text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def scan_catalog_text(text: str) -> ScannedCatalog | None:
    """Parse a JSON catalog keeping each tool record's span; None when it is not one.

    Not a catalog (not an object, ``tools`` not a list, invalid JSON): None, and the caller
    parses the text as a whole to report the error as before.
    """
    try:
        return _scan(text)
    except (ValueError, IndexError):
        return None


def read_scanned(path: str | Path) -> ScannedCatalog | None:
    """:func:`scan_catalog_text` of a JSON file; None for YAML or an unreadable file."""
    path = Path(path)
    if path.suffix.lower() in {".yaml", ".yml"}:
        return None
    try:
        text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError:
        return None
    return scan_catalog_text(text)


def _scan(text: str) -> ScannedCatalog | None:
    index = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    if text[index] != "{":
        return None
    document: dict[str, Any] = {}
    spans: list[tuple[int, int]] = []
    agents_key = ""
    index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
    if text[index] == "}":
        return _end(text, index + 1, ScannedCatalog(text, document, (), ""))
    while True:
        key, index = _DECODER.raw_decode(text, index)
        if not isinstance(key, str):
            return None
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if text[index] != ":":
            return None
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
        if key == "tools" and text[index] == "[":
            records, index, spans = _scan_list(text, index)
            document[key] = records
        else:
            start = index
            document[key], index = _DECODER.raw_decode(text, index)
            if key == "agents":
                agents_key = record_key(text[start:index])
        index = _SPACE.match(text, index).end()  # type: ignore[union-attr]
        if text[index] == "}":
            break
        if text[index] != ",":
            return None
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
    if "tools" in document and not isinstance(document["tools"], list):
        return None
    return _end(text, index + 1, ScannedCatalog(text, document, tuple(spans), agents_key))


def _scan_list(text: str, index: int) -> tuple[list[Any], int, list[tuple[int, int]]]:
    """The list starting at ``text[index] == "["``: its items, its end, each item's span."""
    items: list[Any] = []
    spans: list[tuple[int, int]] = []
    index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]
    if text[index] == "]":
        return items, index + 1, spans
    while True:
        item, end = _DECODER.raw_decode(text, index)
        items.append(item)
        spans.append((index, end))
        index = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text[index] == "]":
            return items, index + 1, spans
        if text[index] != ",":
            raise ValueError(f"expected ',' or ']' at character {index}")
        index = _SPACE.match(text, index + 1).end()  # type: ignore[union-attr]


def _end(text: str, index: int, scanned: ScannedCatalog) -> ScannedCatalog | None:
    """``scanned`` when only white space follows the document (as ``json.loads`` requires)."""
    return scanned if _SPACE.match(text, index).end() == len(text) else None  # type: ignore[union-attr]


def changed_positions(old: Sequence[str], new: Sequence[str]) -> list[int] | None:
    """Positions whose key changed between two key lists of one file; None if not in place.

    Records inserted or removed shift every later position: None, the caller takes the
    whole path (where unchanged records are still reused by key).
    """
    if len(old) != len(new):
        return None
    return [position for position, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
