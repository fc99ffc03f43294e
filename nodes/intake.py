"""parse_intent (the graph's entry node) and clarify (a human-in-the-loop interrupt)."""

from __future__ import annotations

import hashlib
from typing import Any

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Overwrite, interrupt

from nodes.context import Context, resolve_context
from nodes.intent import IntentParseError, IntentParser, LLMIntentParser, RuleIntentParser
from nodes.state import Intent, ZState
from stores.entities import extract_entities

MAX_REQUEST_CHARS = 4000


def latest_request(state: ZState) -> str:
    """The request of this turn: ``request``, else the last human message's text."""
    if state.get("request"):
        return str(state["request"])
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage) or getattr(message, "type", "") == "human":
            content = message.content
            if isinstance(content, list):
                content = " ".join(
                    part.get("text", "") if isinstance(part, dict) else str(part)
                    for part in content
                )
            return str(content)
    return ""


def derive_run_id(context: Context, config: RunnableConfig | None, request: str, turn: int) -> str:
    """The idempotency scope of this run: ``Context.run_id``, else thread + turn + request."""
    if context.run_id:
        return context.run_id
    thread = ((config or {}).get("configurable") or {}).get("thread_id", "no-thread")
    digest = hashlib.sha256(f"{thread}\n{turn}\n{request}".encode()).hexdigest()[:16]
    return f"{thread}:{turn}:{digest}"


def _empty_intent(request: str, answer: str) -> Intent:
    entities = (
        extract_entities(request[:MAX_REQUEST_CHARS])
        if request.strip()
        else {
            "ids": [],
            "numbers": [],
            "quoted": [],
            "pairs": {},
            "dates": [],
            "amounts": [],
            "named": {},
        }
    )
    return {
        "request": request,
        "category": "general",
        "operation": "",
        "target": "",
        "keywords": [],
        "entities": entities,  # type: ignore[typeddict-item]
        "sub_intents": [
            {
                "id": "s1",
                "text": request[:200],
                "operation": "",
                "target": "",
                "keywords": [],
                "entities": {},
                "depends_on": [],
                "action": "direct_answer",
                "answer": answer,
            }
        ],
        "parser": "guard",
    }


async def parse_intent(
    state: ZState,
    runtime: Runtime[Context],
    config: RunnableConfig,
    *,
    chat_model_factory: Any,
    lexicon: Any,
) -> dict[str, Any]:
    """Parse the request into an intent tree and start a fresh turn.

    Reads ``request`` / ``messages``; writes ``intent``, ``run_id``, ``turn`` and resets the
    per-turn keys (``plan``, ``results``, ``candidates``, ...).
    """
    context = resolve_context(runtime)
    writer = get_stream_writer()
    request = latest_request(state).strip()
    turn = (state.get("turn") or 0) + 1
    if not request:
        intent = _empty_intent("", "Tell me what to do, e.g. 'create a test product'.")
    elif len(request) > MAX_REQUEST_CHARS:
        intent = _empty_intent(
            request,
            f"The request is {len(request)} characters long; send at most {MAX_REQUEST_CHARS}, "
            "split into separate requests.",
        )
    else:
        parser: IntentParser = RuleIntentParser(lexicon)
        model = chat_model_factory(context)
        if model is not None:
            parser = LLMIntentParser(model, lexicon=lexicon, fallback=parser)
        try:
            intent = parser.parse(request)
        except IntentParseError as exc:
            intent = _empty_intent(request, f"I could not understand the request: {exc}")
    writer(
        {
            "event": "intent",
            "parser": intent["parser"],
            "sub_intents": [
                {"id": s["id"], "text": s["text"], "action": s["action"]}
                for s in intent["sub_intents"]
            ],
        }
    )
    return {
        "intent": intent,
        "request": "",
        "turn": turn,
        "run_id": derive_run_id(context, config, request, turn),
        "plan": [],
        "results": Overwrite({}),
        "history": Overwrite([]),
        "candidates": {},
        "agent_ranking": {},
        "retrieval_rounds": 0,
        "alignment_rounds": 0,
        "clarifications": {},
        "pending_question": None,
        "retry_subintents": [],
        "decisions": {},
        "excluded_tools": {},
        "approvals": {},
        "gaps": [],
        "answer": "",
    }


async def clarify(state: ZState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the user for a missing value (``interrupt``); the answer becomes an entity.

    Nothing runs before ``interrupt()``: on resume this node starts again from its first
    line. Resume with ``Command(resume="value")`` (or ``{"value": ...}``).

    Reads ``pending_question``; writes ``clarifications``, ``pending_question``.
    """
    question = state.get("pending_question") or {}
    answer = interrupt({"type": "clarification", **question})
    if isinstance(answer, dict):
        answer = answer.get("value", answer.get("answer"))
    key = f"{question.get('sub_intent')}.{question.get('param')}"
    clarifications = {**(state.get("clarifications") or {}), key: answer}
    return {"clarifications": clarifications, "pending_question": None}
