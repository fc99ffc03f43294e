"""End-to-end accuracy: run a request set through the whole graph against the real sandbox.

Each request of a set (``bench/data/e2e/{dev,test}.jsonl``) runs on a freshly reset sandbox
database, through the compiled graph with the offline defaults (rule parser, local
embeddings, the joint index of StableToolBench + near misses + the sandbox), with every tool
call going over MCP. A run is scored against the request's gold chain:

- **calls**: the successful calls are exactly the gold steps (same tools, as a multiset); each
  gold literal argument equals the executed one after type normalization; each
  ``{"from": "<step>.<field>"}`` argument equals that field of the output of the call matched
  to the referenced step *in this run*, and that call is an ancestor of the consuming call in
  the plan DAG (so the dependency order was respected). A clarification question fails it.
- **clarify**: the run stopped to ask for a value before calling anything.
- **direct_answer**: no call, no question, an answer.

Reported: accuracy overall and by number of steps, clarify and direct-answer accuracy, tool
tokens per request against injecting every tool (``token_ledger``), and latency per request
without the time spent inside tools (wall time minus the calls' ``duration_ms``).

The sandbox is a separate system: it is reset through its own command line
(``python -m sandbox reset``) while its MCP server keeps running; the reset drops and
recreates the tables inside one transaction of the same database file, and the server's
connection sees the new tables on its next statement.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph.deps import Deps
from graph.runtime import open_runtime
from graph.session import Session
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


class E2EDataError(ValueError):
    """A request set line is malformed; the message names the file and line."""


# ============================================================================ request sets
def load_requests(path: Path) -> list[dict[str, Any]]:
    """Read a request set (one JSON object per line; see ``bench/data/e2e/README.md``).

    Raises:
        E2EDataError: a line is not JSON or lacks ``id``, ``request``, ``expect`` or ``gold``.
    """
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise E2EDataError(f"{path}:{number}: not JSON ({exc.msg})") from exc
        missing = [k for k in ("id", "request", "expect", "gold") if k not in row]
        if missing:
            raise E2EDataError(f"{path}:{number}: missing {', '.join(missing)}")
        if row["expect"] not in EXPECTATIONS:
            raise E2EDataError(
                f"{path}:{number}: expect must be one of {', '.join(EXPECTATIONS)}, "
                f"got {row['expect']!r}"
            )
        row.setdefault("steps", len(row["gold"]))
        rows.append(row)
    return rows


# ============================================================================ scoring
def normalize_literal(value: Any) -> Any:
    """A comparable form of an argument value: numbers as floats, text trimmed and casefolded.

    Digit strings with a leading zero ("000042") stay text: they are identifiers.
    """
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        text = " ".join(value.split())
        if re.fullmatch(r"[+-]?(?:0|[1-9]\d*)(?:\.\d+)?", text):
            return float(text)
        return text.casefold()
    if isinstance(value, list):
        return [normalize_literal(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): normalize_literal(v) for k, v in value.items()}
    return value


def literals_equal(expected: Any, actual: Any) -> bool:
    """Whether two argument values are equal after `normalize_literal`."""
    left, right = normalize_literal(expected), normalize_literal(actual)
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-9)
    return bool(left == right)


_MISSING = object()


def read_output_field(output: Any, path: str) -> Any:
    """``field`` or ``a.b`` of a call's output; a one-element list is looked through."""
    value = output
    for part in path.split("."):
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        else:
            return _MISSING
    return value


@dataclass
class ExecutedCall:
    """A successful call of a run, as the scorer sees it."""

    call_id: str
    tool_id: str
    args: dict[str, Any]
    output: Any
    ancestors: frozenset[str] = frozenset()


@dataclass
class ChainScore:
    """Whether a run's calls match a gold chain, and why not."""

    correct: bool
    reason: str = ""
    assignment: list[str] = field(default_factory=list)


def _parse_reference(source: Mapping[str, Any]) -> tuple[int, str]:
    step, _, name = str(source["from"]).partition(".")
    return int(step), name


def score_chain(gold: Sequence[Mapping[str, Any]], executed: Sequence[ExecutedCall]) -> ChainScore:
    """Match the executed successful calls to the gold chain (see the module docstring).

    Gold steps are in a valid order, so a ``from`` reference points to an earlier step. Calls
    of the same tool are tried in every assignment (backtracking) until one satisfies every
    argument; the first failure found for the most advanced partial assignment is reported.
    """
    gold_tools = sorted(str(step["tool"]) for step in gold)
    run_tools = sorted(call.tool_id for call in executed)
    if gold_tools != run_tools:
        missing = _multiset_difference(gold_tools, run_tools)
        extra = _multiset_difference(run_tools, gold_tools)
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing))
        if extra:
            parts.append("extra " + ", ".join(extra))
        return ChainScore(False, "; ".join(parts))
    deepest: list[tuple[int, str]] = [(-1, "")]

    def fits(index: int, call: ExecutedCall, chosen: Sequence[ExecutedCall]) -> str:
        step = gold[index]
        for param, expected in (step.get("args") or {}).items():
            if isinstance(expected, Mapping) and "from" in expected:
                ref, name = _parse_reference(expected)
                if ref >= index:
                    return f"step {index} refers forward to step {ref}"
                producer = chosen[ref]
                wanted = read_output_field(producer.output, name)
                if wanted is _MISSING:
                    return f"{producer.tool_id} output has no '{name}'"
                if param not in call.args or not literals_equal(wanted, call.args[param]):
                    return (
                        f"{call.tool_id}.{param}={call.args.get(param)!r}, expected "
                        f"{name}={wanted!r} of {producer.tool_id}"
                    )
                if producer.call_id not in call.ancestors:
                    return f"{call.tool_id} does not wait for {producer.tool_id}"
            elif param not in call.args:
                return f"{call.tool_id}.{param} not given, expected {expected!r}"
            elif not literals_equal(expected, call.args[param]):
                return f"{call.tool_id}.{param}={call.args[param]!r}, expected {expected!r}"
        return ""

    def assign(index: int, chosen: list[ExecutedCall], used: set[str]) -> list[ExecutedCall] | None:
        if index == len(gold):
            return list(chosen)
        for call in executed:
            if call.call_id in used or call.tool_id != gold[index]["tool"]:
                continue
            problem = fits(index, call, chosen)
            if problem:
                if index > deepest[0][0]:
                    deepest[0] = (index, problem)
                continue
            found = assign(index + 1, [*chosen, call], used | {call.call_id})
            if found is not None:
                return found
        return None

    matched = assign(0, [], set())
    if matched is None:
        return ChainScore(False, deepest[0][1] or "no assignment of calls fits")
    return ChainScore(True, "", [call.call_id for call in matched])


def _multiset_difference(left: Sequence[str], right: Sequence[str]) -> list[str]:
    remaining = list(right)
    out = []
    for item in left:
        if item in remaining:
            remaining.remove(item)
        else:
            out.append(item)
    return out


def executed_calls(values: Mapping[str, Any], home: Path | None = None) -> list[ExecutedCall]:
    """The successful calls of a finished run, with their plan ancestors."""
    plan = {c["call_id"]: c for c in values.get("plan") or []}
    parents = {cid: list(c.get("depends_on") or []) for cid, c in plan.items()}

    def ancestors(call_id: str) -> frozenset[str]:
        seen: set[str] = set()
        stack = list(parents.get(call_id, []))
        while stack:
            current = stack.pop()
            if current not in seen:
                seen.add(current)
                stack.extend(parents.get(current, []))
        return frozenset(seen)

    calls = []
    for call_id, result in (values.get("results") or {}).items():
        if result.get("status") != "ok":
            continue
        output = result.get("output")
        ref = result.get("output_ref")
        if ref and Path(ref).is_file():
            output = json.loads(Path(ref).read_text(encoding="utf-8"))
        calls.append(
            ExecutedCall(
                call_id=call_id,
                tool_id=result["tool_id"],
                args=dict(result.get("args") or {}),
                output=output,
                ancestors=ancestors(call_id),
            )
        )
    return calls


@dataclass
class RequestOutcome:
    """One request's run and score."""

    id: str
    request: str
    expect: str
    steps: int
    correct: bool
    reason: str
    asked: bool
    calls: list[str]
    candidate_tokens: int | None
    all_injection_tokens: int | None
    wall_ms: float
    tool_ms: float
    tags: list[str] = field(default_factory=list)

    @property
    def latency_ms(self) -> float:
        """Wall time without the time spent inside tools."""
        return max(0.0, self.wall_ms - self.tool_ms)


def score_request(
    row: Mapping[str, Any], values: Mapping[str, Any], question: Mapping[str, Any] | None
) -> tuple[bool, str]:
    """Score one finished (or stopped) run against its request line."""
    calls = executed_calls(values)
    attempted = [r for r in (values.get("results") or {}).values()]
    expect = row["expect"]
    if expect == "clarify":
        if question is not None and question.get("type", "clarification") == "clarification":
            return True, ""
        names = ", ".join(c.tool_id for c in calls)
        return False, "did not ask" + (f" (called {names})" if names else "")
    if question is not None:
        return False, f"asked: {question.get('question')}"
    if expect == "direct_answer":
        if attempted:
            return False, "called " + ", ".join(str(r.get("tool_id")) for r in attempted)
        if not str(values.get("answer") or "").strip():
            return False, "no answer"
        return True, ""
    score = score_chain(row["gold"], calls)
    if not score.correct and values.get("gaps"):
        return False, f"{score.reason} [gaps: {'; '.join(values['gaps'])[:200]}]"
    return score.correct, score.reason


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
    from nodes.intent import RuleIntentParser

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


@dataclass
class E2EReport:
    """Every figure of a run over a request set."""

    split: str
    outcomes: list[RequestOutcome]
    index_seconds: float = 0.0
    calls_dispatched: int = 0
    calls_outside_environment: int = 0

    def figures(self) -> dict[str, Any]:
        """The figures as one JSON-ready mapping (the ``--json`` line)."""
        outcomes = self.outcomes

        def share(items: Sequence[RequestOutcome]) -> float | None:
            return round(sum(o.correct for o in items) / len(items), 4) if items else None

        calls = [o for o in outcomes if o.expect == "calls"]
        by_steps: dict[str, dict[str, Any]] = {}
        for steps in sorted({o.steps for o in calls}):
            group = [o for o in calls if o.steps == steps]
            by_steps[str(steps)] = {
                "n": len(group),
                "correct": sum(o.correct for o in group),
                "accuracy": share(group),
            }
        long_chains = [o for o in calls if o.steps >= 5]
        clarify = [o for o in outcomes if o.expect == "clarify"]
        direct = [o for o in outcomes if o.expect == "direct_answer"]
        ledgers = [o for o in outcomes if o.all_injection_tokens]
        candidate = sum(o.candidate_tokens or 0 for o in ledgers)
        injection = sum(o.all_injection_tokens or 0 for o in ledgers)
        latencies = sorted(o.latency_ms for o in outcomes)
        return {
            "split": self.split,
            "n": len(outcomes),
            "correct": sum(o.correct for o in outcomes),
            "accuracy": share(outcomes),
            "call_accuracy": share(calls),
            "by_steps": by_steps,
            "accuracy_5_6_steps": share(long_chains),
            "clarify_accuracy": share(clarify),
            "direct_answer_accuracy": share(direct),
            "unexpected_questions": sum(1 for o in outcomes if o.asked and o.expect != "clarify"),
            "calls_dispatched": self.calls_dispatched,
            "calls_outside_environment": self.calls_outside_environment,
            "tokens_per_request": round(candidate / len(ledgers), 1) if ledgers else None,
            "all_injection_tokens_per_request": round(injection / len(ledgers), 1)
            if ledgers
            else None,
            "tokens_ratio": round(candidate / injection, 5) if injection else None,
            "latency_ms_p50": round(_percentile(latencies, 50), 1),
            "latency_ms_p95": round(_percentile(latencies, 95), 1),
            "latency_ms_mean": round(statistics.fmean(latencies), 1) if latencies else 0.0,
            "tool_ms_mean": round(statistics.fmean(o.tool_ms for o in outcomes), 1)
            if outcomes
            else 0.0,
            "failures": [
                {"id": o.id, "steps": o.steps, "expect": o.expect, "reason": o.reason}
                for o in outcomes
                if not o.correct
            ],
        }


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


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
) -> E2EReport:
    """Run every request on a fresh sandbox through the whole graph and score it.

    Args:
        rows: request lines (`load_requests`).
        split: a label for the report.
        catalog_path: the catalog to index and plan with (default: the combined catalog).
        home: the harness's own zspace home (default ``ZSPACE_HOME/e2e``).
        mcp_config: the sandbox's MCP config; its server runs for the whole set.
        say: progress lines (one per request); None is quiet.
    """
    home = e2e_home(home)
    previous_home = os.environ.get("ZSPACE_HOME")
    os.environ["ZSPACE_HOME"] = str(home)  # the MCP server and the reset use home/sandbox.db
    try:
        return await _run_in_home(rows, split, catalog_path, home, mcp_config, say)
    finally:
        if previous_home is None:
            os.environ.pop("ZSPACE_HOME", None)
        else:
            os.environ["ZSPACE_HOME"] = previous_home


async def _run_in_home(
    rows: Sequence[Mapping[str, Any]],
    split: str,
    catalog_path: Path | None,
    home: Path,
    mcp_config: Path,
    say: Say | None,
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
            outcome = await _run_one(graph, deps, row, db_path)
            outcomes.append(outcome)
            if say is not None:
                mark = "ok  " if outcome.correct else "FAIL"
                say(
                    f"{mark} {outcome.id} [{outcome.expect} {outcome.steps}] "
                    f"{outcome.request[:70]}"
                    + (f"\n       {outcome.reason}" if outcome.reason else "")
                )
    dispatched_after, outside_after = DISPATCHES.snapshot()
    return E2EReport(
        split=split, outcomes=outcomes, index_seconds=index_seconds,
        calls_dispatched=dispatched_after - dispatched_before,
        calls_outside_environment=outside_after - outside_before,
    )


async def _run_one(
    graph: Any, deps: Deps, row: Mapping[str, Any], db_path: Path
) -> RequestOutcome:
    await asyncio.to_thread(reset_sandbox, db_path)
    questions: list[dict[str, Any]] = []

    def answer(interrupt: dict[str, Any]) -> Any | None:
        if interrupt.get("type") == "approval":
            return True
        questions.append(interrupt)
        return None

    context = Context(environments=["test"], pre_approved=True, output_format="md")
    thread = f"e2e-{row['id']}-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    session = Session(graph, deps, entry="e2e", answer=answer)
    outcome = await session.run(str(row["request"]), context, thread_id=thread)
    wall_ms = (time.perf_counter() - started) * 1000
    values = outcome.values
    question = questions[0] if questions else outcome.interrupt
    correct, reason = score_request(row, values, question)
    results = list((values.get("results") or {}).values()) + list(values.get("history") or [])
    tool_ms = sum(float(r.get("duration_ms") or 0.0) for r in results)
    ledger = values.get("token_ledger") or {}
    return RequestOutcome(
        id=str(row["id"]),
        request=str(row["request"]),
        expect=str(row["expect"]),
        steps=int(row.get("steps") or len(row["gold"])),
        correct=correct,
        reason=reason,
        asked=question is not None,
        calls=[c.tool_id for c in executed_calls(values)],
        candidate_tokens=ledger.get("candidate_tokens"),
        all_injection_tokens=ledger.get("all_injection_tokens"),
        wall_ms=wall_ms,
        tool_ms=tool_ms,
        tags=list(row.get("tags") or []),
    )


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
) -> E2EReport:
    """Load a split (or an instructions file), run it and return the report."""
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
        run_requests(rows, split=label, catalog_path=catalog_path, home=home, say=say)
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


# ============================================================================ reporting
def format_table(figures: Mapping[str, Any]) -> str:
    """The figures as a plain-text table."""
    lines = [
        f"split {figures['split']}: {figures['n']} requests",
        "",
        "steps      n   correct  accuracy",
    ]
    for steps, group in figures["by_steps"].items():
        lines.append(
            f"{steps:>5} {group['n']:>6} {group['correct']:>9} {_pct(group['accuracy']):>9}"
        )
    lines += [
        "",
        f"overall accuracy         {_pct(figures['accuracy'])} "
        f"({figures['correct']}/{figures['n']})",
        f"tool-call accuracy       {_pct(figures['call_accuracy'])}",
        f"5-6-step accuracy        {_pct(figures['accuracy_5_6_steps'])}",
        f"clarification accuracy   {_pct(figures['clarify_accuracy'])}",
        f"direct-answer accuracy   {_pct(figures['direct_answer_accuracy'])}",
        f"unexpected questions     {figures['unexpected_questions']}",
        f"calls outside the env    {figures['calls_outside_environment']} of "
        f"{figures['calls_dispatched']} dispatched",
        f"tokens per request       {figures['tokens_per_request']} vs "
        f"{figures['all_injection_tokens_per_request']} for all tools "
        f"({_pct(figures['tokens_ratio'], 2)})",
        f"latency excl. tools      p50 {figures['latency_ms_p50']} ms, "
        f"p95 {figures['latency_ms_p95']} ms (tools {figures['tool_ms_mean']} ms mean)",
    ]
    return "\n".join(lines)


def _pct(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{100 * value:.{digits}f} %"


def command_eval_e2e(args: argparse.Namespace) -> int:
    """``zspace eval e2e``: run a request set end to end and print the accuracy table."""
    quiet = args.json and not args.verbose

    def say(line: str) -> None:
        print(line, flush=True)

    report = run_split(
        args.split,
        instructions=Path(args.instructions) if args.instructions else None,
        limit=args.limit,
        ids=args.id or (),
        catalog_path=Path(args.catalog) if args.catalog else None,
        home=Path(args.home) if args.home else None,
        say=None if quiet else say,
    )
    figures = report.figures()
    print(format_table(figures))
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    return 0
