"""A scene-setting clause whose only own value is one of its plain words is still a fragment.

"First, I'm planning a trip and I'm interested in mountains. I'm currently in Tokyo and want
the 5 tallest mountains within 200 km": the first clause read "planning" as the location; a
plain lower-case word is no value said against the other clause's "Tokyo".
"""

from __future__ import annotations

from typing import Any

from nodes.planning.clause_calls import fold_fragments
from nodes.planning.draft import PlanDraft, PlanRequest


def _call(sub: str, **args: tuple[Any, str]) -> dict[str, Any]:
    return {"call_id": f"{sub}.core", "sub_intent_id": sub, "tool_id": "t/tallest_peaks",
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


def test_a_plain_word_read_as_a_value_does_not_keep_a_fragment_s_call() -> None:
    draft = _draft(
        _call("s1", location=("planning", "span:location"), radius=(200, "elsewhere:radius"),
              amount=(5, "elsewhere:amount")),
        _call("s2", location=("Tokyo", "span:location"), radius=(200, "span:radius"),
              amount=(5, "span:amount")),
    )
    fold_fragments(draft, lambda sub: False)
    assert _values(draft) == [{"location": "Tokyo", "radius": 200, "amount": 5}]


def test_a_name_said_against_the_other_call_keeps_the_fragment_s_call() -> None:
    draft = _draft(
        _call("s1", location=("Kyoto", "span:location"), radius=(200, "elsewhere:radius"),
              amount=(5, "elsewhere:amount")),
        _call("s2", location=("Tokyo", "span:location"), radius=(200, "span:radius"),
              amount=(5, "span:amount")),
    )
    fold_fragments(draft, lambda sub: False)
    assert len(draft.calls) == 2
