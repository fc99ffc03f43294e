"""`python -m sandbox export` and `export_tables` on real SQLite files, in real subprocesses."""

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.backend import Sandbox
from sandbox.export import export_tables

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]


def run_sandbox(*args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("ZSPACE_HOME", None)
    if home is not None:
        env["ZSPACE_HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "sandbox", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def schema_tables(db: Path) -> list[str]:
    with sqlite3.connect(db) as connection:
        return [
            row[0]
            for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not row[0].startswith("sqlite_")
        ]


def direct_rows(db: Path, table: str) -> list[dict[str, object]]:
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in connection.execute(f'SELECT * FROM "{table}" ORDER BY rowid')]
    finally:
        connection.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A freshly reset sandbox database holding one user created through the Sandbox API."""
    path = tmp_path / "sandbox.db"
    reset = run_sandbox("reset", "--db", str(path))
    assert reset.returncode == 0, reset.stderr
    with Sandbox(path) as sandbox:
        sandbox.create_user(name="Export probe", email="probe@example.test", idempotency_key="p")
    return path


def test_export_prints_every_table_with_its_rows(db: Path) -> None:
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    done = run_sandbox("export", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    exported = json.loads(done.stdout)  # the whole stdout is one JSON document

    tables = schema_tables(db)
    assert len(tables) >= 20 and {"users", "orders", "idempotency_keys"} <= set(tables)
    assert list(exported) == sorted(tables)
    for table in tables:
        assert exported[table] == direct_rows(db, table), table

    probes = [row for row in exported["users"] if row["name"] == "Export probe"]
    assert len(probes) == 1
    probe = probes[0]
    assert probe["email"] == "probe@example.test" and probe["status"] == "active"
    assert probe["user_id"] == max(row["user_id"] for row in exported["users"])
    user_ids = [row["user_id"] for row in exported["users"]]
    assert user_ids == sorted(user_ids) and len(user_ids) == 6  # five seeded users + the probe
    assert [row["tool"] for row in exported["idempotency_keys"]] == ["create_user"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest  # read-only


def test_export_reads_the_default_database(db: Path) -> None:
    done = run_sandbox("export", home=db.parent)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == export_tables(db)


def test_missing_database_is_a_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "sandbox.db"
    done = run_sandbox("export", "--db", str(missing))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"no sandbox database at {missing}")
    assert not missing.exists() and not missing.parent.exists()
    with pytest.raises(FileNotFoundError, match="no sandbox database at"):
        export_tables(missing)


def test_a_file_that_is_not_a_database_is_a_one_line_error(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not sqlite at all, long enough to have a header of sorts\n" * 4)
    done = run_sandbox("export", "--db", str(junk))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "not a database" in done.stderr


def test_export_tables_matches_a_live_sandbox(db: Path) -> None:
    with Sandbox(db) as sandbox:  # open connection: the export reads next to the WAL
        order = sandbox.create_order(user_id=1, product_id=1, quantity=2)
        exported = export_tables(db)
        counts = {table: sandbox.count_rows(table) for table in exported}
    assert {table: len(rows) for table, rows in exported.items()} == counts
    [row] = [row for row in exported["orders"] if row["order_id"] == order["order_id"]]
    assert (row["user_id"], row["status"], row["total"]) == (1, "created", order["total"])
    items = [row for row in exported["order_items"] if row["order_id"] == order["order_id"]]
    assert [(item["product_id"], item["quantity"]) for item in items] == [(1, 2)]


def test_export_orders_without_rowid_tables_by_key_and_hexes_blobs(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE pairs (b TEXT, a INTEGER, PRIMARY KEY (a, b)) WITHOUT ROWID")
        connection.executemany("INSERT INTO pairs VALUES (?, ?)", [("y", 2), ("z", 1), ("x", 2)])
        connection.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB)")
        connection.execute("INSERT INTO blobs VALUES (2, x'00ff')")
        connection.execute("INSERT INTO blobs VALUES (1, NULL)")
    connection.close()
    assert export_tables(path) == {
        "blobs": [{"id": 1, "data": None}, {"id": 2, "data": b"\x00\xff"}],
        "pairs": [{"b": "z", "a": 1}, {"b": "x", "a": 2}, {"b": "y", "a": 2}],
    }
    done = run_sandbox("export", "--db", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["blobs"] == [{"id": 1, "data": None}, {"id": 2, "data": "00ff"}]
