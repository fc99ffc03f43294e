"""Exactly-once effects across crashes, one driver per run, run ids bound to requests, forks."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench import crash
from bench.crash_child import LEASE_HELD_EXIT
from nodes.context import Context
from tests.unit_tests.test_pipeline import DEMO, World

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[crash.Setup]:
    root = tmp_path_factory.mktemp("crash")
    built = crash.build_setup(root, lambda _line: None)
    crash.reference_runs(built, lambda _line: None)
    yield built


def _final(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "final.json").read_text())


def test_small_crash_run_has_no_duplicate_or_lost_effect(setup: crash.Setup) -> None:
    reports = [crash.crash_run(setup, number, seed=5) for number in range(5)]
    assert sum(r.kills for r in reports) >= 2  # random kills can land after the run ended
    assert sum(r.duplicate_effects for r in reports) == 0
    assert sum(r.lost_results for r in reports) == 0
    unfinished = [f"run {r.run} (kills {r.kill_plan}, attempts {r.attempts}): {r.detail}"
                  for r in reports if not r.finished]
    assert not unfinished, "\n".join(unfinished)  # the detail says why: pytest cuts a long repr


@pytest.mark.parametrize("point", crash.POINTS)
def test_kill_at_each_named_point_then_resume(setup: crash.Setup, point: str) -> None:
    request = crash.REQUESTS[0]
    run_dir = crash._prepare_run(setup, f"named-{point}")
    code, killed, _ = crash._child(setup, run_dir, request, f"named-{point}", f"{point}:s2.core", None)
    assert killed and code == -signal.SIGKILL
    code, killed, _ = crash._child(setup, run_dir, request, f"named-{point}", None, None)
    assert code == 0 and not killed
    final = _final(run_dir)
    assert all(r["status"] == "ok" for r in final["results"].values())
    base = crash.table_counts(setup.pristine_db)
    after = crash.table_counts(run_dir / "sandbox.db")
    assert {t: after[t] - base[t] for t in after} == setup.expected[request]
    order = next(r for r in final["ledger"] if r["call_id"] == "s2.core")
    # Killed before the result was recorded: the same key was sent again (the sandbox replays).
    assert order["status"] == "done"
    assert order["attempts"] == (1 if point == "after_record" else 2)


def test_two_processes_on_one_run_one_wins(setup: crash.Setup) -> None:
    request = crash.REQUESTS[0]
    run_dir = crash._prepare_run(setup, "lease")
    env = {**os.environ, "ZSPACE_HOME": str(run_dir), "ZSPACE_CRASH_AT": "hang_before_call:s1.core"}
    command = [
        sys.executable, "-m", "bench.crash_child", "--home", str(run_dir),
        "--index", str(run_dir / "index"), "--catalog", str(setup.catalog),
        "--mcp", str(run_dir / "mcp.json"), "--thread", "crash-thread", "--run-id", "lease-run",
        "--request", request, "--out", str(run_dir / "final.json"), "--index-name", crash.INDEX_NAME,
    ]
    first = subprocess.Popen(command, cwd=crash.REPO, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        assert first.stdout is not None and first.stdout.readline().strip() == "ready"
        time.sleep(3.0)  # it now hangs inside s1.core, holding the lease
        assert first.poll() is None
        env.pop("ZSPACE_CRASH_AT")
        second = subprocess.run(command, cwd=crash.REPO, env=env, capture_output=True,
                                text=True, timeout=120)
        assert second.returncode == LEASE_HELD_EXIT
        assert f"pid {first.pid}" in second.stderr and "another process" in second.stderr
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    # The holder is gone: the lease is stale and a new process finishes the run, once.
    code, _, _ = crash._child(setup, run_dir, request, "lease-run", None, None)
    assert code == 0
    base = crash.table_counts(setup.pristine_db)
    after = crash.table_counts(run_dir / "sandbox.db")
    assert {t: after[t] - base[t] for t in after} == setup.expected[request]


def test_same_run_id_with_another_request_is_refused(setup: crash.Setup) -> None:
    run_dir = crash._prepare_run(setup, "rebind")
    first, second = crash.REQUESTS[2], crash.REQUESTS[1]
    assert crash._child(setup, run_dir, first, "bound-run", None, None)[0] == 0
    before = crash.table_counts(run_dir / "sandbox.db")
    (run_dir / "checkpoints.sqlite").unlink()  # a new thread, same run id
    for suffix in ("-wal", "-shm"):
        Path(f"{run_dir / 'checkpoints.sqlite'}{suffix}").unlink(missing_ok=True)
    assert crash._child(setup, run_dir, second, "bound-run", None, None)[0] == 0
    final = _final(run_dir)
    errors = [r for r in final["results"].values() if r["status"] == "error"]
    assert errors and all(r["error_kind"] == "policy" for r in errors)
    assert "was first used for another request" in errors[0]["error"]
    assert "first used for another request" in final["answer"]
    assert crash.table_counts(run_dir / "sandbox.db") == before


# ------------------------------------------------------------------ Studio forks (in memory)
async def _run_from(world: World, config: dict[str, Any], payload: Any, run_id: str) -> dict[str, Any]:
    async for _ in world.graph.astream(
        payload, config, context=Context(run_id=run_id), durability="sync"
    ):
        pass
    head = {"configurable": {"thread_id": config["configurable"]["thread_id"]}}
    return dict((await world.graph.aget_state(head)).values)


async def test_fork_replays_recorded_effects_and_a_changed_call_is_a_new_effect(
    tmp_path: Path,
) -> None:
    """The ledger key is run id + sub-intent + tool + bound args.

    So replaying a fork of the same run (Studio's "fork from here") replays every recorded
    effect, while a fork whose state edit changes a call's arguments makes a new effect, by
    design.
    """
    world = World(tmp_path)
    config: dict[str, Any] = {"configurable": {"thread_id": "f"}}
    await _run_from(world, config, {"request": DEMO}, "fork-run")
    assert world.shop.calls["create_order"] == 1
    history = [s async for s in world.graph.aget_state_history(config)]
    before_order = next(
        s for s in history
        if "s1.core" in (s.values.get("results") or {})
        and "s2.core" not in (s.values.get("results") or {})
        and s.next == ("execute",)
    )
    # 1. Fork from that checkpoint with the same run id: nothing is repeated.
    replayed = await _run_from(world, before_order.config, None, "fork-run")
    assert world.shop.calls["create_order"] == 1 and world.shop.count("orders") == 1
    assert replayed["results"]["s2.core"]["replayed"] is True
    assert replayed["results"]["s3.core"]["replayed"] is True
    # 2. Edit the state (as in Studio) so the order call has other arguments: a new effect.
    plan = [dict(c) for c in before_order.values["plan"]]
    order = next(c for c in plan if c["call_id"] == "s2.core")
    order["args"] = {**order["args"], "quantity": {"value": 2}}
    edited = await world.graph.aupdate_state(
        before_order.config, {"plan": plan},
        as_node="plan",  # as "execute" fails: route_wave wants a runtime update_state lacks
    )
    state = await _run_from(world, edited, None, "fork-run")
    assert world.shop.calls["create_order"] == 2 and world.shop.count("orders") == 2
    assert state["results"]["s2.core"]["replayed"] is False
    assert state["results"]["s2.core"]["args"]["quantity"] == 2
