"""A scripted model that answers BFCL cases with their known-good calls: the pipeline's ceiling.

Served by :mod:`bench.evaluation.scripted_openai`, it plays every role the chat model has in a
zspace run: the intent parser (one step: the whole request), the planner (the case's gold
calls, each under the call name zspace offered it as, only if retrieval offered it; a text
answer once results came back; a text refusal for irrelevance cases) and the synthesizer. What
BFCL's checker then scores is what zspace's retrieval, planning checks and execution did with
a perfect model's answers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from bench.evaluation.scripted_openai import Reply
from stores.catalog.model import call_name_for

_REQUEST = re.compile(r"<request>\n(.*?)\n</request>", re.S)
ASK_TOOL = "zspace_ask_user"


def gold_calls(case: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The first acceptable value of every argument of every gold call (optional ones left out).

    BFCL's possible answers list the acceptable values per argument; ``""`` means "may be left
    out".
    """
    calls = []
    for option in case.get("ground_truth") or []:
        for name, arguments in option.items():
            args = {}
            for arg, values in arguments.items():
                chosen = [v for v in values if v != ""] if isinstance(values, list) else [values]
                if chosen:
                    args[arg] = chosen[0]
            calls.append((name, args))
    return calls


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


def oracle(cases_by_request: Mapping[str, Mapping[str, Any]], agent: str) -> Callable[..., Reply]:
    """The script function for :func:`scripted_openai_server` over these BFCL cases."""

    def reply(body: dict[str, Any]) -> Reply:
        messages = body.get("messages") or []
        tools = [tool["function"]["name"] for tool in body.get("tools") or []]
        request = _request_of(messages)
        if ASK_TOOL not in tools:
            if "response_format" in body or tools:  # the intent parser's structured output
                intent = {
                    "category": "general",
                    "sub_intents": [{"id": "s1", "text": request, "action": "call_api"}],
                }
                if tools:
                    return Reply(tool_calls=[(tools[0], intent)])
                return Reply(content=json.dumps(intent))
            return Reply(content="Done.")  # the synthesizer
        if any(message.get("role") == "tool" for message in messages):
            return Reply(content="Done.")
        case = cases_by_request.get(request)
        if case is None or not case.get("ground_truth"):
            return Reply(content="None of the offered tools fits this request.")
        offered = set(tools)
        calls = [
            (call_name_for(f"{agent}/{name}"), args)
            for name, args in gold_calls(case)
            if call_name_for(f"{agent}/{name}") in offered
        ]
        if not calls:
            return Reply(content="None of the offered tools fits this request.")
        return Reply(tool_calls=calls)

    return reply
