"""Where zspace keeps what it writes, and the offline defaults of its environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

OFFLINE_ENVIRONMENT = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "ANONYMIZED_TELEMETRY": "False",
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",
    "LANGGRAPH_NO_VERSION_CHECK": "1",
}


def zspace_home() -> Path:
    """Return the directory everything zspace writes goes under.

    It is ``$ZSPACE_HOME`` when set, else ``./.zspace``; it is created on first use.
    """
    home = Path(os.environ.get("ZSPACE_HOME") or ".zspace").expanduser()
    home.mkdir(parents=True, exist_ok=True)
    return home


def apply_offline_environment() -> None:
    """Set the offline switches that were not set by the user.

    Chroma's telemetry and Hugging Face hub look-ups stay off unless someone turns them on.
    """
    for key, value in OFFLINE_ENVIRONMENT.items():
        os.environ.setdefault(key, value)


Environment = Literal["test", "staging", "prod"]
"""Where a tool's effects land; a run's allow-list names the environments it may reach."""
ENVIRONMENTS: tuple[str, ...] = ("test", "staging", "prod")


class SettingError(ValueError):
    """A setting (environment variable) whose value cannot be used."""


@dataclass(frozen=True)
class HnswSettings:
    """Chroma's HNSW parameters for the tool index.

    ``ef_search`` applies to every query and is updated on an existing collection;
    ``ef_construction`` and ``max_neighbors`` (HNSW's M) shape the graph when the collection is
    created (``zspace index --reset`` rebuilds it with new values). The defaults keep top-50
    recall at or above 0.99 of exact search (``python -m bench hnsw``; Chroma's own defaults
    are 100, 100, 16).
    """

    ef_search: int = 400
    ef_construction: int = 200
    max_neighbors: int = 16

    @classmethod
    def from_environment(cls) -> HnswSettings:
        """Read ``ZSPACE_HNSW_EF_SEARCH``, ``ZSPACE_HNSW_EF_CONSTRUCTION``, ``ZSPACE_HNSW_M``.

        Raises:
            SettingError: a value is not a positive integer.
        """
        values: dict[str, int] = {}
        for variable, name in HNSW_VARIABLES.items():
            raw = os.environ.get(variable, "").strip()
            if not raw:
                continue
            if not raw.isdigit() or int(raw) <= 0:
                raise SettingError(f"{variable}={raw!r}: give a positive whole number")
            values[name] = int(raw)
        return cls(**values)

    def collection_configuration(self) -> dict[str, Any]:
        """The ``configuration`` Chroma takes when creating a cosine collection."""
        return {
            "hnsw": {
                "space": "cosine",
                "ef_search": self.ef_search,
                "ef_construction": self.ef_construction,
                "max_neighbors": self.max_neighbors,
            }
        }


HNSW_VARIABLES = {
    "ZSPACE_HNSW_EF_SEARCH": "ef_search",
    "ZSPACE_HNSW_EF_CONSTRUCTION": "ef_construction",
    "ZSPACE_HNSW_M": "max_neighbors",
}
