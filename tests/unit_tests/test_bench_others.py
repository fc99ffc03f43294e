"""The sets of requests written by others: well formed, and read as BFCL cases."""

from __future__ import annotations

from bench.others import SETS, as_case, load_set


def test_every_set_holds_70_requests_of_one_tool_with_ids_of_its_own() -> None:
    for name in SETS:
        items = load_set(name)
        assert len(items) == 70
        assert len({item["id"] for item in items}) == 70
        assert all(len(item["f"]) == 1 and item["q"].strip() for item in items)
        unfit = [item for item in items if item["want"] is None]
        assert 14 <= len(unfit) <= 15


def test_a_request_is_a_live_simple_case_or_an_irrelevance_case() -> None:
    items = load_set("A")
    fits = next(item for item in items if item["want"] is not None)
    category, case = as_case(fits)
    assert category == "live_simple"
    assert case["ground_truth"] == [fits["want"]]
    assert case["question"][0][0]["content"] == fits["q"]
    unfit = next(item for item in items if item["want"] is None)
    assert as_case(unfit)[0] == "irrelevance" and as_case(unfit)[1]["ground_truth"] == []
