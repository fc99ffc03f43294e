"""The light child process of the crash harness: run (or resume) one thread, then report.

``python -m bench.crash_child --home H --index I --catalog C --mcp M --thread T --run-id R
--request TEXT --out FILE`` opens the runtime (SQLite checkpoints under ``H``, the sandbox over
MCP, a pre-built index), then, through ``graph.session`` (which holds the run's lease), runs
the thread with ``durability="sync"`` (fresh, or resumed from its last checkpoint) until it
finishes, and writes the final state's results and the run's ledger records to ``FILE``.
``ZSPACE_CRASH_AT`` (see ``stores.execution.faults.crash_point``) makes it kill itself at a
named point; the harness may also SIGKILL it at any moment after it prints ``ready``.

Exit codes: 0 finished, 3 stopped at an interrupt, 4 another process holds the run's lease.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

LEASE_HELD_EXIT = 4


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench.crash_child")
    for name in ("home", "index", "catalog", "mcp", "thread", "run-id", "request", "out"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--index-name", default="crash")
    return parser


async def _run(args: argparse.Namespace) -> int:
    from graph.deps import Deps
    from graph.session import open_session
    from nodes.context import Context
    from stores.catalog.model import Catalog
    from stores.execution.ledger.calls import RunLeaseHeld
    from stores.retrieval.index import ToolIndex

    catalog = Catalog.from_file(args.catalog)
    deps = Deps(catalog=catalog, home=Path(args.home), index_name=args.index_name)
    deps.index = ToolIndex(Path(args.index), deps.get_embedder(), name=args.index_name)
    ledger = deps.get_ledger()
    # An unknown outcome must show up as unfinished here, not be answered away.
    context = Context(
        run_id=args.run_id, pre_approved=True, call_deadline_s=20.0, reconcile_unknown="report"
    )
    config = {"configurable": {"thread_id": args.thread}}
    try:
        async with open_session(
            deps, Path(args.mcp), entry="crash", answer=lambda _interrupt: True
        ) as session:
            snapshot = await session.graph.aget_state(config)
            print("ready", flush=True)
            if not snapshot.values:
                outcome = await session.run(args.request, context, thread_id=args.thread)
            else:  # resumed from the last checkpoint; a finished thread is left alone
                outcome = await session.resume(args.thread, context)
            if outcome.interrupt is not None:
                return 3
            values = outcome.values
    except RunLeaseHeld as exc:
        print(f"crash_child: {exc}", file=sys.stderr, flush=True)
        return LEASE_HELD_EXIT
    report = {
        "answer": values.get("answer", ""),
        "gaps": values.get("gaps") or [],
        "plan": [
            {"call_id": c["call_id"], "tool_id": c["tool_id"], "side_effect": c["side_effect"]}
            for c in values.get("plan") or []
        ],
        "results": {
            call_id: {
                "status": r["status"],
                "replayed": r.get("replayed", False),
                "error_kind": r.get("error_kind"),
                "error": r.get("error"),
                "has_output": r.get("output") is not None,
            }
            for call_id, r in (values.get("results") or {}).items()
        },
        "ledger": [
            {"call_id": r.call_id, "tool_id": r.tool_id, "status": r.status,
             "attempts": r.attempts}
            for r in ledger.for_run(args.run_id)
        ],
    }
    Path(args.out).write_text(json.dumps(report, default=str))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the child (see the module docstring)."""
    from stores.settings import apply_offline_environment

    apply_offline_environment()
    return asyncio.run(_run(_parser().parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
