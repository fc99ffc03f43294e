"""`python -m sandbox serve | reset | catalog`: run, reseed or describe the sandbox."""

import argparse
import ipaddress
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from sandbox.backend import Sandbox
from sandbox.catalog import write_catalog
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
    reset = commands.add_parser("reset", help="drop all data and load the deterministic seed")
    reset.add_argument("--db", type=Path, help="SQLite file (default $ZSPACE_HOME/sandbox.db)")
    catalog = commands.add_parser("catalog", help="write the sandbox's tools as a catalog")
    catalog.add_argument("--out", type=Path, help="output file (default: stdout)")
    return parser


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
        return 0
    db_path: Path = args.db or default_db_path()
    if args.command == "reset":
        with Sandbox(db_path) as sandbox:
            sandbox.reset()
        print(f"reset {db_path}", file=sys.stderr)
        return 0
    sandbox = Sandbox(db_path)
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
