"""BFCL v4 through zspace: ``python -m bench bfcl`` writes results/bfcl.md.

Two rows per category, both scored by BFCL's own checker: the embedded default (rules, no
model) and a scripted model that answers every case with BFCL's known-good calls
(:mod:`bench.evaluation.oracle`). The second is the pipeline's ceiling: what retrieval,
the planner's checks and execution keep of a perfect model's answers. The median number of
tools offered to the model per planning turn is reported with it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.common import machine_line, write_result
from bench.evaluation.bfcl import (
    AGENT,
    FAILURE_CAUSES,
    NO_CALL_KINDS,
    BfclRunner,
    CategoryResult,
    case_request,
    evaluate,
    is_irrelevance,
    load_cases,
    spread,
)
from bench.evaluation.oracle import ASK_TOOL, bfcl_gold_waves, oracle
from bench.evaluation.scripted_openai import scripted_openai_server

DEVELOPMENT = ("simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance")
REPORTING = ("live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
             "live_irrelevance")


def _quiet(_line: str) -> None:
    return None


async def _rules(categories: list[str], limit: int | None, home: Path) -> dict[str, Any]:
    runner = BfclRunner(home)
    return await evaluate(categories, limit=limit, out_dir=home / "runs", runner=runner,
                          say=_quiet)


def _ceiling(
    categories: list[str], limit: int | None, home: Path
) -> tuple[dict[str, CategoryResult], list[int]]:
    from langchain_openai import ChatOpenAI

    waves = [
        (case_request(case), bfcl_gold_waves(case, AGENT))
        for category in categories
        for case in spread(load_cases(category), limit)
    ]
    with scripted_openai_server(oracle(waves)) as server:
        model = ChatOpenAI(model="bfcl-oracle", base_url=server.base_url, api_key="not-needed",
                           max_retries=0, timeout=30)
        runner = BfclRunner(home, chat_model=model, model="bfcl-oracle")
        results = asyncio.run(evaluate(categories, limit=limit, out_dir=home / "runs",
                                       runner=runner, say=_quiet))
        offered = [
            len(body.get("tools") or []) - 1
            for body in server.requests
            if ASK_TOOL in [tool["function"]["name"] for tool in body.get("tools") or []]
        ]
    return results, offered


def _count_row(category: str, total: int, counts: Mapping[str, int], keys: Sequence[str]) -> str:
    """A category's row of a table of counts: its total, then its count for each key."""
    return f"| {category} | {total} | " + " | ".join(str(counts.get(k, 0)) for k in keys) + " |"


def main(argv: list[str]) -> int:
    """Run both rows on every category and write the table."""
    parser = argparse.ArgumentParser(prog="python -m bench bfcl")
    parser.add_argument("--limit", type=int, default=None, help="cases per category (all)")
    parser.add_argument("--category", nargs="+", default=[*DEVELOPMENT, *REPORTING])
    parser.add_argument("--rules-only", action="store_true",
                        help="skip the scripted-model row (the pipeline ceiling)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    ceiling: dict[str, CategoryResult] = {}
    offered: list[int] = []
    with tempfile.TemporaryDirectory(prefix="zspace-bench-bfcl-") as temp:
        rules = asyncio.run(_rules(args.category, args.limit, Path(temp) / "rules"))
        if not args.rules_only:
            ceiling, offered = _ceiling(args.category, args.limit, Path(temp) / "oracle")
    seconds = time.perf_counter() - started
    limit = f" --limit {args.limit}" if args.limit else ""
    limit += " --rules-only" if args.rules_only else ""
    lines = [
        "# BFCL v4 through zspace",
        "",
        f"{machine_line()}. Command: `python -m bench bfcl{limit}` ({seconds:.0f} s). "
        "Scored by BFCL's own AST checker (`bfcl-eval` 2026.3.23); irrelevance passes when no "
        "call was made. One agent per case holding the case's functions, indexed as "
        "`zspace index` would; retrieval, planning and execution are zspace's.",
        "",
        "| category | cases | rules (offline default) | scripted model with BFCL's gold calls "
        "(pipeline ceiling) |",
        "|---|---:|---:|---:|",
    ]
    for category in args.category:
        ceiling_cell = f"{ceiling[category].accuracy:.1%}" if category in ceiling else "not run"
        lines.append(
            f"| {category} | {rules[category].cases} | {rules[category].accuracy:.1%} "
            f"| {ceiling_cell} |"
        )
    median = statistics.median(offered) if offered else 0
    offered_line = (
        f"Tools offered to the model per planning turn: median {median:g} "
        f"({len(offered)} turns). " if ceiling else ""
    )
    lines += [
        "",
        f"{offered_line}Development categories: {', '.join(DEVELOPMENT)}; "
        f"reported without tuning: {', '.join(REPORTING)}.",
        "",
        "Why the rules row fails (a coarse reading of each failed case against BFCL's expected "
        "calls: no call made; a function that was not expected; the expected functions but "
        "not as many calls; then, argument by argument, a required value missing, a value "
        "outside BFCL's accepted ones, an argument BFCL does not expect; irrelevance fails "
        "only by calling):",
        "",
        "| category | failed | " + " | ".join(FAILURE_CAUSES) + " |",
        "|---|---:|" + "---:|" * len(FAILURE_CAUSES),
    ]
    lines += [
        _count_row(category, rules[category].cases - rules[category].passed,
                   rules[category].causes, FAILURE_CAUSES)
        for category in args.category
    ]
    lines += [
        "",
        "The failed cases that made no call, by what the run did instead (asked the user for a "
        "value; answered without a tool; found no action or object in the request; found no tool "
        "that fits):",
        "",
        "| category | no call | " + " | ".join(NO_CALL_KINDS) + " |",
        "|---|---:|" + "---:|" * len(NO_CALL_KINDS),
    ]
    lines += [
        _count_row(category, rules[category].causes.get("no call", 0), rules[category].no_calls,
                   NO_CALL_KINDS)
        for category in args.category
        if not is_irrelevance(category)
    ]
    if ceiling:
        lines += [
            "",
            "Ceiling failures by id (first 15 per category):",
            "",
        ]
    for category in args.category:
        if category in ceiling:
            failures = ceiling[category].failures[:15]
            lines.append(f"- {category}: {', '.join(failures) or 'none'}")
    path = write_result("bfcl.md", "\n".join(lines) + "\n")
    print(path.read_text())
    return 0
