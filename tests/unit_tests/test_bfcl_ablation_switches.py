"""Every switch of ``python -m bench bfcl_ablation`` still reaches the code it switches off.

The switches are patches by name: a rename in the planner would otherwise make a row of the
ablation silently measure the full binder again.
"""

from __future__ import annotations

import pytest

from bench.bfcl_ablation import _switches


@pytest.mark.parametrize("name", sorted(_switches()))
def test_each_switch_patches_an_existing_target(name: str) -> None:
    _what, switch_off = _switches()[name]
    with switch_off():  # mock.patch.object raises AttributeError for a missing target
        pass


def test_the_components_of_recent_sessions_are_switchable() -> None:
    assert {"relevance by meaning", "statements as context", "coordinated reads",
            "argument groups", "relevance gate", "list -> calls", "gate by given values",
            "units", "fold fragments", "partial plan"} <= set(_switches())
