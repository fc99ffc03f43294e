"""Shared helpers of the benchmark runners."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
DEV_CATALOG = REPO / "bench" / "data" / "stabletoolbench" / "catalog.json"
DEV_QUERIES = REPO / "bench" / "data" / "stabletoolbench" / "queries.jsonl"


def machine_line() -> str:
    """One line naming the machine, commit and date of a run."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=REPO,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = "?"
    return (
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {commit or '?'}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}"
    )


def write_result(name: str, text: str) -> Path:
    """Write a results table and return its path."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(text)
    return path


def display_path(path: str | Path) -> str:
    """A path relative to the repository when it is inside it."""
    resolved = Path(path).resolve()
    return str(resolved.relative_to(REPO)) if resolved.is_relative_to(REPO) else str(path)
