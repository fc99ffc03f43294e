"""Requests written by others, one tool each, scored by BFCL's own checker.

``python -m bench others`` runs the sets of ``bench/data/others/`` through the same harness as
``python -m bench bfcl`` (one agent per request holding its one tool, offline, rule planner).
Each set has 70 requests written for this project by helpers that saw none of its code or
data: 55-56 that one call of the tool answers (``want``: BFCL's shape of accepted values) and
14-15 that the tool does not fit (``want`` is null; right when no call is made). Sets A and B
were read while rules were written from them; set C was measured once before being read;
set D is kept unread, the honest figure for requests nobody here has seen. Writes
``bench/results/others.md``; ``--json`` prints a one-line summary last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from bench.common import REPO, machine_line, write_result

DATA = REPO / "bench" / "data" / "others"
COMMAND = "python -m bench others"
SETS = ("A", "B", "C", "D")


def load_set(name: str, root: Path = DATA) -> list[dict[str, Any]]:
    """One set's requests: ``id``, ``q`` (the request), ``f`` (one tool), ``want``."""
    path = root / f"set_{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def as_case(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A request as a BFCL case of ``live_simple`` (or ``irrelevance`` when no tool fits)."""
    case = {"id": item["id"], "question": [[{"role": "user", "content": item["q"]}]],
            "function": item["f"]}
    if item.get("want") is None:
        case["ground_truth"] = []
        return "irrelevance", case
    case["ground_truth"] = [item["want"]]
    return "live_simple", case


async def _run(items: list[dict[str, Any]], home: Path) -> list[dict[str, Any]]:
    from bench.evaluation.bfcl import BfclRunner, failure_cause, no_call_kind, score_case

    runner = BfclRunner(home)
    rows = []
    for item in items:
        category, case = as_case(item)
        run = await runner.run_case(case)
        try:
            ok = score_case(category, case, run.calls)
        except Exception:  # noqa: BLE001 - a malformed accepted value fails the case only
            ok = False
        if ok:
            kind = "pass"
        elif not run.calls:
            kind = no_call_kind(run.question, run.actions, run.reasons)
        else:
            kind = failure_cause(category, case, run.calls)
        rows.append({"id": item["id"], "fits": category != "irrelevance", "kind": kind})
    return rows


def _table(results: dict[str, list[dict[str, Any]]]) -> str:
    lines = [
        "# Requests written by others, one tool each (`python -m bench others`)",
        "",
        f"{machine_line()}. BFCL's own checker; a request whose tool does not fit is right "
        "when no call is made. Sets A and B were read while rules were written from them, C "
        "was measured once before being read, D is kept unread.",
        "",
        "| set | requests | right | tool fits: right | tool does not fit: right "
        "| failures by cause |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for name, rows in results.items():
        fits = [r for r in rows if r["fits"]]
        other = [r for r in rows if not r["fits"]]
        causes = Counter(r["kind"] for r in rows if r["kind"] != "pass")
        shown = ", ".join(f"{kind} {count}" for kind, count in causes.most_common())
        lines.append(
            f"| {name} | {len(rows)} | {sum(r['kind'] == 'pass' for r in rows)} | "
            f"{sum(r['kind'] == 'pass' for r in fits)} of {len(fits)} | "
            f"{sum(r['kind'] == 'pass' for r in other)} of {len(other)} | {shown} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Run the sets, write the table, print the summary."""
    parser = argparse.ArgumentParser(prog=COMMAND)
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    parser.add_argument("--json", action="store_true", help="print a one-line JSON summary")
    args = parser.parse_args(argv)
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="zspace-others-") as home:
        for name in args.sets:
            results[name] = asyncio.run(_run(load_set(name), Path(home) / name))
    path = write_result("others.md", _table(results), keep_notes=True)
    print(f"wrote {path}")
    if args.json:
        print(json.dumps({name: sum(r["kind"] == "pass" for r in rows)
                          for name, rows in results.items()}))
    return 0
