"""Crash harness: kill side-effecting runs at random and at named points, resume, check effects.

``python -m bench crash --runs N [--json] [--jobs J] [--seed S]``

Once per harness run it seeds a pristine sandbox database, lists the sandbox's tools over MCP
(so each tool carries its pinned definition hash), indexes them with the near-miss twins, and
makes one reference run per request without faults (its row deltas are the expected effects).
Then each run gets a fresh copy of the sandbox database and the index and runs one
multi-step side-effecting request in a child process (``bench/crash_child.py``: graph.session,
fixed thread and run id, ``durability="sync"``), killed with SIGKILL either at a random moment
after it is ready or at a named point (``before_call``, ``after_call``, ``after_record`` of a
side-effecting call). The MCP SDK starts the sandbox server in its own session, so the kill
does not reach it: like a remote service, it finishes (or drops) the request in flight on its
own, possibly after the client died — the case that makes a blind retry a duplicate. The run
is resumed on the same thread (sometimes killed again) until it finishes. Then:

- **duplicate_effects**: rows per sandbox table beyond the reference run's delta;
- **lost_results**: calls the ledger marks done whose result is missing or not ok in the final
  state;
- **unfinished**: runs that did not end with every call ok and no gap (the report says why:
  the calls not ok, the ledger, the answer).

Every child imports the code afresh: run the harness from a checkout nobody edits while it
runs (``git worktree add /tmp/crash HEAD``), or its children mix two versions.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import REPO, machine_line, write_result

REQUESTS = (
    "create a test product, place an order using account 123456, and advance the order "
    "status to pending payment",
    "create a test product and place an order for it using account 000042",
    "create a test user, then create a test product",
)
POINTS = ("before_call", "after_call", "after_record")
MAX_ATTEMPTS = 6
CHILD_TIMEOUT_S = 120.0
INDEX_NAME = "crash"


@dataclass
class Setup:
    """What every run shares: the pristine database, the catalog, the index, the references."""

    root: Path
    pristine_db: Path
    catalog: Path
    index: Path
    expected: dict[str, dict[str, int]] = field(default_factory=dict)
    side_effect_calls: dict[str, list[str]] = field(default_factory=dict)
    active_s: dict[str, float] = field(default_factory=dict)


@dataclass
class RunReport:
    """How one crash run went."""

    run: int
    request: str
    kills: int = 0
    kill_plan: list[str] = field(default_factory=list)
    attempts: int = 0
    duplicate_effects: int = 0
    lost_results: int = 0
    finished: bool = False
    detail: str = ""


def table_counts(db: Path) -> dict[str, int]:
    """Row counts per table of a sandbox database (read-only; the key table is left out)."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
            if row[0] != "idempotency_keys"
        ]
        return {
            t: int(connection.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0])
            for t in tables
        }
    finally:
        connection.close()


def _mcp_config(path: Path, db: Path) -> Path:
    config = {
        "mcpServers": {
            "sandbox": {
                "command": "python",
                "args": ["-m", "sandbox", "serve", "--db", str(db)],
                "cwd": str(REPO),
                "timeout": 30,
                "environment": "test",
            }
        }
    }
    path.write_text(json.dumps(config))
    return path


def build_setup(root: Path, say: Any) -> Setup:
    """Seed the sandbox, list its tools over MCP, build the shared index (once per harness run)."""
    from graph.deps import Deps
    from stores.catalog.enrich import enrich_catalog
    from stores.catalog.mcp import load_mcp_catalog
    from stores.catalog.model import Catalog
    from stores.retrieval.index import ToolIndex

    root.mkdir(parents=True, exist_ok=True)
    pristine = root / "pristine.db"
    subprocess.run(
        [sys.executable, "-m", "sandbox", "reset", "--db", str(pristine)],
        check=True, capture_output=True, cwd=REPO,
    )
    catalog = Catalog()
    asyncio.run(load_mcp_catalog(_mcp_config(root / "mcp.json", pristine), catalog=catalog))
    catalog.load_file(REPO / "sandbox" / "data" / "near_misses.json")
    enrich_catalog(catalog)
    catalog_path = root / "catalog.json"
    catalog_path.write_text(json.dumps(catalog.to_document(), ensure_ascii=False))
    deps = Deps(home=root / "home")
    index = ToolIndex(root / "index", deps.get_embedder(), name=INDEX_NAME)
    index.sync(catalog)
    say(f"setup: {len(catalog.tools)} tools indexed under {root}")
    return Setup(root=root, pristine_db=pristine, catalog=catalog_path, index=root / "index")


def _prepare_run(setup: Setup, name: str) -> Path:
    run_dir = setup.root / name
    if run_dir.exists():
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True)
    shutil.copy(setup.pristine_db, run_dir / "sandbox.db")
    shutil.copytree(setup.index, run_dir / "index")
    _mcp_config(run_dir / "mcp.json", run_dir / "sandbox.db")
    return run_dir


def _child(
    setup: Setup, run_dir: Path, request: str, run_id: str, crash_at: str | None,
    kill_after_s: float | None,
) -> tuple[int | None, bool, float]:
    """Run the child once; return (exit code, killed by us or by itself, seconds after ready)."""
    env = {k: v for k, v in os.environ.items() if k != "ZSPACE_CRASH_AT"}
    env["ZSPACE_HOME"] = str(run_dir)
    env["PYTHONPATH"] = str(REPO)
    if crash_at:
        env["ZSPACE_CRASH_AT"] = crash_at
    command = [
        sys.executable, "-m", "bench.crash_child",
        "--home", str(run_dir), "--index", str(run_dir / "index"),
        "--catalog", str(setup.catalog), "--mcp", str(run_dir / "mcp.json"),
        "--thread", "crash-thread", "--run-id", run_id, "--request", request,
        "--out", str(run_dir / "final.json"), "--index-name", INDEX_NAME,
    ]
    stderr = (run_dir / "child-stderr.txt").open("a")
    stderr.write(f"--- attempt crash_at={crash_at} kill_after={kill_after_s}\n")
    stderr.flush()
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=stderr,
        start_new_session=True, text=True,
    )
    stderr.close()
    assert process.stdout is not None
    started = time.monotonic()
    line = process.stdout.readline()  # "ready", or "" when it died first
    ready_at = time.monotonic()
    killed = False
    if line.strip() == "ready" and kill_after_s is not None:
        try:
            process.wait(timeout=kill_after_s)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            killed = True
    try:
        process.wait(timeout=CHILD_TIMEOUT_S - (time.monotonic() - started))
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.wait()
        return None, True, time.monotonic() - ready_at
    _reap_group(process)
    code = process.returncode
    if code == -signal.SIGKILL:
        killed = True
    return code, killed, time.monotonic() - ready_at


def _kill_group(process: subprocess.Popen[str]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap_group(process: subprocess.Popen[str]) -> None:
    """Kill whatever the child left in its own session (its MCP server has its own)."""
    _kill_group(process)


def reference_runs(setup: Setup, say: Any) -> None:
    """Run each request once without faults: its row deltas are the expected effects."""
    base = table_counts(setup.pristine_db)
    for number, request in enumerate(REQUESTS):
        run_dir = _prepare_run(setup, f"reference-{number}")
        code, _, active = _child(setup, run_dir, request, f"reference-{number}", None, None)
        final = json.loads((run_dir / "final.json").read_text()) if code == 0 else {}
        if code != 0 or final.get("gaps") or any(
            r["status"] != "ok" for r in final.get("results", {}).values()
        ):
            stderr_path = run_dir / "child-stderr.txt"
            stderr = stderr_path.read_text()[-2000:] if stderr_path.exists() else ""
            raise RuntimeError(
                f"the reference run of {request!r} did not finish cleanly (exit {code}): "
                f"{json.dumps(final)[:2000]} {stderr}"
            )
        after = table_counts(run_dir / "sandbox.db")
        setup.expected[request] = {t: after[t] - base.get(t, 0) for t in after}
        setup.side_effect_calls[request] = [
            c["call_id"] for c in final["plan"] if c["side_effect"]
        ]
        setup.active_s[request] = active
        effects = {t: d for t, d in setup.expected[request].items() if d}
        say(f"reference {number}: {len(final['plan'])} calls, effects {effects}, "
            f"{active:.1f} s after ready")


def crash_run(setup: Setup, number: int, seed: int) -> RunReport:
    """One run: kill, resume until finished, check effects and results."""
    rng = random.Random(seed * 100003 + number)
    request = REQUESTS[number % len(REQUESTS)]
    report = RunReport(run=number, request=request)
    run_dir = _prepare_run(setup, f"run-{number:04d}")
    run_id = f"crash-{number}"
    base = table_counts(setup.pristine_db)
    for attempt in range(MAX_ATTEMPTS):
        crash_at: str | None = None
        kill_after: float | None = None
        if attempt < 2 and (attempt == 0 or rng.random() < 0.35):
            if rng.random() < 0.5 and setup.side_effect_calls[request]:
                crash_at = f"{rng.choice(POINTS)}:{rng.choice(setup.side_effect_calls[request])}"
                report.kill_plan.append(crash_at)
            else:
                kill_after = rng.uniform(0.0, setup.active_s[request] * 1.1)
                report.kill_plan.append(f"random:{kill_after:.2f}s")
        code, killed, _ = _child(setup, run_dir, request, run_id, crash_at, kill_after)
        report.attempts += 1
        if killed:
            report.kills += 1
            continue
        if code == 0:
            report.finished = True
            break
        report.detail = f"child exit {code}"
    after = table_counts(run_dir / "sandbox.db")
    expected = setup.expected[request]
    report.duplicate_effects = sum(
        max(0, (after[t] - base.get(t, 0)) - expected.get(t, 0)) for t in after
    )
    final_path = run_dir / "final.json"
    final = json.loads(final_path.read_text()) if final_path.exists() else {}
    results = final.get("results", {})
    report.lost_results = sum(
        1
        for record in final.get("ledger", [])
        if record["status"] == "done"
        and (results.get(record["call_id"]) or {}).get("status") != "ok"
    )
    clean = (
        report.finished
        and not final.get("gaps")
        and bool(results)
        and all(r["status"] == "ok" for r in results.values())
    )
    if report.finished and not clean:
        not_ok = {
            call_id: f"{r['status']} ({r.get('error_kind')}): {str(r.get('error'))[:300]}"
            for call_id, r in results.items()
            if r["status"] != "ok"
        }
        ledger = {r["call_id"]: f"{r['status']} x{r['attempts']}" for r in final.get("ledger", [])}
        report.detail = (
            f"gaps {final.get('gaps')}; results not ok {not_ok or '(no results)'}; "
            f"ledger {ledger}; answer {str(final.get('answer'))[:300]!r}"
        )
    report.finished = clean
    missing = sum(max(0, expected.get(t, 0) - (after[t] - base.get(t, 0))) for t in after)
    if missing and clean:
        report.detail = f"{missing} expected rows missing"
        report.finished = False
    if clean and not report.detail:
        shutil.rmtree(run_dir, ignore_errors=True)
    return report


def run_harness(runs: int, jobs: int, seed: int, root: Path, say: Any) -> dict[str, Any]:
    """Set up once, run ``runs`` crash runs on ``jobs`` workers, return the figures."""
    started = time.monotonic()
    setup = build_setup(root, say)
    reference_runs(setup, say)
    reports: list[RunReport] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(crash_run, setup, number, seed) for number in range(runs)]
        for future in concurrent.futures.as_completed(futures):
            report = future.result()
            reports.append(report)
            if not report.finished or report.duplicate_effects or report.lost_results:
                say(f"run {report.run}: {report}")
            elif len(reports) % 10 == 0:
                say(f"{len(reports)}/{runs} runs done")
    reports.sort(key=lambda r: r.run)
    figures = {
        "runs": runs,
        "kills": sum(r.kills for r in reports),
        "named_kills": sum(
            1 for r in reports for k in r.kill_plan if not k.startswith("random")
        ),
        "duplicate_effects": sum(r.duplicate_effects for r in reports),
        "lost_results": sum(r.lost_results for r in reports),
        "unfinished": sum(1 for r in reports if not r.finished),
        "child_processes": sum(r.attempts for r in reports),
        "seconds": round(time.monotonic() - started, 1),
    }
    figures["problems"] = [
        r.__dict__ for r in reports if not r.finished or r.duplicate_effects or r.lost_results
    ][:20]
    return figures


def _table(figures: dict[str, Any], command: str) -> str:
    return "\n".join(
        [
            "# Crash harness",
            "",
            f"`{command}` — {machine_line()}",
            "",
            "Each run executes one multi-step side-effecting request against the sandbox over "
            "MCP (stdio, its own database) in a child process with SQLite checkpoints and "
            "`durability=\"sync\"`; the child is killed with SIGKILL (its MCP server, in its own "
            "session, finishes the request in flight like a remote service would) at a "
            "random moment after start-up or at a named point (`before_call`, `after_call`, "
            "`after_record` of a side-effecting call), then resumed on the same thread until it "
            "finishes.",
            "",
            "| runs | kills | of which at named points | duplicate effects | lost results "
            "| unfinished | child processes | time |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {figures['runs']} | {figures['kills']} | {figures['named_kills']} | "
            f"{figures['duplicate_effects']} | {figures['lost_results']} | "
            f"{figures['unfinished']} | {figures['child_processes']} | "
            f"{figures['seconds']:.0f} s |",
            "",
            "- duplicate effects: sandbox rows per table beyond what an uninterrupted run of "
            "the same request creates;",
            "- lost results: calls the ledger marks done whose result is missing or not ok in "
            "the final state;",
            "- unfinished: runs that did not end with every call ok and no gap.",
            "",
            "Requests: " + "; ".join(f"“{r}”" for r in REQUESTS) + ".",
            "",
        ]
    )


def main(argv: list[str]) -> int:
    """``python -m bench crash --runs N [--json] [--jobs J] [--seed S] [--keep DIR]``."""
    parser = argparse.ArgumentParser(prog="python -m bench crash")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2)))
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--json", action="store_true", help="last line: one JSON object")
    parser.add_argument("--keep", help="work directory to keep (default: a temporary one)")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/results")
    args = parser.parse_args(argv)

    def say(line: str) -> None:
        print(line, file=sys.stderr if args.json else sys.stdout, flush=True)

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="zspace-crash-"))
    try:
        figures = run_harness(args.runs, args.jobs, args.seed, root, say)
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    command = f"python -m bench crash --runs {args.runs}"
    if not args.no_write:
        write_result("crash.md", _table(figures, command))
    say(
        f"runs {figures['runs']}, kills {figures['kills']}, duplicate effects "
        f"{figures['duplicate_effects']}, lost results {figures['lost_results']}, unfinished "
        f"{figures['unfinished']} ({figures['seconds']:.0f} s)"
    )
    if args.json:
        print(json.dumps({k: v for k, v in figures.items() if k != "problems"}))
    bad = figures["duplicate_effects"] or figures["lost_results"] or figures["unfinished"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
