"""End-to-end accuracy: run a request set through the whole graph against the real sandbox.

Each request of a set (``bench/data/e2e/{dev,test}.jsonl``) runs on a freshly reset sandbox
database, through the compiled graph with the offline defaults (rule parser, local
embeddings, the joint index of StableToolBench + near misses + the sandbox), with every tool
call going over MCP, and is scored against its gold chain (``bench.evaluation.scoring``).
An instructions file may hold lines with only ``id`` and ``request``: those are run, not
scored. With ``--out`` every request becomes one line of the run file outside scorers read
(``bench.evaluation.runfile``, EVAL.md), written as it finishes; a request that crashes is a
``failed`` line and the rest go on. ``--model`` runs the LLM path on a checked chat model;
without it the embedded rules run.

The sandbox is a separate system: it is reset through its own command line
(``python -m sandbox reset``) while its MCP server keeps running; the reset drops and
recreates the tables inside one transaction of the same database file, and the server's
connection sees the new tables on its next statement.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.evaluation.runfile import (
    CallTrace,
    RunFileWriter,
    crash_line,
    run_line,
    run_status,
    sandbox_tables,
)
from bench.evaluation.scoring import (
    E2EReport,
    RequestOutcome,
    executed_calls,
    format_table,
    score_request,
)
from graph.deps import Deps
from graph.runtime import ChatModelUnavailable, open_runtime, require_chat_model
from graph.session import Session
from graph.streaming import RunOutcome, current_outcome
from nodes.context import Context

REPO_ROOT = Path(__file__).resolve().parents[2]
E2E_DATA = REPO_ROOT / "bench" / "data" / "e2e"
STABLETOOLBENCH = REPO_ROOT / "bench" / "data" / "stabletoolbench" / "catalog.json"
NEAR_MISSES = REPO_ROOT / "sandbox" / "data" / "near_misses.json"
SANDBOX_CATALOG = REPO_ROOT / "sandbox" / "data" / "catalog.json"
SANDBOX_MCP = REPO_ROOT / "sandbox" / "data" / "mcp.json"
COMBINED_CATALOG = E2E_DATA / "catalog.json"
RETRIEVAL_STEPS = E2E_DATA / "retrieval_steps.jsonl"
E2E_INDEX_NAME = "e2e"
EXPECTATIONS = ("calls", "clarify", "direct_answer")

Say = Callable[[str], None]


class E2EHomeInUse(RuntimeError):
    """Another evaluation holds the harness's home (it resets the sandbox database there)."""


@contextlib.contextmanager
def hold_e2e_home(home: Path) -> Iterator[None]:
    """Hold the harness's home for one evaluation; a second one at once is refused.

    Two evaluations in one home reset each other's sandbox and feedback database mid-run
    (seen: 157 of 178 requests crashed), so the second is told to wait or use ``--home``.
    """
    home.mkdir(parents=True, exist_ok=True)
    with open(home / ".e2e.lock", "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise E2EHomeInUse(
                f"{home} is in use by another e2e evaluation (each resets the sandbox there); "
                "wait for it to finish or give this one its own --home DIR"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class E2EDataError(ValueError):
    """A request set line is malformed; the message names the file and line."""


# ============================================================================ request sets
def load_requests(path: Path) -> list[dict[str, Any]]:
    """Read a request set (one JSON object per line; see ``bench/data/e2e/README.md``).

    A line needs ``id`` and ``request``; one that also has the gold fields (``expect`` and
    ``gold``) is scored, one without them is only run.

    Raises:
        E2EDataError: a line is not JSON, lacks ``id`` or ``request``, or has only one of
            the gold fields.
    """
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise E2EDataError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        needed = ("id", "request", "expect", "gold") if is_scored(row) else ("id", "request")
        missing = [k for k in needed if k not in row]
        if missing:
            raise E2EDataError(f"{path}:{number}: missing {', '.join(missing)}")
        if not is_scored(row):
            rows.append(row)
            continue
        if row["expect"] not in EXPECTATIONS:
            raise E2EDataError(
                f"{path}:{number}: expect must be one of {', '.join(EXPECTATIONS)}, "
                f"got {row['expect']!r}"
            )
        row.setdefault("steps", len(row["gold"]))
        rows.append(row)
    return rows


def is_scored(row: Mapping[str, Any]) -> bool:
    """Whether a request line carries gold fields (``expect``, ``gold``) to score it by."""
    return "expect" in row or "gold" in row


# ============================================================================ running
def reset_sandbox(db_path: Path) -> None:
    """Reseed the sandbox through its own command line (it is a separate system)."""
    subprocess.run(
        [sys.executable, "-m", "sandbox", "reset", "--db", str(db_path)],
        check=True,
        capture_output=True,
        cwd=REPO_ROOT,
    )


def write_combined_catalog(out: Path = COMBINED_CATALOG) -> Path:
    """StableToolBench + the sandbox's near misses + the sandbox, as one FORMAT.md catalog."""
    agents: list[Any] = []
    tools: list[Any] = []
    for path in (STABLETOOLBENCH, NEAR_MISSES, SANDBOX_CATALOG):
        document = json.loads(path.read_text(encoding="utf-8"))
        agents.extend(document.get("agents") or [])
        tools.extend(document.get("tools") or [])
    text = json.dumps({"agents": agents, "tools": tools}, ensure_ascii=False) + "\n"
    if not out.is_file() or out.read_text(encoding="utf-8") != text:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    return out


def _clause_for_tool(tool_id: str, clauses: Sequence[str]) -> str | None:
    """The one clause naming the tool's verb and object, else its verb, else its object."""
    words = [w for w in tool_id.split("/", 1)[-1].split("_") if len(w) > 2]
    if not words:
        return None
    verb, nouns = words[0], [w[:-1] if w.endswith("s") else w for w in words[1:]]

    def names(clause: str, word: str) -> bool:
        return re.search(rf"\b{re.escape(word)}", clause, re.I) is not None

    with_verb = [c for c in clauses if names(c, verb)]
    both = [c for c in with_verb if any(names(c, n) for n in nouns)]
    for group in (both, with_verb):
        if len(group) == 1:
            return group[0]
    for noun in reversed(nouns):
        hits = [c for c in clauses if names(c, noun)]
        if len(hits) == 1:
            return hits[0]
    return None


def retrieval_queries(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Step-mode retrieval queries (FORMAT.md) from the gold chains of call requests.

    A step's text is the clause of the request that names the tool's object when exactly one
    clause does, else the whole request.
    """
    from nodes.parsing.rules import RuleIntentParser

    splitter = RuleIntentParser()
    queries = []
    for row in rows:
        if row["expect"] != "calls" or not row["gold"]:
            continue
        clauses = splitter.split(row["request"]) or [row["request"]]
        steps = []
        for step in row["gold"]:
            tool = str(step["tool"])
            agent = tool.split("/", 1)[0]
            text = row["request"] if len(clauses) == 1 else _clause_for_tool(tool, clauses)
            steps.append({"text": text or row["request"], "tools": [tool], "agents": [agent]})
        tools = list(dict.fromkeys(str(s["tool"]) for s in row["gold"]))
        queries.append(
            {
                "id": row["id"],
                "question": row["request"],
                "steps": steps,
                "tools": tools,
                "agents": list(dict.fromkeys(t.split("/", 1)[0] for t in tools)),
            }
        )
    return queries


def write_retrieval_queries(rows: Iterable[Mapping[str, Any]], out: Path = RETRIEVAL_STEPS) -> Path:
    """Write `retrieval_queries` as queries.jsonl (for ``zspace eval retrieval --mode step``)."""
    text = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in retrieval_queries(rows))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    return out


def e2e_home(home: Path | None = None) -> Path:
    """Where the harness keeps its index, sandbox database, ledger and checkpoints."""
    from stores.settings import zspace_home

    base = home or (zspace_home() / "e2e")
    base.mkdir(parents=True, exist_ok=True)
    return base.resolve()


async def run_requests(
    rows: Sequence[Mapping[str, Any]],
    *,
    split: str = "test",
    catalog_path: Path | None = None,
    home: Path | None = None,
    mcp_config: Path = SANDBOX_MCP,
    say: Say | None = None,
    out: Path | None = None,
    model: str | None = None,
    base_url: str | None = None,
) -> E2EReport:
    """Run every request on a fresh sandbox through the whole graph and score it.

    Args:
        rows: request lines (`load_requests`).
        split: a label for the report.
        catalog_path: the catalog to index and plan with (default: the combined catalog).
        home: the harness's own zspace home (default ``ZSPACE_HOME/e2e``).
        mcp_config: the sandbox's MCP config; its server runs for the whole set.
        say: progress lines (one per request); None is quiet.
        out: the run file to write (one line per request); None writes none.
        model: a chat model for the LLM path, checked before anything runs; None runs the
            embedded rules (``ZSPACE_MODEL`` is ignored).
        base_url: the model's OpenAI-compatible endpoint.

    Raises:
        ChatModelUnavailable: ``model`` cannot be used (no key, endpoint down...).
    """
    home = e2e_home(home)
    # The MCP server and the reset use home/sandbox.db; without --model no model sneaks in.
    overrides = {"ZSPACE_HOME": str(home), **({} if model else {"ZSPACE_MODEL": None})}
    previous = {name: os.environ.get(name) for name in overrides}
    with hold_e2e_home(home):
        _set_environment(overrides)
        try:
            return await _evaluate(rows, split, catalog_path, home, mcp_config, say, out,
                                   model, base_url)
        finally:
            _set_environment(previous)


async def _evaluate(
    rows: Sequence[Mapping[str, Any]],
    split: str,
    catalog_path: Path | None,
    home: Path,
    mcp_config: Path,
    say: Callable[[str], None] | None,
    out: Path | None,
    model: str | None,
    base_url: str | None,
) -> E2EReport:
    """One evaluation in the held home, with its environment set."""
    context = Context(
        environments=["test"], pre_approved=True, output_format="md",
        model=model or "", base_url=base_url or "",
    )
    if model:  # before anything is indexed, run or written
        await require_chat_model(Deps(home=home), context)
    writer = RunFileWriter(out) if out is not None else None
    try:
        return await _run_in_home(rows, split, catalog_path, home, mcp_config, say,
                                  context, writer)
    finally:
        if writer is not None:
            writer.close()


def _set_environment(values: Mapping[str, str | None]) -> None:
    for name, value in values.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


async def _run_in_home(
    rows: Sequence[Mapping[str, Any]],
    split: str,
    catalog_path: Path | None,
    home: Path,
    mcp_config: Path,
    say: Say | None,
    context: Context,
    writer: RunFileWriter | None,
) -> E2EReport:
    from stores.catalog.enrich import enrich_catalog
    from stores.catalog.model import Catalog
    from stores.execution.executor import DISPATCHES

    db_path = home / "sandbox.db"
    # Execution feedback reinforces the dependency graph: start every evaluation from none.
    (home / "feedback.sqlite").unlink(missing_ok=True)
    catalog = Catalog.from_file(catalog_path or write_combined_catalog())
    enrich_catalog(catalog)
    deps = Deps(home=home, catalog=catalog, index_name=E2E_INDEX_NAME)
    started = time.perf_counter()
    deps.get_index().sync(catalog)
    index_seconds = time.perf_counter() - started
    reset_sandbox(db_path)
    outcomes: list[RequestOutcome] = []
    dispatched_before, outside_before = DISPATCHES.snapshot()
    async with open_runtime(deps, mcp_config) as graph:
        for row in rows:
            outcome = await _run_one(graph, deps, row, db_path, context, writer)
            outcomes.append(outcome)
            if say is not None:
                mark = ("ok  " if outcome.correct else "FAIL") if outcome.scored else "run "
                kind = f"[{outcome.expect} {outcome.steps}]" if outcome.scored else "[unscored]"
                say(
                    f"{mark} {outcome.id} {kind} {outcome.status:<8} {outcome.request[:70]}"
                    + (f"\n       {outcome.reason}" if outcome.reason else "")
                )
    dispatched_after, outside_after = DISPATCHES.snapshot()
    return E2EReport(
        split=split, outcomes=outcomes, index_seconds=index_seconds,
        calls_dispatched=dispatched_after - dispatched_before,
        calls_outside_environment=outside_after - outside_before,
        model=context.model or "rules",
    )


async def _run_one(
    graph: Any,
    deps: Deps,
    row: Mapping[str, Any],
    db_path: Path,
    context: Context,
    writer: RunFileWriter | None,
) -> RequestOutcome:
    """Run one request on a fresh sandbox; score it when it has gold; write its run line.

    Anything that fails on the way (the reset, the run, the export) is this request's crash:
    its line is ``failed`` with the crash's last line, and the set goes on.
    """
    questions: list[dict[str, Any]] = []

    def answer(interrupt: dict[str, Any]) -> Any | None:
        if interrupt.get("type") == "approval":
            return True
        questions.append(interrupt)  # recorded and left unanswered
        return None

    thread = f"e2e-{row['id']}-{uuid.uuid4().hex[:8]}"
    trace = CallTrace()
    session = Session(graph, deps, entry="e2e", answer=answer, on_event=trace.on_event,
                      on_update=trace.on_update)
    crash: str | None = None
    started = time.perf_counter()
    try:
        await asyncio.to_thread(reset_sandbox, db_path)
        started = time.perf_counter()
        outcome = await session.run(str(row["request"]), context, thread_id=thread)
    except Exception as exc:  # noqa: BLE001 - one request's crash is its failed line
        crash = crash_line(exc)
        outcome = await _state_after_crash(graph, thread)
    wall_ms = (time.perf_counter() - started) * 1000
    values = outcome.values
    question = questions[0] if questions else outcome.interrupt
    if writer is not None:
        tables: dict[str, list[dict[str, Any]]] = {}
        try:
            tables = await asyncio.to_thread(sandbox_tables, db_path)
        except Exception as exc:  # noqa: BLE001 - an unreadable sandbox fails this line only
            crash = crash or crash_line(exc)
        writer.write(run_line(row, values, question, trace, tables, crash))
    scored = is_scored(row)
    correct, reason = False, ""
    if crash is not None:
        reason = f"crashed: {crash}"
    elif scored:
        correct, reason = score_request(row, values, question)
    results = list((values.get("results") or {}).values()) + list(values.get("history") or [])
    tool_ms = sum(float(r.get("duration_ms") or 0.0) for r in results)
    ledger = values.get("token_ledger") or {}
    return RequestOutcome(
        id=str(row["id"]),
        request=str(row["request"]),
        expect=str(row.get("expect") or ""),
        steps=int(row.get("steps") or len(row.get("gold") or [])),
        correct=correct,
        reason=reason,
        asked=question is not None,
        calls=[c.tool_id for c in executed_calls(values)],
        candidate_tokens=ledger.get("candidate_tokens"),
        all_injection_tokens=ledger.get("all_injection_tokens"),
        wall_ms=wall_ms,
        tool_ms=tool_ms,
        tags=list(row.get("tags") or []),
        scored=scored,
        status=run_status(values, question, crash)["status"],
    )


async def _state_after_crash(graph: Any, thread: str) -> RunOutcome:
    """What the checkpointer kept of a crashed run (nothing when it cannot be read)."""
    try:
        return await current_outcome(graph, thread)
    except Exception:  # noqa: BLE001 - the crash is already being reported
        return RunOutcome(thread)


def run_split(
    split: str = "test",
    *,
    instructions: Path | None = None,
    limit: int | None = None,
    ids: Sequence[str] = (),
    catalog_path: Path | None = None,
    home: Path | None = None,
    say: Say | None = None,
    write_retrieval: bool = True,
    out: Path | None = None,
    model: str | None = None,
    base_url: str | None = None,
) -> E2EReport:
    """Load a split (or an instructions file), run it and return the report.

    ``out``, ``model`` and ``base_url`` are :func:`run_requests`'.
    """
    path = instructions or (E2E_DATA / f"{split}.jsonl")
    rows = load_requests(path)
    if write_retrieval and instructions is None:
        write_retrieval_queries(
            [r for s in ("test", "dev") for r in _load_if_present(E2E_DATA / f"{s}.jsonl")]
        )
    if ids:
        wanted = set(ids)
        rows = [r for r in rows if r["id"] in wanted]
    if limit is not None:
        rows = _spread(rows, limit)
    label = split if instructions is None else path.stem
    return asyncio.run(
        run_requests(rows, split=label, catalog_path=catalog_path, home=home, say=say,
                     out=out, model=model, base_url=base_url)
    )


def _load_if_present(path: Path) -> list[dict[str, Any]]:
    return load_requests(path) if path.is_file() else []


def _spread(rows: Sequence[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """``limit`` requests spread evenly over the set, so a small slice mixes every kind."""
    if limit >= len(rows):
        return list(rows)
    if limit <= 0:
        return []
    stride = len(rows) / limit
    return [rows[int(i * stride)] for i in range(limit)]


# ============================================================================ command
def command_eval_e2e(args: argparse.Namespace) -> int:
    """``zspace eval e2e``: run a request set end to end and print the accuracy table.

    Exit codes: 0 ran, 2 the request set or the chat model cannot be used.
    """
    quiet = args.json and not args.verbose

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        report = run_split(
            args.split or "test",
            instructions=Path(args.instructions) if args.instructions else None,
            limit=args.limit,
            ids=args.id or (),
            catalog_path=Path(args.catalog) if args.catalog else None,
            home=Path(args.home) if args.home else None,
            say=None if quiet else say,
            out=Path(args.out) if args.out else None,
            model=args.model,
            base_url=args.base_url,
        )
    except (ChatModelUnavailable, E2EDataError, E2EHomeInUse) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    figures = report.figures()
    print(format_table(figures))
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    return 0
