"""The plan DAG at run time: which calls are ready, and each call's concrete arguments.

A planned call's arguments are literals or references to a field of an earlier call's output
(``{"from_call": "s1.core", "field": "order_id"}``). ``wave`` splits the plan into the calls
whose inputs are ready and the calls that can never run (an input failed); ``resolve_args``
turns references into values. The ``execute``, ``approve`` and ``reconcile`` nodes and the
graph's wave router share these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nodes.state import CallResult, PlannedCall, ZState
from stores.execution.ledger.calls import idempotency_key
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
            skipped[call["call_id"]] = skip_record(
                call, f"not run: it needs the output of {', '.join(failed)}, which failed"
            )
            continue
        ready.append(call)
    return ready, skipped


def skip_record(call: PlannedCall, reason: str) -> CallResult:
    """The result record of a call that did not run, and why (callers refine its kind)."""
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


def described_call(call: PlannedCall, results: Mapping[str, CallResult]) -> dict[str, Any]:
    """A call as a person is shown it in a question: id, tool and (redacted) arguments."""
    return {"call_id": call["call_id"], "tool_id": call["tool_id"],
            "args": _safe_args(call, results)}


def _safe_args(call: PlannedCall, results: Mapping[str, CallResult]) -> dict[str, Any]:
    try:
        return dict(redact_args(resolve_args(call, results)))
    except KeyError:
        return {}
