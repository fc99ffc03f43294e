"""Scoring of the end-to-end harness: chains, order, from-references, literal normalization."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.evaluation.e2e import E2EDataError, load_requests, retrieval_queries
from bench.evaluation.scoring import (
    E2EReport,
    ExecutedCall,
    RequestOutcome,
    executed_calls,
    literals_equal,
    score_chain,
    score_request,
)

PAPER_GOLD: list[dict[str, Any]] = [
    {"tool": "sandbox/create_product", "args": {}},
    {"tool": "sandbox/get_user_by_account", "args": {"account_number": "123456"}},
    {
        "tool": "sandbox/create_order",
        "args": {"user_id": {"from": "1.user_id"}, "product_id": {"from": "0.product_id"}},
    },
    {
        "tool": "sandbox/advance_order_status",
        "args": {"order_id": {"from": "2.order_id"}, "status": "pending_payment"},
    },
]


def paper_run(**overrides: Any) -> list[ExecutedCall]:
    calls = {
        "s1.core": ExecutedCall("s1.core", "sandbox/create_product", {}, {"product_id": 7}),
        "s2.aux1": ExecutedCall(
            "s2.aux1", "sandbox/get_user_by_account", {"account_number": "123456"}, {"user_id": 1}
        ),
        "s2.core": ExecutedCall(
            "s2.core",
            "sandbox/create_order",
            {"user_id": 1, "product_id": 7, "quantity": 1},
            {"order_id": 6},
            frozenset({"s1.core", "s2.aux1"}),
        ),
        "s3.core": ExecutedCall(
            "s3.core",
            "sandbox/advance_order_status",
            {"order_id": 6, "status": "pending_payment"},
            {"order_id": 6, "status": "pending_payment"},
            frozenset({"s2.core", "s1.core", "s2.aux1"}),
        ),
    }
    for call_id, call in overrides.items():
        calls[call_id.replace("_", ".")] = call
    # Results arrive in any order: the scorer must not rely on it.
    return list(reversed(list(calls.values())))


def test_matching_chain_is_correct() -> None:
    score = score_chain(PAPER_GOLD, paper_run())
    assert score.correct, score.reason
    assert score.assignment == ["s1.core", "s2.aux1", "s2.core", "s3.core"]


def test_missing_and_extra_calls_are_wrong() -> None:
    run = [c for c in paper_run() if c.tool_id != "sandbox/get_user_by_account"]
    score = score_chain(PAPER_GOLD, run)
    assert not score.correct and "missing sandbox/get_user_by_account" in score.reason
    extra = [*paper_run(), ExecutedCall("x", "sandbox/list_orders", {}, {"orders": []})]
    score = score_chain(PAPER_GOLD, extra)
    assert not score.correct and "extra sandbox/list_orders" in score.reason


def test_order_violation_is_wrong() -> None:
    # The order call got the right product id but did not wait for the product call.
    early = ExecutedCall(
        "s2.core",
        "sandbox/create_order",
        {"user_id": 1, "product_id": 7},
        {"order_id": 6},
        frozenset({"s2.aux1"}),
    )
    score = score_chain(PAPER_GOLD, paper_run(s2_core=early))
    assert not score.correct and "does not wait" in score.reason


def test_from_reference_must_equal_the_runs_output() -> None:
    wrong = ExecutedCall(
        "s2.core",
        "sandbox/create_order",
        {"user_id": 1, "product_id": 1},  # the seeded product, not the one just created
        {"order_id": 6},
        frozenset({"s1.core", "s2.aux1"}),
    )
    score = score_chain(PAPER_GOLD, paper_run(s2_core=wrong))
    assert not score.correct and "product_id" in score.reason


def test_literal_mismatch_is_wrong() -> None:
    wrong = ExecutedCall(
        "s3.core",
        "sandbox/advance_order_status",
        {"order_id": 6, "status": "paid"},
        {"order_id": 6},
        frozenset({"s2.core"}),
    )
    score = score_chain(PAPER_GOLD, paper_run(s3_core=wrong))
    assert not score.correct and "status" in score.reason


def test_repeated_tools_are_assigned_by_backtracking() -> None:
    gold = [
        {"tool": "sandbox/create_order", "args": {"product_id": 1}},
        {
            "tool": "sandbox/advance_order_status",
            "args": {"order_id": {"from": "0.order_id"}, "status": "pending_payment"},
        },
        {
            "tool": "sandbox/advance_order_status",
            "args": {"order_id": {"from": "0.order_id"}, "status": "paid"},
        },
    ]
    run = [
        ExecutedCall(
            "c",
            "sandbox/advance_order_status",
            {"order_id": 6, "status": "paid"},
            {},
            frozenset({"a", "b"}),
        ),
        ExecutedCall(
            "b",
            "sandbox/advance_order_status",
            {"order_id": 6, "status": "pending_payment"},
            {},
            frozenset({"a"}),
        ),
        ExecutedCall("a", "sandbox/create_order", {"product_id": 1}, {"order_id": 6}),
    ]
    score = score_chain(gold, run)
    assert score.correct, score.reason
    assert score.assignment == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("expected", "actual", "equal"),
    [
        (3, "3", True),
        (24.5, "24.50", True),
        (20, 20.0, True),
        ("000042", "000042", True),
        ("000042", 42, False),
        ("Desk Lamp", "desk  lamp", True),
        ("pending_payment", "paid", False),
        (True, "true", False),
        (12.99, 12.98, False),
        (0.1 + 0.2, 0.3, True),
    ],
)
def test_literal_normalization(expected: Any, actual: Any, equal: bool) -> None:
    assert literals_equal(expected, actual) is equal


def values_of(
    results: dict[str, Any], plan: list[dict[str, Any]] | None = None, answer: str = ""
) -> dict[str, Any]:
    return {"results": results, "plan": plan or [], "answer": answer, "gaps": []}


def test_executed_calls_keep_successes_with_ancestors(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"orders": [{"order_id": 1}]}))
    plan = [
        {"call_id": "a", "depends_on": []},
        {"call_id": "b", "depends_on": ["a"]},
        {"call_id": "c", "depends_on": ["b"]},
    ]
    results = {
        "a": {"tool_id": "t/a", "status": "ok", "output": {"x": 1}, "args": {}},
        "b": {"tool_id": "t/b", "status": "error", "output": None, "args": {}},
        "c": {
            "tool_id": "t/c",
            "status": "ok",
            "output": "…truncated",
            "output_ref": str(big),
            "args": {"x": 1},
        },
    }
    calls = {c.call_id: c for c in executed_calls(values_of(results, plan))}
    assert set(calls) == {"a", "c"}
    assert calls["c"].ancestors == frozenset({"a", "b"})
    assert calls["c"].output == {"orders": [{"order_id": 1}]}


def test_score_request_by_expectation() -> None:
    question = {"type": "clarification", "question": "Which order?"}
    clarify_row = {"expect": "clarify", "gold": []}
    assert score_request(clarify_row, values_of({}), question)[0]
    assert not score_request(clarify_row, values_of({}), None)[0]
    direct_row = {"expect": "direct_answer", "gold": []}
    assert score_request(direct_row, values_of({}, answer="Hello!"), None)[0]
    called = {"a": {"tool_id": "sandbox/list_users", "status": "ok", "output": {}, "args": {}}}
    assert not score_request(direct_row, values_of(called, answer="x"), None)[0]
    calls_row = {"expect": "calls", "gold": [{"tool": "sandbox/list_users", "args": {}}]}
    assert score_request(calls_row, values_of(called), None)[0]
    correct, reason = score_request(calls_row, values_of(called), question)
    assert not correct and reason.startswith("asked")


def outcome(
    id_: str, expect: str, steps: int, correct: bool, asked: bool = False
) -> RequestOutcome:
    return RequestOutcome(
        id_,
        "r",
        expect,
        steps,
        correct,
        "" if correct else "x",
        asked,
        [],
        100,
        10000,
        wall_ms=50.0,
        tool_ms=20.0,
    )


def test_report_figures() -> None:
    report = E2EReport(
        "dev",
        [
            outcome("a", "calls", 1, True),
            outcome("b", "calls", 1, False, asked=True),
            outcome("c", "calls", 5, True),
            outcome("d", "clarify", 0, True, asked=True),
            outcome("e", "direct_answer", 0, False),
        ],
    )
    figures = report.figures()
    assert figures["accuracy"] == 0.6
    assert figures["by_steps"]["1"] == {"n": 2, "correct": 1, "accuracy": 0.5}
    assert figures["accuracy_5_6_steps"] == 1.0
    assert figures["clarify_accuracy"] == 1.0
    assert figures["direct_answer_accuracy"] == 0.0
    assert figures["unexpected_questions"] == 1
    assert figures["tokens_ratio"] == 0.01
    assert figures["latency_ms_p50"] == 30.0


def test_load_requests_checks_lines(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    path.write_text('{"id": "a", "request": "hi", "expect": "direct_answer", "gold": []}\n')
    assert load_requests(path)[0]["steps"] == 0
    path.write_text('{"id": "a", "request": "hi", "expect": "maybe", "gold": []}\n')
    with pytest.raises(E2EDataError, match="set.jsonl:1"):
        load_requests(path)


def test_retrieval_queries_align_clauses() -> None:
    row = {
        "id": "q",
        "request": "create a test product, then archive it",
        "expect": "calls",
        "gold": [
            {"tool": "sandbox/create_product", "args": {}},
            {"tool": "sandbox/archive_product", "args": {"product_id": {"from": "0.product_id"}}},
        ],
    }
    (query,) = retrieval_queries([row])
    assert query["tools"] == ["sandbox/create_product", "sandbox/archive_product"]
    assert query["agents"] == ["sandbox"]
    assert [s["text"] for s in query["steps"]] == ["create a test product", "archive it"]
