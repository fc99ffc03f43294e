"""Graph overhead per request: wall time minus tool time, for a 4-call chain.

The chain is the paper's request over four real Python tools that sit among the 2,490
StableToolBench tools, so retrieval searches the full index. The same requests run with the
SQLite checkpointer (``durability="sync"``, what zspace uses) and with an in-memory saver as
the baseline, each run through ``graph.session`` as ``zspace run`` runs it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver

from bench.common import DEV_CATALOG, machine_line, write_result
from graph.builder import build_graph
from graph.deps import Deps
from graph.session import Session
from nodes.context import Context
from stores.catalog.enrich import enrich_catalog
from stores.catalog.model import Catalog
from stores.checkpoint import sqlite_checkpointer
from stores.retrieval.index import ToolIndex
from stores.settings import zspace_home

REQUEST = ("create a test product, place an order using account 123456, and advance the "
           "order status to pending payment")


class Product(TypedDict):
    product_id: int
    name: str


class User(TypedDict):
    user_id: int
    account_number: str


class Order(TypedDict):
    order_id: int
    status: str


def bench_catalog() -> Catalog:
    """StableToolBench plus four in-memory shop tools (no I/O: tool time stays tiny)."""
    counter = {"product": 0, "order": 0}

    def create_product(name: str = "Test product") -> Product:
        """Create a test product."""
        counter["product"] += 1
        return {"product_id": counter["product"], "name": name}

    def get_user_by_account(account_number: str) -> User:
        """Look up a user by account number."""
        return {"user_id": 1, "account_number": account_number}

    def create_order(user_id: int, product_id: int, quantity: int = 1) -> Order:
        """Place an order for a user and a product."""
        counter["order"] += 1
        return {"order_id": counter["order"], "status": "created"}

    def advance_order_status(order_id: int, status: str) -> Order:
        """Advance an order's status (pending_payment, paid, shipped...)."""
        return {"order_id": order_id, "status": status}

    catalog = Catalog.from_file(DEV_CATALOG)
    for function, side_effect in ((create_product, True), (get_user_by_account, False),
                                  (create_order, True), (advance_order_status, True)):
        catalog.register_function(function, agent="benchshop", environment="test",
                                  side_effect=side_effect)
    enrich_catalog(catalog)
    return catalog


async def measure(deps: Deps, saver: Any, runs: int) -> list[float]:
    session = Session(build_graph(deps).compile(checkpointer=saver), deps, entry="bench")
    overheads = []
    for _ in range(runs):
        started = time.perf_counter()
        outcome = await session.run(REQUEST, Context())
        wall = (time.perf_counter() - started) * 1000
        calls = outcome.values.get("results") or {}
        assert len(calls) == 4 and all(r["status"] == "ok" for r in calls.values()), calls
        tool_ms = sum(r["duration_ms"] for r in calls.values())
        overheads.append(wall - tool_ms)
    return overheads


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench pipeline")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args(argv)
    home = zspace_home() / "bench-pipeline"
    catalog = bench_catalog()
    deps = Deps(catalog=catalog, home=home)
    index = ToolIndex(home / "index", deps.get_embedder(), name="bench")
    index.sync(catalog)
    deps.index = index

    async def go() -> dict[str, list[float]]:
        await measure(deps, InMemorySaver(), 3)  # warm caches (tokens, graph, model)
        results = {"in-memory saver (baseline)": await measure(deps, InMemorySaver(), args.runs)}
        with tempfile.TemporaryDirectory() as scratch:
            async with sqlite_checkpointer(Path(scratch) / "checkpoints.sqlite") as saver:
                results["SQLite checkpointer, durability=sync"] = await measure(
                    deps, saver, args.runs)
            async with sqlite_checkpointer(Path(scratch) / "plain.sqlite") as saver:
                saver.serde = saver.serde.inner  # what secret masking costs, same run
                results["SQLite, secret masking off (comparison only)"] = await measure(
                    deps, saver, args.runs)
        return results

    results = asyncio.run(go())
    lines = [
        "# Graph overhead per request\n",
        f"{machine_line()}. Command: `python -m bench pipeline --runs {args.runs}`.",
        "Request: the paper's 4-call chain (create product, look up user, create order, advance "
        "status) over in-process Python tools placed among the 2,490 StableToolBench tools; "
        "overhead = wall time minus the four calls' own time (parsing, retrieval with query "
        "embedding, planning, waves, checkpoints, synthesis).\n",
        "| checkpointer | p50 ms | p95 ms | mean ms |", "|---|---:|---:|---:|",
    ]
    for name, values in results.items():
        ordered = sorted(values)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        lines.append(f"| {name} | {statistics.median(values):.1f} | {p95:.1f} | "
                     f"{statistics.mean(values):.1f} |")
    text = "\n".join(lines) + "\n"
    path = write_result("pipeline.md", text)
    print(text)
    print(f"written to {path}")
    return 0
