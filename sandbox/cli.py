"""`python -m sandbox serve | reset | rows | export | catalog`: run, reseed, inspect, describe.

`serve` and `reset` take the sandbox's clock (`--now`, `--offset-days`); without them the
clock comes from the environment, else (serve) from the database's last reset.
"""

import argparse
import ipaddress
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from sandbox.backend import Sandbox
from sandbox.catalog import sync_production_twins, write_catalog
from sandbox.clock import (
    NOW_VARIABLE,
    OFFSET_VARIABLE,
    ClockSettingError,
    SandboxClock,
    parse_moment,
    parse_offset_days,
)
from sandbox.export import export_tables
from sandbox.server import build_server


def default_db_path() -> Path:
    """Return `$ZSPACE_HOME/sandbox.db`, with ZSPACE_HOME defaulting to `./.zspace`."""
    return Path(os.environ.get("ZSPACE_HOME") or ".zspace") / "sandbox.db"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sandbox", description="The zspace test-data sandbox (an MCP server)."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the tools over MCP (stdio by default)")
    serve.add_argument("--db", type=Path, help="SQLite file (default $ZSPACE_HOME/sandbox.db)")
    serve.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP interface (default 127.0.0.1)")
    _clock_options(serve)
    reset = commands.add_parser(
        "reset", help="drop all data and load the seed, dated relative to the sandbox clock"
    )
    reset.add_argument("--db", type=Path, help="SQLite file (default $ZSPACE_HOME/sandbox.db)")
    _clock_options(reset)
    rows = commands.add_parser(
        "rows", help="row counts per table, or the rows added since an earlier snapshot"
    )
    rows.add_argument("--db", type=Path, help="SQLite file (default $ZSPACE_HOME/sandbox.db)")
    rows.add_argument("--since", type=Path, help="a snapshot written earlier with --snapshot")
    rows.add_argument("--snapshot", type=Path, help="write the current high-water marks here")
    export = commands.add_parser(
        "export", help="print every table as one JSON object: table name -> list of rows"
    )
    export.add_argument("--db", type=Path, help="SQLite file (default $ZSPACE_HOME/sandbox.db)")
    catalog = commands.add_parser("catalog", help="write the sandbox's tools as a catalog")
    catalog.add_argument("--out", type=Path, help="output file (default: stdout)")
    catalog.add_argument(
        "--near-misses",
        type=Path,
        metavar="FILE",
        help="also rewrite the production twins of every writer in this near-miss catalog",
    )
    return parser


def _clock_options(command: argparse.ArgumentParser) -> None:
    clock = command.add_mutually_exclusive_group()
    clock.add_argument(
        "--now",
        metavar="TIME",
        help=f"fix the sandbox clock at an ISO-8601 time, e.g. 2029-11-24T09:00:00Z "
        f"(default: ${NOW_VARIABLE})",
    )
    clock.add_argument(
        "--offset-days",
        metavar="DAYS",
        help=f"shift the system clock by DAYS, negative goes back (default: ${OFFSET_VARIABLE})",
    )


def _clock(args: argparse.Namespace) -> SandboxClock | None:
    """The clock the flags set, else the environment's, else None."""
    if args.now is not None:
        return SandboxClock.fixed(parse_moment(args.now, "--now"))
    if args.offset_days is not None:
        return SandboxClock.shifted(parse_offset_days(args.offset_days, "--offset-days"))
    return SandboxClock.from_environment()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line.

    Args:
        argv: Arguments without the program name; defaults to `sys.argv[1:]`.

    Returns:
        The process exit code.
    """
    args = _parser().parse_args(argv)
    if args.command == "catalog":
        text = write_catalog(args.out)
        if args.out is None:
            sys.stdout.write(text)
        else:
            print(f"wrote {args.out}", file=sys.stderr)
        if args.near_misses is not None:
            sync_production_twins(args.near_misses)
            print(f"wrote {args.near_misses}", file=sys.stderr)
        return 0
    db_path: Path = args.db or default_db_path()
    if args.command == "rows":
        return _rows(db_path, args.since, args.snapshot)
    if args.command == "export":
        return _export(db_path)
    try:
        clock = _clock(args)
    except ClockSettingError as error:
        print(f"sandbox clock: {error}", file=sys.stderr)
        return 2
    if args.command == "reset":
        with Sandbox(db_path, clock=clock) as sandbox:
            sandbox.reset()
        print(f"reset {db_path} (clock: {(clock or SandboxClock()).describe()})", file=sys.stderr)
        return 0
    sandbox = Sandbox(db_path, clock=clock)
    try:
        if args.http is None:
            build_server(sandbox).run("stdio")
        else:
            if not _is_loopback(args.host):
                print(
                    f"warning: serving the sandbox on non-loopback {args.host}; "
                    "it has no authentication",
                    file=sys.stderr,
                )
            build_server(sandbox, host=args.host, port=args.http).run("streamable-http")
    except KeyboardInterrupt:
        pass
    finally:
        sandbox.close()
    return 0


def _high_water_marks(connection: sqlite3.Connection) -> dict[str, int]:
    tables = [
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        )
    ]
    return {
        table: int(
            connection.execute(f'SELECT COALESCE(MAX(rowid), 0) FROM "{table}"').fetchone()[0]
        )
        for table in tables
    }


def _rows(db_path: Path, since: Path | None, snapshot: Path | None) -> int:
    """Print rows added since a snapshot (or counts), read-only."""
    if not db_path.exists():
        print(f"no sandbox database at {db_path}", file=sys.stderr)
        return 2
    connection = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        marks = _high_water_marks(connection)
        if snapshot is not None:
            snapshot.write_text(json.dumps(marks))
            return 0
        before = json.loads(since.read_text()) if since is not None else None
        for table, mark in marks.items():
            if table == "idempotency_keys":
                continue
            if before is None:
                count = connection.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
                print(f"{table}: {count} rows")
                continue
            start = int(before.get(table, 0))
            if mark <= start:
                continue
            cursor = connection.execute(f'SELECT * FROM "{table}" WHERE rowid > ?', (start,))
            columns = [column[0] for column in cursor.description]
            for row in cursor.fetchall():
                fields = ", ".join(
                    f"{name}={value}"
                    for name, value in zip(columns, row, strict=True)
                    if value is not None
                )
                print(f"  {table}: {fields}")
    finally:
        connection.close()
    return 0


def _export(db_path: Path) -> int:
    """Print every table of the database as one JSON object, read-only; BLOBs as hex."""
    try:
        tables = export_tables(db_path)
    except FileNotFoundError:
        print(
            f"no sandbox database at {db_path} "
            f"(create one with: python -m sandbox reset --db {db_path})",
            file=sys.stderr,
        )
        return 2
    except sqlite3.DatabaseError as error:
        print(f"cannot read the sandbox database at {db_path}: {error}", file=sys.stderr)
        return 2
    json.dump(tables, sys.stdout, indent=2, default=_json_value)
    sys.stdout.write("\n")
    return 0


def _json_value(value: object) -> str:
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"cannot export a {type(value).__name__} value as JSON")
