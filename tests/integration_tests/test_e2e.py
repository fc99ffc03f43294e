"""A small slice of the end-to-end set, run for real: sandbox over MCP, whole graph, scoring.

The full sets are a benchmark (``python -m bench e2e``); here ten requests spread over the
test split run against a catalog of the sandbox and its near misses (the public catalog would
take minutes to embed on CI), on a home of their own.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

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


def small_catalog(tmp_path: Path) -> Path:
    """The sandbox's tools and their near misses, as one catalog file."""
    catalog = tmp_path / "catalog.json"
    agents, tools = [], []
    for path in (NEAR_MISSES, SANDBOX_CATALOG):
        document = json.loads(path.read_text(encoding="utf-8"))
        agents += document["agents"]
        tools += document["tools"]
    catalog.write_text(json.dumps({"agents": agents, "tools": tools}))
    return catalog


@pytest.mark.timeout(240)
def test_eval_e2e_slice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalog = small_catalog(tmp_path)
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


INSTRUCTIONS = [
    # Scored (it carries the gold fields): the run must be done and correct.
    {"id": "done-1", "request": "Create a test product.", "steps": 1,
     "gold": [{"tool": "sandbox/create_product", "args": {}}], "expect": "calls"},
    # Only run: no order id, so the run stops at a clarifying question.
    {"id": "question-1", "request": "Advance the order to shipped"},
    # Only run: the sandbox has no order 999, so every call fails.
    {"id": "failed-1", "request": "Show me order 999."},
    # Only run: made to crash below; the request after it still runs.
    {"id": "crash-1", "request": "Crash on purpose."},
    {"id": "chain-1", "request": "create a test product, place an order using account "
     "123456, and advance the order status to pending payment"},
]


@pytest.mark.timeout(240)
def test_eval_e2e_run_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real ``zspace eval e2e --out``: every line valid against the schema; done, question
    and failed all occur; a crash is a failed line with its last line, and the rest go on."""
    import jsonschema

    import bench.evaluation.e2e as harness
    from bench.evaluation.runfile import RUNFILE_SCHEMA
    from graph.cli import main

    class CrashingSession(harness.Session):
        async def run(self, request: str, context: Any, thread_id: str | None = None) -> Any:
            if request == "Crash on purpose.":
                raise RuntimeError("the harness was told to crash")
            return await super().run(request, context, thread_id)

    monkeypatch.setattr(harness, "Session", CrashingSession)
    instructions = tmp_path / "instructions.jsonl"
    instructions.write_text("".join(json.dumps(row) + "\n" for row in INSTRUCTIONS))
    out = tmp_path / "run.jsonl"
    code = main(["eval", "e2e", "--instructions", str(instructions), "--catalog",
                 str(small_catalog(tmp_path)), "--home", str(tmp_path / "home"),
                 "--out", str(out), "--json"])
    assert code == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["n"] == 5 and figures["scored"] == 1 and figures["accuracy"] == 1.0
    validator = jsonschema.Draft202012Validator(json.loads(RUNFILE_SCHEMA.read_text()))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    for line in lines:
        validator.validate(line)
    by_id = {line["id"]: line for line in lines}
    assert [line["id"] for line in lines] == [row["id"] for row in INSTRUCTIONS]
    assert {line["status"] for line in lines} == {"done", "question", "failed"}
    assert figures["statuses"] == {"done": 2, "question": 1, "failed": 2}

    done = by_id["done-1"]
    assert done["status"] == "done" and done["error"] is None
    (created,) = done["calls"]
    assert created["tool"] == "sandbox/create_product" and created["status"] == "ok"
    assert created["side_effect"] is True and created["replayed"] is False
    product_id = created["output"]["product_id"]
    assert any(row["product_id"] == product_id for row in done["sandbox"]["products"])

    asked = by_id["question-1"]
    assert asked["question_param"] == "order_id" and asked["calls"] == []

    failed = by_id["failed-1"]
    assert failed["status"] == "failed" and "999" in failed["error"]
    assert failed["calls"] and {c["status"] for c in failed["calls"]} == {"error"}
    assert {c["error_kind"] for c in failed["calls"]} == {"tool"}

    crashed = by_id["crash-1"]
    assert crashed["status"] == "failed" and crashed["calls"] == []
    assert crashed["error"] == "RuntimeError: the harness was told to crash"

    chain = by_id["chain-1"]
    assert chain["status"] == "done"
    assert [(c["seq"], c["wave"]) for c in chain["calls"]] == [(0, 0), (1, 0), (2, 1), (3, 2)]
    assert "orders" in chain["sandbox"] and "users" in chain["sandbox"]
