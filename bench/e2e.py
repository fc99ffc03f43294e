"""End-to-end accuracy on both request sets: ``python -m bench e2e`` writes results/e2e.md."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from bench.common import display_path, machine_line, write_result
from bench.evaluation.e2e import COMBINED_CATALOG, RETRIEVAL_STEPS, run_split


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f} %"


def _table(figures: dict[str, dict[str, Any]]) -> list[str]:
    splits = list(figures)
    steps = sorted({int(s) for f in figures.values() for s in f["by_steps"]})
    lines = [
        "| steps | " + " | ".join(f"{s} n | {s} accuracy" for s in splits) + " |",
        "|---:|" + "---:|---:|" * len(splits),
    ]
    for step in steps:
        cells = []
        for split in splits:
            group = figures[split]["by_steps"].get(str(step))
            cells += [str(group["n"]), _pct(group["accuracy"])] if group else ["0", "–"]
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    rows = [
        ("tool-call requests", "call_accuracy", None),
        ("5–6-step requests", "accuracy_5_6_steps", None),
        ("clarification requests", "clarify_accuracy", None),
        ("direct-answer requests", "direct_answer_accuracy", None),
        ("**all requests**", "accuracy", "n"),
    ]
    for label, key, count in rows:
        cells = []
        for split in splits:
            f = figures[split]
            cells += [
                str(f[count]) if count else "",
                f"**{_pct(f[key])}**" if label.startswith("**") else _pct(f[key]),
            ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str]) -> int:
    """Run the dev and test sets end to end and write ``bench/results/e2e.md``."""
    parser = argparse.ArgumentParser(prog="python -m bench e2e")
    parser.add_argument("--splits", default="dev,test", help="comma-separated splits")
    parser.add_argument("--limit", type=int, help="requests per split (spread over the set)")
    parser.add_argument("--out", default="e2e.md")
    args = parser.parse_args(argv)
    figures: dict[str, dict[str, Any]] = {}
    seconds: dict[str, float] = {}
    for split in args.splits.split(","):
        started = time.perf_counter()
        report = run_split(split, limit=args.limit, say=lambda line: print(line, flush=True))
        seconds[split] = time.perf_counter() - started
        figures[split] = report.figures()
        print(json.dumps({k: v for k, v in figures[split].items() if k != "failures"}))
    command = "python -m bench e2e" + (f" --limit {args.limit}" if args.limit else "")
    lines = [
        "# End-to-end accuracy\n",
        f"{machine_line()}. Command: `{command}` (each split alone: "
        "`zspace eval e2e --split dev|test --json`).\n",
        "Every request runs the whole graph offline (rule parser, all-MiniLM-L6-v2, hybrid "
        f"retrieval over `{display_path(COMBINED_CATALOG)}`: 2,490 StableToolBench tools + "
        "76 near misses + the sandbox's 60 tools) on a freshly reset sandbox, every call over "
        "MCP, destructive calls pre-approved. A request is correct when its successful calls "
        "are exactly the gold chain (same tools; literal arguments equal after type "
        "normalization; each `from` argument equal to the referenced step's output in that "
        "run and fed through the plan DAG), when it asks for the missing value it should ask "
        "for, or when it answers without a tool. Sets and how they were written: "
        "`bench/data/e2e/README.md`; the test split was never used for tuning.\n",
        *_table(figures),
        "",
        "| | " + " | ".join(figures) + " |",
        "|---|" + "---:|" * len(figures),
        "| tool-schema tokens per request | "
        + " | ".join(f"{f['tokens_per_request']}" for f in figures.values())
        + " |",
        "| all-injection tokens per request | "
        + " | ".join(f"{f['all_injection_tokens_per_request']}" for f in figures.values())
        + " |",
        "| tokens vs all-injection | "
        + " | ".join(
            _pct(f["tokens_ratio"]) if f["tokens_ratio"] is not None else "–"
            for f in figures.values()
        )
        + " |",
        "| latency per request without tool time, p50 / p95 | "
        + " | ".join(
            f"{f['latency_ms_p50']:.0f} / {f['latency_ms_p95']:.0f} ms" for f in figures.values()
        )
        + " |",
        "| time in tools per request (mean) | "
        + " | ".join(f"{f['tool_ms_mean']:.0f} ms" for f in figures.values())
        + " |",
        "| unexpected clarification questions | "
        + " | ".join(str(f["unexpected_questions"]) for f in figures.values())
        + " |",
        "| tool calls dispatched / of them outside the run's environments | "
        + " | ".join(
            f"{f['calls_dispatched']} / {f['calls_outside_environment']}"
            for f in figures.values()
        )
        + " |",
        "| wall time of the split (incl. sandbox resets) | "
        + " | ".join(f"{seconds[s]:.0f} s" for s in figures)
        + " |",
        "",
        f"Step-mode retrieval queries from the gold chains: `{display_path(RETRIEVAL_STEPS)}` "
        f"(`zspace eval retrieval --catalog {display_path(COMBINED_CATALOG)} --queries "
        f"{display_path(RETRIEVAL_STEPS)} --mode step`).\n",
        "## Failures\n",
    ]
    for split, f in figures.items():
        for failure in f["failures"]:
            reason = failure["reason"].replace("|", "/").replace("\n", " ")[:160]
            lines.append(
                f"- {split} `{failure['id']}` ({failure['expect']}, {failure['steps']} steps): "
                f"{reason}"
            )
    path = write_result(args.out, "\n".join(lines) + "\n")
    print(f"written to {path}")
    return 0
