"""Where zspace keeps what it writes, and the offline defaults of its environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

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
