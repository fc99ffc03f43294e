"""The thread's memory of finished turns, and how a follow-up is read against it.

Multi-turn: a thread keeps a compact ``memory`` of its finished turns (request, intent digest,
named entities and the identifier fields of successful outputs, e.g. ``order_id``). A
follow-up is read against it before planning (by the ``parse_intent`` node):

- a reference ("cancel that order", "issue a coupon to this user", "cancel it") binds the
  earlier output whose field names the referenced object (``order`` → the last ``order_id``;
  ``it`` → the object of the previous turn's last step) as an entity of the sub-intent, so
  the planner binds it like a value the user typed;
- a repeat ("do the same for account 654321", "same for order 7") re-runs the previous
  request with the new entities substituted for the old ones.

``intent["follow_up"]`` records what was bound, and a ``memory_bound`` event says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from nodes.planning.binding import find_named_value
from nodes.state import FollowUp, Intent, TurnMemory, ZState, answered_directly
from stores.language.entities import extract_entities
from stores.language.identifiers import is_identifier_name, singular
from stores.language.lexicon import Lexicon

MEMORY_TURNS = 8
MEMORY_ANSWER_CHARS = 400
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
        if _scalar(value) and is_identifier_name(str(key))
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
    subs = [s for s in intent["sub_intents"] if not answered_directly(state, s)]
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
    noun = singular(noun.lower())  # "those orders" → order; "that address" stays address
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
