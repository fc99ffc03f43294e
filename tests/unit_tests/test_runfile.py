"""The run file of ``zspace eval e2e --out`` (EVAL.md): error kinds, call and run statuses,
waves and order read from a real run's stream, and every line valid against the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from bench.evaluation.e2e import E2EDataError, load_requests
from bench.evaluation.runfile import (
    RUNFILE_SCHEMA,
    CallTrace,
    RunFileWriter,
    crash_line,
    eval_call_status,
    eval_error_kind,
    run_line,
    run_status,
)
from graph.session import Session
from nodes.context import Context
from tests.unit_tests.test_pipeline import DEMO, World

VALIDATOR = jsonschema.Draft202012Validator(json.loads(RUNFILE_SCHEMA.read_text()))
SANDBOX = {"orders": [{"order_id": 1, "status": "created"}], "users": []}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def valid(line: dict[str, Any]) -> dict[str, Any]:
    """The line, after checking it against the run file's JSON Schema."""
    VALIDATOR.validate(line)
    return line


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (None, None),
        ("validation", "binding"),
        ("binding", "binding"),
        ("policy", "policy"),
        ("rejected", "rejected"),
        ("skipped", "skipped"),
        ("permanent", "tool"),
        ("timeout", "timeout"),
        ("transient", "transport"),
        ("unknown_outcome", "transport"),
        ("something new", "tool"),
    ],
)
def test_eval_error_kind(kind: str | None, expected: str | None) -> None:
    assert eval_error_kind(kind) == expected


@pytest.mark.parametrize(
    ("status", "kind", "expected"),
    [
        ("ok", None, "ok"),
        ("error", "tool", "error"),
        ("error", "binding", "error"),
        ("error", "timeout", "error"),
        ("error", "transport", "error"),
        ("skipped", "skipped", "skipped"),
        ("error", "policy", "refused"),
        ("skipped", "rejected", "refused"),
    ],
)
def test_eval_call_status(status: str, kind: str | None, expected: str) -> None:
    assert eval_call_status(status, kind) == expected


def traced(records: list[tuple[str, dict[str, Any], bool]]) -> CallTrace:
    """A trace fed by hand: (node, record, started) per call, one wave each."""
    trace = CallTrace()
    for node, record, started in records:
        trace.on_update("plan", {"plan": [{"call_id": record["call_id"],
                                            "tool_id": record["tool_id"], "side_effect": True,
                                            "args": {}, "depends_on": []}]})
        trace.on_update("execute", {})
        if started:
            trace.on_event({"event": "call_started", "call_id": record["call_id"],
                            "tool_id": record["tool_id"]})
        trace.on_update(node, {"results": {record["call_id"]: record}})
    return trace


def record(call_id: str, status: str, kind: str | None, **more: Any) -> dict[str, Any]:
    return {"call_id": call_id, "tool_id": "sandbox/cancel_order", "status": status,
            "output": None, "output_ref": None, "error": None if status == "ok" else "why",
            "error_kind": kind, "attempts": 1, "duration_ms": 1.0, "replayed": False, **more}


@pytest.mark.parametrize(
    ("node", "made", "started", "status", "kind"),
    [
        ("call_tool", record("c", "ok", None, output={"order_id": 1}, args={"order_id": 1}),
         True, "ok", None),
        ("call_tool", record("c", "error", "permanent", args={"order_id": 9}), True, "error",
         "tool"),
        ("execute", record("c", "skipped", "skipped"), False, "skipped", "skipped"),
        ("call_tool", record("c", "error", "policy", args={"order_id": 1}), True, "refused",
         "policy"),
        ("approve", record("c", "skipped", "rejected"), False, "refused", "rejected"),
    ],
)
def test_each_call_status_in_a_valid_line(
    node: str, made: dict[str, Any], started: bool, status: str, kind: str | None
) -> None:
    trace = traced([(node, made, started)])
    line = valid(run_line({"id": "r", "request": "x"}, {"answer": "a"}, None, trace, SANDBOX))
    (call,) = line["calls"]
    assert (call["status"], call["error_kind"]) == (status, kind)
    assert call["tool"] == "sandbox/cancel_order" and call["side_effect"] is True
    assert call["output"] == ({"order_id": 1} if status == "ok" else None)
    assert (call["error"] is None) == (status == "ok")


def test_a_call_in_flight_when_the_run_crashed_and_one_never_reached() -> None:
    trace = CallTrace()
    plan = [{"call_id": "a", "tool_id": "s/a", "side_effect": False, "depends_on": [],
             "args": {"x": {"value": 1}}},
            {"call_id": "b", "tool_id": "s/b", "side_effect": True, "depends_on": ["a"],
             "args": {"y": {"from_call": "a", "field": "y"}, "z": {"value": 2}}}]
    trace.on_update("plan", {"plan": plan})
    trace.on_update("execute", {})
    trace.on_event({"event": "call_started", "call_id": "a", "tool_id": "s/a"})
    line = valid(run_line({"id": "r", "request": "x"}, {"plan": plan}, None, trace, {},
                          crash="RuntimeError: boom"))
    assert line["status"] == "failed" and line["error"] == "RuntimeError: boom"
    first, second = line["calls"]
    assert (first["status"], first["error_kind"], first["seq"], first["wave"]) == (
        "error", "transport", 0, 0)
    assert (second["status"], second["error_kind"], second["seq"], second["wave"]) == (
        "skipped", "skipped", 1, 1)
    assert second["args"] == {"z": 2} and second["side_effect"] is True


@pytest.mark.parametrize(
    ("values", "question", "crash", "expected"),
    [
        ({"answer": "ok", "gaps": []}, None, None, ("done", None, None, None)),
        ({}, {"type": "clarification", "question": "Which order?", "param": "order_id"}, None,
         ("question", None, "Which order?", "order_id")),
        ({"gaps": ["cancel order 9: sandbox/cancel_order error: not found"]}, None, None,
         ("failed", "cancel order 9: sandbox/cancel_order error: not found", None, None)),
        ({}, None, "RuntimeError: boom", ("failed", "RuntimeError: boom", None, None)),
        ({}, {"type": "reconcile", "question": "Did it happen?"}, None,
         ("failed", "stopped waiting for reconcile: Did it happen?", None, None)),
    ],
)
def test_each_run_status(
    values: dict[str, Any], question: dict[str, Any] | None, crash: str | None,
    expected: tuple[str, str | None, str | None, str | None],
) -> None:
    verdict = run_status(values, question, crash)
    assert (verdict["status"], verdict["error"], verdict["question"],
            verdict["question_param"]) == expected
    line = valid(run_line({"id": "r", "request": "x"}, values, question, CallTrace(), SANDBOX,
                          crash))
    assert line["status"] == expected[0] and line["sandbox"] == SANDBOX


def test_crash_line_is_the_tracebacks_last_line() -> None:
    try:
        raise RuntimeError("the MCP server died")
    except RuntimeError as exc:
        assert crash_line(exc) == "RuntimeError: the MCP server died"


async def test_waves_and_order_of_a_real_run_then_a_replay(world: World) -> None:
    """The paper's chain over Python tools: two independent calls, then two dependent ones;
    the same run id again is answered from the ledger (replayed)."""
    lines = []
    for _ in range(2):
        trace = CallTrace()
        session = Session(world.graph, world.deps, on_event=trace.on_event,
                          on_update=trace.on_update)
        outcome = await session.run(DEMO, Context(run_id="paper-run"))
        lines.append(valid(run_line({"id": "demo", "request": DEMO}, outcome.values, None,
                                    trace, SANDBOX)))
    first, again = lines
    assert first["status"] == "done"
    waves = {c["tool"]: c["wave"] for c in first["calls"]}
    assert waves == {"shop/create_product": 0, "shop/get_user_by_account": 0,
                     "shop/create_order": 1, "shop/advance_order_status": 2}
    assert [c["seq"] for c in first["calls"]] == [0, 1, 2, 3]
    assert sorted(c["wave"] for c in first["calls"]) == [c["wave"] for c in first["calls"]]
    order = next(c for c in first["calls"] if c["tool"] == "shop/create_order")
    assert order["args"] == {"user_id": 1, "product_id": 1} and order["side_effect"] is True
    assert order["output"]["order_id"] == 1 and order["status"] == "ok"
    lookup = next(c for c in first["calls"] if c["tool"] == "shop/get_user_by_account")
    assert lookup["side_effect"] is False
    assert not any(c["replayed"] for c in first["calls"])
    effects = [c for c in again["calls"] if c["side_effect"]]
    assert effects and all(c["replayed"] for c in effects)
    assert world.shop.count("orders") == 1


async def test_a_rejected_approval_is_a_refused_call(world: World) -> None:
    await world.run({"request": "create an order for account 123456"}, "setup")
    trace = CallTrace()
    session = Session(world.graph, world.deps, answer=lambda _interrupt: False,
                      on_event=trace.on_event, on_update=trace.on_update)
    outcome = await session.run("cancel order 1", Context())
    line = valid(run_line({"id": "c", "request": "cancel order 1"}, outcome.values, None,
                          trace, SANDBOX))
    (cancel,) = [c for c in line["calls"] if c["tool"] == "shop/cancel_order"]
    assert (cancel["status"], cancel["error_kind"]) == ("refused", "rejected")
    assert cancel["args"] == {"order_id": 1}
    assert line["status"] == "failed" and line["error"]
    assert world.shop.calls.get("cancel_order", 0) == 0


def test_the_run_file_is_flushed_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with RunFileWriter(path) as writer:
        writer.write({"id": "a"})
        assert path.read_text() == '{"id": "a"}\n'  # on disk before the file is closed
        writer.write({"id": "b", "sandbox": {"t": [{"blob": "00ff"}]}})
    assert [json.loads(line)["id"] for line in path.read_text().splitlines()] == ["a", "b"]


def test_instruction_lines_need_only_id_and_request(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text(
        '{"id": "a", "request": "create a test product"}\n'
        '{"id": "b", "request": "hi", "expect": "direct_answer", "gold": []}\n'
    )
    plain, scored = load_requests(path)
    assert "expect" not in plain and scored["steps"] == 0
    path.write_text('{"id": "a", "request": "hi", "expect": "direct_answer"}\n')
    with pytest.raises(E2EDataError, match="set.jsonl:1: missing gold"):
        load_requests(path)
    path.write_text('{"request": "hi"}\n')
    with pytest.raises(E2EDataError, match="missing id"):
        load_requests(path)


def test_an_unusable_model_is_an_error_with_the_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No silent fall-back to the rules: no key and no endpoint, or an endpoint that is down."""
    import socket

    from graph.cli import main

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    instructions = tmp_path / "set.jsonl"
    instructions.write_text('{"id": "a", "request": "create a test product"}\n')
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps({"tools": []}))
    base = ["eval", "e2e", "--instructions", str(instructions), "--catalog", str(catalog),
            "--home", str(tmp_path / "home"), "--out", str(tmp_path / "run.jsonl")]
    assert main([*base, "--model", "some-model"]) == 2
    err = capsys.readouterr().err
    assert "some-model" in err and "OPENAI_API_KEY" in err
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main([*base, "--model", "some-model", "--base-url",
                 f"http://127.0.0.1:{port}/v1"]) == 2
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err and "cannot be used" in err
    assert not (tmp_path / "home" / "index").exists()  # nothing was indexed, run or written
    assert not (tmp_path / "run.jsonl").exists()
