"""Structured output from any LangChain chat model, with a bounded repair loop."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)
MAX_REPAIRS = 2


class StructuredOutputError(ValueError):
    """The model did not produce valid structured output after the allowed repairs."""

    def __init__(self, schema: str, attempts: int, last_error: str) -> None:
        super().__init__(
            f"the chat model gave no valid {schema} after {attempts} attempts; last error: "
            f"{last_error[:300]}"
        )
        self.schema = schema
        self.attempts = attempts
        self.last_error = last_error


def invoke_structured(
    chat_model: Any, schema: type[T], prompt: str | list[Any], max_repairs: int = MAX_REPAIRS
) -> T:
    """Ask ``chat_model`` for an instance of ``schema``; repair at most ``max_repairs`` times.

    The model's structured-output mode is used when it has one; its answer (an instance, a
    dict or JSON text) is validated by pydantic. A failure is fed back to the model with the
    validation error; after the last repair a ``StructuredOutputError`` names the schema.
    """
    from langchain_core.messages import AIMessage, HumanMessage

    messages: list[Any] = [HumanMessage(prompt)] if isinstance(prompt, str) else list(prompt)
    last_error = ""
    attempts = 0
    for _ in range(max_repairs + 1):
        attempts += 1
        try:
            runnable = chat_model.with_structured_output(schema)
            raw = runnable.invoke(messages)
            return _coerce(schema, raw)
        except (ValidationError, ValueError, TypeError, KeyError, NotImplementedError) as exc:
            last_error = str(exc)
        messages = [
            *messages,
            AIMessage(f"(invalid answer: {last_error[:500]})"),
            HumanMessage(
                f"Your answer was not a valid {schema.__name__}: {last_error[:500]}. "
                "Answer again with exactly the requested fields."
            ),
        ]
    raise StructuredOutputError(schema.__name__, attempts, last_error)


def _coerce(schema: type[T], raw: Any) -> T:
    if isinstance(raw, schema):
        return raw
    if isinstance(raw, BaseModel):
        return schema.model_validate(raw.model_dump())
    if isinstance(raw, str):
        return schema.model_validate(json.loads(raw))
    if isinstance(raw, dict):
        if "parsed" in raw and "raw" in raw:
            if raw.get("parsed") is None:
                raise ValueError(str(raw.get("parsing_error") or "no parsed output"))
            return _coerce(schema, raw["parsed"])
        return schema.model_validate(raw)
    raise TypeError(f"expected a {schema.__name__}, got {type(raw).__name__}")
