"""Values said as alternatives ("at 7pm or 8pm"): a write is made once, and the user picks.

Written here (none from a benchmark). A call that changes data is never repeated for values
the request offers as a choice; it asks which, and the answer makes one call. Reads are still
made for each value ("the weather in Oslo or Rome" compares), and "and" still asks for both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langgraph.types import Command

from nodes.planning.alternatives import said_alternatives
from nodes.planning.draft import PlanDraft
from stores.catalog.model import Catalog
from stores.retrieval.embeddings import default_embedder
from tests.unit_tests.test_pipeline import World
from tests.unit_tests.test_rule_planner_schema import plan_catalog

BOOKING: dict[str, Any] = {
    "type": "object",
    "properties": {
        "restaurant": {"type": "string", "description": "Restaurant name"},
        "time": {"type": "string", "description": "Reservation time"},
        "party_size": {"type": "integer", "description": "Number of guests"},
    },
    "required": ["restaurant", "time", "party_size"],
}


def _plan(request: str, writes: bool, clarifications: dict[str, Any] | None = None) -> PlanDraft:
    catalog = Catalog()
    catalog.add_raw_tool(
        {"name": "book_table", "agent": "t", "description": "Reserve a table at a restaurant.",
         "side_effect": writes, "environment": "test", "input_schema": BOOKING},
        source="test",
    )
    return plan_catalog(request, catalog, default_embedder(), clarifications)


def _times(draft: PlanDraft) -> list[Any]:
    return [c["args"]["time"]["value"] for c in draft.calls if c["role"] == "core"]


REQUEST = "Book a table for 2 at Chez Panisse at 7pm or 8pm"


def test_a_write_offered_two_values_as_a_choice_asks_which() -> None:
    draft = _plan(REQUEST, writes=True)
    assert _times(draft) == []
    assert draft.question is not None and draft.question["param"] == "time"
    assert "'7pm' or '8pm'" in draft.question["question"]
    # the answer makes the one call
    answered = _plan(REQUEST, writes=True, clarifications={draft.question["sub_intent"] + ".time":
                                                           "8pm"})
    assert _times(answered) == ["8pm"] and answered.question is None
    # the answer may be the first of the two as well
    first = _plan(REQUEST, writes=True, clarifications={"s1.time": "7pm"})
    assert _times(first) == ["7pm"]


def test_reads_and_both_values_said_with_and_are_still_each_a_call() -> None:
    assert sorted(_times(_plan(REQUEST, writes=False))) == ["7pm", "8pm"]
    both = _plan("Book a table for 2 at Chez Panisse at 7pm and 8pm", writes=True)
    assert sorted(_times(both)) == ["7pm", "8pm"] and both.question is None


def test_alternatives_need_one_list_said_with_or_and_one_differing_parameter() -> None:
    def core(**values: Any) -> Any:
        return {"args": {k: {"value": v} for k, v in values.items()}}

    cores = [core(time="7pm", size=2), core(time="8pm", size=2)]
    assert said_alternatives("at 7pm or 8pm", cores) == ("time", ["7pm", "8pm"])
    assert said_alternatives("at 7pm, or 8pm", cores) == ("time", ["7pm", "8pm"])
    assert said_alternatives("at 7pm and 8pm", cores) is None
    assert said_alternatives("at 7pm or 8pm", cores[:1]) is None
    two = [core(time="7pm", size=2), core(time="8pm", size=3)]
    assert said_alternatives("at 7pm or 8pm for 2 or 3", two) is None


async def test_through_the_graph_a_write_of_two_offered_prices_asks_then_writes_once(
    tmp_path: Path,
) -> None:
    world = World(tmp_path)
    await world.run({"request": "create a product named Blue Mug priced $10 or $12"}, "or")
    snapshot = await world.graph.aget_state({"configurable": {"thread_id": "or"}})
    assert snapshot.next == ("clarify",)
    question = snapshot.tasks[0].interrupts[0].value
    assert question["param"] == "price" and "10 or 12" in question["question"]
    assert world.shop.count("products") == 0
    state, _ = await world.run(Command(resume="12"), "or")
    assert world.shop.count("products") == 1
    created = [r for r in state["results"].values() if r["status"] == "ok"]
    assert len(created) == 1 and created[0]["args"]["price"] == 12
