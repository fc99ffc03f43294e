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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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
"""


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
            "SELECT entry_id, kind, ref, agent, environment, side_effect, key, text, tags "
            "FROM entries WHERE name = ? ORDER BY entry_id",
            (self.name,),
        )
        return {
            row[0]: IndexEntry(
                row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7],
                tuple(json.loads(row[8])) if row[8] != "[]" else (),
            )
            for row in rows
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
