"""The BFCL harness: BFCL's own checker and tool compiler, imported without its model SDKs."""

from __future__ import annotations

from bench.evaluation.bfcl import (
    CategoryResult,
    case_request,
    compiled_tools,
    failure_cause,
    load_cases,
    no_call_kind,
    score_case,
    spread,
    summary,
)


def test_bfcl_data_and_ground_truth_load() -> None:
    cases = load_cases("simple_python")
    assert len(cases) > 300
    first = cases[0]
    assert first["id"] == "simple_python_0"
    assert first["ground_truth"]
    assert "triangle" in case_request(first)


def test_compiled_tools_keep_bfcl_names_and_give_json_schema_types() -> None:
    case = next(c for c in load_cases("simple_python") if "." in c["function"][0]["name"])
    tool = compiled_tools(case)[0]
    assert tool["name"] == case["function"][0]["name"]  # dots kept: the run file uses them
    assert tool["parameters"]["type"] == "object"  # BFCL's "dict" compiled as OpenAI does


def _gold_call(case: dict) -> list[dict]:
    return [
        {name: {arg: values[0] for arg, values in args.items() if values and values[0] != ""}}
        for option in case["ground_truth"]
        for name, args in option.items()
    ]


def test_the_checker_accepts_the_gold_call_and_rejects_a_wrong_value() -> None:
    case = load_cases("simple_python")[0]
    assert score_case("simple_python", case, _gold_call(case))
    wrong = [{"calculate_triangle_area": {"base": 11, "height": 5}}]
    assert not score_case("simple_python", case, wrong)
    assert not score_case("simple_python", case, [])


def test_irrelevance_passes_only_without_a_call() -> None:
    case = load_cases("irrelevance")[0]
    assert score_case("irrelevance", case, [])
    name = case["function"][0]["name"]
    assert not score_case("irrelevance", case, [{name: {}}])


def test_spread_and_summary() -> None:
    cases = [{"id": str(i)} for i in range(10)]
    assert [c["id"] for c in spread(cases, 5)] == ["0", "2", "4", "6", "8"]
    assert spread(cases, None) == cases
    result = CategoryResult("simple_python", cases=4, passed=1)
    assert summary({"simple_python": result}, "") == {
        "simple_python": {"accuracy": 0.25, "cases": 4}, "model": "rules"
    }


def test_failure_causes_read_the_calls_against_the_expected_ones() -> None:
    case = {"ground_truth": [{"f": {"a": [1], "b": ["", 2]}}]}
    assert failure_cause("simple_python", case, []) == "no call"
    assert failure_cause("simple_python", case, [{"g": {"a": 1}}]) == "wrong tool"
    assert failure_cause("simple_python", case, [{"f": {"a": 1}}, {"f": {"a": 1}}]) == (
        "wrong call count"
    )
    assert failure_cause("simple_python", case, [{"f": {"b": 2}}]) == "missing value"
    assert failure_cause("simple_python", case, [{"f": {"a": 3}}]) == "wrong value"
    assert failure_cause("simple_python", case, [{"f": {"a": 1, "c": 0}}]) == "extra value"
    assert failure_cause("irrelevance", {}, [{"f": {}}]) == "wrong tool"


def test_a_run_without_calls_is_told_apart_by_its_question_then_its_actions() -> None:
    assert no_call_kind("Which city?", ["call_api"]) == "asked"
    assert no_call_kind(None, ["direct_answer"]) == "answered"
    assert no_call_kind(None, ["direct_answer", "call_api"]) == "none fits"
    assert no_call_kind(None, []) == "none fits"
    assert no_call_kind(None, ["retrieve_api"], ["not understood"]) == "not understood"
    assert no_call_kind(None, ["call_api", "call_api"], ["not understood", "no tool fits"]) == (
        "none fits"
    )


def test_recorded_calls_are_listed_in_the_order_the_plan_says_them() -> None:
    from bench.evaluation.bfcl import in_plan_order

    finished = [{"price": {"company": "Apple"}}, {"price": {"company": "Microsoft"}},
                {"other": {"x": 1}}]
    plan = [{"tool_id": "bfcl/price", "args": {"company": {"value": "Microsoft"}}},
            {"tool_id": "bfcl/price", "args": {"company": {"value": "Apple"}}}]
    names = {"bfcl/price": "price"}
    assert in_plan_order(finished, plan, names) == [
        {"price": {"company": "Microsoft"}}, {"price": {"company": "Apple"}}, {"other": {"x": 1}}]
