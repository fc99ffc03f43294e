"""`zspace demo` and a slice of `zspace eval e2e` pass with the sandbox clock years away.

Both run as subprocesses with the clock set only in their environment, as a user would:
three years ahead (`ZSPACE_SANDBOX_CLOCK_OFFSET_DAYS`) and a year back (`ZSPACE_SANDBOX_NOW`).
zspace starts the sandbox's MCP server with a scrubbed environment; the clock reaches it
through the database that `python -m sandbox reset` seeded. Each run then checks the sandbox
really lived at that date: the rows the run wrote carry it.
"""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sandbox.clock import NOW_VARIABLE, OFFSET_VARIABLE, iso
from sandbox.export import export_tables

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
TODAY = datetime.now(UTC)
YEAR_BACK = iso(TODAY.replace(microsecond=0) - timedelta(days=365))
CLOCKS = {
    "three years ahead": {OFFSET_VARIABLE: "1095"},
    "a year back": {NOW_VARIABLE: YEAR_BACK},
}
# Date-sensitive requests (coupons, memberships, deliveries) and new operations of issue 17.
E2E_SLICE = ["test-111", "test-119", "test-063", "test-116", "test-174", "test-175"]


def assert_sandbox_time(stamp: str, clock: dict[str, str], age: timedelta = timedelta(0)) -> None:
    """A timestamp the sandbox wrote `age` before its clock's now is at the clock's date."""
    written = datetime.fromisoformat(stamp) + age
    if NOW_VARIABLE in clock:
        assert written == datetime.fromisoformat(clock[NOW_VARIABLE])
    else:
        expected = TODAY + timedelta(days=float(clock[OFFSET_VARIABLE]))
        assert abs(written - expected) < timedelta(hours=1), (stamp, expected)


def zspace(*args: str, home: Path, clock: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in (NOW_VARIABLE, OFFSET_VARIABLE)}
    env.update(clock, ZSPACE_HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "graph.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One home for both demo runs: the second reuses the first one's index."""
    yield tmp_path_factory.mktemp("demo-home")


@pytest.fixture(scope="module")
def e2e_catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sandbox and its near misses: the public catalog would take minutes to embed."""
    agents, tools = [], []
    for name in ("near_misses.json", "catalog.json"):
        document = json.loads((REPO / "sandbox" / "data" / name).read_text(encoding="utf-8"))
        agents += document["agents"]
        tools += document["tools"]
    path = tmp_path_factory.mktemp("catalog") / "catalog.json"
    path.write_text(json.dumps({"agents": agents, "tools": tools}), encoding="utf-8")
    return path


@pytest.mark.timeout(600)
@pytest.mark.parametrize("clock", list(CLOCKS.values()), ids=list(CLOCKS))
def test_demo_passes_at_another_date(demo_home: Path, clock: dict[str, str]) -> None:
    done = zspace("demo", home=demo_home, clock=clock)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "rows created by the second run: none" in done.stdout
    tables = export_tables(demo_home / "sandbox.db")
    [setting] = tables["sandbox_settings"]
    assert setting["value"] == (
        f"fixed {clock[NOW_VARIABLE]}" if NOW_VARIABLE in clock else "offset 1095"
    )
    seeded = {row["order_id"] for row in tables["orders"] if row["order_id"] <= 9}
    made = [row for row in tables["orders"] if row["order_id"] not in seeded]
    assert [row["status"] for row in made] == ["pending_payment"]
    assert_sandbox_time(made[0]["updated_at"], clock)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("clock", list(CLOCKS.values()), ids=list(CLOCKS))
def test_e2e_slice_passes_at_another_date(
    tmp_path: Path, e2e_catalog: Path, clock: dict[str, str]
) -> None:
    home = tmp_path / "home"
    ids = [arg for request in E2E_SLICE for arg in ("--id", request)]
    done = zspace(
        "eval", "e2e", "--split", "test", *ids, "--catalog", str(e2e_catalog),
        "--home", str(home), "--json", home=tmp_path, clock=clock,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["n"] == len(E2E_SLICE)
    assert figures["accuracy"] == 1.0, figures["failures"]
    assert figures["calls_outside_environment"] == 0
    tables = export_tables(home / "sandbox.db")  # the last request's sandbox
    assert_sandbox_time(tables["users"][0]["created_at"], clock, age=timedelta(days=30))
