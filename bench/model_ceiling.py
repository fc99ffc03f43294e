"""The model path on the sandbox: ``python -m bench model_ceiling`` writes results/model_ceiling.md.

A scripted model answers every request of an e2e split with its gold calls, one step per
planning turn (:mod:`bench.evaluation.oracle`), through ``zspace eval e2e --model``. The
accuracy is the pipeline's ceiling on the sandbox (retrieval among 2,611 tools, the planner's
checks, execution); the tokens are what a model is sent per request, counted as a real
endpoint counts them, next to what binding every tool on every turn would cost.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import tempfile
import time
from typing import Any

from bench.common import machine_line, write_result
from bench.evaluation.e2e import E2E_DATA
from bench.evaluation.oracle import ASK_TOOL, oracle
from bench.evaluation.scripted_openai import scripted_openai_server


def _references(args: dict[str, Any]) -> dict[str, Any]:
    """Gold arguments with ``{"from": "<step>.<field>"}`` written as the model writes them.

    One call per planning turn, so gold step ``i`` is the model's call ``c<i+1>``.
    """
    out: dict[str, Any] = {}
    for name, value in args.items():
        if isinstance(value, dict) and set(value) == {"from"}:
            step, _, field = str(value["from"]).partition(".")
            out[name] = f"${{c{int(step) + 1}.{field}}}"
        else:
            out[name] = value
    return out


def main(argv: list[str]) -> int:
    """Run one split with the gold-answering model and write the table."""
    from graph.cli import main as zspace
    from stores.catalog.model import Catalog
    from stores.retrieval.tokens import catalog_tool_tokens

    parser = argparse.ArgumentParser(prog="python -m bench model_ceiling")
    parser.add_argument("--split", choices=["dev", "test"], default="test")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in (E2E_DATA / f"{args.split}.jsonl").open()]
    waves = {r["request"]: [[(g["tool"], _references(g["args"]))] for g in r["gold"]]
             for r in rows}
    expect = {r["request"]: r["expect"] for r in rows}
    all_tools = catalog_tool_tokens(Catalog.from_file(E2E_DATA / "catalog.json"))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="zspace-bench-model-") as temp, \
            scripted_openai_server(oracle(waves, expect)) as server:
        command = ["eval", "e2e", "--split", args.split, "--model", "gold-oracle",
                   "--base-url", server.base_url, "--home", temp, "--json"]
        if args.limit:
            command += ["--limit", str(args.limit)]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = zspace(command)
        summary = json.loads(out.getvalue().strip().splitlines()[-1])
        planner = [b for b in server.requests
                   if ASK_TOOL in [t["function"]["name"] for t in b.get("tools") or []]]
        usage = server.usage
    seconds = time.perf_counter() - started
    requests = summary.get("n") or summary.get("scored") or len(rows)
    prompt = sum(u[0] for u in usage) / max(requests, 1)
    completion = sum(u[1] for u in usage) / max(requests, 1)
    turns = len(planner) / max(requests, 1)
    offered = [len(b.get("tools") or []) - 1 for b in planner]
    naive = turns * all_tools
    lines = [
        "# The model path on the sandbox, with a model that gives the gold calls",
        "",
        f"{machine_line()}. Command: `python -m bench model_ceiling --split {args.split}"
        f"{f' --limit {args.limit}' if args.limit else ''}` ({seconds:.0f} s, exit {status}).",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| requests | {requests} |",
        f"| accuracy (zspace's e2e scorer) | {summary.get('accuracy', 0):.1%} |",
        f"| planning turns per request | {turns:.2f} |",
        f"| tools offered per planning turn (median) | "
        f"{statistics.median(offered) if offered else 0:g} |",
        f"| model prompt tokens per request (all model calls: parse, plan, answer) | "
        f"{prompt:,.0f} |",
        f"| model completion tokens per request | {completion:,.0f} |",
        f"| tool-schema tokens per request if every tool were bound on every planning turn | "
        f"{naive:,.0f} |",
        "",
        "Tokens are counted with o200k_base over the messages and tools each request sent, as "
        "an OpenAI-compatible endpoint bills them. The model is scripted: this measures "
        "retrieval, the planner's checks and execution, not a model's judgement.",
    ]
    path = write_result("model_ceiling.md", "\n".join(lines) + "\n")
    print(path.read_text())
    print(json.dumps(summary))
    return 0
