"""Chroma for the joint index: the client (embedded or a server), collection names, metadata.

Vectors are computed by us, never by Chroma's default embedding function (which downloads a
model); what Chroma keeps beside each vector is the entry's key and what the filters read.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import Any

from stores.retrieval.entries import IndexEntry

logger = logging.getLogger("zspace.index")


class ChromaUnavailable(ConnectionError):
    """The configured Chroma server (``ZSPACE_CHROMA_URL``) does not answer."""

    def __init__(self, url: str, cause: BaseException) -> None:
        """Name the server, why it failed, and the two ways out."""
        super().__init__(
            f"cannot reach the Chroma server at {url} ({' '.join(str(cause).split())}); "
            "start it (`chroma run --path DIR --port PORT`) or unset ZSPACE_CHROMA_URL to "
            "use the embedded index under ZSPACE_HOME"
        )


def make_chroma_client(path: Path | None = None, url: str | None = None) -> Any:
    """Return an embedded ``PersistentClient`` at ``path``, or an ``HttpClient`` for ``url``.

    Telemetry is off either way.
    """
    import chromadb
    from chromadb.config import Settings

    settings = Settings(anonymized_telemetry=False, allow_reset=True)
    if url:
        match = re.match(r"^(https?)://([^:/]+)(?::(\d+))?/?$", url)
        if not match:
            raise ValueError(f"Chroma URL {url!r} should look like http://127.0.0.1:8000")
        scheme, host, port = match.groups()
        try:
            return chromadb.HttpClient(
                host=host, port=int(port or 8000), ssl=scheme == "https", settings=settings
            )
        except Exception as exc:  # chromadb raises a bare ValueError when nothing answers
            raise ChromaUnavailable(url, exc) from exc
    if path is None:
        raise ValueError("give a path for the embedded Chroma or a url for a Chroma server")
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=settings)


def entry_metadata(entry: IndexEntry) -> dict[str, Any]:
    """What Chroma stores beside an entry's vector: its key and what the filters read."""
    return {
        "kind": entry.kind,
        "ref": entry.ref,
        "agent": entry.agent,
        "environment": entry.environment,
        "side_effect": entry.side_effect,
        "key": entry.key,
    }


def filter_metadata(meta: dict[str, Any]) -> tuple[Any, ...]:
    """The metadata fields Chroma's filters read (kind, environment, side effect)."""
    return tuple(meta.get(name) for name in ("kind", "environment", "side_effect"))


def collection_name(name: str) -> str:
    """The Chroma collection that holds the index called ``name``."""
    cleaned = re.sub(r"[^A-Za-z0-9_-]", "_", name)[:40]
    return f"zspace_{cleaned}".ljust(3, "_")


def set_ef_search(
    collection: Any, ef_search: int, wait_s: float = 10.0, pause_s: float = 0.1
) -> bool:
    """Set an existing collection's ``ef_search``; False when Chroma stayed locked.

    Changing it is a write, and another process syncing the same embedded index holds
    Chroma's SQLite lock ("database is locked") until its write ends: wait up to ``wait_s``
    for it. A lock that outlasts the wait leaves the collection's stored ``ef_search`` (the
    index still answers, with the setting it was created with) and logs a warning; any other
    error is raised.
    """
    deadline = time.monotonic() + wait_s
    while True:
        try:
            collection.modify(configuration={"hnsw": {"ef_search": ef_search}})
            return True
        except Exception as error:
            if "database is locked" not in str(error):
                raise
            if time.monotonic() >= deadline:
                logger.warning(
                    "ef_search %d not applied: the Chroma index is locked by another "
                    "process (%s); it keeps the ef_search it was created with",
                    ef_search,
                    " ".join(str(error).split()),
                )
                return False
        time.sleep(pause_s)
