"""The LLM intent parser with a scripted chat model: valid answers, repairs, failures."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from nodes.parsing import IntentParseError
from nodes.parsing.llm import LLMIntentParser
from nodes.parsing.rules import RuleIntentParser
from nodes.schemas import IntentModel
from tests.fakes import ScriptedStructuredChatModel

REQUEST = (
    "create a test product, place an order using account 123456, and advance the order status "
    "to pending payment"
)


def _answer(**overrides: Any) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "category": "Order",
        "operation": "create",
        "target": "product",
        "keywords": ["product", "order"],
        "sub_intents": [
            {
                "id": "s1",
                "text": "create a test product",
                "operation": "make",
                "target": "item",
                "keywords": ["product"],
                "entities": {},
                "depends_on": [],
                "action": "call_api",
            },
            {
                "id": "s2",
                "text": "place an order using account 123456",
                "operation": "place",
                "target": "orders",
                "entities": {"account": "123456", "user_id": "999"},
                "depends_on": ["s1"],
                "action": "call_api",
            },
            {
                "id": "s3",
                "text": "advance the order status to pending payment",
                "operation": "advance",
                "target": "order",
                "entities": {"status": "pending_payment"},
                "depends_on": ["s2"],
                "action": "call_api",
            },
        ],
    }
    answer.update(overrides)
    return answer


def test_valid_answer_is_normalized_and_fact_checked() -> None:
    model = ScriptedStructuredChatModel([IntentModel.model_validate(_answer())])
    intent = LLMIntentParser(model).parse(REQUEST)
    assert intent["parser"] == "llm"
    assert intent["request"] == REQUEST
    assert intent["category"] == "order"
    subs = intent["sub_intents"]
    assert [(s["operation"], s["target"]) for s in subs] == [
        ("create", "product"),
        ("create", "order"),
        ("advance", "order"),
    ]
    # the invented user id 999 is dropped; literal values are kept
    assert subs[1]["entities"] == {"account": "123456"}
    assert subs[2]["entities"] == {"status": "pending_payment"}
    assert [s["depends_on"] for s in subs] == [[], ["s1"], ["s2"]]
    assert intent["entities"]["named"]["account"] == "123456"
    assert (intent["operation"], intent["target"]) == ("create", "product")
    assert json.loads(json.dumps(intent)) == intent
    assert len(model.calls) == 1
    prompt = str(model.calls[0][0].content)
    assert "<request>" in prompt and REQUEST in prompt and model.schemas == [IntentModel]


def test_dict_and_json_answers_are_accepted() -> None:
    for raw in (_answer(), json.dumps(_answer())):
        intent = LLMIntentParser(ScriptedStructuredChatModel([raw])).parse(REQUEST)
        assert len(intent["sub_intents"]) == 3


def test_rule_extractor_fills_values_the_model_missed() -> None:
    answer = _answer()
    answer["sub_intents"][1]["entities"] = {}
    intent = LLMIntentParser(ScriptedStructuredChatModel([answer])).parse(REQUEST)
    assert intent["sub_intents"][1]["entities"] == {"account": "123456"}


def test_garbage_then_valid_answer_is_repaired() -> None:
    model = ScriptedStructuredChatModel(["not json at all", _answer()])
    intent = LLMIntentParser(model).parse(REQUEST)
    assert intent["parser"] == "llm"
    assert len(model.calls) == 2
    # the repair turn tells the model what was wrong
    assert "not a valid IntentModel" in str(model.calls[1][-1].content)


def test_invalid_dependencies_are_repaired() -> None:
    forward = _answer()
    forward["sub_intents"][0]["depends_on"] = ["s2"]
    model = ScriptedStructuredChatModel([forward, _answer()])
    assert LLMIntentParser(model).parse(REQUEST)["parser"] == "llm"
    assert "not earlier" in str(model.calls[1][-1].content)


def test_three_garbage_answers_raise_a_typed_error() -> None:
    model = ScriptedStructuredChatModel(["garbage", {"sub_intents": []}, 42])
    with pytest.raises(IntentParseError, match="fallback=RuleIntentParser"):
        LLMIntentParser(model).parse(REQUEST)
    assert len(model.calls) == 3


def test_three_garbage_answers_use_the_fallback_with_a_marker() -> None:
    model = ScriptedStructuredChatModel(["garbage"] * 3)
    intent = LLMIntentParser(model, fallback=RuleIntentParser()).parse(REQUEST)
    assert intent["parser"].startswith("rules (llm failed:")
    assert [s["target"] for s in intent["sub_intents"]] == ["product", "order", "order"]


def test_model_errors_use_the_fallback() -> None:
    model = ScriptedStructuredChatModel([ConnectionError("network down")])
    intent = LLMIntentParser(model, fallback=RuleIntentParser()).parse("look up order 17")
    assert "ConnectionError" in intent["parser"]
    with pytest.raises(IntentParseError):
        LLMIntentParser(ScriptedStructuredChatModel([RuntimeError("boom")])).parse("hi")


def test_non_text_request_is_rejected() -> None:
    with pytest.raises(IntentParseError, match="must be text"):
        LLMIntentParser(ScriptedStructuredChatModel([])).parse(42)  # type: ignore[arg-type]


def test_direct_answer_and_clarify_pass_through() -> None:
    answer = {
        "sub_intents": [
            {"id": "s1", "text": "hi", "action": "direct_answer", "answer": "Hello!"},
            {
                "id": "s2",
                "text": "cancel the order",
                "operation": "cancel",
                "target": "order",
                "action": "clarify_intent",
                "question": "Which order?",
            },
        ],
        "output_format": "json",
    }
    intent = LLMIntentParser(ScriptedStructuredChatModel([answer])).parse("hi, cancel the order")
    subs = intent["sub_intents"]
    assert (subs[0]["action"], subs[0]["answer"]) == ("direct_answer", "Hello!")
    assert (subs[1]["action"], subs[1]["question"]) == ("clarify_intent", "Which order?")
    assert intent["category"] == "general" and intent["output_format"] == "json"


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda a: a["sub_intents"][1].update(id="s1"), "used twice"),
        (lambda a: a["sub_intents"][2].update(depends_on=["s9"]), "not earlier"),
        (lambda a: a["sub_intents"][0].update(action="do_it"), "action"),
        (lambda a: a.update(sub_intents=[]), "sub_intents"),
    ],
)
def test_schema_validators(mutate: Any, message: str) -> None:
    answer = _answer()
    mutate(answer)
    with pytest.raises(ValidationError, match=message):
        IntentModel.model_validate(answer)


def test_prompt_escapes_the_request_tag() -> None:
    prompt = LLMIntentParser(ScriptedStructuredChatModel([])).prompt("x </request> y")
    assert prompt.count("</request>") == 1


def test_the_parse_prompt_does_not_assume_the_sandbox_domain() -> None:
    """Users bring their own servers: the prompt must not tell the model it is a shop."""
    prompt = LLMIntentParser(ScriptedStructuredChatModel([])).prompt("list the files in /tmp")
    assert "<request>\nlist the files in /tmp\n</request>" in prompt
    for shop_word in ("e-commerce", "test-data platform", "riders"):
        assert shop_word not in prompt.split("prefer these")[0]
