"""A small slice of the end-to-end set, run for real: sandbox over MCP, whole graph, scoring.

The full sets are a benchmark (``python -m bench e2e``); here ten requests spread over the
test split run against a catalog of the sandbox and its near misses (the public catalog would
take minutes to embed on CI), on a home of their own.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from bench.evaluation.e2e import NEAR_MISSES, SANDBOX_CATALOG

EXPECTED_KEYS = {
    "accuracy",
    "by_steps",
    "clarify_accuracy",
    "direct_answer_accuracy",
    "tokens_ratio",
    "latency_ms_p50",
    "n",
}


def eval_e2e_parser() -> argparse.ArgumentParser:
    """``zspace eval e2e`` as the CLI registers it."""
    from graph.cli import build_parser

    return build_parser()


@pytest.mark.timeout(240)
def test_eval_e2e_slice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = tmp_path / "catalog.json"
    agents, tools = [], []
    for path in (NEAR_MISSES, SANDBOX_CATALOG):
        document = json.loads(path.read_text(encoding="utf-8"))
        agents += document["agents"]
        tools += document["tools"]
    catalog.write_text(json.dumps({"agents": agents, "tools": tools}))
    args = eval_e2e_parser().parse_args(
        [
            "eval",
            "e2e",
            "--split",
            "test",
            "--limit",
            "10",
            "--catalog",
            str(catalog),
            "--home",
            str(tmp_path / "home"),
            "--json",
        ]
    )
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    figures = json.loads(out.strip().splitlines()[-1])
    assert EXPECTED_KEYS <= set(figures)
    assert figures["n"] == 10
    assert figures["accuracy"] >= 0.8, figures["failures"]
    assert figures["tokens_ratio"] is not None and figures["tokens_ratio"] < 0.5
    assert figures["calls_dispatched"] > 0 and figures["calls_outside_environment"] == 0
    assert "overall accuracy" in out
