"""The LLM path end to end with a scripted chat model: intent, repairs, fallback, synthesis,
tag enrichment, and what the model is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage

from graph.deps import Deps
from nodes.context import Context
from stores.catalog.enrich import ToolTags, enrich_catalog_with_model
from stores.catalog.model import Catalog
from stores.retrieval.tokens import token_ledger
from tests.fakes import ScriptedStructuredChatModel
from tests.unit_tests.test_pipeline import DEMO, World


class ScriptedChatModel(ScriptedStructuredChatModel):
    """Structured answers for the intent parser, text replies for ``ainvoke`` (synthesis)."""

    def __init__(self, answers: list[object], replies: list[object] | None = None) -> None:
        super().__init__(answers)
        self.replies = list(replies or [])
        self.prompts: list[str] = []

    async def ainvoke(self, prompt: object, *_: object, **__: object) -> AIMessage:
        self.prompts.append(str(prompt))
        if not self.replies:
            raise ValueError("the scripted chat model has no reply left")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return AIMessage(str(reply))

    def seen(self) -> str:
        """Everything the model was shown, as one text."""
        parts = [str(getattr(m, "content", m)) for call in self.calls for m in call]
        return "\n".join(parts + self.prompts)


def demo_intent() -> dict[str, Any]:
    return {
        "category": "order",
        "operation": "create",
        "target": "product",
        "keywords": ["product", "order", "status"],
        "sub_intents": [
            {"id": "s1", "text": "create a test product", "operation": "create",
             "target": "product", "action": "call_api"},
            {"id": "s2", "text": "place an order using account 123456", "operation": "place",
             "target": "order", "entities": {"account": "123456"}, "depends_on": ["s1"],
             "action": "call_api"},
            {"id": "s3", "text": "advance the order status to pending payment",
             "operation": "advance", "target": "order",
             "entities": {"status": "pending_payment"}, "depends_on": ["s2"],
             "action": "call_api"},
        ],
    }


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def with_model(world: World, model: Any) -> None:
    from graph.builder import build_graph

    world.deps.chat_model = model
    world.graph = build_graph(world.deps).compile(checkpointer=world.saver)


async def test_whole_graph_with_llm_intent_and_llm_synthesis(world: World) -> None:
    reply = "Created product 1, placed order 1 for Alice and moved it to pending payment."
    model = ScriptedChatModel([demo_intent()], [reply])
    with_model(world, model)
    state, events = await world.run({"request": DEMO}, "llm", output_format="text", planner="rules")

    assert state["intent"]["parser"] == "llm"
    assert [c["tool_id"] for c in state["plan"]] == [
        "shop/create_product",
        "shop/get_user_by_account",
        "shop/create_order",
        "shop/advance_order_status",
    ]
    assert all(r["status"] == "ok" for r in state["results"].values())
    assert state["answer"] == reply and state["messages"][-1].content == reply
    assert next(e for e in events if e["event"] == "intent")["parser"] == "llm"
    assert len(model.calls) == 1 and len(model.prompts) == 1

    # Only retrieved candidates may reach a model: the intent prompt holds no tool at all,
    # the synthesis prompt only the calls that ran (all of them candidates).
    candidates = {c["tool_id"] for subs in state["candidates"].values() for c in subs}
    assert {c["tool_id"] for c in state["plan"]} <= candidates
    seen = model.seen()
    for never in ("create_order_v0", "shop-prod", "issue_coupon", "cancel_order"):
        assert never not in seen
    intent_prompt = str(model.calls[0][0].content)
    assert DEMO in intent_prompt and "shop/" not in intent_prompt
    trace = model.prompts[0].rsplit("<trace>\n", 1)[1].split("\n</trace>")[0]
    assert {row["tool"] for row in json.loads(trace)} == {c["tool_id"] for c in state["plan"]}
    ledger = state["token_ledger"]
    expected = token_ledger(sorted(candidates), world.catalog)
    assert ledger["candidate_tokens"] == expected["candidate_tokens"]
    assert ledger["candidate_tokens"] < ledger["all_injection_tokens"]


async def test_a_repaired_answer_is_used(world: World) -> None:
    model = ScriptedChatModel(["this is not json", demo_intent()])
    with_model(world, model)
    state, _ = await world.run({"request": DEMO}, "repair", planner="rules")
    assert state["intent"]["parser"] == "llm"
    assert len(model.calls) == 2
    repair = str(model.calls[1][-1].content)
    assert "not a valid IntentModel" in repair
    assert state["results"]["s3.core"]["status"] == "ok"


async def test_malformed_output_falls_back_to_rules_after_two_repairs(world: World) -> None:
    model = ScriptedChatModel(
        ["{not json", {"sub_intents": "nope"}, ValueError("the model went away")]
    )
    with_model(world, model)
    state, _ = await world.run({"request": DEMO}, "fallback", planner="rules")  # md: template
    parser = state["intent"]["parser"]
    assert parser.startswith("rules (llm failed:") and "3 attempts" in parser
    assert len(model.calls) == 3  # the first answer and two repairs, no more
    assert model.prompts == []  # md answers come from the template
    assert all(r["status"] == "ok" for r in state["results"].values())
    assert "pending_payment" in state["answer"]


async def test_a_model_that_raises_never_crashes_the_run(world: World) -> None:
    model = ScriptedChatModel(
        [ConnectionError("no route"), ConnectionError("no route"), ConnectionError("no route")],
        [TimeoutError("too slow")],
    )
    with_model(world, model)
    state, _ = await world.run({"request": "create a test product"}, "down", planner="rules",
                               output_format="text")
    assert state["intent"]["parser"].startswith("rules (llm failed:")
    assert state["results"]["s1.core"]["status"] == "ok"
    assert "(model synthesis failed: TimeoutError)" in state["answer"]


def test_chat_model_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ZSPACE_MODEL", raising=False)
    assert Deps().chat_model_for(Context()) is None
    assert Deps().chat_model_for(Context(model="gpt-4o-mini")) is None  # no key, no URL
    injected = ScriptedChatModel([])
    assert Deps(chat_model=injected).chat_model_for(Context(model="gpt-4o-mini")) is injected
    local = Deps().chat_model_for(Context(model="qwen2.5", base_url="http://127.0.0.1:9/v1"))
    assert type(local).__name__ == "ChatOpenAI" and local.model_name == "qwen2.5"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    deps = Deps()
    first = deps.chat_model_for(Context(model="gpt-4o-mini"))
    assert type(first).__name__ == "ChatOpenAI"
    assert deps.chat_model_for(Context(model="gpt-4o-mini")) is first  # built once


def _untagged_catalog() -> Catalog:
    catalog = Catalog()
    catalog.load_document(
        {
            "tools": [
                {
                    "name": "open_ticket",
                    "agent": "desk",
                    "description": "Open a support ticket for a customer.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"customer_id": {"type": "string"}},
                        "required": ["customer_id"],
                    },
                },
                {
                    "name": "close_ticket",
                    "agent": "desk",
                    "description": "Close a support ticket.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"ticket_id": {"type": "string"}},
                        "required": ["ticket_id"],
                    },
                },
            ]
        },
        source="desk",
    )
    return catalog


def test_llm_tag_enrichment_is_cached_by_content_hash(tmp_path: Path) -> None:
    cache = tmp_path / "tags.json"
    model = ScriptedChatModel(
        [
            ToolTags(summary="Opens a ticket.", entity_tags=["ticket", "customer"],
                     capability_tags=["open"]),
            {"summary": "Closes a ticket.", "entity_tags": ["ticket"],
             "capability_tags": ["close"]},
        ]
    )
    catalog = _untagged_catalog()
    counts = enrich_catalog_with_model(catalog, model, cache)
    assert counts == {"asked": 2, "cached": 0, "failed": 0}
    opened = catalog.tools["desk/open_ticket"]
    assert opened.summary == "Opens a ticket." and opened.entity_tags == ["ticket", "customer"]
    # Each prompt shows one tool only.
    first_prompt = str(model.calls[0][0].content)
    assert "open_ticket" in first_prompt and "close_ticket" not in first_prompt

    again = _untagged_catalog()
    counts = enrich_catalog_with_model(again, model, cache)
    assert counts == {"asked": 0, "cached": 2, "failed": 0}
    assert len(model.calls) == 2  # the second pass asked nothing
    assert again.tools["desk/close_ticket"].capability_tags == ["close"]


def test_llm_tag_enrichment_falls_back_offline_on_bad_answers(tmp_path: Path) -> None:
    model = ScriptedChatModel(["junk"] * 3 + ["junk"] * 3)
    catalog = _untagged_catalog()
    counts = enrich_catalog_with_model(catalog, model, tmp_path / "tags.json")
    assert counts == {"asked": 2, "cached": 0, "failed": 2}
    assert catalog.tools["desk/open_ticket"].entity_tags  # derived offline instead
    assert json.loads((tmp_path / "tags.json").read_text()) == {}
