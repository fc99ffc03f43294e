"""parse_intent, normalize and clarify write exactly the state keys their docstrings name."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, get_type_hints

import pytest
from langgraph.types import Command

import nodes.clarify
import nodes.intent
import nodes.normalize
from nodes.state import ZState
from tests.unit_tests.test_pipeline import World

CONTRACT_PARTS = ("reads", "writes")
CONTRACT = re.compile(r"^\s*Reads: (?P<reads>[^.]*)\.\s*^\s*Writes: (?P<writes>[^.]*)\.", re.M)


def contract(docstring: str | None) -> tuple[set[str], set[str]]:
    match = CONTRACT.search(docstring or "")
    assert match is not None, "no 'Reads: ... . Writes: ... .' lines"
    reads, writes = ({key.strip() for key in match.group(part).split(",")} for part in CONTRACT_PARTS)
    return reads, writes


NODES: list[tuple[str, ModuleType, Callable[..., Any]]] = [
    ("parse_intent", nodes.intent, nodes.intent.parse_intent),
    ("normalize", nodes.normalize, nodes.normalize.normalize),
    ("clarify", nodes.clarify, nodes.clarify.clarify),
]


@pytest.mark.parametrize(("name", "module", "node"), NODES, ids=[n[0] for n in NODES])
def test_module_and_node_docstrings_name_the_same_state_keys(
    name: str, module: ModuleType, node: Callable[..., Any]
) -> None:
    reads, writes = contract(node.__doc__)
    assert contract(module.__doc__) == (reads, writes)
    assert reads | writes <= set(get_type_hints(ZState)), name


async def test_each_node_returns_exactly_the_keys_it_says_it_writes(tmp_path: Path) -> None:
    world = World(tmp_path)
    written: dict[str, set[str]] = {}
    config = {"configurable": {"thread_id": "contracts"}}
    # A reference with nothing to refer to: parse, normalize, then ask (clarify) which order.
    for payload in ({"request": "advance that order to paid"}, Command(resume="1")):
        async for update in world.graph.astream(payload, config, stream_mode="updates"):
            for node, keys in update.items():
                if node in {name for name, *_ in NODES} and isinstance(keys, dict):
                    written.setdefault(node, set()).update(keys)
    for name, _, node in NODES:
        assert written.get(name) == contract(node.__doc__)[1], name
