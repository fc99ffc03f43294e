"""The indexed catalog in SQLite: one row per tool and agent, per index name.

``zspace index`` saves the catalog it indexed here and every later command reads it back, so
nothing parses a large JSON file at start-up. A save writes only the rows whose content or
position changed and deletes the rows that went away: re-indexing an unchanged catalog writes
nothing. Rows are trusted on load (they were validated when indexed), so loading skips
validation. The tools of a server that failed at re-index can be read back by owner, so the
last good ones are kept.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stores.catalog.model import AgentSpec, Catalog, ToolSpec

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tools (
    name TEXT NOT NULL, id TEXT NOT NULL, agent TEXT NOT NULL, position INTEGER NOT NULL,
    digest TEXT NOT NULL, spec TEXT NOT NULL, PRIMARY KEY (name, id)
);
CREATE INDEX IF NOT EXISTS tools_by_agent ON tools (name, agent);
CREATE TABLE IF NOT EXISTS agents (
    name TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL,
    digest TEXT NOT NULL, spec TEXT NOT NULL, PRIMARY KEY (name, id)
);
"""


@dataclass(frozen=True)
class SaveReport:
    """What a save wrote: rows inserted or replaced, and rows deleted."""

    written: int
    deleted: int


class CatalogStore:
    """Catalogs by index name, in one SQLite file."""

    def __init__(self, path: Path) -> None:
        """Open (or create) the store at ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._connection = sqlite3.connect(str(path), check_same_thread=False)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()

    def has(self, name: str) -> bool:
        """Whether a catalog was saved under ``name``."""
        for table in ("tools", "agents"):
            row = self._connection.execute(
                f"SELECT 1 FROM {table} WHERE name = ? LIMIT 1", (name,)  # noqa: S608
            ).fetchone()
            if row is not None:
                return True
        return False

    def save(self, name: str, catalog: Catalog) -> SaveReport:
        """Make the rows under ``name`` hold exactly ``catalog``, writing only what changed."""
        tool_rows = [
            (spec.id, spec.agent, position, *_encode(spec.model_dump(exclude={"call_name"})))
            for position, spec in enumerate(catalog.tools.values())
        ]
        agent_rows = [
            (agent.id, position, *_encode(agent.model_dump()))
            for position, agent in enumerate(catalog.agents.values())
        ]
        written = deleted = 0
        with self._connection:
            for table, rows, width in (("tools", tool_rows, 6), ("agents", agent_rows, 5)):
                stored = {
                    row_id: (position, digest)
                    for row_id, position, digest in self._connection.execute(
                        f"SELECT id, position, digest FROM {table} WHERE name = ?",  # noqa: S608
                        (name,),
                    )
                }
                changed = [row for row in rows if stored.get(row[0]) != (row[-3], row[-2])]
                gone = stored.keys() - {row[0] for row in rows}
                placeholders = ", ".join("?" * width)
                self._connection.executemany(
                    f"INSERT OR REPLACE INTO {table} VALUES ({placeholders})",  # noqa: S608
                    [(name, *row) for row in changed],
                )
                self._connection.executemany(
                    f"DELETE FROM {table} WHERE name = ? AND id = ?",  # noqa: S608
                    [(name, row_id) for row_id in gone],
                )
                written += len(changed)
                deleted += len(gone)
        return SaveReport(written, deleted)

    def load(self, name: str) -> Catalog | None:
        """The catalog saved under ``name``, in the order it was saved; None when there is none."""
        if not self.has(name):
            return None
        catalog = Catalog()
        for (spec,) in self._connection.execute(
            "SELECT spec FROM agents WHERE name = ? ORDER BY position", (name,)
        ):
            agent = AgentSpec.model_construct(**json.loads(spec))
            catalog.agents[agent.id] = agent
        for (spec,) in self._connection.execute(
            "SELECT spec FROM tools WHERE name = ? ORDER BY position", (name,)
        ):
            catalog.add_tool(_tool(json.loads(spec)))
        return catalog

    def tools_of(self, name: str, agent: str) -> tuple[AgentSpec | None, list[ToolSpec]]:
        """The saved agent ``agent`` of catalog ``name`` and its tools (its last good ones)."""
        row = self._connection.execute(
            "SELECT spec FROM agents WHERE name = ? AND id = ?", (name, agent)
        ).fetchone()
        owner = AgentSpec.model_construct(**json.loads(row[0])) if row else None
        tools = [
            _tool(json.loads(spec))
            for (spec,) in self._connection.execute(
                "SELECT spec FROM tools WHERE name = ? AND agent = ? ORDER BY position",
                (name, agent),
            )
        ]
        return owner, tools


def _encode(data: dict[str, Any]) -> tuple[str, str]:
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return digest, text


def _tool(data: dict[str, Any]) -> ToolSpec:
    return ToolSpec.model_construct(**data)
