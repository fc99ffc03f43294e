"""``zspace eval bfcl`` as a user runs it: BFCL's data and checker, EVAL.md's run file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.evaluation.bfcl import AGENT, case_request, load_cases, spread
from bench.evaluation.oracle import bfcl_gold_waves, oracle
from bench.evaluation.scripted_openai import scripted_openai_server

REPO = Path(__file__).resolve().parents[2]
LINE_KEYS = {"id", "calls", "question", "answer", "tokens", "seconds"}


def zspace(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OPENAI_API_KEY": "not-needed"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        [sys.executable, "-m", "graph.cli", "eval", "bfcl", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False,
    )


@pytest.mark.timeout(300)
def test_offline_run_writes_one_line_per_case_in_bfcl_order(tmp_path: Path) -> None:
    done = zspace("--category", "simple_python", "irrelevance", "--limit", "3",
                  "--out", str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["model"] == "rules"
    assert summary["simple_python"]["cases"] == 3 and summary["irrelevance"]["cases"] == 3
    for category in ("simple_python", "irrelevance"):
        lines = [json.loads(x) for x in (tmp_path / f"{category}.jsonl").read_text().splitlines()]
        expected = [c["id"] for c in spread(load_cases(category), 3)]
        assert [line["id"] for line in lines] == expected
        for line in lines:
            assert set(line) == LINE_KEYS
            assert set(line["tokens"]) == {"prompt", "completion"}
            assert all(isinstance(call, dict) and len(call) == 1 for call in line["calls"])


@pytest.mark.timeout(300)
def test_with_a_model_that_gives_the_gold_calls_the_checker_passes_them(tmp_path: Path) -> None:
    categories = ("simple_python", "parallel", "irrelevance")
    waves = [
        (case_request(c), bfcl_gold_waves(c, AGENT))
        for cat in categories
        for c in spread(load_cases(cat), 3)
    ]
    with scripted_openai_server(oracle(waves)) as server:
        done = zspace("--category", *categories, "--limit", "3", "--out", str(tmp_path),
                      "--model", "oracle", "--base-url", server.base_url, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["model"] == "oracle"
    assert {c: summary[c]["accuracy"] for c in categories} == dict.fromkeys(categories, 1.0)
    parallel = [json.loads(x) for x in (tmp_path / "parallel.jsonl").read_text().splitlines()]
    assert all(len(line["calls"]) >= 2 for line in parallel)  # parallel calls, names kept
    assert all(line["tokens"]["prompt"] > 0 for line in parallel)


def test_a_model_that_cannot_be_reached_is_an_error_not_a_fall_back() -> None:
    done = zspace("--category", "simple_python", "--limit", "1", "--model", "m",
                  "--base-url", "http://127.0.0.1:9/v1")
    assert done.returncode == 2
    assert "cannot be used" in done.stderr and "Traceback" not in done.stderr


def _case(case_id: str, request: str) -> dict[str, object]:
    weather = {
        "name": "get_weather", "description": "Current weather in a city.",
        "parameters": {"type": "dict", "required": ["city"],
                       "properties": {"city": {"type": "string", "description": "The city"}}},
    }
    return {"id": case_id, "question": [[{"role": "user", "content": request}]],
            "function": [weather]}


@pytest.mark.timeout(300)
def test_the_runner_records_what_a_run_without_calls_did_instead(tmp_path: Path) -> None:
    import asyncio

    from bench.evaluation.bfcl import BfclRunner, no_call_kind

    async def kinds() -> list[tuple[int, str]]:
        runner = BfclRunner(tmp_path)
        runs = [await runner.run_case(_case(f"c{i}", request)) for i, request in enumerate([
            "What's the weather like in Paris?",
            "Get me the current weather.",
            "Thanks!",
            "Translate 'good morning' into German.",
            "Hello, thanks a lot!",
        ])]
        return [(len(run.calls), no_call_kind(run.question, run.actions, run.reasons))
                for run in runs]

    made, asked, answered, none_fits, not_understood = asyncio.run(kinds())
    assert made[0] == 1
    assert asked == (0, "asked")
    assert answered == (0, "answered")
    assert none_fits == (0, "none fits")
    assert not_understood == (0, "not understood")
