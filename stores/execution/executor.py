"""The tool executor: one way to call Python functions, LangChain tools and (later) MCP tools.

``ToolExecutor.execute`` takes a planned call as a plain dict and returns a plain result
record (every value JSON-serializable, ready for LangGraph state). In order it: looks the tool
up; applies the environment policy; validates the arguments against the tool's JSON Schema;
for side-effecting calls consults the call ledger (replay a finished call, never blindly repeat
one whose outcome is unknown); calls the backend under a deadline; retries transient failures
with exponential backoff; normalizes and caps the output, spilling large outputs to a file.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, NotRequired

import jsonschema
from typing_extensions import TypedDict

from stores.catalog.model import IDEMPOTENCY_PARAM, Catalog, ToolSpec
from stores.errors import ToolNotImplemented, ToolReportedError
from stores.execution.backends import PythonBackend, ToolBackend
from stores.execution.faults import crash_point
from stores.execution.http import HttpBackend, http_binding
from stores.execution.ledger.calls import (
    CallLedger,
    LedgerConflict,
    LedgerError,
    LedgerRecord,
    RunConflict,
    canonical_args_hash,
    idempotency_key,
)
from stores.execution.output import _clean_text, normalize_output
from stores.execution.policy import definition_refusal, environment_refusal, injected_secrets
from stores.secrets import MASKED_RUN, SECRETS, redact_args, secret_values_in

ErrorKind = Literal[
    "validation", "timeout", "transient", "permanent", "policy", "unknown_outcome"
]
CallStatus = Literal["ok", "error", "skipped"]
TRUNCATION_MARKER = "… [truncated: {shown} of {total} chars shown; full output in {ref}]"


class ToolCallResult(TypedDict):
    """The plain result record of one call (goes into LangGraph state as is)."""

    call_id: str
    tool_id: str
    status: CallStatus
    output: Any
    output_ref: str | None
    error: str | None
    error_kind: str | None  # an ErrorKind, or "binding"/"skipped"/"rejected" set by the nodes
    attempts: int
    duration_ms: float
    replayed: bool
    notes: NotRequired[list[str]]
    args: NotRequired[dict[str, Any]]  # the bound arguments, added by the call_tool node


class DispatchAudit:
    """Every call this process actually sent to a backend, checked against its allow-list.

    Recorded at the last step before a backend is called, independently of the policy
    checks before it: a code path that skipped them would show up here. The test suite
    asserts at its end that no call went outside its run's environments, and
    ``zspace eval e2e`` reports the count.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.dispatched = 0
        self.outside: list[str] = []

    def record(self, spec: ToolSpec, side_effect: bool, allowed: Sequence[str] | None) -> None:
        """Count one dispatch; remember it when the run's allow-list forbids it."""
        refusal = environment_refusal(spec, side_effect, allowed)
        with self._lock:
            self.dispatched += 1
            if refusal is not None:
                self.outside.append(f"{spec.id} (environment {spec.environment}, run {allowed})")

    def snapshot(self) -> tuple[int, int]:
        """``(dispatched, outside)`` so far (take one before and after to count a span)."""
        with self._lock:
            return self.dispatched, len(self.outside)


DISPATCHES = DispatchAudit()


class ToolExecutor:
    """Validates, guards, runs and records tool calls; returns plain result records."""

    def __init__(
        self,
        catalog: Catalog,
        backends: Mapping[str, ToolBackend] | ToolBackend | None = None,
        ledger: CallLedger | None = None,
        *,
        deadline_s: float = 30.0,
        max_output_chars: int = 20000,
        retries: int = 2,
        backoff_s: float = 0.2,
        results_dir: str | Path | None = None,
        allowed_environments: Sequence[str] | None = None,
    ) -> None:
        """Configure the executor.

        Args:
            catalog: The tools (and Python implementations) calls refer to.
            backends: One backend for every tool, or a mapping from tool id or agent id to
                backend (looked up in that order, then under ``"*"``); tools not covered run on
                a :class:`PythonBackend` over ``catalog``.
            ledger: The call ledger for side-effecting calls; None disables replay and
                outcome tracking.
            deadline_s: Seconds one attempt may take.
            max_output_chars: Cap on the serialized output kept in the record; larger
                outputs are truncated and saved whole under ``results_dir``.
            retries: Extra attempts after a transient failure.
            backoff_s: First backoff; doubled after each retry.
            results_dir: Where full large outputs go (default: a temporary directory made on
                first use).
            allowed_environments: Environments this run may reach; None disables the policy.
        """
        self.catalog = catalog
        self.default_backend: ToolBackend = PythonBackend(catalog)
        self.http_backend = HttpBackend(timeout_s=deadline_s)
        self.backends: dict[str, ToolBackend] = {}
        if isinstance(backends, Mapping):
            self.backends.update(backends)
        elif backends is not None:
            self.default_backend = backends
        self.ledger = ledger
        self.deadline_s = deadline_s
        self.max_output_chars = max_output_chars
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        self._results_dir = Path(results_dir) if results_dir is not None else None
        self.allowed_environments = (
            None if allowed_environments is None else tuple(allowed_environments)
        )

    # ------------------------------------------------------------------ public
    async def execute(self, call: Mapping[str, Any]) -> ToolCallResult:
        """Execute one planned call and return its result record (never raises for tool errors).

        Args:
            call: ``{"call_id", "tool_id", "args", "idempotency_key" (optional), "run_id",
                "side_effect"}``.

        Returns:
            A :class:`ToolCallResult` whose every value is JSON-serializable.
        """
        started = time.monotonic()
        record = await self._execute(call)
        record["duration_ms"] = round((time.monotonic() - started) * 1000.0, 3)
        return _scrubbed(record)

    def backend_for(self, spec: ToolSpec) -> ToolBackend:
        """Return the backend that runs a tool.

        Mapped by tool id, then agent; a tool ingested from an OpenAPI document (it carries an
        HTTP binding) then runs on the HTTP backend; anything else on ``"*"`` or the default.
        """
        for key in (spec.id, spec.agent):
            if key in self.backends:
                return self.backends[key]
        if http_binding(spec) is not None:
            return self.http_backend
        if "*" in self.backends:
            return self.backends["*"]
        return self.default_backend

    @property
    def results_dir(self) -> Path:
        """Return the directory for full large outputs, creating it on first use."""
        if self._results_dir is None:
            self._results_dir = Path(tempfile.mkdtemp(prefix="zspace-results-"))
        self._results_dir.mkdir(parents=True, exist_ok=True)
        return self._results_dir

    # ----------------------------------------------------------------- stages
    async def _execute(self, call: Mapping[str, Any]) -> ToolCallResult:
        call_id = str(call.get("call_id") or "")
        tool_id = call.get("tool_id")
        result = _new_result(call_id, str(tool_id or ""))
        if not isinstance(tool_id, str) or tool_id not in self.catalog.tools:
            return _error(
                result, "permanent",
                f"call {call_id!r}: unknown tool {tool_id!r}; it is not in the catalog, so "
                "plan the call with a tool id returned by retrieval",
            )
        spec = self.catalog.tools[tool_id]
        raw_args = call.get("args")
        if raw_args is None:
            raw_args = {}
        if not isinstance(raw_args, Mapping):
            return _error(
                result, "validation",
                f"call {call_id!r} to {tool_id!r}: 'args' must be an object of named "
                f"arguments, got {type(raw_args).__name__}",
            )
        args = {str(name): value for name, value in raw_args.items() if name != IDEMPOTENCY_PARAM}
        side_effect = _effective_side_effect(call.get("side_effect"), spec.side_effect)

        refusal = self._policy_refusal(spec, side_effect)
        if refusal is not None:
            return _error(result, "policy", refusal)

        run_id = call.get("run_id")
        if self.ledger is not None and run_id:
            # Raises RunLeaseHeld: another live process drives this run, so this one stops.
            await asyncio.to_thread(self.ledger.check_lease, str(run_id))
            request_fingerprint = call.get("request_hash")
            if request_fingerprint:
                try:
                    await asyncio.to_thread(
                        self.ledger.bind_run, str(run_id), str(request_fingerprint),
                        str(call.get("request_preview") or ""),
                    )
                except RunConflict as exc:
                    return _error(result, "policy", str(exc))
        changed = await self._definition_refusal(spec)
        if changed is not None:
            return _error(result, "policy", changed)
        masked = _masked_argument(args)
        if masked is not None:
            return _error(
                result, "validation",
                f"call {call_id!r} to {tool_id!r}: argument '{masked}' held a secret that was "
                "masked before the checkpoint was stored, so its value is gone after the "
                "resume; the tool was not called. Give secrets through "
                "ZSPACE_SECRET_<PARAMETER> (or the MCP server's env), not in the request",
            )
        for value in secret_values_in(args):
            SECRETS.add(value)
        key = call.get("idempotency_key") or raw_args.get(IDEMPOTENCY_PARAM)
        try:
            if not key and run_id:
                key = idempotency_key(str(run_id), call_id, tool_id, args)
            args_hash = canonical_args_hash(args)
        except LedgerError as exc:
            return _error(result, "validation", f"call {call_id!r} to {tool_id!r}: {exc}")
        key = str(key) if key else None
        passes_key = key is not None and spec.accepts_idempotency_key()

        try:
            problems = validation_errors(
                spec, {**args, IDEMPOTENCY_PARAM: key} if passes_key else args
            )
        except Exception as exc:  # noqa: BLE001 - e.g. an unresolvable $ref in the schema
            return _error(
                result, "validation",
                f"cannot validate call {call_id!r}: the input_schema of {tool_id!r} is not "
                f"usable ({type(exc).__name__}: {exc}); fix the tool's schema in the catalog",
            )
        if problems:
            return _error(
                result, "validation",
                f"call {call_id!r} to {tool_id!r} has invalid arguments: "
                + "; ".join(problems)
                + ". Fix them to match the tool's input_schema; the tool was not called",
            )

        secrets = injected_secrets(spec, args)
        if secrets:
            problems = validation_errors(
                spec, {**args, **secrets, IDEMPOTENCY_PARAM: key} if passes_key else
                {**args, **secrets}
            )
            if problems:
                return _error(
                    result, "validation",
                    f"call {call_id!r} to {tool_id!r}: injected secret arguments are invalid: "
                    + "; ".join(problems),
                )
        if not side_effect or self.ledger is None:
            return await self._attempts(
                result, spec, args, key, side_effect, ledger_key=None, secrets=secrets
            )
        if key is None:
            return _error(
                result, "validation",
                f"side-effecting call {call_id!r} to {tool_id!r} has neither an "
                "'idempotency_key' nor a 'run_id' to derive one from; the ledger cannot "
                "protect it, so it was not called",
            )
        return await self._execute_with_ledger(
            result, spec, args, key, str(run_id or ""), args_hash, secrets
        )

    def _policy_refusal(self, spec: ToolSpec, side_effect: bool) -> str | None:
        return environment_refusal(spec, side_effect, self.allowed_environments)

    async def _definition_refusal(self, spec: ToolSpec) -> str | None:
        """Compare the tool's pinned definition hash with what its server lists now."""
        live = getattr(self.backend_for(spec), "live_definition_hash", None)
        if live is None:
            return None
        try:
            live_hash = await asyncio.wait_for(live(spec), timeout=self.deadline_s)
        except Exception:  # noqa: BLE001 - an unreachable server fails the call itself
            return None
        return definition_refusal(spec, live_hash)

    async def _execute_with_ledger(
        self, result: ToolCallResult, spec: ToolSpec, args: dict[str, Any], key: str,
        run_id: str, args_hash: str, secrets: dict[str, str] | None = None,
    ) -> ToolCallResult:
        ledger = self.ledger
        assert ledger is not None
        try:
            record, created = await asyncio.to_thread(
                ledger.claim, key, run_id, result["call_id"], spec.id, args_hash
            )
        except LedgerConflict as exc:
            return _error(result, "permanent", str(exc))
        if not created:
            if record.status == "done":
                return _replay(result, record)
            if record.status == "failed" and not record.transient:
                result["replayed"] = True
                result["attempts"] = record.attempts
                return _error(
                    result, "permanent",
                    f"call {result['call_id']!r} to {spec.id!r} already failed permanently "
                    f"(ledger key {key[:12]}…): {record.error}",
                )
            if record.status == "started" and not (
                spec.accepts_idempotency_key() or _retry_safe(self.backend_for(spec), spec)
            ):
                result["attempts"] = record.attempts
                note = f" (last known: {record.error})" if record.error else ""
                return _error(
                    result, "unknown_outcome",
                    f"call {result['call_id']!r} to {spec.id!r} was started before and never "
                    f"finished{note}; its effect may or may not have happened and the tool "
                    "takes no idempotency key, so it was not repeated. Check the target "
                    f"system, then record the outcome in the ledger (key {key}) with "
                    "finish() or fail(transient=True) to allow a retry",
                )
            # A transient failure, or an unknown outcome the tool deduplicates by key (or
            # whose method makes a repeat harmless: HTTP PUT and DELETE).
            record = await asyncio.to_thread(ledger.restart, key)
        return await self._attempts(
            result, spec, args, key, True, ledger_key=key, prior_attempts=record.attempts - 1,
            secrets=secrets,
        )

    async def _attempts(
        self, result: ToolCallResult, spec: ToolSpec, args: dict[str, Any], key: str | None,
        side_effect: bool, ledger_key: str | None, prior_attempts: int = 0,
        secrets: dict[str, str] | None = None,
    ) -> ToolCallResult:
        backend = self.backend_for(spec)
        call_args = {**args, **(secrets or {})}
        passed_key = key if spec.accepts_idempotency_key() else None
        attempt = 0
        while True:
            attempt += 1
            result["attempts"] = prior_attempts + attempt
            try:
                if ledger_key is not None:
                    crash_point("before_call", result["call_id"])
                DISPATCHES.record(spec, side_effect, self.allowed_environments)
                raw = await asyncio.wait_for(
                    backend.call(spec, dict(call_args), passed_key), timeout=self.deadline_s
                )
                if ledger_key is not None:
                    crash_point("after_call", result["call_id"])
                output, notes = normalize_output(raw)
                output = SECRETS.scrub(output)
            except asyncio.CancelledError:
                raise  # the ledger keeps 'started': the outcome is unknown, as it should be
            except Exception as exc:  # noqa: BLE001 - every tool failure becomes a record
                kind = classify_exception(exc)
                message = SECRETS.scrub(_describe(exc, spec, self.deadline_s))
                retryable = kind in ("timeout", "transient") and (
                    not side_effect or passed_key is not None or _surely_not_delivered(exc)
                    or _retry_safe(backend, spec)
                )
                if retryable and attempt <= self.retries:
                    await asyncio.sleep(self.backoff_s * (2 ** (attempt - 1)))
                    if ledger_key is not None:
                        await asyncio.to_thread(self._restart, ledger_key)
                    continue
                if kind in ("timeout", "transient") and side_effect and not retryable:
                    # The effect may have happened: reconcile later, never repeat blindly.
                    if ledger_key is not None:
                        await asyncio.to_thread(
                            self._ledger_write, "note_unknown_outcome", ledger_key, message
                        )
                    return _error(
                        result, "unknown_outcome",
                        f"{message}; the tool may have acted and takes no idempotency key, "
                        "so it was not retried: check the target system before calling again",
                    )
                if ledger_key is not None:
                    await asyncio.to_thread(
                        self._ledger_write, "fail", ledger_key, message,
                        kind in ("timeout", "transient"),
                    )
                return _error(result, kind, message)
            capped, output_ref = self._cap(spec, output)
            if output_ref is not None:
                notes.append(f"output truncated to {self.max_output_chars} chars")
            result["status"], result["output"], result["output_ref"] = "ok", capped, output_ref
            result["notes"] = [*result.get("notes", []), *notes]
            if ledger_key is not None:
                await asyncio.to_thread(
                    self._ledger_write, "finish", ledger_key, _stored(capped, output_ref, notes)
                )
                crash_point("after_record", result["call_id"])
            return result

    # ------------------------------------------------------------- reconciliation
    def confirm_outcome(self, key: str, output: Any, note: str) -> None:
        """A person says the call under ``key`` took effect: record it done, like a finish."""
        if self.ledger is not None:
            self._ledger_write("finish", key, _stored(output, None, [note]))

    def allow_retry(self, key: str, reason: str) -> None:
        """A person says the call under ``key`` did not happen: let the next attempt run."""
        if self.ledger is not None:
            self._ledger_write("fail", key, reason, True)

    def _restart(self, key: str) -> LedgerRecord:
        assert self.ledger is not None
        return self.ledger.restart(key)

    def _ledger_write(self, method: str, key: str, *values: Any) -> None:
        assert self.ledger is not None
        try:
            getattr(self.ledger, method)(key, *values)
        except LedgerError:
            # A finished call must not be reported as failed because its bookkeeping failed;
            # the record stays 'started', which later reads as unknown outcome (safe side).
            pass

    def _cap(self, spec: ToolSpec, output: Any) -> tuple[Any, str | None]:
        serialized = json.dumps(output, ensure_ascii=False)
        if len(serialized) <= self.max_output_chars:
            return output, None
        digest = hashlib.sha256(serialized.encode("utf-8")).hexdigest()[:16]
        path = self.results_dir / f"{spec.call_name or 'tool'}-{digest}.json"
        if not path.exists():
            temporary = path.with_suffix(".json.tmp")
            temporary.write_text(serialized, encoding="utf-8")
            temporary.replace(path)
        marker = TRUNCATION_MARKER.format(
            shown="{shown}", total=len(serialized), ref=str(path)
        )
        shown = max(0, self.max_output_chars - len(marker) - 8)
        return serialized[:shown] + marker.format(shown=shown), str(path)


# ---------------------------------------------------------------------- validation
def validation_errors(spec: ToolSpec, args: Mapping[str, Any]) -> list[str]:
    """Return what is wrong with ``args`` for ``spec.input_schema`` (empty when valid).

    Each message names the argument path and the JSON Schema rule that failed.
    """
    validator = jsonschema.Draft202012Validator(spec.input_schema)
    problems = []
    errors = sorted(validator.iter_errors(dict(args)), key=lambda e: list(map(str, e.path)))
    for error in errors[:10]:
        path = "/".join(str(part) for part in error.absolute_path)
        if error.validator == "required" and isinstance(error.instance, dict):
            missing = [name for name in error.validator_value if name not in error.instance]
            where = f" in '{path}'" if path else ""
            problems.append(f"missing required argument(s) {missing}{where} (rule 'required')")
        elif error.validator == "additionalProperties":
            problems.append(f"{error.message} at '{path or '(root)'}' "
                            "(rule 'additionalProperties')")
        else:
            problems.append(
                f"argument '{path or '(root)'}': {error.message} (rule '{error.validator}')"
            )
    return problems


def _masked_argument(args: Mapping[str, Any], prefix: str = "") -> str | None:
    """The path of the first argument whose text holds a masked secret (``********``)."""
    for name, value in args.items():
        path = f"{prefix}{name}"
        if isinstance(value, str) and MASKED_RUN in value:
            return path
        if isinstance(value, Mapping):
            inner = _masked_argument(value, f"{path}.")
            if inner is not None:
                return inner
    return None


def _effective_side_effect(planned: Any, declared: bool | None) -> bool:
    """Return whether a call may write: either side says so, or neither knows (assume it may)."""
    if planned is True or declared is True:
        return True
    return not (planned is False or declared is False)


# ---------------------------------------------------------------------- errors
_HTTP_TRANSIENT_MESSAGE = re.compile(
    r"\b(?:http|status(?:[ _]code)?|error|code)\b\W{0,3}(?:5\d\d|429|408)\b"
    r"|\b(?:5\d\d|429|408) (?:internal|bad gateway|service unavailable|gateway time-?out|"
    r"too many requests|server error|request timeout)"
    r"|temporar(?:y|ily)|rate.?limit|try again later|service unavailable|overloaded"
    r"|connection (?:reset|refused|aborted)",
    re.IGNORECASE,
)
_PERMANENT_TYPES: tuple[type[BaseException], ...] = (
    ValueError, KeyError, TypeError, LookupError, AttributeError, NotImplementedError,
    jsonschema.ValidationError, ToolNotImplemented, ToolReportedError,
)


def _status_code(exc: BaseException) -> int | None:
    for holder in (exc, getattr(exc, "response", None)):
        for attribute in ("status_code", "status"):
            value = getattr(holder, attribute, None)
            if isinstance(value, int) and 100 <= value <= 599:
                return value
    return None


def classify_exception(exc: BaseException) -> ErrorKind:
    """Classify a tool failure.

    Returns:
        ``timeout`` for deadlines, ``transient`` for connection trouble, HTTP 5xx/408/429 and
        "temporarily unavailable" messages, ``validation`` for schema errors, ``permanent``
        for everything else (bad values, missing keys, unknown exceptions: retrying would
        only repeat them).
    """
    if isinstance(exc, TimeoutError):
        return "timeout"
    if isinstance(exc, jsonschema.ValidationError):
        return "validation"
    status = _status_code(exc)
    if status is not None:
        return "transient" if status >= 500 or status in (408, 425, 429) else "permanent"
    if isinstance(exc, ConnectionError):
        return "transient"
    if _HTTP_TRANSIENT_MESSAGE.search(str(exc)):
        return "transient"
    if isinstance(exc, _PERMANENT_TYPES):
        return "permanent"
    if isinstance(exc, OSError):
        return "transient"
    return "permanent"


def _retry_safe(backend: ToolBackend, spec: ToolSpec) -> bool:
    """Whether the backend says repeating this call cannot double its effect (HTTP PUT)."""
    retry_safe = getattr(backend, "retry_safe", None)
    return bool(retry_safe(spec)) if retry_safe is not None else False


def _surely_not_delivered(exc: BaseException) -> bool:
    """Return True when the failure proves the request was refused before it could act."""
    return isinstance(exc, ConnectionRefusedError) or _status_code(exc) == 429


def _describe(exc: BaseException, spec: ToolSpec, deadline_s: float) -> str:
    if isinstance(exc, TimeoutError):
        return f"tool {spec.id!r} did not answer within its {deadline_s:g} s deadline"
    text = _clean_text(str(exc))[:2000] or "(no message)"
    return f"tool {spec.id!r} failed with {type(exc).__name__}: {text}"


# ---------------------------------------------------------------------- records
def _new_result(call_id: str, tool_id: str) -> ToolCallResult:
    return {
        "call_id": call_id,
        "tool_id": tool_id,
        "status": "skipped",
        "output": None,
        "output_ref": None,
        "error": None,
        "error_kind": None,
        "attempts": 0,
        "duration_ms": 0.0,
        "replayed": False,
        "notes": [],
    }


def _error(result: ToolCallResult, kind: ErrorKind, message: str) -> ToolCallResult:
    result["status"], result["error"], result["error_kind"] = "error", message, kind
    return result


def _scrubbed(record: ToolCallResult) -> ToolCallResult:
    """Remove known secret values and secret-named arguments from a result record."""
    for field_name in ("output", "error", "notes"):
        if record.get(field_name) is not None:
            record[field_name] = SECRETS.scrub(record[field_name])  # type: ignore[literal-required]
    if "args" in record:
        record["args"] = redact_args(record["args"])
    return record


def _stored(output: Any, output_ref: str | None, notes: list[str]) -> dict[str, Any]:
    """What the ledger keeps of a finished call (``_replay`` reads it back)."""
    return {"output": output, "output_ref": output_ref, "notes": notes}


def _replay(result: ToolCallResult, record: LedgerRecord) -> ToolCallResult:
    stored = record.result if isinstance(record.result, dict) else {"output": record.result}
    result["status"] = "ok"
    result["output"] = stored.get("output")
    result["output_ref"] = stored.get("output_ref")
    result["attempts"] = record.attempts
    result["replayed"] = True
    result["notes"] = [*stored.get("notes", []), "replayed from the call ledger"]
    return result
