"""The index's entry table in SQLite: what Chroma holds, by key, plus the BM25 tokens.

One row per entry (tool or agent) of one named index: the key its vector was computed from,
the text, the filter fields and the lexical tokens. A sync compares keys here (not Chroma's
metadata, not a JSON file) and writes only the rows that changed; a generation counter,
bumped by every change, tells whether the persisted BM25 model is still current; a flag says
whether the last sync finished, so a finished one need not be checked against Chroma.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

EntryKind = Literal["tool", "agent"]
TOKEN_SEPARATOR = " "

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entries (
    name TEXT NOT NULL, entry_id TEXT NOT NULL, kind TEXT NOT NULL, ref TEXT NOT NULL,
    agent TEXT NOT NULL, environment TEXT NOT NULL, side_effect INTEGER NOT NULL,
    key TEXT NOT NULL, text TEXT NOT NULL, tags TEXT NOT NULL, tokens TEXT NOT NULL,
    PRIMARY KEY (name, entry_id)
);
CREATE TABLE IF NOT EXISTS generations (
    name TEXT PRIMARY KEY, generation INTEGER NOT NULL, epoch TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS syncs (name TEXT PRIMARY KEY, completed INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS agent_names (
    name TEXT NOT NULL, agent TEXT NOT NULL, tokens TEXT NOT NULL, PRIMARY KEY (name, agent)
);
CREATE TABLE IF NOT EXISTS agent_name_weights (
    name TEXT PRIMARY KEY, generation TEXT NOT NULL, weights TEXT NOT NULL
);
"""
_COLUMNS = "entry_id, kind, ref, agent, environment, side_effect, key, text, tags"


@dataclass(frozen=True)
class IndexEntry:
    """One row of the joint index (plain data, JSON-serializable).

    ``environment`` is ``""`` for an untagged entry; ``side_effect`` says whether a call may
    write (an unknown side effect counts as writing, as the environment rule reads it).
    """

    entry_id: str
    kind: EntryKind
    ref: str
    agent: str
    environment: str
    side_effect: bool
    key: str
    text: str
    tags: tuple[str, ...] = ()


class EntryTable:
    """The entry rows of the named indexes stored in one SQLite file."""

    def __init__(self, path: Path, name: str) -> None:
        """Open (or create) the table file at ``path`` for the index called ``name``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.name = name
        self._connection = sqlite3.connect(str(path), check_same_thread=False)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()

    def count(self) -> int:
        """How many entries the index holds."""
        row = self._connection.execute(
            "SELECT COUNT(*) FROM entries WHERE name = ?", (self.name,)
        ).fetchone()
        return int(row[0])

    def keys(self) -> dict[str, str]:
        """``{entry id: key}`` of every stored entry."""
        return dict(
            self._connection.execute(
                "SELECT entry_id, key FROM entries WHERE name = ?", (self.name,)
            ).fetchall()
        )

    def keys_of(self, entry_ids: Sequence[str]) -> dict[str, str]:
        """``{entry id: key}`` of these entries (those stored), read by id."""
        found: dict[str, str] = {}
        for entry_id in entry_ids:
            row = self._connection.execute(
                "SELECT key FROM entries WHERE name = ? AND entry_id = ?", (self.name, entry_id)
            ).fetchone()
            if row is not None:
                found[entry_id] = str(row[0])
        return found

    def load(self) -> dict[str, IndexEntry]:
        """Every stored entry, by id, in id order."""
        rows = self._connection.execute(
            f"SELECT {_COLUMNS} FROM entries WHERE name = ? ORDER BY entry_id",  # noqa: S608
            (self.name,),
        )
        return {row[0]: _entry(row) for row in rows}

    def entry(self, entry_id: str) -> IndexEntry | None:
        """One stored entry, or None."""
        row = self._connection.execute(
            f"SELECT {_COLUMNS} FROM entries WHERE name = ? AND entry_id = ?",  # noqa: S608
            (self.name, entry_id),
        ).fetchone()
        return None if row is None else _entry(row)

    def filter_fields(self) -> dict[str, tuple[str, str, bool]]:
        """``{entry id: (kind, environment, side effect)}`` of every entry (no text read)."""
        return {
            entry_id: (kind, environment, bool(side_effect))
            for entry_id, kind, environment, side_effect in self._connection.execute(
                "SELECT entry_id, kind, environment, side_effect FROM entries WHERE name = ?",
                (self.name,),
            )
        }

    def save_agent_names(
        self, generation: str, tokens: Mapping[str, Sequence[str]], weights: Mapping[str, float]
    ) -> None:
        """Keep each agent's name tokens and the names' word weights for ``generation``."""
        with self._connection:
            self._connection.execute("DELETE FROM agent_names WHERE name = ?", (self.name,))
            self._connection.executemany(
                "INSERT INTO agent_names VALUES (?, ?, ?)",
                [(self.name, agent, json.dumps(list(words))) for agent, words in tokens.items()],
            )
            self._connection.execute(
                "INSERT OR REPLACE INTO agent_name_weights VALUES (?, ?, ?)",
                (self.name, generation, json.dumps(dict(weights))),
            )

    def agent_name_weights(self, generation: str) -> dict[str, float] | None:
        """The word weights saved for ``generation`` (None: none saved for it)."""
        row = self._connection.execute(
            "SELECT generation, weights FROM agent_name_weights WHERE name = ?", (self.name,)
        ).fetchone()
        if row is None or row[0] != generation:
            return None
        weights: dict[str, float] = json.loads(row[1])
        return weights

    def agent_name_tokens(self, agent: str | None = None) -> dict[str, frozenset[str]]:
        """Saved name tokens of ``agent`` (of every agent when None), by agent."""
        query = "SELECT agent, tokens FROM agent_names WHERE name = ?"
        arguments: tuple[str, ...] = (self.name,)
        if agent is not None:
            query += " AND agent = ?"
            arguments = (self.name, agent)
        return {
            name: frozenset(json.loads(words))
            for name, words in self._connection.execute(query, arguments)
        }

    def tokens(self) -> tuple[list[str], list[list[str]]]:
        """Entry ids in id order and their BM25 tokens."""
        ids: list[str] = []
        tokens: list[list[str]] = []
        for entry_id, joined in self._connection.execute(
            "SELECT entry_id, tokens FROM entries WHERE name = ? ORDER BY entry_id", (self.name,)
        ):
            ids.append(entry_id)
            tokens.append(joined.split(TOKEN_SEPARATOR) if joined else [])
        return ids, tokens

    def write(self, entries: Sequence[IndexEntry], tokens: Sequence[Sequence[str]]) -> None:
        """Insert or replace these entries with their tokens, and bump the generation."""
        if not entries:
            return
        with self._connection:
            self._connection.executemany(
                "INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        self.name, e.entry_id, e.kind, e.ref, e.agent, e.environment,
                        int(e.side_effect), e.key, e.text, json.dumps(list(e.tags)),
                        TOKEN_SEPARATOR.join(words),
                    )
                    for e, words in zip(entries, tokens, strict=True)
                ],
            )
            self._bump()

    def delete(self, entry_ids: Iterable[str]) -> None:
        """Remove these entries, and bump the generation."""
        ids = [(self.name, entry_id) for entry_id in entry_ids]
        if not ids:
            return
        with self._connection:
            self._connection.executemany(
                "DELETE FROM entries WHERE name = ? AND entry_id = ?", ids
            )
            self._bump()

    def clear(self) -> None:
        """Remove every entry of this index (the table then no longer says what Chroma holds)."""
        with self._connection:
            self._connection.execute("DELETE FROM entries WHERE name = ?", (self.name,))
            self._connection.execute(
                "INSERT OR REPLACE INTO syncs VALUES (?, 0)", (self.name,)
            )
            self._bump()

    def sync_completed(self) -> bool | None:
        """Whether the last sync finished (None: no sync recorded, an older home)."""
        row = self._connection.execute(
            "SELECT completed FROM syncs WHERE name = ?", (self.name,)
        ).fetchone()
        return None if row is None else bool(row[0])

    def mark_sync(self, completed: bool) -> None:
        """Record that a sync starts writing (False) or has finished (True)."""
        with self._connection:
            self._connection.execute(
                "INSERT OR REPLACE INTO syncs VALUES (?, ?)", (self.name, int(completed))
            )

    def generation_key(self) -> str:
        """Names this state of the entries: every change gives a new key.

        A counter, prefixed by a random epoch drawn when the table is created, so a table
        deleted and made again never repeats the key of a model saved from the old one.
        """
        row = self._connection.execute(
            "SELECT epoch, generation FROM generations WHERE name = ?", (self.name,)
        ).fetchone()
        if row is None:
            with self._connection:
                self._bump()
            return self.generation_key()
        return f"{row[0]}:{row[1]}"

    def _bump(self) -> None:
        self._connection.execute(
            "INSERT INTO generations VALUES (?, 1, ?) "
            "ON CONFLICT(name) DO UPDATE SET generation = generation + 1",
            (self.name, uuid.uuid4().hex),
        )


def _entry(row: Sequence[Any]) -> IndexEntry:
    return IndexEntry(
        row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7],
        tuple(json.loads(row[8])) if row[8] != "[]" else (),
    )


class LazyEntries(Mapping[str, IndexEntry]):
    """The entry table as a mapping read by id on demand, whole only when iterated.

    A query needs the entries of the few hits it ranks: reading 139,294 rows at start-up
    cost 1.3 s CPU at 100k tools.
    """

    def __init__(self, table: EntryTable) -> None:
        """Read ``table`` lazily."""
        self._table = table
        self._read: dict[str, IndexEntry | None] = {}
        self._whole: dict[str, IndexEntry] | None = None
        self._count: int | None = None

    def __getitem__(self, entry_id: str) -> IndexEntry:
        """The entry ``entry_id``, read once."""
        if self._whole is not None:
            return self._whole[entry_id]
        if entry_id not in self._read:
            self._read[entry_id] = self._table.entry(entry_id)
        entry = self._read[entry_id]
        if entry is None:
            raise KeyError(entry_id)
        return entry

    def __len__(self) -> int:
        """How many entries the table holds."""
        if self._whole is not None:
            return len(self._whole)
        if self._count is None:
            self._count = self._table.count()
        return self._count

    def __iter__(self) -> Iterator[str]:
        """Entry ids in id order (the whole table is read)."""
        if self._whole is None:
            self._whole = self._table.load()
        return iter(self._whole)


class LazyAgentTokens(Mapping[str, frozenset[str]]):
    """Saved agent-name tokens (``EntryTable.save_agent_names``), read by agent on demand."""

    def __init__(self, table: EntryTable) -> None:
        """Read ``table``'s saved tokens lazily."""
        self._table = table
        self._read: dict[str, frozenset[str] | None] = {}
        self._whole: dict[str, frozenset[str]] | None = None

    def __getitem__(self, agent: str) -> frozenset[str]:
        """The name tokens of ``agent``, read once."""
        if self._whole is not None:
            return self._whole[agent]
        if agent not in self._read:
            self._read[agent] = self._table.agent_name_tokens(agent).get(agent)
        tokens = self._read[agent]
        if tokens is None:
            raise KeyError(agent)
        return tokens

    def __len__(self) -> int:
        """How many agents have saved name tokens."""
        return len(self._all())

    def __iter__(self) -> Iterator[str]:
        """Every agent with saved name tokens."""
        return iter(self._all())

    def _all(self) -> dict[str, frozenset[str]]:
        if self._whole is None:
            self._whole = self._table.agent_name_tokens()
        return self._whole


def entry_from_json(row: dict[str, object]) -> IndexEntry:
    """An entry from a row of the JSON entry table older versions wrote."""
    tags = row.get("tags") or ()
    return IndexEntry(**{**row, "tags": tuple(tags)})  # type: ignore[arg-type]


def embedded_sync_stamp(directory: Path, name: str, config_key: str) -> str | None:
    """``ToolIndex(directory, name=name).sync_stamp()`` of an embedded index, Chroma unopened.

    Importing and opening Chroma cost about 1 s CPU, most of a no-op ``zspace index``.
    """
    table_path = directory / "entries.sqlite"
    if (
        not table_path.is_file()
        or not (directory / "chroma").is_dir()
        or (directory / f"{name}.entries.json").is_file()  # an older table, migrated on open
    ):
        return None
    table = EntryTable(table_path, name)
    try:
        if not table.sync_completed():
            return None
        return f"{config_key}:{table.generation_key()}"
    finally:
        table.close()
