"""A clause that only sets the scene for another clause's call is folded into that call.

Before: "We are planning a game night after dinner; what are the odds of a total of 11 with
2 dice?" read the first clause as a second call of the same tool, its values borrowed from
anywhere in the request (the dinner's 25 minutes as the number of dice).
"""

from __future__ import annotations

from typing import Any

from nodes.planning.clause_calls import fold_fragments
from nodes.planning.draft import PlanDraft, PlanRequest


def _call(sub: str, **args: tuple[Any, str]) -> dict[str, Any]:
    return {"call_id": f"{sub}.core", "sub_intent_id": sub, "tool_id": "t/dice_odds",
            "role": "core", "depends_on": [], "side_effect": False,
            "args": {p: {"value": v, "origin": o} for p, (v, o) in args.items()}}


def _draft(*calls: dict[str, Any]) -> PlanDraft:
    subs = [{"id": c["sub_intent_id"], "text": c["sub_intent_id"], "operation": "get",
             "target": "", "keywords": [], "entities": {}, "depends_on": [],
             "action": "call_api"} for c in calls]
    intent = {"request": "", "sub_intents": subs, "entities": {}}
    draft = PlanDraft(PlanRequest(intent=intent))  # type: ignore[arg-type]
    for call in calls:
        draft.add_calls(call["sub_intent_id"], [call])  # type: ignore[list-item]
    return draft


def _values(draft: PlanDraft) -> list[dict[str, Any]]:
    return [{p: s.get("value") for p, s in c["args"].items()} for c in draft.calls]


def test_a_clause_of_borrowed_values_is_covered_by_the_call_that_says_them() -> None:
    draft = _draft(
        _call("s1", dice=(25, "elsewhere:dice"), total=(11, "elsewhere:total")),
        _call("s2", dice=(2, "span:dice"), total=(11, "span:total")),
    )
    fold_fragments(draft, lambda sub: False)
    assert _values(draft) == [{"dice": 2, "total": 11}]
    assert draft.decisions["s1"]["action"] == "covered"


def test_the_fragment_s_own_value_joins_the_call_when_that_call_lacks_it() -> None:
    draft = _draft(
        _call("s1", sides=(6, "span:sides"), dice=(2, "elsewhere:dice"),
              total=(11, "elsewhere:total")),
        _call("s2", dice=(2, "span:dice"), total=(11, "span:total")),
    )
    fold_fragments(draft, lambda sub: False)
    assert _values(draft) == [{"dice": 2, "total": 11, "sides": 6}]


def test_a_clause_that_says_its_own_different_value_keeps_its_call() -> None:
    # "odds of 11 with 2 dice and 6 sides; then the same with 8 sides"
    draft = _draft(
        _call("s1", dice=(2, "span:dice"), total=(11, "span:total"), sides=(6, "span:sides")),
        _call("s2", sides=(8, "span:sides"), dice=(2, "elsewhere:dice"),
              total=(11, "elsewhere:total")),
    )
    fold_fragments(draft, lambda sub: False)
    assert len(draft.calls) == 2


def test_a_call_whose_values_are_mostly_its_own_is_no_fragment() -> None:
    draft = _draft(
        _call("s1", dice=(3, "span:dice"), total=(11, "elsewhere:total")),
        _call("s2", dice=(2, "span:dice"), total=(11, "span:total")),
    )
    fold_fragments(draft, lambda sub: False)
    assert len(draft.calls) == 2


def test_without_a_call_that_says_the_values_the_clause_keeps_its_call() -> None:
    draft = _draft(_call("s1", dice=(25, "elsewhere:dice"), total=(11, "elsewhere:total")))
    fold_fragments(draft, lambda sub: False)
    assert len(draft.calls) == 1


def test_a_continuation_whose_values_another_call_already_took_is_covered() -> None:
    # "the distance of a cyclist starting at 4 m/s and then speeding up at 2 m/s^2 for 6 s"
    host = _call("s1", speed=(4, "span:speed"), accel=(2, "elsewhere:accel"),
                 seconds=(6, "elsewhere:seconds"))
    host["tool_id"] = "t/distance"
    draft = _draft(host, _call("s2", speed=(2.0, "span:speed"), seconds=(6.0, "span:seconds"),
                               accel=(2, "elsewhere:accel")))
    fold_fragments(draft, lambda sub: False)
    assert [c["tool_id"] for c in draft.calls] == ["t/distance"]
    assert draft.decisions["s2"]["action"] == "covered"


def test_a_clause_whose_values_were_not_all_taken_keeps_its_call() -> None:
    # "the distance at 4 m/s for 6 s, then the final speed at 2 m/s^2 for 9 s"
    host = _call("s1", speed=(4, "span:speed"), seconds=(6, "span:seconds"),
                 accel=(2, "elsewhere:accel"))
    host["tool_id"] = "t/distance"
    draft = _draft(host, _call("s2", accel=(2, "span:accel"), seconds=(9, "span:seconds")))
    fold_fragments(draft, lambda sub: False)
    assert len(draft.calls) == 2


def test_a_clause_that_names_its_own_job_or_comes_first_keeps_its_call() -> None:
    # "Calculate the final speed from 4 m/s, 2 m/s^2 and 6 s. Also compute the distance."
    def draft() -> PlanDraft:
        host = _call("s2", speed=(4, "elsewhere:speed"), accel=(2, "elsewhere:accel"),
                     seconds=(6, "elsewhere:seconds"))
        host["tool_id"] = "t/distance"
        return _draft(_call("s1", speed=(4, "span:speed"), accel=(2, "span:accel"),
                            seconds=(6, "span:seconds")), host)

    first = draft()
    fold_fragments(first, lambda sub: False)
    assert len(first.calls) == 2
    named = _draft(*draft().calls[::-1])
    fold_fragments(named, lambda sub: True)
    assert len(named.calls) == 2


def test_a_call_another_clause_also_makes_is_no_fragment() -> None:
    from tests.unit_tests.test_rule_planner_schema import INT, calls, plan

    square = ("square_area", "The area of a square.",
              {"side": {**INT, "description": "Side length"}}, ["side"])
    draft = plan("What is the total area of three squares, where the first square has a side "
                 "of 2 meters, the second a side of 3 meters, and the third a side of 4 meters?",
                 square)
    assert sorted(v["side"] for _, v in calls(draft)) == [2, 3, 4]


def test_a_value_the_host_s_clause_says_but_drops_keeps_the_fragment() -> None:
    # "Can you work out the odds for me? We rolled 2 dice for a total of 7, and might roll
    # 3 dice for the same total."
    draft = _draft(
        _call("s1", dice=(2, "elsewhere:dice"), total=(7, "elsewhere:total")),
        _call("s2", dice=(3, "span:dice"), total=(7, "span:total")),
    )
    draft.request.intent["sub_intents"][1]["text"] = (
        "We rolled 2 dice for a total of 7, and might roll 3 dice for the same total."
    )
    fold_fragments(draft, lambda sub: False)
    assert len(draft.calls) == 2
