"""Pydantic models for structured LLM output; dumped to plain data before entering state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

ActionName = Literal["direct_answer", "clarify_intent", "retrieve_api", "call_api"]


class SubIntentModel(BaseModel):
    """One step of the user's request, as the LLM intent parser reports it."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(description='Step id: "s1", "s2", ... in execution order.')
    text: str = Field(description="The words of the request that ask for this step.")
    operation: str = Field(
        default="",
        description="What to do, one lowercase verb: create, get, list, update, cancel, "
        'advance, pay, issue, refund, ... ("" for chit-chat).',
    )
    target: str = Field(
        default="",
        description="The object acted on, one singular lowercase noun: order, product, "
        'coupon, user, ... ("" if none).',
    )
    keywords: list[str] = Field(
        default_factory=list,
        description="A few English words that a matching tool description uses (in English "
        "whatever the request's language).",
    )
    entities: dict[str, Any] = Field(
        default_factory=dict,
        description="Literal values for this step written in the request, keyed by a singular "
        'noun or parameter name: {"account": "123456", "quantity": 3, "status": '
        '"pending_payment"}. Never invent a value that the request does not contain.',
    )
    depends_on: list[str] = Field(
        default_factory=list,
        description="Ids of earlier steps whose result or object this step needs.",
    )
    action: ActionName = Field(
        default="call_api",
        description="call_api: a tool does it; direct_answer: no tool needed (greeting, "
        "arithmetic, general knowledge); clarify_intent: a required value is missing and no "
        "step can produce it; retrieve_api: needs a tool but nothing obvious fits.",
    )
    answer: str | None = Field(default=None, description="The answer, for direct_answer only.")
    question: str | None = Field(
        default=None, description="The question to ask the user, for clarify_intent only."
    )

    @field_validator("operation", "target")
    @classmethod
    def _lowercase_term(cls, value: str) -> str:
        return " ".join(value.lower().replace("_", " ").split())


class IntentModel(BaseModel):
    """The structured intent of a request: a coarse category and ordered steps."""

    model_config = ConfigDict(extra="ignore")

    category: str = Field(
        default="general",
        description="Coarse domain: order, product, user, coupon, delivery, payment, review, "
        'refund, membership, shop, ... or "general".',
    )
    operation: str = Field(default="", description="Operation of the first step.")
    target: str = Field(default="", description="Target object of the first step.")
    keywords: list[str] = Field(default_factory=list, description="Keywords of the request.")
    sub_intents: list[SubIntentModel] = Field(
        min_length=1, description="The steps, in the order they must run."
    )
    output_format: Literal["md", "json", "text"] | None = Field(
        default=None,
        description='"md" if the user asked for a table, "json" for JSON, "text" for a summary '
        "or prose; null if not said.",
    )

    @model_validator(mode="after")
    def _check_step_references(self) -> IntentModel:
        seen: set[str] = set()
        for sub in self.sub_intents:
            if not sub.id.strip():
                raise ValueError("every sub_intent needs a non-empty id such as 's1'")
            if sub.id in seen:
                raise ValueError(f"sub_intent id '{sub.id}' is used twice; ids must be unique")
            unknown = [dep for dep in sub.depends_on if dep not in seen]
            if unknown:
                raise ValueError(
                    f"sub_intent '{sub.id}' depends on {unknown}, which are not earlier "
                    "sub_intents; depends_on may only name ids listed before it"
                )
            seen.add(sub.id)
        return self
