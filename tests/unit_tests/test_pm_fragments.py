"""A scene-setting clause whose only own value is one of its plain words is still a fragment.

"First, I'm planning a trip and I'm interested in mountains. I'm currently in Tokyo and want
the 5 tallest mountains within 200 km": the first clause read "planning" as the location; a
plain lower-case word is no value said against the other clause's "Tokyo".
"""

from __future__ import annotations

from nodes.planning.clause_calls import fold_fragments
from tests.unit_tests.test_structure_fragments import _call, _draft, _values


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
