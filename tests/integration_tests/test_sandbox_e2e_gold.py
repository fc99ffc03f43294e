"""Every gold chain of the end-to-end request sets succeeds on a freshly reset sandbox.

The sets (`bench/data/e2e/{dev,test}.jsonl`) are scored against these chains: a chain the seed
cannot satisfy would fail every run. Each one is executed step by step, `{"from": "i.field"}`
arguments taken from the outputs of earlier steps, at today's date and three years away.
"""

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sandbox.backend import Sandbox, tool_methods
from sandbox.clock import SandboxClock

pytestmark = pytest.mark.integration

E2E = Path(__file__).resolve().parents[2] / "bench" / "data" / "e2e"
ROWS = [
    json.loads(line)
    for split in ("dev", "test")
    for line in (E2E / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip()
]
CALL_ROWS = [row for row in ROWS if row["expect"] == "calls"]
SHIFTS = {"today": 0, "three years ahead": 3 * 365, "a year back": -365}


@pytest.fixture(scope="module", params=list(SHIFTS), ids=list(SHIFTS))
def sandbox(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Sandbox]:
    now = datetime.now(UTC).replace(microsecond=0) + timedelta(days=SHIFTS[request.param])
    path = tmp_path_factory.mktemp("gold") / "sandbox.db"
    with Sandbox(path, clock=SandboxClock.fixed(now)) as backend:
        yield backend


def resolve(value: Any, outputs: list[dict[str, Any]]) -> Any:
    if isinstance(value, dict) and set(value) == {"from"}:
        step, field = str(value["from"]).split(".", 1)
        return outputs[int(step)][field]
    return value


def test_the_sets_are_well_formed() -> None:
    tools = {f"sandbox/{info.name}" for info, _ in tool_methods()}
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))
    for row in ROWS:
        assert row["steps"] == len(row["gold"]), row["id"]
        assert (row["expect"] == "calls") == bool(row["gold"]), row["id"]
        for step in row["gold"]:
            assert step["tool"] in tools, (row["id"], step["tool"])


@pytest.mark.parametrize("row", CALL_ROWS, ids=[row["id"] for row in CALL_ROWS])
def test_the_gold_chain_runs_on_the_seed(sandbox: Sandbox, row: dict[str, Any]) -> None:
    sandbox.reset()
    outputs: list[dict[str, Any]] = []
    for step in row["gold"]:
        name = step["tool"].split("/", 1)[1]
        arguments = {key: resolve(value, outputs) for key, value in step["args"].items()}
        outputs.append(getattr(sandbox, name)(**arguments))
