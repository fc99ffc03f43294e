"""Tool faults and what the executor does about them: ``python -m bench faults``.

Each scenario runs a tool that misbehaves (hangs in blocking code, is slow, raises, answers
like a failing server, returns megabytes or non-UTF-8 bytes, kills its MCP server mid-call)
through :class:`~stores.execution.executor.ToolExecutor` with a call ledger, and records what
happened. One more runs the whole graph: a read fails while writers are among its sub-intent's
candidates, and nothing may be written in its place.
``tests/integration_tests/test_faults.py`` asserts the same rows; this module writes the fault
table to ``bench/results/faults.md``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from stores.catalog.model import Catalog
from stores.execution.backends import mcp_backends
from stores.execution.executor import ToolExecutor
from stores.execution.ledger.calls import CallLedger


@dataclass
class FaultRow:
    """One fault and the observed behaviour."""

    fault: str
    status: str
    error_kind: str | None
    attempts: int
    seconds: float
    effects: int | None
    observed: str
    record: dict[str, Any]


class ServerError(RuntimeError):
    """An HTTP-like failure with a status code (what HTTP clients raise)."""

    def __init__(self, status_code: int, text: str) -> None:
        super().__init__(f"HTTP {status_code}: {text}")
        self.status_code = status_code


def _python_catalog(effects: dict[str, int]) -> Catalog:
    catalog = Catalog()
    flaky = {"left": 2}

    def hang_blocking(x: int) -> dict[str, int]:
        """Blocks its thread far past any deadline (blocking code, no await)."""
        time.sleep(60)
        return {"x": x}

    async def slow_async(x: int) -> dict[str, int]:
        """Awaits far past any deadline."""
        await asyncio.sleep(60)
        return {"x": x}

    def raise_value_error(x: int) -> dict[str, int]:
        """Rejects its input (a permanent failure)."""
        raise ValueError(f"x={x} is not allowed")

    def flaky_503(x: int) -> dict[str, int]:
        """Fails twice with HTTP 503, then answers (read-only)."""
        if flaky["left"] > 0:
            flaky["left"] -= 1
            raise ServerError(503, "service unavailable")
        return {"x": x}

    def always_500_write(x: int) -> dict[str, int]:
        """Writes, then answers HTTP 500 every time (no idempotency key)."""
        effects["always_500_write"] = effects.get("always_500_write", 0) + 1
        raise ServerError(500, "internal server error")

    def huge_output(x: int) -> dict[str, str]:
        """Returns about 5 MB of text."""
        return {"blob": "z" * 5_000_000}

    def non_utf8_output(x: int) -> bytes:
        """Returns bytes that are not UTF-8."""
        return b"caf\xe9 \xff\xfe ok"

    for function, side_effect in (
        (hang_blocking, False), (slow_async, False), (raise_value_error, True),
        (flaky_503, False), (always_500_write, True), (huge_output, False),
        (non_utf8_output, False),
    ):
        catalog.register_function(
            function, agent="faulty", environment="test", side_effect=side_effect
        )
    return catalog


SERVER = textwrap.dedent(
    '''
    """A tiny MCP server whose writers record an effect and then die before answering."""
    import json, os, sys
    from pathlib import Path
    from mcp.server.fastmcp import FastMCP

    EFFECTS = Path(sys.argv[1])
    server = FastMCP("dying")

    def _effects():
        return json.loads(EFFECTS.read_text()) if EFFECTS.exists() else []

    def _record(entry):
        EFFECTS.write_text(json.dumps(_effects() + [entry]))

    @server.tool(meta={"zspace": {"environment": "test", "side_effect": True}})
    def write_keyed(x: int, idempotency_key: str | None = None) -> dict:
        """Writes x (deduplicated by key), then dies on the first call."""
        for entry in _effects():
            if idempotency_key and entry.get("key") == idempotency_key:
                return {"x": x, "replayed": True}
        _record({"tool": "write_keyed", "key": idempotency_key})
        if len(_effects()) == 1:
            os._exit(1)
        return {"x": x, "replayed": False}

    @server.tool(meta={"zspace": {"environment": "test", "side_effect": True}})
    def write_unkeyed(x: int) -> dict:
        """Writes x, then dies (no idempotency key: the outcome is unknown to the caller)."""
        _record({"tool": "write_unkeyed"})
        os._exit(1)

    server.run("stdio")
    '''
)


async def _mcp_rows(tmp: Path) -> list[FaultRow]:
    from stores.catalog.mcp import load_mcp_catalog
    from stores.mcp.config import parse_mcp_config
    from stores.mcp.pool import McpSessionPool

    rows = []
    for tool in ("write_keyed", "write_unkeyed"):
        work = tmp / tool
        work.mkdir(parents=True, exist_ok=True)
        script = work / "dying_server.py"
        script.write_text(SERVER)
        effects = work / "effects.json"
        config = parse_mcp_config(
            {"mcpServers": {"dying": {"command": sys.executable,
                                      "args": [str(script), str(effects)], "timeout": 20}}}
        )
        catalog, _ = await load_mcp_catalog(config)
        effects.unlink(missing_ok=True)
        async with McpSessionPool(config) as pool:
            executor = ToolExecutor(
                catalog, backends=mcp_backends(pool), ledger=CallLedger(work / "ledger.sqlite"),
                deadline_s=20, backoff_s=0.05, allowed_environments=["test"],
            )
            started = time.monotonic()
            record = await executor.execute(
                {"call_id": "c1", "tool_id": f"dying/{tool}", "args": {"x": 1},
                 "run_id": "faults", "side_effect": True}
            )
            seconds = time.monotonic() - started
            restarts = pool.restarts["dying"]
        count = len(json.loads(effects.read_text())) if effects.exists() else 0
        if tool == "write_keyed":
            fault = "MCP server dies mid-call (tool takes an idempotency key)"
            observed = (
                f"server restarted {restarts}x; same key sent again, server deduplicated; "
                f"status {record['status']}, {count} effect"
            )
        else:
            fault = "MCP server dies mid-call (no idempotency key)"
            observed = (
                f"server restarted {restarts}x on next use; call not repeated: "
                f"{record['error_kind']} (ledger keeps it 'started'; the graph's reconcile "
                "interrupt asks a person: done / retry / skip); "
                f"{count} effect"
            )
        rows.append(_row(fault, record, seconds, count, observed))
    return rows


WRITERS_REQUEST = "look up the user with account number 123456"


def _shop_with_a_failing_read(effects: dict[str, int]) -> Catalog:
    """A failing user lookup among writers that take the same account number."""
    catalog = Catalog()

    def get_user_by_account(account_number: str) -> dict[str, Any]:
        """Look up a user by account number (read-only)."""
        raise ValueError("the user directory is offline")

    def wrote(name: str) -> dict[str, Any]:
        effects[name] = effects.get(name, 0) + 1
        return {"ok": True}

    def create_user(account_number: str, name: str = "Test user") -> dict[str, Any]:
        """Create a user with this account number."""
        return wrote("create_user")

    def update_user(account_number: str, name: str = "Test user") -> dict[str, Any]:
        """Update the user with this account number."""
        return wrote("update_user")

    def issue_coupon(account_number: str, amount: float = 5.0) -> dict[str, Any]:
        """Issue a coupon to the user with this account number."""
        return wrote("issue_coupon")

    def delete_user(account_number: str) -> dict[str, Any]:
        """Delete the user with this account number."""
        return wrote("delete_user")

    for function, side_effect in ((get_user_by_account, False), (create_user, True),
                                  (update_user, True), (issue_coupon, True),
                                  (delete_user, True)):
        catalog.register_function(function, agent="shop", environment="test",
                                  side_effect=side_effect)
    return catalog


async def _writers_among_candidates_row(tmp: Path) -> FaultRow:
    """The whole graph: a read fails, writers are candidates; none may run in its place."""
    from langgraph.checkpoint.memory import InMemorySaver

    from graph.builder import build_graph
    from graph.deps import Deps
    from graph.streaming import current_outcome
    from nodes.context import Context
    from stores.catalog.enrich import enrich_catalog
    from stores.retrieval.index import ToolIndex

    effects: dict[str, int] = {}
    catalog = _shop_with_a_failing_read(effects)
    enrich_catalog(catalog)
    deps = Deps(catalog=catalog, home=tmp / "home")
    deps.index = ToolIndex(tmp / "index", deps.get_embedder(), name="faults")
    deps.index.sync(catalog)
    graph = build_graph(deps).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "writers"}}
    started = time.monotonic()
    await graph.ainvoke({"request": WRITERS_REQUEST}, config,
                        context=Context(top_k=10, max_alignment_retries=2, pre_approved=True))
    seconds = time.monotonic() - started
    outcome = await current_outcome(graph, "writers")
    values = outcome.values
    writers = sorted({c["tool_id"] for subs in (values.get("candidates") or {}).values()
                      for c in subs if catalog.tools[c["tool_id"]].side_effect})
    called = [r for r in [*(values.get("history") or []), *values["results"].values()]]
    failed = next((r for r in called if r["status"] == "error"), {"attempts": 0})
    answer = str(values.get("answer") or "")
    record = {"status": outcome.status, "error_kind": failed.get("error_kind"),
              "attempts": len(called), "answer": answer, "writers": writers,
              "calls": [r["tool_id"] for r in called], "gaps": list(values.get("gaps") or [])}
    observed = (
        f"{len(writers)} writers among the candidates ({', '.join(writers)}); calls made: "
        f"{', '.join(record['calls']) or 'none'}; run status {outcome.status}; the answer "
        f"says: {'; '.join(record['gaps'])}"
    )
    return _row("failed read with writers among the candidates (whole graph)", record, seconds,
                sum(effects.values()), observed)


def _row(
    fault: str, record: Any, seconds: float, effects: int | None, observed: str
) -> FaultRow:
    return FaultRow(
        fault=fault, status=record["status"], error_kind=record.get("error_kind"),
        attempts=record["attempts"], seconds=round(seconds, 2), effects=effects,
        observed=observed, record=dict(record),
    )


async def fault_rows(tmp: Path, deadline_s: float = 1.0) -> list[FaultRow]:
    """Run every fault scenario and return the observed rows."""
    effects: dict[str, int] = {}
    catalog = _python_catalog(effects)
    executor = ToolExecutor(
        catalog, ledger=CallLedger(tmp / "ledger.sqlite"), deadline_s=deadline_s, retries=2,
        backoff_s=0.05, max_output_chars=20_000, results_dir=tmp / "results",
        allowed_environments=["test"],
    )
    cases = [
        ("hangs in blocking code (time.sleep)", "hang_blocking",
         "deadline held for blocking code ({a} attempts in {s:.1f} s: a read is retried), "
         "then error"),
        ("awaits forever", "slow_async", "deadline held; {a} attempts, then error"),
        ("raises ValueError", "raise_value_error", "permanent: not retried ({a} attempt)"),
        ("HTTP 503 twice, then ok (read)", "flaky_503", "transient: retried with backoff, ok "
         "after {a} attempts"),
        ("HTTP 500 on a writer without key", "always_500_write",
         "not retried blindly ({a} attempt): outcome unknown; the reconcile interrupt asks "
         "a person (done / retry / skip)"),
        ("returns 5 MB", "huge_output", "capped to 20,000 chars for the model; whole output "
         "kept in {ref}"),
        ("returns non-UTF-8 bytes", "non_utf8_output", "decoded with U+FFFD replacement, noted"),
    ]
    rows = []
    for fault, tool, template in cases:
        started = time.monotonic()
        record = await executor.execute(
            {"call_id": tool, "tool_id": f"faulty/{tool}", "args": {"x": 1}, "run_id": "faults"}
        )
        seconds = time.monotonic() - started
        observed = template.format(
            s=seconds, a=record["attempts"], ref=Path(record["output_ref"] or "-").name
        )
        rows.append(_row(fault, record, seconds, effects.get(tool), observed))
    rows.extend(await _mcp_rows(tmp / "mcp"))
    rows.append(await _writers_among_candidates_row(tmp / "writers"))
    return rows


def fault_table(rows: list[FaultRow]) -> str:
    """Render the fault table as markdown."""
    lines = [
        "| fault | status | error kind | attempts | time | effects | observed behaviour |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    for row in rows:
        effects = "-" if row.effects is None else str(row.effects)
        lines.append(
            f"| {row.fault} | {row.status} | {row.error_kind or '-'} | {row.attempts} | "
            f"{row.seconds:.2f} s | {effects} | {row.observed} |"
        )
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    """Run the scenarios and write ``bench/results/faults.md``."""
    from bench.common import machine_line, write_result

    with tempfile.TemporaryDirectory() as scratch:
        rows = asyncio.run(fault_rows(Path(scratch)))
    table = fault_table(rows)
    text = (
        "# Tool faults\n\n"
        f"`python -m bench faults` — {machine_line()}\n\n"
        "Executor settings: deadline 1 s per attempt, 2 retries with backoff 0.05 s doubling, "
        "output cap 20,000 chars, call ledger on. Time is per call including retries (the "
        "whole-graph row: the run; its status is the run's, its attempts the calls made).\n\n"
        + table + "\n"
    )
    write_result("faults.md", text)
    print(table)
    if "--json" in argv:
        print(json.dumps([{k: v for k, v in r.__dict__.items() if k != "record"} for r in rows]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
