"""The tool-fit gate as a classifier, on data nobody here wrote (``python -m bench gate_dev``).

Does the gate (:func:`nodes.planning.relevance.fit_reason`) let the right tool through and keep
the wrong one out? Positives: each StableToolBench question with each of its gold tools (real
terse RapidAPI schemas, chatty questions) and each BFCL ``simple_python`` request with its gold
function. Negatives: each StableToolBench question with tools of agents of a *different*
category (a seeded sample), and every BFCL ``irrelevance`` request with each of its functions.
All of it is development data (BFCL's live categories are never read here). The table gives the
recall on positives and the false-accept rate on negatives, for the gate as it is and for
thresholds around it, so a change of signal or threshold is chosen on the trade-off.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import DEV_CATALOG, DEV_QUERIES, display_path, machine_line, write_result

NEGATIVES_PER_QUESTION = 2
SEED = 7
REASONS = ("words", "meaning", "values", "telling values", "named values", "none")


@dataclass(frozen=True)
class Pair:
    """A request and a tool, and whether the tool is one the request needs."""

    group: str
    text: str
    name: str
    description: str
    schema: dict[str, Any]
    positive: bool


def stabletoolbench_pairs(
    catalog_path: Path, queries_path: Path, limit: int | None, seed: int = SEED
) -> list[Pair]:
    """Question × gold tool (positive), question × tools of other categories (negative)."""
    catalog = json.loads(catalog_path.read_text())
    category = {a["id"]: a.get("category") or a["id"] for a in catalog["agents"]}
    tools = {t["id"]: t for t in catalog["tools"]}
    ordered = sorted(tools)
    rng = random.Random(seed)
    pairs: list[Pair] = []
    lines = [line for line in queries_path.read_text().splitlines() if line.strip()]
    for line in lines[:limit]:
        query = json.loads(line)
        gold = [tools[t] for t in query["tools"] if t in tools]
        if not gold:
            continue
        for tool in gold:
            pairs.append(_pair("stb", query["question"], tool, True))
        categories = {category.get(t["agent"]) for t in gold}
        others = [t for t in ordered if category.get(tools[t]["agent"]) not in categories]
        for tool_id in rng.sample(others, min(NEGATIVES_PER_QUESTION, len(others))):
            pairs.append(_pair("stb", query["question"], tools[tool_id], False))
    return pairs


def _pair(group: str, text: str, tool: dict[str, Any], positive: bool) -> Pair:
    return Pair(
        group, text, str(tool["name"]), str(tool.get("description") or ""),
        dict(tool.get("input_schema") or tool.get("parameters") or {}), positive,
    )


def bfcl_pairs(limit: int | None) -> list[Pair]:
    """simple_python request × gold function (positive); irrelevance request × its functions."""
    from bench.evaluation.bfcl import case_request, compiled_tools, load_cases

    pairs: list[Pair] = []
    for case in load_cases("simple_python")[:limit]:
        wanted = {next(iter(g)) for g in case.get("ground_truth") or []}
        for tool in compiled_tools(case):
            if tool["name"] in wanted:
                pairs.append(_pair("simple_python", case_request(case), tool, True))
    for case in load_cases("irrelevance"):  # all of them: the false accepts are few
        for tool in compiled_tools(case):
            pairs.append(_pair("irrelevance", case_request(case), tool, False))
    return pairs


@dataclass(frozen=True)
class Signals:
    """The gate's evidence for one pair, and the gate's own verdict."""

    words: float
    meaning: float
    values: bool
    reason: str | None
    bindable: bool = False


def measure(pairs: Sequence[Pair], embedder: Any) -> list[tuple[Pair, Signals]]:
    """Each pair with its evidence and the gate's verdict (tools as reads, as BFCL's are)."""
    from nodes.planning.eligibility import fit_reason
    from nodes.planning.relevance import (
        MIN_PARTIAL_MEANING,
        meaning,
        relevance,
        values_fit,
    )
    from nodes.planning.schema_binder import bind_schema
    from stores.catalog.model import ToolSpec

    measured = []
    for pair in pairs:
        spec = ToolSpec(
            id=f"t/{pair.name}", name=pair.name, description=pair.description, agent="t",
            input_schema=pair.schema, side_effect=False,
        )
        words = relevance(pair.text, pair.name, pair.description, pair.schema)
        close = meaning(pair.text, pair.name, pair.description, embedder)
        signals = Signals(
            words,
            close,
            close >= MIN_PARTIAL_MEANING and values_fit(pair.text, pair.schema),
            fit_reason(pair.text, spec, words, embedder),
            not bind_schema(pair.text, pair.schema, segment=0).missing,
        )
        measured.append((pair, signals))
    return measured


Gate = Callable[[Signals], bool]


def variants() -> dict[str, Gate]:
    """The gate as it is, its parts, and other thresholds (for the trade-off)."""
    from nodes.planning import relevance as r

    def gate(meaning: float) -> Gate:
        return lambda s: s.words >= r.MIN_RELEVANCE or s.meaning >= meaning or s.values

    table: dict[str, Gate] = {"the gate (eligibility.fit_reason)": lambda s: s.reason is not None}
    table["words only"] = lambda s: s.words >= r.MIN_RELEVANCE
    table["words or meaning (no values)"] = lambda s: (
        s.words >= r.MIN_RELEVANCE or s.meaning >= r.MIN_MEANING
    )
    for meaning in (0.35, 0.40, 0.50):
        table[f"the gate with meaning >= {meaning:.2f}"] = gate(meaning)
    return table


GROUPS = (("stb", True), ("simple_python", True), ("stb", False), ("irrelevance", False))


def report(measured: Sequence[tuple[Pair, Signals]], head: Sequence[str]) -> str:
    """The results page: each variant's recall and false accepts, then why pairs got through.

    Two readings per variant: the gate alone, and the gate with every required value of the
    tool given (a call would be made; a tool admitted without its values leads to a question).
    """
    lines = [
        *head,
        "| gate | STB recall | simple_python recall | STB false accepts "
        "| irrelevance false accepts |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, gate in variants().items():
        for called in (False, True):
            split: dict[tuple[str, bool], list[int]] = {}
            for pair, signals in measured:
                row = split.setdefault((pair.group, pair.positive), [0, 0])
                row[0] += int(gate(signals) and (signals.bindable or not called))
                row[1] += 1
            cells = [
                f"{split[key][0] / split[key][1]:.3f}" if split.get(key, [0, 0])[1] else "-"
                for key in GROUPS
            ]
            label = f"{name}, values given" if called else name
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Why the gate let each pair through (or none), by set:\n",
        "| set | " + " | ".join(REASONS) + " |",
        "|---|" + "---:|" * len(REASONS),
    ]
    for group, positive in GROUPS:
        counted: dict[str, int] = {}
        for pair, signals in measured:
            if (pair.group, pair.positive) == (group, positive):
                reason = signals.reason or "none"
                counted[reason] = counted.get(reason, 0) + 1
        label = f"{group} {'positives' if positive else 'negatives'}"
        lines.append(f"| {label} | " + " | ".join(str(counted.get(r, 0)) for r in REASONS) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Measure the gate on the development pairs and write bench/results/gate_dev.md."""
    parser = argparse.ArgumentParser(prog="python -m bench gate_dev")
    parser.add_argument("--catalog", default=str(DEV_CATALOG))
    parser.add_argument("--queries", default=str(DEV_QUERIES))
    parser.add_argument("--limit", type=int, default=None, help="questions / BFCL cases per set")
    parser.add_argument("--out", default="gate_dev.md")
    args = parser.parse_args(argv)
    from graph.deps import Deps

    started = time.perf_counter()
    pairs = stabletoolbench_pairs(Path(args.catalog), Path(args.queries), args.limit)
    pairs += bfcl_pairs(args.limit)
    measured = measure(pairs, Deps().get_embedder())
    sizes = {key: sum(1 for p, _ in measured if (p.group, p.positive) == key) for key in GROUPS}
    head = [
        "# The tool-fit gate as a classifier (development data)\n",
        f"{machine_line()}. Command: `python -m bench gate_dev"
        f"{f' --limit {args.limit}' if args.limit else ''}`; "
        f"{time.perf_counter() - started:.0f} s.",
        f"Positives: StableToolBench question × gold tool ({sizes[('stb', True)]} pairs, "
        f"`{display_path(args.catalog)}`), BFCL simple_python request × gold function "
        f"({sizes[('simple_python', True)]}). Negatives: StableToolBench question × a tool of "
        f"another category ({sizes[('stb', False)]}, seed {SEED}), BFCL irrelevance request × "
        f"its functions ({sizes[('irrelevance', False)]}). Recall: share of positives the gate "
        "lets through; false accepts: share of negatives it lets through. \"values given\": "
        "the gate lets it through and the schema binder fills every required parameter from "
        "the request (a call would be made; without its values the planner asks).\n",
    ]
    text = report(measured, head)
    path = write_result(args.out, text, keep_notes=True)
    print(text)
    print(f"written to {display_path(path)}")
    return 0
