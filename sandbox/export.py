"""Every table of a sandbox database as rows of column → value, read in one snapshot.

Used by `python -m sandbox export`; Python callers use `export_tables` directly.
"""

import sqlite3
from pathlib import Path
from typing import Any


def export_tables(db_path: str | Path) -> dict[str, list[dict[str, Any]]]:
    """Return every table of a sandbox database with all its rows, without writing to it.

    Tables are those of `sqlite_master` except SQLite's internal `sqlite_*` ones, in name
    order. Rows are in rowid order (the `INTEGER PRIMARY KEY` for the sandbox's tables), or
    in primary-key order for a `WITHOUT ROWID` table. All tables are read in one transaction,
    so a server writing meanwhile cannot make them disagree.

    Args:
        db_path: The SQLite file.

    Returns:
        Table name to its rows, each a dict of column name to value in column order. Values
        are as SQLite stores them: int, float, str, bytes or None.

    Raises:
        FileNotFoundError: When `db_path` is not an existing file.
        sqlite3.DatabaseError: When the file is not a readable SQLite database.
    """
    path = Path(db_path)
    if not path.is_file():
        raise FileNotFoundError(f"no sandbox database at {path}")
    # Read-only: never creates the file, never changes it.
    connection = sqlite3.connect(
        f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
    )
    try:
        connection.execute("BEGIN")
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' "
                "AND substr(name, 1, 7) != 'sqlite_' ORDER BY name"
            )
        ]
        return {table: _rows(connection, table) for table in tables}
    finally:
        connection.close()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _rows(connection: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    cursor = connection.execute(f"SELECT * FROM {_quote(table)}{_order_by(connection, table)}")
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _order_by(connection: sqlite3.Connection, table: str) -> str:
    """Return the ORDER BY clause of a table: its rowid, else its primary key."""
    info = list(connection.execute(f"PRAGMA table_info({_quote(table)})"))
    # table_list columns: schema, name, type, ncol, wr (1 for WITHOUT ROWID), strict.
    listed = connection.execute(f"PRAGMA main.table_list({_quote(table)})").fetchone()
    if listed is None or not listed[4]:
        # A column may shadow "rowid"; SQLite has three names for it.
        columns = {row[1].lower() for row in info}
        alias = next((a for a in ("rowid", "_rowid_", "oid") if a not in columns), None)
        if alias is not None:
            return f" ORDER BY {alias}"
    key = [name for _, name in sorted((row[5], row[1]) for row in info if row[5] > 0)]
    return f" ORDER BY {', '.join(_quote(name) for name in key)}" if key else ""
