"""execute: run the plan DAG in waves; every call whose inputs are ready runs in parallel.

``execute`` settles the wave bookkeeping (calls whose inputs failed are skipped, with the
reason); the router then fans the ready calls out as ``Send("call_tool", ...)`` tasks, one
side-effecting call per task. ``call_tool`` resolves arguments from earlier results, derives
the idempotency key and runs the call through the executor (schema validation, deadline,
ledger, retries). Results land in ``results`` keyed by call id, so a finished call is never
run again on resume.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from nodes.context import Context, resolve_context
from nodes.events import ApprovalAsked, ReconcileAsked
from nodes.state import CallResult, PlannedCall, ZState
from stores.execution.ledger.calls import canonical_args_hash, idempotency_key, request_hash
from stores.execution.policy import approval_needed
from stores.secrets import redact_args

MISSING = object()


def read_field(output: Any, path: str) -> Any:
    """Read ``field`` or ``a.b`` from a call's output; ``MISSING`` when absent."""
    value = output
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and len(value) == 1 and isinstance(value[0], Mapping):
            value = value[0].get(part, MISSING)
        else:
            return MISSING
        if value is MISSING:
            return MISSING
    return value


def resolve_args(call: PlannedCall, results: Mapping[str, CallResult]) -> dict[str, Any]:
    """The call's concrete arguments: literals, and fields of earlier outputs.

    Raises:
        KeyError: an earlier output lacks the field the plan expected.
    """
    args: dict[str, Any] = {}
    for name, source in call["args"].items():
        if "from_call" in source:
            upstream = results[source["from_call"]]
            value = read_field(upstream["output"], source["field"])
            if value is MISSING:
                raise KeyError(
                    f"output of {source['from_call']} ({upstream['tool_id']}) has no field "
                    f"'{source['field']}' for argument '{name}'"
                )
            args[name] = value
        else:
            args[name] = source.get("value")
    return args


def planned_call_key(run_id: str, call: PlannedCall, args: Mapping[str, Any]) -> str:
    """The ledger's idempotency key of a planned call with its concrete arguments."""
    return idempotency_key(run_id, call["sub_intent_id"], call["tool_id"], args)


def request_fingerprint(state: Mapping[str, Any]) -> str:
    """The hash of this run's request: a run id is bound to it at first use (ledger ``runs``)."""
    intent = state.get("intent") or {}
    return request_hash(str(intent.get("request") or ""))


def request_preview(state: Mapping[str, Any]) -> str:
    """The start of this run's request, named in the error when its run id is reused."""
    intent = state.get("intent") or {}
    return str(intent.get("request") or "")[:80]


def approval_key(call: PlannedCall, results: Mapping[str, CallResult]) -> str:
    """An approval is bound to the exact call: its id, tool and concrete arguments."""
    try:
        args = resolve_args(call, results)
    except KeyError:
        args = {}
    return f"{call['call_id']}:{call['tool_id']}:{canonical_args_hash(args)}"


def wave(state: ZState) -> tuple[list[PlannedCall], dict[str, CallResult]]:
    """Split the plan: calls ready to run now, and skip records for calls that cannot run."""
    results = state.get("results") or {}
    ready: list[PlannedCall] = []
    skipped: dict[str, CallResult] = {}
    for call in state.get("plan") or []:
        if call["call_id"] in results:
            continue
        upstream = [results.get(d) for d in call["depends_on"]]
        if any(u is None for u in upstream):
            continue
        failed = [
            d
            for d, u in zip(call["depends_on"], upstream, strict=True)
            if u is not None and u["status"] != "ok"
        ]
        if failed:
            skipped[call["call_id"]] = _skip_record(
                call, f"not run: it needs the output of {', '.join(failed)}, which failed"
            )
            continue
        ready.append(call)
    return ready, skipped


def _skip_record(call: PlannedCall, reason: str) -> CallResult:
    return {
        "call_id": call["call_id"],
        "tool_id": call["tool_id"],
        "status": "skipped",
        "output": None,
        "output_ref": None,
        "error": reason,
        "error_kind": "skipped",
        "attempts": 0,
        "duration_ms": 0.0,
        "replayed": False,
    }


async def execute(state: ZState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Settle one wave: record skips for calls whose inputs failed.

    Reads ``plan``, ``results``, ``approvals``, ``reconciled``; writes ``results`` (skip
    records only), ``awaiting_approval``, ``awaiting_reconcile`` and consumed ``approvals``.
    A call whose outcome is unknown stops the plan here for ``reconcile`` (unless the run
    reports such calls as gaps, ``Context.reconcile_unknown="report"``).
    """
    if resolve_context(runtime).reconcile_unknown == "ask":
        unknown = unreconciled(state)
        if unknown:
            # Hold the plan (dependents are not skipped yet) until a person says what happened.
            return {"awaiting_reconcile": unknown}
    _, skipped = wave(state)
    # A skip can unblock nothing, but it can make more skips: settle them all at once.
    settled: dict[str, CallResult] = dict(skipped)
    while skipped:
        merged = {**(state.get("results") or {}), **settled}
        _, skipped = wave({**state, "results": merged})
        skipped = {k: v for k, v in skipped.items() if k not in settled}
        settled.update(skipped)
    update: dict[str, Any] = {"results": settled} if settled else {}
    update["awaiting_reconcile"] = []
    # The router stays a pure function of state (Studio's edit-state needs that): whether the
    # next wave must stop for approval is decided here, where the run's context is known.
    after = {**state, "results": {**(state.get("results") or {}), **settled}}
    update["awaiting_approval"] = [
        c["call_id"] for c in pending_approvals(after, resolve_context(runtime))  # type: ignore[arg-type]
    ]
    consumed = consumed_approvals(state)
    if consumed:
        approvals = dict(state.get("approvals") or {})
        for key in consumed:
            approvals.pop(key, None)
        update["approvals"] = approvals
    return update


def consumed_approvals(state: ZState) -> list[str]:
    """Approval keys whose call has run (or was refused): each approval is used once.

    A call whose approval was consumed and that must run again (an alignment retry) asks
    again; a resumed call that has no result yet still holds its approval.
    """
    approvals = state.get("approvals") or {}
    if not approvals:
        return []
    results = state.get("results") or {}
    consumed = []
    for call in state.get("plan") or []:
        result = results.get(call["call_id"])
        if result is None or result.get("error_kind") == "rejected":
            continue
        upstream = {d: results[d] for d in call["depends_on"] if d in results}
        key = approval_key(call, upstream)
        if approvals.get(key) is True:
            consumed.append(key)
    return consumed


async def call_tool(
    payload: dict[str, Any], runtime: Runtime[Context], *, executor_factory: Any, graph_factory: Any
) -> dict[str, Any]:
    """Run one planned call (a ``Send`` task).

    Reads the payload ``{"call", "results", "run_id", "approvals"}``; writes ``results`` for
    its call id.
    """
    context = resolve_context(runtime)
    call: PlannedCall = payload["call"]
    results: Mapping[str, CallResult] = payload["results"]
    writer = get_stream_writer()
    writer({"event": "call_started", "call_id": call["call_id"], "tool_id": call["tool_id"]})
    try:
        args = resolve_args(call, results)
    except KeyError as exc:
        failure = _skip_record(call, str(exc).strip('"'))
        failure["status"] = "error"
        failure["error_kind"] = "binding"
        writer(
            {
                "event": "call_finished",
                "call_id": call["call_id"],
                "status": "error",
                "error": failure["error"],
            }
        )
        return {"results": {call["call_id"]: failure}}
    approved = (payload.get("approvals") or {}).get(approval_key(call, results)) is True
    if approval_needed(
        call["tool_id"],
        context.destructive_tools,
        approved=approved,
        pre_approved=context.pre_approved,
    ):
        # Defence in depth: the router sends only approved destructive calls.
        refusal = _skip_record(call, "refused: destructive by policy and not approved")
        refusal["status"] = "error"
        refusal["error_kind"] = "policy"
        return {"results": {call["call_id"]: refusal}}
    key = planned_call_key(payload["run_id"], call, args)
    # Building the executor may open the catalog file and the ledger: off the event loop.
    executor = await asyncio.to_thread(executor_factory, context)
    outcome = await executor.execute(
        {
            "call_id": call["call_id"],
            "tool_id": call["tool_id"],
            "args": args,
            "idempotency_key": key,
            "run_id": payload["run_id"],
            "side_effect": call["side_effect"],
            "request_hash": payload.get("request_hash"),
            "request_preview": payload.get("request_preview"),
        }
    )
    # Secret-looking arguments never enter state (and so never a checkpoint).
    record: CallResult = {**outcome, "args": redact_args(args)}  # type: ignore[typeddict-item]
    await asyncio.to_thread(
        lambda: _record_feedback(graph_factory(), call, record["status"] == "ok")
    )
    writer(
        {
            "event": "call_finished",
            "call_id": call["call_id"],
            "tool_id": call["tool_id"],
            "status": record["status"],
            "error": record.get("error"),
            "replayed": record.get("replayed", False),
        }
    )
    return {"results": {call["call_id"]: record}}


def _record_feedback(graph: Any, call: PlannedCall, success: bool) -> None:
    """Reinforce (or weaken) the dependency edges this call's inputs came through."""
    for param, source in call["args"].items():
        if "from_call" not in source:
            continue
        for edge in graph.producers(call["tool_id"], param):
            if edge.output_field == source["field"]:
                graph.record_feedback(edge, success)
                break


async def approve(state: ZState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask a person to approve the destructive calls of the next wave (an interrupt).

    Nothing runs before ``interrupt()``: on resume this node starts again from its first line.
    The resume value is ``True``/``"yes"`` (approve all), ``False``/``"no"``, or a list of
    approved call ids. Each approval is bound to the exact call and arguments.

    Reads ``plan``, ``results``, ``approvals``; writes ``approvals`` and skip records.
    """
    context = resolve_context(runtime)
    results = state.get("results") or {}
    pending = pending_approvals(state, context)
    question: dict[str, Any] = {
        "type": "approval",
        "question": "Approve these calls? "
        + "; ".join(f"{c['call_id']}: {c['tool_id']}" for c in pending),
        "calls": [_described(c, results) for c in pending],
    }
    get_stream_writer()(
        ApprovalAsked(event="approval_asked", question=question["question"],
                      calls=question["calls"])
    )
    answer = interrupt(question)
    approved_ids = _approved_ids(answer, [c["call_id"] for c in pending])
    approvals = dict(state.get("approvals") or {})
    rejected: dict[str, CallResult] = {}
    for call in pending:
        ok = call["call_id"] in approved_ids
        approvals[approval_key(call, results)] = ok
        if not ok:
            record = _skip_record(call, "not approved by the user")
            record["error_kind"] = "rejected"
            rejected[call["call_id"]] = record
    return {"approvals": approvals, "results": rejected}


def pending_approvals(state: ZState, context: Context) -> list[PlannedCall]:
    """Ready calls the policy's approval gate holds and nobody has answered for yet."""
    ready, _ = wave(state)
    approvals = state.get("approvals") or {}
    results = state.get("results") or {}
    return [
        c
        for c in ready
        if approval_needed(
            c["tool_id"], context.destructive_tools, pre_approved=context.pre_approved
        )
        and approval_key(c, results) not in approvals
    ]


def _approved_ids(answer: Any, ids: list[str]) -> set[str]:
    if isinstance(answer, dict):
        answer = answer.get("approve", answer.get("approved", False))
    if isinstance(answer, str):
        answer = answer.strip().lower() in {"y", "yes", "approve", "ok", "true"}
    if answer is True:
        return set(ids)
    if isinstance(answer, list):
        return {str(i) for i in answer} & set(ids)
    return set()


def _described(call: PlannedCall, results: Mapping[str, CallResult]) -> dict[str, Any]:
    """A call as a person is shown it in a question: id, tool and (redacted) arguments."""
    return {"call_id": call["call_id"], "tool_id": call["tool_id"],
            "args": _safe_args(call, results)}


def _safe_args(call: PlannedCall, results: Mapping[str, CallResult]) -> dict[str, Any]:
    try:
        return dict(redact_args(resolve_args(call, results)))
    except KeyError:
        return {}


# ------------------------------------------------------------------------ reconcile
RECONCILE_CHOICES = ("done", "retry", "skip")
_SAID_DONE = {"done", "yes", "y", "true", "happened", "it happened", "ok"}
_SAID_RETRY = {"retry", "no", "n", "false", "did not happen", "run again", "again"}
_SAID_SKIP = {"skip", "leave", "unknown", "leave it"}


def unreconciled(state: ZState) -> list[str]:
    """Planned calls whose outcome is unknown and that nobody has reconciled yet."""
    results = state.get("results") or {}
    settled = set(state.get("reconciled") or [])
    return [
        c["call_id"]
        for c in state.get("plan") or []
        if c["call_id"] in results
        and results[c["call_id"]].get("error_kind") == "unknown_outcome"
        and c["call_id"] not in settled
    ]


async def reconcile(
    state: ZState, runtime: Runtime[Context], *, executor_factory: Any
) -> dict[str, Any]:
    """Ask a person what happened to calls whose outcome is unknown (an interrupt).

    Such a call was started (before a crash, or it timed out) by a tool that takes no
    idempotency key, so it can be neither replayed nor safely repeated. The resume value, for
    all the calls or per call id (``{"s2.core": "done"}``):

    - ``"done"`` (or ``True``, ``"yes"``; or ``{"outcome": "done", "output": {...}}``): it
      happened; the ledger records it as done (with the output given) and the plan goes on;
    - ``"retry"`` (or ``False``, ``"no"``): it did not happen; it runs again, with the ledger's
      consent (recorded as a transient failure first);
    - ``"skip"``: leave it failed; the answer states it.

    An answer that says none of these leaves the call pending, and the question is asked again.
    Nothing runs before ``interrupt()``: on resume this node starts again from its first line.

    Reads ``plan``, ``results``, ``awaiting_reconcile``, ``run_id``; writes ``results``,
    ``reconciled``, ``awaiting_reconcile``.
    """
    context = resolve_context(runtime)
    results = state.get("results") or {}
    waiting = set(state.get("awaiting_reconcile") or [])
    pending = [c for c in state.get("plan") or [] if c["call_id"] in waiting]
    question: dict[str, Any] = {
        "type": "reconcile",
        "question": "The outcome of these calls is unknown (started, never confirmed; the "
        "tool takes no idempotency key). Did they take effect? Answer done (it happened), "
        "retry (it did not: run it again) or skip (leave it failed): "
        + "; ".join(f"{c['call_id']}: {c['tool_id']}" for c in pending),
        "choices": list(RECONCILE_CHOICES),
        "calls": [
            {**_described(c, results), "error": results[c["call_id"]].get("error")}
            for c in pending
        ],
    }
    get_stream_writer()(
        ReconcileAsked(event="reconcile_asked", question=question["question"],
                       calls=question["calls"])
    )
    answer = interrupt(question)
    decisions = _reconcile_decisions(answer, [c["call_id"] for c in pending])
    executor = await asyncio.to_thread(executor_factory, context)
    run_id = str(state.get("run_id") or "")
    updates: dict[str, Any] = {}
    settled: list[str] = []
    for call in pending:
        decision = decisions.get(call["call_id"])
        if decision is None:
            continue
        outcome, output = decision
        previous = results[call["call_id"]]
        # An unknown outcome means the call ran with arguments that resolved back then.
        key = planned_call_key(run_id, call, resolve_args(call, results))
        if outcome == "done":
            note = "outcome confirmed by a person"
            await asyncio.to_thread(executor.confirm_outcome, key, output, note)
            updates[call["call_id"]] = {
                **previous, "status": "ok", "output": output, "error": None,
                "error_kind": None, "replayed": True,
                "notes": [*previous.get("notes", []), note],
            }
            settled.append(call["call_id"])
        elif outcome == "retry":
            await asyncio.to_thread(
                executor.allow_retry, key, "a person said it did not happen"
            )
            updates[call["call_id"]] = None  # runs again in the next wave
        else:
            settled.append(call["call_id"])
    return {
        "results": updates,
        "reconciled": [*(state.get("reconciled") or []), *settled],
        "awaiting_reconcile": [],
    }


def _reconcile_decisions(
    answer: Any, ids: list[str]
) -> dict[str, tuple[str, Any]]:
    """Read the resume value: one outcome for all calls, or one per call id."""
    if isinstance(answer, dict) and any(i in answer for i in ids):
        decided = {}
        for call_id in ids:
            if call_id in answer:
                one = _one_decision(answer[call_id])
                if one is not None:
                    decided[call_id] = one
        return decided
    one = _one_decision(answer)
    return {} if one is None else dict.fromkeys(ids, one)


def _one_decision(value: Any) -> tuple[str, Any] | None:
    output: Any = None
    if isinstance(value, dict):
        output = value.get("output")
        value = value.get("outcome", value.get("answer"))
    if value is True:
        return "done", output
    if value is False:
        return "retry", None
    said = str(value or "").strip().lower()
    if said in _SAID_DONE:
        return "done", output
    if said in _SAID_RETRY:
        return "retry", None
    if said in _SAID_SKIP:
        return "skip", None
    return None
