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


def write_result(name: str, text: str, keep_notes: bool = False) -> Path:
    """Write a results table and return its path.

    ``keep_notes``: the ``## `` sections of the file written before that the new text does not
    have (an analysis written by hand under the table: what each part adds, the figures before
    a change) are kept after it, so a re-run updates the table without erasing them.
    """
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    if keep_notes and path.is_file():
        text = text.rstrip("\n") + "\n" + "".join(
            "\n" + section for section in _notes(path.read_text(), text)
        )
    path.write_text(text)
    return path


def _notes(old: str, new: str) -> list[str]:
    """The ``## `` sections of ``old`` whose heading ``new`` does not have, in order."""
    headings = {line for line in new.splitlines() if line.startswith("## ")}
    sections: list[list[str]] = []
    for line in old.splitlines(keepends=True):
        if line.startswith("## "):
            sections.append([line])
        elif sections:
            sections[-1].append(line)
    return [
        "".join(section).rstrip("\n") + "\n"
        for section in sections
        if section[0].rstrip("\n") not in headings
    ]


def display_path(path: str | Path) -> str:
    """A path relative to the repository when it is inside it."""
    resolved = Path(path).resolve()
    return str(resolved.relative_to(REPO)) if resolved.is_relative_to(REPO) else str(path)
