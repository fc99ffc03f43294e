"""Scoring of end-to-end runs against gold chains, and the figures of a request set.

A run is scored against the request's gold chain:

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
"""

from __future__ import annotations

import json
import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.evaluation.metrics import percentile


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


def full_output(record: Mapping[str, Any]) -> Any:
    """A call's output; a large one is read back from the file the executor spilled it to."""
    ref = record.get("output_ref")
    if ref and Path(ref).is_file():
        return json.loads(Path(ref).read_text(encoding="utf-8"))
    return record.get("output")


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
        output = full_output(result)
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
    scored: bool = True
    status: str = ""

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


# ============================================================================ figures
@dataclass
class E2EReport:
    """Every figure of a run over a request set."""

    split: str
    outcomes: list[RequestOutcome]
    index_seconds: float = 0.0
    calls_dispatched: int = 0
    calls_outside_environment: int = 0
    model: str = "rules"

    def figures(self) -> dict[str, Any]:
        """The figures as one JSON-ready mapping (the ``--json`` line).

        ``n`` counts every request run; accuracies count the scored ones (``scored``), and
        ``statuses`` counts the run statuses of the run file (done, question, failed).
        """
        ran = self.outcomes
        outcomes = [o for o in ran if o.scored]

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
        ledgers = [o for o in ran if o.all_injection_tokens]
        candidate = sum(o.candidate_tokens or 0 for o in ledgers)
        injection = sum(o.all_injection_tokens or 0 for o in ledgers)
        latencies = sorted(o.latency_ms for o in ran)
        statuses = {s: sum(o.status == s for o in ran) for s in ("done", "question", "failed")}
        return {
            "split": self.split,
            "model": self.model,
            "n": len(ran),
            "scored": len(outcomes),
            "statuses": statuses,
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
            "latency_ms_p50": round(percentile(latencies, 50), 1) if latencies else 0.0,
            "latency_ms_p95": round(percentile(latencies, 95), 1) if latencies else 0.0,
            "latency_ms_mean": round(statistics.fmean(latencies), 1) if latencies else 0.0,
            "tool_ms_mean": round(statistics.fmean(o.tool_ms for o in ran), 1) if ran else 0.0,
            "failures": [
                {"id": o.id, "steps": o.steps, "expect": o.expect, "reason": o.reason}
                for o in ran
                if (o.scored and not o.correct) or o.reason
            ],
        }


# ============================================================================ reporting
def format_table(figures: Mapping[str, Any]) -> str:
    """The figures as a plain-text table."""
    scored = figures.get("scored", figures["n"])
    lines = [
        f"split {figures['split']}: {figures['n']} requests"
        + (f", {scored} of them scored" if scored != figures["n"] else "")
        + f" (model: {figures.get('model', 'rules')})",
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
        f"({figures['correct']}/{scored})",
        f"tool-call accuracy       {_pct(figures['call_accuracy'])}",
        f"5-6-step accuracy        {_pct(figures['accuracy_5_6_steps'])}",
        f"clarification accuracy   {_pct(figures['clarify_accuracy'])}",
        f"direct-answer accuracy   {_pct(figures['direct_answer_accuracy'])}",
        f"unexpected questions     {figures['unexpected_questions']}",
        "run statuses             "
        + ", ".join(f"{k} {v}" for k, v in (figures.get("statuses") or {}).items()),
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
