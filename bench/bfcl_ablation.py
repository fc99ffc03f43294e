"""What each part of the rule planner's binder adds on BFCL: ``python -m bench bfcl_ablation``.

Re-runs the development categories (BFCL's own checker, the offline rules row) with one binder
component switched off at a time and writes ``results/bfcl_ablation.md``. The switches are
patches applied here, around the run: the main path has no switch for any of them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from unittest import mock

from bench.bfcl import DEVELOPMENT
from bench.common import machine_line, write_result
from bench.evaluation.bfcl import BfclRunner, evaluate


def _first_set_only(original: Callable[..., list[dict[str, Any]]]) -> Callable[..., Any]:
    def first(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        return original(*args, **kwargs)[:1]

    return first


def _switches() -> dict[str, tuple[str, Callable[[], contextlib.AbstractContextManager[Any]]]]:
    """Component name → (what is switched off, a context manager that switches it off)."""
    from graph import routes
    from nodes.parsing import splitting
    from nodes.planning import (
        eligibility,
        named_values,
        param_fit,
        param_values,
        rules,
        schema_binder,
    )

    def patches(*items: tuple[Any, str, Any]) -> contextlib.AbstractContextManager[Any]:
        stack = contextlib.ExitStack()
        for target, name, value in items:
            stack.enter_context(mock.patch.object(target, name, value))
        return stack

    return {
        "cue words": (
            "no evidence from the words beside a value (cue_score is 0)",
            lambda: patches((schema_binder, "cue_score", lambda *a, **k: 0.0)),
        ),
        "place and preposition cues": (
            "no 'in/at/near' place cue, no 'from/to' name cue",
            lambda: patches(
                (param_fit, "_place_cue", lambda *a, **k: 0.0),
                (param_fit, "_preposition_cue", lambda *a, **k: 0.0),
            ),
        ),
        "embedding similarity": (
            "free-text values are not found by meaning",
            lambda: patches((schema_binder, "phrases_by_meaning", lambda *a, **k: None)),
        ),
        "enum matching": (
            "enum and allowed values are not looked for in the text",
            lambda: patches(
                (named_values, "enum_value", lambda *a, **k: None),
                (named_values, "enum_mentions", lambda *a, **k: []),
            ),
        ),
        "list -> calls": (
            "a list or repeated values make one call, not one per item",
            lambda: patches(
                (schema_binder, "_argument_sets",
                 _first_set_only(schema_binder._argument_sets)),
            ),
        ),
        "relevance gate": (
            "a candidate need not share words with the request",
            lambda: patches((eligibility, "MIN_RELEVANCE", 0.0)),
        ),
        "optional-parameter evidence": (
            "an optional parameter takes any value that fits its type",
            lambda: patches((schema_binder, "STRONG_CUE", -1.0)),
        ),
        "relevance by meaning": (
            "a read-only tool sharing no word with the request is never admitted by meaning",
            lambda: patches((eligibility, "MIN_MEANING", 2.0)),
        ),
        "statements as context": (
            "a sentence that only states facts is a clause of its own",
            lambda: patches((splitting, "states_facts", lambda *a, **k: False)),
        ),
        "coordinated reads": (
            "one clause naming several reads calls only the best one",
            lambda: patches(
                (rules, "coordinated_reads", lambda *a, **k: []),
            ),
        ),
        "argument groups": (
            "the text is not cut into one argument set per group or clause",
            lambda: patches((schema_binder, "repeated_sets", lambda *a, **k: None)),
        ),
        "gate by given values": (
            "a read-only tool is not admitted on partial fit when the request gives its values",
            lambda: patches((eligibility, "gives_its_values", lambda *a, **k: False)),
        ),
        "units": (
            "a measure is neither checked against nor converted to a parameter's stated unit",
            lambda: patches(
                (param_fit, "measured_units", lambda *a, **k: None),
                (param_values, "measured_units", lambda *a, **k: None),
            ),
        ),
        "fold fragments": (
            "a scene-setting or continuation clause keeps its own call",
            lambda: patches((rules, "fold_fragments", lambda *a, **k: None)),
        ),
        "partial plan": (
            "a question stops every clause: nothing runs before it is answered",
            lambda: patches((routes, "_runs_before_asking", lambda *a, **k: False)),
        ),
    }


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield None


def _run(categories: Sequence[str], limit: int | None, home: Path) -> dict[str, float]:
    runner = BfclRunner(home)
    results = asyncio.run(
        evaluate(categories, limit=limit, out_dir=None, runner=runner, say=lambda _line: None)
    )
    return {category: result.accuracy for category, result in results.items()}


def main(argv: list[str]) -> int:
    """Run the full binder, then once per component switched off; write the table."""
    parser = argparse.ArgumentParser(prog="python -m bench bfcl_ablation")
    parser.add_argument("--limit", type=int, default=50, help="cases per category (50)")
    parser.add_argument("--category", nargs="+", default=list(DEVELOPMENT))
    parser.add_argument("--only", nargs="*", default=None, help="components to switch off")
    args = parser.parse_args(argv)
    switches = _switches()
    chosen = [name for name in switches if args.only is None or name in args.only]
    started = time.perf_counter()
    rows: list[tuple[str, str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="zspace-bench-ablation-") as temp:
        with _nothing():
            rows.append(("full binder", "", _run(args.category, args.limit, Path(temp) / "full")))
        for number, name in enumerate(chosen):
            what, switch = switches[name]
            with switch():
                scores = _run(args.category, args.limit, Path(temp) / f"off{number}")
            rows.append((name, what, scores))
    seconds = time.perf_counter() - started
    full = rows[0][2]
    limit = f" --limit {args.limit}" if args.limit else ""
    lines = [
        "# BFCL ablation of the rule planner's binder",
        "",
        f"{machine_line()}. Command: `python -m bench bfcl_ablation{limit}` ({seconds:.0f} s). "
        "BFCL's own checker, offline rules row, development categories only"
        + (f", {args.limit} cases per category spread over each (not the whole category)"
           if args.limit else "")
        + ". Each row switches one component off by a patch in bench code (the main path has "
        "no such switch); the change against the full binder is in points.",
        "",
        "| component switched off | what changes | " + " | ".join(args.category) + " | mean |",
        "|---|---|" + "---:|" * (len(args.category) + 1),
    ]
    for name, what, scores in rows:
        mean = sum(scores.values()) / len(scores)
        cells = []
        for category in args.category:
            cell = f"{scores[category]:.0%}"
            if name != "full binder":
                cell += f" ({(scores[category] - full[category]) * 100:+.0f})"
            cells.append(cell)
        full_mean = sum(full.values()) / len(full)
        mean_cell = f"{mean:.1%}" + (
            "" if name == "full binder" else f" ({(mean - full_mean) * 100:+.1f})"
        )
        lines.append(f"| {name} | {what} | " + " | ".join(cells) + f" | {mean_cell} |")
    lines += [
        "",
        "A negative change is what the component adds; irrelevance rises when a component that "
        "makes calls is off (fewer calls, fewer wrong ones).",
    ]
    path = write_result("bfcl_ablation.md", "\n".join(lines) + "\n")
    print(path.read_text())
    return 0
