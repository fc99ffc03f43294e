"""The run file of ``zspace eval e2e --out``: one JSON line per request that outside scorers read.

The format is EVAL.md's (section ``zspace eval e2e``) and its JSON Schema sits beside this
module (``runfile.schema.json``)::

    {"id", "request", "status": "done|question|failed", "error",
     "calls": [{"seq", "wave", "tool", "args", "side_effect", "replayed", "status",
                "error_kind", "error", "output"}],
     "question", "question_param", "answer", "sandbox": {"<table>": [<row>, ...]}}

A :class:`CallTrace` watches one run's stream (``graph.session.Session(on_event=...,
on_update=...)``): ``call_started`` events give the order calls started in (``seq``), the
``execute`` node's passes give the executor's waves, and the nodes' ``results`` updates give
each attempt's record (a call retried by the alignment check appears once per attempt).
Calls that never started (a dependency failed, approval was refused, or the run stopped
first) are numbered where they were settled. :func:`eval_error_kind` is the one mapping of
the executor's error kinds onto EVAL.md's words.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from langgraph.types import Overwrite

from bench.evaluation.scoring import full_output
from graph.streaming import run_status as shared_run_status
from nodes.planning.dag import resolve_args
from stores.secrets import redact_args

RUNFILE_SCHEMA = Path(__file__).with_name("runfile.schema.json")

# The executor's and the nodes' error kinds (stores.execution.executor.ErrorKind, plus
# "binding", "skipped" and "rejected" set by nodes.execute) in EVAL.md's vocabulary.
_EVAL_ERROR_KINDS = {
    "validation": "binding",  # the arguments failed the tool's schema; the tool was not called
    "binding": "binding",  # an argument could not be read from an earlier call's output
    "policy": "policy",  # environment allow-list, pins, a reused run id, an unapproved call
    "rejected": "rejected",  # a person refused the approval
    "skipped": "skipped",  # a call it depends on failed
    "permanent": "tool",  # the tool raised or answered an error
    "timeout": "timeout",  # no answer within the call's deadline
    "transient": "transport",  # connection trouble, 5xx, 429: the server could not be reached
    "unknown_outcome": "transport",  # sent, and no answer came back: the outcome is unknown
}


def eval_error_kind(kind: str | None) -> str | None:
    """EVAL.md's ``error_kind`` for a call record's ``error_kind`` (None when the call was ok).

    ``binding``, ``policy``, ``rejected``, ``skipped``, ``tool``, ``timeout`` or
    ``transport``; a kind this mapping does not know is the tool's failure (``tool``).
    """
    if kind is None:
        return None
    return _EVAL_ERROR_KINDS.get(kind, "tool")


def eval_call_status(status: str, error_kind: str | None) -> str:
    """EVAL.md's call ``status`` from the record's status and its EVAL ``error_kind``.

    ``ok`` the tool answered; ``refused`` policy or approval said no; ``skipped`` never
    called; ``error`` anything else that failed (a binding failure included: the call failed
    before the tool was reached).
    """
    if status == "ok":
        return "ok"
    if error_kind in ("policy", "rejected"):
        return "refused"
    if error_kind == "skipped":
        return "skipped"
    return "error"


def _plain(value: Any) -> Any:
    """The value of an update, ``Overwrite`` (a reset on a new turn) unwrapped."""
    return value.value if isinstance(value, Overwrite) else value


class CallTrace:
    """Every call of one run, in the order it started, with its wave and its record."""

    def __init__(self) -> None:
        """Start with no call seen (one trace per run)."""
        self.entries: list[dict[str, Any]] = []
        self._planned: dict[str, dict[str, Any]] = {}
        self._in_flight: dict[str, dict[str, Any]] = {}
        self._next_wave = 0
        self._pass_wave: int | None = None

    def _wave(self) -> int:
        """The wave of the current ``execute`` pass, numbered when it first holds a call."""
        if self._pass_wave is None:
            self._pass_wave = self._next_wave
            self._next_wave += 1
        return self._pass_wave

    def _entry(self, call_id: str, tool_id: str, started: bool) -> dict[str, Any]:
        entry = {
            "call_id": call_id,
            "tool_id": tool_id,
            "wave": self._wave(),
            "planned": self._planned.get(call_id) or {},
            "record": None,
            "started": started,
        }
        self.entries.append(entry)
        return entry

    def on_event(self, event: Mapping[str, Any]) -> None:
        """Read a custom stream event: a ``call_started`` opens an entry."""
        if event.get("event") == "call_started":
            call_id = str(event["call_id"])
            self._in_flight[call_id] = self._entry(call_id, str(event["tool_id"]), True)

    def on_update(self, node: str, update: Any) -> None:
        """Read a node's update: the plan, a new wave, and the call records it writes."""
        if not isinstance(update, Mapping):
            return
        plan = _plain(update.get("plan"))
        if isinstance(plan, list):
            self._planned.update({str(call["call_id"]): call for call in plan})
        if node == "execute":
            self._pass_wave = None  # each pass settles one wave and fans it out
        results = _plain(update.get("results"))
        if not isinstance(results, Mapping):
            return
        for call_id, record in results.items():
            if record is None:
                continue  # a retry dropped the record; its entry keeps what happened
            entry = self._in_flight.pop(call_id, None)
            if entry is None and node == "reconcile":
                # A person settled a call whose outcome was unknown: its last attempt.
                entry = next((e for e in reversed(self.entries) if e["call_id"] == call_id),
                             None)
            if entry is None:  # never started: skipped, or refused at approval
                entry = self._entry(call_id, str(record.get("tool_id", "")), False)
            entry["record"] = dict(record)

    def calls(self, values: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The run file's ``calls``: every traced call, then planned calls that never ran.

        Args:
            values: the run's final state (its plan and results).
        """
        results = values.get("results") or {}
        lines = [_call_line(seq, entry, results) for seq, entry in enumerate(self.entries)]
        traced = {entry["call_id"] for entry in self.entries}
        for call in values.get("plan") or []:
            if call["call_id"] not in traced:  # the run stopped before its wave
                entry = {"call_id": call["call_id"], "tool_id": call["tool_id"],
                         "wave": self._next_wave, "planned": call, "record": None,
                         "started": False}
                lines.append(_call_line(len(lines), entry, results))
        return lines


def _call_line(seq: int, entry: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    record: dict[str, Any] = entry["record"] or {}
    planned: Mapping[str, Any] = entry["planned"]
    error: Any
    if record:
        kind = eval_error_kind(record.get("error_kind"))
        if kind is None and record.get("status") != "ok":
            kind = "tool"  # a failure with no kind recorded
        status = eval_call_status(str(record.get("status")), kind)
        error = record.get("error")
    elif entry["started"]:  # sent, and the run ended before an answer came back
        kind, status = "transport", "error"
        error = "no result: the run ended while the call was in flight"
    else:
        kind, status, error = "skipped", "skipped", "not run: the run stopped first"
    return {
        "seq": seq,
        "wave": entry["wave"],
        "tool": str(record.get("tool_id") or entry["tool_id"]),
        "args": record["args"] if "args" in record else _planned_args(planned, results),
        "side_effect": bool(planned.get("side_effect", False)),
        "replayed": bool(record.get("replayed", False)),
        "status": status,
        "error_kind": kind if status != "ok" else None,
        "error": str(error or kind) if status != "ok" else None,
        "output": full_output(record) if status == "ok" else None,
    }


def _planned_args(planned: Mapping[str, Any], results: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments a call that never ran would have had: literals and available outputs."""
    if not planned.get("args"):
        return {}
    try:
        return dict(redact_args(resolve_args(planned, results)))  # type: ignore[arg-type]
    except KeyError:  # an input it needed never came: its literal arguments only
        literal = {
            name: source.get("value")
            for name, source in planned["args"].items()
            if "from_call" not in source
        }
        return dict(redact_args(literal))


def run_status(
    values: Mapping[str, Any], question: Mapping[str, Any] | None, crash: str | None = None
) -> dict[str, Any]:
    """The run's ``status``, ``error``, ``question`` and ``question_param``.

    Derived from :func:`graph.streaming.run_status`, the status the CLI and the MCP server
    report, spelt as EVAL.md's run file has it: ``done`` stays ``done``; ``waiting for
    input`` at a clarifying question is ``question``; ``partial`` and ``failed`` (gaps), a
    crash and any other unanswered interrupt are ``failed``, with ``error`` saying what (the
    crash's last line, the gaps, or the unanswered interrupt).
    """
    verdict: dict[str, Any] = {"status": "done", "error": None, "question": None,
                               "question_param": None}
    status = shared_run_status(values, question)
    if crash is not None:
        verdict.update(status="failed", error=crash)
    elif status == "waiting for input" and question is not None and (
        question.get("type", "clarification") == "clarification"
    ):
        verdict.update(status="question", question=str(question.get("question") or ""),
                       question_param=question.get("param") or None)
    elif status == "waiting for input" and question is not None:
        verdict.update(status="failed", error=f"stopped waiting for {question.get('type')}: "
                                               f"{question.get('question')}")
    elif status != "done":
        verdict.update(status="failed", error="; ".join(str(g) for g in values["gaps"]))
    return verdict


def crash_line(exc: BaseException) -> str:
    """The last line of a crash's traceback: ``Type: message``."""
    return traceback.format_exception_only(type(exc), exc)[-1].strip()


def run_line(
    row: Mapping[str, Any],
    values: Mapping[str, Any],
    question: Mapping[str, Any] | None,
    trace: CallTrace,
    sandbox: Mapping[str, list[dict[str, Any]]],
    crash: str | None = None,
) -> dict[str, Any]:
    """One line of the run file for one request (EVAL.md's fields, in its order)."""
    verdict = run_status(values, question, crash)
    return {
        "id": str(row["id"]),
        "request": str(row["request"]),
        "status": verdict["status"],
        "error": verdict["error"],
        "calls": trace.calls(values),
        "question": verdict["question"],
        "question_param": verdict["question_param"],
        "answer": str(values.get("answer") or ""),
        "sandbox": dict(sandbox),
    }


def sandbox_tables(db_path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every table of the sandbox, as ``python -m sandbox export`` writes it (BLOBs as hex)."""
    from sandbox.export import export_tables

    tables = export_tables(db_path)
    return {
        table: [{k: v.hex() if isinstance(v, bytes) else v for k, v in row.items()}
                for row in rows]
        for table, rows in tables.items()
    }


class RunFileWriter:
    """Writes the run file one line per request, flushed as each request finishes."""

    def __init__(self, path: Path) -> None:
        """Create (or empty) the file at ``path``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._handle: IO[str] = path.open("w", encoding="utf-8")

    def write(self, line: Mapping[str, Any]) -> None:
        """Append one line and flush it to disk."""
        self._handle.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        self._handle.flush()

    def close(self) -> None:
        """Close the file."""
        self._handle.close()

    def __enter__(self) -> RunFileWriter:
        """Use as a context manager."""
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        """Close on the way out."""
        self.close()
