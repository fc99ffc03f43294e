"""A scripted model that answers with known-good calls: the pipeline's ceiling.

Served by :mod:`bench.evaluation.scripted_openai`, it plays every role the chat model has in a
zspace run: the intent parser (one step: the whole request), the planner (the gold calls of the
request, wave by wave, each under the call name zspace offered it as and only if retrieval
offered it; a text answer once every wave ran; a text refusal when the request has no gold
calls) and the synthesizer. What a scorer then sees is what zspace's retrieval, the planner's
checks and execution did with a perfect model's answers. Token usage is counted as a real
endpoint counts it (o200k_base over the messages and tools sent).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from bench.evaluation.scripted_openai import Reply
from stores.catalog.model import call_name_for

_REQUEST = re.compile(r"<request>\n(.*?)\n</request>", re.S)
ASK_TOOL = "zspace_ask_user"
SEARCH_TOOL = "zspace_search_tools"
GoldCall = tuple[str, dict[str, Any]]  # (tool id, arguments)
Waves = Sequence[Sequence[GoldCall]]


_ABSENT = object()


def _first_acceptable(values: Any) -> Any:
    """The first acceptable value of a BFCL possible answer (``_ABSENT`` when it may be left out).

    A list holds the acceptable values (``""`` and ``None`` mean "may be left out"); a dict is a
    nested object whose fields are possible answers themselves.
    """
    if isinstance(values, dict):
        chosen = {key: _first_acceptable(value) for key, value in values.items()}
        return {key: value for key, value in chosen.items() if value is not _ABSENT}
    if isinstance(values, list):
        for value in values:
            if value == "" or value is None:
                continue
            return _first_acceptable(value) if isinstance(value, dict) else value
        return _ABSENT
    return values


def bfcl_gold_waves(case: Mapping[str, Any], agent: str) -> list[list[GoldCall]]:
    """A BFCL case's gold calls as one wave: the first acceptable value of every argument."""
    calls: list[GoldCall] = []
    for option in case.get("ground_truth") or []:
        for name, arguments in option.items():
            args = {arg: _first_acceptable(values) for arg, values in arguments.items()}
            calls.append((f"{agent}/{name}", {k: v for k, v in args.items() if v is not _ABSENT}))
    return [calls] if calls else []


def _request_of(messages: list[dict[str, Any]]) -> str:
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            texts = [str(part.get("text", "")) for part in content if isinstance(part, dict)]
            content = " ".join(texts)
        if message.get("role") in ("user", "system") and isinstance(content, str):
            match = _REQUEST.search(content)
            if match:
                return match.group(1).replace("</ request>", "</request>")
    return ""


def _words(text: str) -> str:
    return " ".join(text.split())


def _made_calls(message: Mapping[str, Any]) -> bool:
    """An assistant message that made tool calls other than searches (one planning turn)."""
    calls = message.get("tool_calls") or [] if message.get("role") == "assistant" else []
    return any(call["function"]["name"] != SEARCH_TOOL for call in calls)


def _describe(tool_id: str) -> str:
    """How a model would describe the tool it needs: its name in words."""
    name = tool_id.rpartition("/")[2]
    return " ".join(name.replace(".", " ").replace("_", " ").split())


def oracle(
    waves_by_request: Mapping[str, Waves] | Iterable[tuple[str, Waves]],
    expect: Mapping[str, str] | None = None,
) -> Callable[[dict[str, Any]], Reply]:
    """The script function for ``scripted_openai_server`` over these requests' gold waves.

    ``expect`` marks requests whose right outcome is a question (``clarify``: the planner asks)
    or a direct answer (``direct_answer``: the parser answers without a tool).
    """
    # The request reaches the model with its whitespace tidied: match on words.
    waves_by_words: dict[str, list[Waves]] = {}
    pairs = waves_by_request.items() if isinstance(waves_by_request, Mapping) else waves_by_request
    for request, waves in pairs:
        waves_by_words.setdefault(_words(request), []).append(waves)
    expect_by_words = {_words(request): kind for request, kind in (expect or {}).items()}

    def reply(body: dict[str, Any]) -> Reply:
        messages = body.get("messages") or []
        tools = [tool["function"]["name"] for tool in body.get("tools") or []]
        request = _words(_request_of(messages))
        if ASK_TOOL not in tools:
            if "response_format" in body or tools:  # the intent parser's structured output
                step: dict[str, Any] = {"id": "s1", "text": request, "action": "call_api"}
                if expect_by_words.get(request) == "direct_answer":
                    step.update(action="direct_answer", answer="(answered without a tool)")
                intent = {"category": "general", "sub_intents": [step]}
                if tools:
                    return Reply(usage=None, tool_calls=[(tools[0], intent)])
                return Reply(usage=None, content=json.dumps(intent))
            return Reply(usage=None, content="Done.")  # the synthesizer
        offered = set(tools)
        # Benchmarks repeat a request with other functions: take the gold of the ones offered.
        options = waves_by_words.get(request) or [[]]
        waves = list(next(
            (w for w in options if w and all(call_name_for(t) in offered for t, _ in w[0])),
            options[0],
        ))
        turn = sum(1 for message in messages if _made_calls(message))
        if expect_by_words.get(request) == "clarify" and turn == 0:
            question = {"question": "Which one do you mean? The request does not say."}
            return Reply(usage=None, tool_calls=[(ASK_TOOL, question)])
        if not waves:
            return Reply(usage=None, content="None of the offered tools fits this request.")
        if turn >= len(waves):
            return Reply(usage=None, content="Done.")
        missing = [tool_id for tool_id, _ in waves[turn] if call_name_for(tool_id) not in offered]
        just_searched = bool(messages) and str(messages[-1].get("content", "")).startswith("found")
        if missing and SEARCH_TOOL in offered and not just_searched:
            # A model that needs a tool it was not offered describes it and searches.
            return Reply(usage=None, tool_calls=[
                (SEARCH_TOOL, {"query": _describe(tool_id)}) for tool_id in missing
            ])
        calls = [
            (call_name_for(tool_id), args)
            for tool_id, args in waves[turn]
            if call_name_for(tool_id) in offered
        ]
        if not calls:
            return Reply(usage=None, content="None of the offered tools fits this request.")
        return Reply(usage=None, tool_calls=calls)

    return reply
