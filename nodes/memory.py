"""parse_intent (the entry node), clarify (an interrupt), and the thread's memory of turns.

Multi-turn: a thread keeps a compact ``memory`` of its finished turns (request, intent digest,
named entities and the identifier fields of successful outputs, e.g. ``order_id``). A
follow-up is read against it before planning:

- a reference ("cancel that order", "issue a coupon to this user", "cancel it") binds the
  earlier output whose field names the referenced object (``order`` → the last ``order_id``;
  ``it`` → the object of the previous turn's last step) as an entity of the sub-intent, so
  the planner binds it like a value the user typed;
- a repeat ("do the same for account 654321", "same for order 7") re-runs the previous
  request with the new entities substituted for the old ones.

``intent["follow_up"]`` records what was bound, and a ``memory_bound`` event says so.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Overwrite, interrupt

from nodes.binding import find_named_value
from nodes.context import Context, resolve_context
from nodes.events import (
    ClarificationAnswered,
    ClarificationAsked,
    IntentParsed,
    MemoryBound,
    NodeStarted,
)
from nodes.parsing import IntentParseError, IntentParser
from nodes.parsing.llm import LLMIntentParser
from nodes.parsing.rules import RuleIntentParser
from nodes.state import FollowUp, Intent, TurnMemory, ZState
from stores.language.entities import extract_entities
from stores.language.lexicon import Lexicon
from stores.secrets import SECRETS, secrets_in_text

MAX_REQUEST_CHARS = 4000
MEMORY_TURNS = 8
MEMORY_ANSWER_CHARS = 400
IDENTIFIER_FIELD = re.compile(r"(?:^id$|_id$|_number$|_no$|_code$|_key$|_ref$|Id$)")
# "that order", "this user", "the same coupon", "the previous order", "the new product".
REFERENCE = re.compile(
    r"\b(?:that|this|those|these|the\s+same|the\s+previous|the\s+last|the\s+new|"
    r"the\s+created|said)\s+([a-z][a-z_]*)",
    re.IGNORECASE,
)
PRONOUN = re.compile(r"\b(?:it|that\s+one|this\s+one|them)\b", re.IGNORECASE)
REPEAT = re.compile(
    r"^\s*(?:(?:now|and|then|ok|okay|please)[\s,]+)*"
    r"(?:(?:do|repeat|run)\s+(?:the\s+same(?:\s+thing)?|that|it|this)(?:\s+again)?|"
    r"(?:the\s+)?same(?:\s+thing)?|again)\s+(?:for|with|on|using|but\s+for)\s+(?P<rest>.+?)"
    r"[\s.!?]*$",
    re.IGNORECASE,
)


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


# --- memory of earlier turns ----------------------------------------------------------------


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _identifier_fields(record: Any) -> dict[str, Any]:
    if isinstance(record, list) and len(record) == 1:
        record = record[0]
    if not isinstance(record, Mapping):
        return {}
    return {
        str(key): value
        for key, value in record.items()
        if _scalar(value) and IDENTIFIER_FIELD.search(str(key))
    }


def remember_turn(state: ZState) -> TurnMemory | None:
    """A compact record of the turn that just ended (None when there was none).

    ``outputs`` holds identifier fields (``order_id``, ``user_id``, ``account_number``...) of
    the arguments and outputs of successful calls, in plan order, so the last write is the
    most recent object of that kind.
    """
    intent = state.get("intent")
    if not intent or not intent.get("request"):
        return None
    results = state.get("results") or {}
    outputs: dict[str, Any] = {}
    for call in state.get("plan") or []:
        result = results.get(call["call_id"])
        if not result or result["status"] != "ok":
            continue
        outputs.update(_identifier_fields(result.get("args") or {}))
        outputs.update(_identifier_fields(result.get("output")))
    subs = [s for s in intent["sub_intents"] if s["action"] != "direct_answer"]
    return {
        "turn": int(state.get("turn") or 0),
        "request": intent["request"],
        "category": intent.get("category", ""),
        "operations": [s["operation"] for s in subs],
        "targets": [s["target"] for s in subs],
        "entities": dict(intent["entities"].get("named") or {}),
        "outputs": outputs,
        "answer": str(state.get("answer") or "")[:MEMORY_ANSWER_CHARS],
    }


def updated_memory(state: ZState) -> list[TurnMemory]:
    """The thread's memory with the turn that just ended folded in (newest last)."""
    memory = list(state.get("memory") or [])
    last = remember_turn(state)
    if last is not None and not (memory and memory[-1]["turn"] == last["turn"]):
        memory.append(last)
    return memory[-MEMORY_TURNS:]


def _object_value(
    noun: str, memory: Sequence[TurnMemory], lexicon: Lexicon
) -> tuple[str, Any, int] | None:
    """The latest output field naming ``noun`` (``order`` → ``order_id``), newest turn first."""
    noun = noun.lower().rstrip("s") if noun.lower().endswith("s") and len(noun) > 3 else noun
    canonical = lexicon.canonical(noun, "object") or noun
    for turn in reversed(memory):
        for key in reversed(list(turn["outputs"])):
            for probe in {noun, canonical}:
                if find_named_value(key, {probe: True}, lexicon)[0]:
                    return key, turn["outputs"][key], turn["turn"]
    return None


def bind_references(intent: Intent, memory: Sequence[TurnMemory], lexicon: Lexicon) -> None:
    """Bind "that order" / "it" in a follow-up to earlier outputs (in place).

    Each sub-intent that refers to an earlier object gets that object's identifier as an
    entity (the planner binds it like a typed value); a sub-intent whose object is only a
    pronoun takes the previous turn's last object as its target.
    """
    if not memory:
        return
    bindings: dict[str, Any] = {}
    from_turn = memory[-1]["turn"]
    named = intent["entities"].setdefault("named", {})
    for sub in intent["sub_intents"]:
        if sub["action"] == "direct_answer":
            continue
        nouns = [m.group(1) for m in REFERENCE.finditer(sub["text"])]
        if not nouns and PRONOUN.search(sub["text"]):
            previous = next((t for t in reversed(memory[-1]["targets"]) if t), "")
            if not previous:
                continue
            nouns = [previous]
            if not sub["target"]:
                sub["target"] = previous
        for noun in nouns:
            found = _object_value(noun, memory, lexicon)
            if found is None:
                continue
            key, value, turn = found
            if find_named_value(key, sub["entities"], lexicon)[0]:
                continue  # the user named a value of their own
            sub["entities"][key] = value
            named.setdefault(key, value)
            bindings[key] = value
            from_turn = turn
            if sub["action"] == "clarify_intent":
                sub["action"] = "call_api"
    if bindings:
        intent["follow_up"] = {
            "kind": "reference",
            "from_turn": from_turn,
            "said": intent["request"],
            "request": intent["request"],
            "bindings": bindings,
        }


def repeat_request(request: str, memory: Sequence[TurnMemory]) -> FollowUp | None:
    """Read "do the same for account 654321" as the previous request with the new entities.

    Returns None when the request is not a repeat or there is no earlier turn to repeat.
    """
    match = REPEAT.match(request)
    if match is None or not memory:
        return None
    previous = memory[-1]
    new = extract_entities(match.group("rest"))
    new_named = {k: v for k, v in (new.get("named") or {}).items() if _scalar(v)}
    rewritten = previous["request"]
    bindings: dict[str, Any] = {}
    for key, value in new_named.items():
        old = previous["entities"].get(key)
        if old is None or not _scalar(old):
            continue
        pattern = re.compile(rf"(?<![\w]){re.escape(str(old))}(?![\w])")
        if pattern.search(rewritten):
            rewritten = pattern.sub(str(value), rewritten)
            bindings[key] = value
    if not bindings:
        # Nothing to swap in place: say the new values outright, after the old request.
        rewritten = f"{previous['request']} for {match.group('rest').strip()}"
        bindings = dict(new_named)
    return {
        "kind": "repeat",
        "from_turn": previous["turn"],
        "said": request,
        "request": rewritten,
        "bindings": bindings,
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

    Reads ``request`` / ``messages``, ``intent``, ``plan``, ``results``, ``memory``, ``turn``;
    writes ``intent``, ``run_id``, ``turn``, ``memory`` and resets the per-turn keys
    (``plan``, ``results``, ``candidates``, ...).
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
        "intent": intent,
        "request": "",
        "turn": turn,
        "memory": memory,
        "run_id": derive_run_id(context, config, said, turn),
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
        "awaiting_reconcile": [],
        "reconciled": [],
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
