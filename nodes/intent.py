"""parse_intent, the entry node: the request of a turn becomes an intent tree.

A turn starts here: the turn that just ended is folded into the thread's memory, the request
is read against it (`nodes.memory`: a repeat, or references to earlier outputs), parsed with
the rule parser or a chat model (`nodes.parsing`), and every per-turn key is reset.

Reads: request, messages, intent, plan, results, answer, turn, memory.
Writes: intent, run_id, turn, memory, request, answer, plan, results, history, token_ledger,
gaps, candidates, agent_ranking, retrieval_rounds, alignment_rounds, clarifications,
pending_question, retry_subintents, decisions, excluded_tools, approvals, awaiting_approval,
awaiting_reconcile, reconciled, planner_transcript, planner_done, model_answer,
retry_effects, policy_refused.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.events import IntentParsed, MemoryBound, NodeStarted
from nodes.memory import bind_references, repeat_request, updated_memory
from nodes.parsing import IntentParseError, IntentParser
from nodes.parsing.llm import LLMIntentParser
from nodes.parsing.rules import RuleIntentParser
from nodes.state import Intent, ZState, fresh_turn
from stores.language.entities import extract_entities
from stores.secrets import SECRETS, secrets_in_text

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

    Folds the turn that just ended into ``memory``, then reads the request against it: a
    repeat ("do the same for account 654321") re-runs the previous request with the new
    entities; references ("that order", "it") bind earlier outputs as entities.

    Every per-turn key it does not compute gets its fresh value (``nodes.state.fresh_turn``);
    the request comes from ``request``, else the last human message.

    Reads: request, messages, intent, plan, results, answer, turn, memory.
    Writes: intent, run_id, turn, memory, request, answer, plan, results, history, token_ledger,
    gaps, candidates, agent_ranking, retrieval_rounds, alignment_rounds, clarifications,
    pending_question, retry_subintents, decisions, excluded_tools, approvals, awaiting_approval,
    awaiting_reconcile, reconciled, planner_transcript, planner_done, model_answer,
    retry_effects, policy_refused.
    """
    context = resolve_context(runtime)
    writer = get_stream_writer()
    request = latest_request(state).strip()
    turn = (state.get("turn") or 0) + 1
    writer(NodeStarted(event="node_started", node="parse_intent", turn=turn))
    memory = updated_memory(state)
    follow_up = repeat_request(request, memory) if request else None
    said = request
    for value in secrets_in_text(request):
        SECRETS.add(value)  # scrubbed from tool outputs, errors and answers from now on
    if follow_up is not None:
        request = follow_up["request"]
    if not request:
        intent = _empty_intent("", "Tell me what to do, e.g. 'create a test product'.")
    elif len(request) > MAX_REQUEST_CHARS:
        intent = _empty_intent(
            request,
            f"The request is {len(request)} characters long; send at most {MAX_REQUEST_CHARS}, "
            "split into separate requests.",
        )
    else:

        def parse_now(text: str) -> Intent:
            parser: IntentParser = RuleIntentParser(lexicon)
            model = chat_model_factory(context)
            if model is not None:
                parser = LLMIntentParser(model, lexicon=lexicon, fallback=parser)
            try:
                return parser.parse(text)
            except IntentParseError as exc:
                return _empty_intent(text, f"I could not understand the request: {exc}")

        # A chat model's sync call (and building its client) must not block the event loop.
        intent = await asyncio.to_thread(parse_now, request)
        if follow_up is not None:
            intent["follow_up"] = follow_up
        else:
            bind_references(intent, memory, lexicon)
    if intent.get("follow_up"):
        bound = intent["follow_up"]
        assert bound is not None
        writer(
            MemoryBound(
                event="memory_bound",
                kind=bound["kind"],
                bindings=bound["bindings"],
                request=bound["request"],
            )
        )
    writer(
        IntentParsed(
            event="intent",
            parser=intent["parser"],
            sub_intents=[
                {"id": s["id"], "text": s["text"], "action": s["action"]}
                for s in intent["sub_intents"]
            ],
        )
    )
    return {
        **fresh_turn(),
        "intent": intent,
        "turn": turn,
        "memory": memory,
        "run_id": derive_run_id(context, config, said, turn),
    }
