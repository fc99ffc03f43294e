"""clarify, an interrupt: ask the user for a value the plan needs and cannot find.

Reads: pending_question, clarifications.
Writes: clarifications, pending_question.
"""

from __future__ import annotations

from typing import Any

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from nodes.context import Context
from nodes.events import ClarificationAnswered, ClarificationAsked
from nodes.state import ZState


async def clarify(state: ZState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the user for a missing value (``interrupt``); the answer becomes an entity.

    Nothing runs before ``interrupt()``: on resume this node starts again from its first
    line. Resume with ``Command(resume="value")`` (or ``{"value": ...}``).

    Reads: pending_question, clarifications.
    Writes: clarifications, pending_question.
    """
    question = state.get("pending_question") or {}
    writer = get_stream_writer()
    writer(
        ClarificationAsked(
            event="clarification_asked",
            sub_intent=str(question.get("sub_intent", "")),
            param=str(question.get("param", "")),
            tool_id=str(question.get("tool_id", "")),
            question=str(question.get("question", "")),
        )
    )
    answer = interrupt({"type": "clarification", **question})
    if isinstance(answer, dict):
        answer = answer.get("value", answer.get("answer"))
    writer(
        ClarificationAnswered(
            event="clarification_answered",
            sub_intent=str(question.get("sub_intent", "")),
            param=str(question.get("param", "")),
            value=answer,
        )
    )
    key = f"{question.get('sub_intent')}.{question.get('param')}"
    clarifications = {**(state.get("clarifications") or {}), key: answer}
    return {"clarifications": clarifications, "pending_question": None}
