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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stores.catalog.model import AgentSpec, Catalog, ToolSpec
from stores.catalog.records import FileRecords

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tools (
    name TEXT NOT NULL, id TEXT NOT NULL, agent TEXT NOT NULL, position INTEGER NOT NULL,
    digest TEXT NOT NULL, content TEXT NOT NULL, raw TEXT NOT NULL, spec TEXT NOT NULL,
    PRIMARY KEY (name, id)
);
CREATE TABLE IF NOT EXISTS fingerprints (name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS tools_by_agent ON tools (name, agent);
CREATE TABLE IF NOT EXISTS agents (
    name TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL,
    digest TEXT NOT NULL, spec TEXT NOT NULL, PRIMARY KEY (name, id)
);
CREATE TABLE IF NOT EXISTS syncs (
    name TEXT PRIMARY KEY, sources TEXT NOT NULL, fingerprint TEXT NOT NULL,
    stamp TEXT NOT NULL, report TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sync_records (
    name TEXT NOT NULL, path TEXT NOT NULL, agents TEXT NOT NULL, keys TEXT NOT NULL,
    PRIMARY KEY (name, path)
);
CREATE INDEX IF NOT EXISTS tools_by_raw ON tools (name, raw);
"""


@dataclass(frozen=True)
class SyncRecord:
    """What the last finished ``zspace index`` of catalog files saw and did.

    ``sources``: each file's resolved path and content digest, in the command's order;
    ``fingerprint``: how the tools were enriched; ``stamp``: the index's state after the
    sync (``ToolIndex.sync_stamp``); ``report``: its counts, shown again by a no-op.
    """

    sources: tuple[tuple[str, str], ...]
    fingerprint: str
    stamp: str
    report: dict[str, Any]


def source_digests(paths: Sequence[str | Path]) -> tuple[tuple[str, str], ...] | None:
    """Each catalog file's resolved path and SHA-256 digest; None when one is not a file.

    A digest per file is what a no-op re-index reads instead of parsing every record.
    """
    digests: list[tuple[str, str]] = []
    for given in paths:
        path = Path(given).resolve()
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            digests.append((str(path), hashlib.file_digest(handle, "sha256").hexdigest()))
    return tuple(digests)


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

    def save(self, name: str, catalog: Catalog, fingerprint: str = "") -> SaveReport:
        """Make the rows under ``name`` hold exactly ``catalog``, writing only what changed.

        A tool read back from this store and not changed since is compared by its known
        digest, without being serialized again. ``fingerprint`` names how the tools were
        enriched; :meth:`reusable` offers them again only under the same fingerprint.
        """
        written = deleted = 0
        with self._connection:
            stored = {
                row[0]: tuple(row[1:])
                for row in self._connection.execute(
                    "SELECT id, position, digest, raw FROM tools WHERE name = ?", (name,)
                )
            }
            changed: list[tuple[Any, ...]] = []
            for position, spec in enumerate(catalog.tools.values()):
                raw = spec.known("raw") or ""
                digest = spec.known("digest")
                if digest is not None and stored.get(spec.id) == (position, digest, raw):
                    continue
                digest, text = _encode(spec.model_dump(exclude={"call_name"}))
                if stored.get(spec.id) != (position, digest, raw):
                    changed.append(
                        (name, spec.id, spec.agent, position, digest, spec.content_hash(), raw,
                         text)
                    )
            gone = stored.keys() - catalog.tools.keys()
            self._connection.executemany(
                "INSERT OR REPLACE INTO tools VALUES (?, ?, ?, ?, ?, ?, ?, ?)", changed
            )
            self._connection.executemany(
                "DELETE FROM tools WHERE name = ? AND id = ?", [(name, i) for i in gone]
            )
            written += len(changed)
            deleted += len(gone)
            stored_agents = {
                row[0]: (row[1], row[2])
                for row in self._connection.execute(
                    "SELECT id, position, digest FROM agents WHERE name = ?", (name,)
                )
            }
            agent_rows = [
                (name, agent.id, position, *_encode(agent.model_dump()))
                for position, agent in enumerate(catalog.agents.values())
            ]
            changed_agents = [row for row in agent_rows if stored_agents.get(row[1]) != row[2:4]]
            gone_agents = stored_agents.keys() - catalog.agents.keys()
            self._connection.executemany(
                "INSERT OR REPLACE INTO agents VALUES (?, ?, ?, ?, ?)", changed_agents
            )
            self._connection.executemany(
                "DELETE FROM agents WHERE name = ? AND id = ?", [(name, i) for i in gone_agents]
            )
            self._connection.execute(
                "INSERT OR REPLACE INTO fingerprints VALUES (?, ?)", (name, fingerprint)
            )
            written += len(changed_agents)
            deleted += len(gone_agents)
        return SaveReport(written, deleted)

    def last_sync(self, name: str) -> SyncRecord | None:
        """The record of the last finished sync of catalog files under ``name``, if any."""
        row = self._connection.execute(
            "SELECT sources, fingerprint, stamp, report FROM syncs WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            return None
        sources = tuple((str(path), str(digest)) for path, digest in json.loads(row[0]))
        return SyncRecord(sources, row[1], row[2], json.loads(row[3]))

    def record_sync(
        self,
        name: str,
        record: SyncRecord | None,
        records: Mapping[str, FileRecords] | None = None,
    ) -> None:
        """Remember ``record`` as the last sync of ``name``; None forgets it (a sync starts).

        ``records``: the record keys of each catalog file of the sync (by resolved path),
        which let the next sync find the records that changed (:meth:`file_records`).
        """
        with self._connection:
            self._connection.execute("DELETE FROM sync_records WHERE name = ?", (name,))
            if record is None:
                self._connection.execute("DELETE FROM syncs WHERE name = ?", (name,))
                return
            self._connection.execute(
                "INSERT OR REPLACE INTO syncs VALUES (?, ?, ?, ?, ?)",
                (name, json.dumps(record.sources), record.fingerprint, record.stamp,
                 json.dumps(record.report)),
            )
            self._connection.executemany(
                "INSERT INTO sync_records VALUES (?, ?, ?, ?)",
                [
                    (name, path, file.agents_key, json.dumps(list(file.tool_keys)))
                    for path, file in (records or {}).items()
                ],
            )

    def file_records(self, name: str) -> dict[str, FileRecords]:
        """The record keys of each catalog file the last finished sync of ``name`` read."""
        return {
            path: FileRecords(agents, tuple(json.loads(keys)))
            for path, agents, keys in self._connection.execute(
                "SELECT path, agents, keys FROM sync_records WHERE name = ?", (name,)
            )
        }

    def tools_by_raw(self, name: str, keys: Sequence[str]) -> dict[str, tuple[int, ToolSpec]]:
        """The saved tools read from records with these raw keys, with their positions.

        Asks for those rows only (an index on the raw key): one changed record costs one
        row read, whatever the catalog's size. A key saved twice is left out.
        """
        found: dict[str, tuple[int, ToolSpec]] = {}
        seen: set[str] = set()
        for start in range(0, len(keys), 500):
            chunk = list(keys[start : start + 500])
            marks = ", ".join("?" * len(chunk))
            for raw, position, digest, content, spec in self._connection.execute(
                "SELECT raw, position, digest, content, spec FROM tools "  # noqa: S608
                f"WHERE name = ? AND raw IN ({marks})",
                (name, *chunk),
            ):
                if raw in seen:
                    found.pop(raw, None)
                    continue
                seen.add(raw)
                tool = _tool(json.loads(spec))
                tool.remember(digest=digest, content=content, raw=raw)
                found[raw] = (int(position), tool)
        return found

    def agent_names(self, name: str, agents: Sequence[str]) -> dict[str, str]:
        """The display name of each of these saved agents of catalog ``name`` (if saved)."""
        names: dict[str, str] = {}
        for agent in dict.fromkeys(agents):
            row = self._connection.execute(
                "SELECT spec FROM agents WHERE name = ? AND id = ?", (name, agent)
            ).fetchone()
            if row is not None:
                names[agent] = str(json.loads(row[0]).get("name") or "")
        return names

    def save_tools(self, name: str, tools: Sequence[tuple[int, ToolSpec]]) -> int:
        """Write these tools at their positions (replacing the rows of their ids).

        The in-place counterpart of :meth:`save` for tools whose records changed where they
        were: the other rows are not read. Returns how many rows were written.
        """
        rows = []
        for position, spec in tools:
            digest, text = _encode(spec.model_dump(exclude={"call_name"}))
            rows.append(
                (name, spec.id, spec.agent, position, digest, spec.content_hash(),
                 spec.known("raw") or "", text)
            )
        with self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO tools VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows
            )
        return len(rows)

    def reusable(self, name: str, fingerprint: str) -> dict[str, ToolSpec]:
        """Saved tools by raw key, to load an unchanged record without validating it again.

        Empty when the catalog was enriched differently (another ``fingerprint``).
        """
        row = self._connection.execute(
            "SELECT fingerprint FROM fingerprints WHERE name = ?", (name,)
        ).fetchone()
        if row is None or row[0] != fingerprint:
            return {}
        reuse: dict[str, ToolSpec] = {}
        for digest, content, raw, spec in self._connection.execute(
            "SELECT digest, content, raw, spec FROM tools WHERE name = ? AND raw != ''", (name,)
        ):
            tool = _tool(json.loads(spec))
            tool.remember(digest=digest, content=content, raw=raw, enriched=fingerprint)
            reuse[raw] = tool
        return reuse

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
        for digest, content, raw, spec in self._connection.execute(
            "SELECT digest, content, raw, spec FROM tools WHERE name = ? ORDER BY position",
            (name,),
        ):
            tool = _tool(json.loads(spec))
            tool.remember(digest=digest, content=content, raw=raw)
            catalog.add_tool(tool)
        return catalog

    def tool_counts(self, name: str) -> dict[str, int]:
        """How many tools each agent of catalog ``name`` has saved (empty when there is none)."""
        return {
            agent: count
            for agent, count in self._connection.execute(
                "SELECT agent, COUNT(*) FROM tools WHERE name = ? GROUP BY agent", (name,)
            )
        }

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


STALE_FLAG = "stale"


def keep_last_good(
    catalog: Catalog, failed: Mapping[str, str], *, store: CatalogStore, name: str
) -> dict[str, int]:
    """Add the last good tools of every failed source to ``catalog``, flagged ``stale``.

    A server that cannot be listed at re-index keeps the tools it had in catalog ``name``,
    so a flaky server does not drop out of the index; they are marked so the catalog says
    they were not confirmed this time.

    Returns:
        How many tools were kept per failed source (0: nothing was indexed from it before).
    """
    kept: dict[str, int] = {}
    for source in failed:
        owner, tools = store.tools_of(name, source)
        if owner is not None:
            catalog.agents.setdefault(source, owner)
        count = 0
        for spec in tools:
            if STALE_FLAG not in spec.flags:
                spec.flags = [*spec.flags, STALE_FLAG]
            if catalog.add_tool(spec) is not None:
                count += 1
        kept[source] = count
    return kept
