"""The model planner: a chat model chooses the tools and fills the arguments (LLMCompiler style).

Each planning turn the model sees the request, the sub-intents, the retrieved candidates as
real tools (``bind_tools`` with their JSON Schemas, under model-safe names mapped back to tool
ids) and the results so far, and answers with tool calls (parallel allowed) or with text. A
call may take another call's output as an argument by writing ``"${c2.order_id}"`` as the
value: calls are numbered ``c1, c2, …`` across the run in the order the model makes them, so a
dependent call can be sent in the same turn as the call it needs; the executor resolves the
reference before it validates the arguments.

Every call is checked before it is planned: the tool must be one of those offered, the
arguments must match its schema (references aside), references must name an earlier call, and
the model's output must parse. A turn with a bad call gets one repair turn carrying the exact
validator messages; what is still wrong after it is not run and is stated as a failure.

The whole conversation is rebuilt from plain state on every turn (the transcript of the
model's calls and the results of the calls that ran), so a run interrupted between turns
resumes without asking the model again for what it already decided.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NotRequired

from typing_extensions import TypedDict

from nodes.state import ArgSource, CallResult, Candidate, PlannedCall, SubIntent
from stores.catalog.model import Catalog, ToolSpec
from stores.execution.executor import validation_errors
from stores.retrieval.tokens import openai_tool_definition

ASK_TOOL = "zspace_ask_user"
SEARCH_TOOL = "zspace_search_tools"
MAX_SEARCHES = 2
MAX_RESULT_CHARS = 2000
_REFERENCE = re.compile(r"^\$\{(c\d+)\.([A-Za-z0-9_.\-]+)\}$")
_EMBEDDED_REFERENCE = re.compile(r"\$\{c\d+\.[^}]*\}")

PLANNER_SYSTEM = """\
You plan and make tool calls to do what the user asks, with the tools offered.
- Call the tools that do what the request asks, with arguments taken from the request or from \
earlier results; never invent values the user did not give. Make independent calls in the \
same answer (they run in parallel).
- Calls are numbered c1, c2, ... across this conversation in the order you make them (the \
first call of your first answer is c1). To pass a field of another call's output, write the \
whole argument value as "${c<N>.<field>}" (e.g. "${c1.order_id}"); that call may be in the \
same answer, earlier.
- Only do what the user asked: no extra writes, no retries with an unrelated tool.
- If no offered tool can do a step, call zspace_search_tools with a short description of the \
tool you need; the tools it finds are offered to you right away.
- If a required value can come from nowhere, call zspace_ask_user with your question.
- If no offered tool fits, say so in plain text.
- When everything asked is done (or cannot be done), answer in plain text: what was done, \
with the key values from the results, and what failed and why.
"""


class TranscriptCall(TypedDict):
    """One tool call of a model turn, as kept in state (``error``: why it was not run)."""

    call_id: str
    name: str
    args: dict[str, Any]
    error: NotRequired[str]


class TranscriptTurn(TypedDict):
    """One model turn, as kept in state (plain data; the conversation is rebuilt from it)."""

    calls: list[TranscriptCall]
    rejected: list[TranscriptCall]
    text: str


@dataclass
class ModelStep:
    """What one planning turn decided."""

    calls: list[PlannedCall] = field(default_factory=list)
    answer: str | None = None
    question: str | None = None
    question_param: str | None = None
    failures: list[str] = field(default_factory=list)
    turn: TranscriptTurn | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    offered: int = 0
    model_turns: int = 0
    found: list[Candidate] = field(default_factory=list)


class ModelPlannerError(RuntimeError):
    """The chat model could not be used (endpoint down, no tool calling); says which and why."""


def offered_tools(
    candidates: Mapping[str, Sequence[Candidate]], catalog: Catalog
) -> dict[str, ToolSpec]:
    """The tools offered to the model, by their model-safe call name, in ranking order."""
    offered: dict[str, ToolSpec] = {}
    for ranked in candidates.values():
        for candidate in ranked:
            spec = catalog.tools.get(candidate["tool_id"])
            if spec is not None:
                offered.setdefault(spec.call_name or spec.name, spec)
    return offered


def ask_tool_definition() -> dict[str, Any]:
    """The control tool through which the model asks the user for a missing value."""
    return {
        "type": "function",
        "function": {
            "name": ASK_TOOL,
            "description": "Ask the user for a value the request does not give and no tool "
            "result contains. Use only when a required argument can come from nowhere else.",
            "parameters": {
                "type": "object",
                "properties": {
                    "question": {"type": "string", "description": "The question to ask."},
                    "parameter": {"type": "string", "description": "The argument it is for."},
                },
                "required": ["question"],
            },
        },
    }


def search_tool_definition() -> dict[str, Any]:
    """The control tool through which the model asks for more tools (step-wise retrieval)."""
    return {
        "type": "function",
        "function": {
            "name": SEARCH_TOOL,
            "description": "Search the tool catalog when no offered tool can do a step. The "
            "tools found are offered to you in the next answer.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string",
                              "description": "What the needed tool does, in a few words."},
                },
                "required": ["query"],
            },
        },
    }


def _result_text(result: CallResult | None) -> str:
    if result is None:
        return "not run"
    if result["status"] == "ok":
        text = json.dumps(result.get("output"), ensure_ascii=False, default=str)
        if len(text) > MAX_RESULT_CHARS:
            text = text[:MAX_RESULT_CHARS] + " … [truncated]"
        return text
    return f"{result['status']}: {result.get('error') or 'failed'}"


def clarification_key(call: TranscriptCall) -> str:
    """Where the ``clarify`` node files the user's answer to a ``zspace_ask_user`` call."""
    return f"{call['call_id']}.{call['args'].get('parameter') or 'value'}"


def conversation(
    request: str,
    sub_intents: Sequence[SubIntent],
    transcript: Sequence[TranscriptTurn],
    results: Mapping[str, CallResult],
    clarifications: Mapping[str, Any],
) -> list[Any]:
    """Rebuild the model's conversation from plain state."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    steps = "\n".join(f"- {sub['id']}: {sub['text']}" for sub in sub_intents)
    messages: list[Any] = [
        SystemMessage(PLANNER_SYSTEM),
        HumanMessage(f"<request>\n{request}\n</request>\n<steps>\n{steps}\n</steps>"),
    ]
    for turn in transcript:
        calls = list(turn["calls"]) + list(turn.get("rejected") or [])
        messages.append(AIMessage(
            content=turn.get("text") or "",
            tool_calls=[{"name": c["name"], "args": c["args"], "id": c["call_id"]} for c in calls],
        ))
        for call in turn["calls"]:
            if call["name"] == ASK_TOOL:
                answer = clarifications.get(clarification_key(call))
                text = "no answer" if answer is None else f"the user answered: {answer}"
            else:
                text = _result_text(results.get(call["call_id"]))
            messages.append(ToolMessage(f"{call['call_id']}: {text}", tool_call_id=call["call_id"]))
        for call in turn.get("rejected") or []:
            messages.append(ToolMessage(
                f"{call['call_id']}: not run: {call.get('error', 'rejected')}",
                tool_call_id=call["call_id"],
            ))
    return messages


@dataclass
class _Checked:
    planned: list[PlannedCall] = field(default_factory=list)
    accepted: list[TranscriptCall] = field(default_factory=list)
    errors: list[tuple[TranscriptCall, str]] = field(default_factory=list)
    question: tuple[str, str | None, str] | None = None


class ModelPlanner:
    """Plans with a chat model over the retrieved candidates; checks every call it makes."""

    def __init__(
        self,
        chat_model: Any,
        catalog: Catalog,
        *,
        max_repairs: int = 1,
        search: Callable[[str], list[Candidate]] | None = None,
        max_searches: int = MAX_SEARCHES,
    ) -> None:
        """Bind the planner to a chat model with tool calling and the run's catalog.

        ``search`` ranks the catalog for a query under the run's policy (the retrieve node's
        ranking): with it the model may ask for more tools, ``max_searches`` times a step.
        """
        self.chat_model = chat_model
        self.catalog = catalog
        self.max_repairs = max_repairs
        self.search = search
        self.max_searches = max_searches

    async def step(
        self,
        request: str,
        sub_intents: Sequence[SubIntent],
        candidates: Mapping[str, Sequence[Candidate]],
        plan: Sequence[PlannedCall],
        results: Mapping[str, CallResult],
        transcript: Sequence[TranscriptTurn],
        clarifications: Mapping[str, Any],
    ) -> ModelStep:
        """Ask the model for the next calls (or its answer) and check them.

        Raises:
            ModelPlannerError: the model cannot be called or has no tool calling.
        """
        offered = offered_tools(candidates, self.catalog)
        bound = self._bind(offered)
        messages = conversation(request, sub_intents, transcript, results, clarifications)
        next_number = 1 + sum(len(t["calls"]) + len(t.get("rejected") or []) for t in transcript)
        known = {call["call_id"] for call in plan}
        covered = {call["sub_intent_id"] for call in plan}
        step = ModelStep(offered=len(offered))
        checked = _Checked()
        text = ""
        repairs = searches = 0
        while True:
            reply = await self._invoke(bound, messages)
            step.model_turns += 1
            usage = getattr(reply, "usage_metadata", None) or {}
            step.prompt_tokens += int(usage.get("input_tokens", 0))
            step.completion_tokens += int(usage.get("output_tokens", 0))
            text = _text_of(reply)
            queries = [c for c in getattr(reply, "tool_calls", None) or []
                       if c.get("name") == SEARCH_TOOL]
            if queries and self.search is not None and searches < self.max_searches:
                searches += 1
                messages = [*messages, *self._search(reply, queries, offered, step)]
                bound = self._bind(offered)
                continue
            checked = self._check(
                reply, offered, sub_intents, candidates, known, covered, next_number
            )
            if not checked.errors or repairs >= self.max_repairs:
                break
            repairs += 1
            messages = [*messages, *self._repair_messages(reply, checked, next_number)]
        step.offered = len(offered)
        for call, problem in checked.errors:
            step.failures.append(f"the model's call {call['name']} was not run: {problem}")
        step.calls = checked.planned
        # Rejected calls keep their numbers, so the next turn's calls never reuse one.
        rejected: list[TranscriptCall] = [
            {**call, "error": problem} for call, problem in checked.errors
        ]
        step.turn = {"calls": checked.accepted, "rejected": rejected, "text": text}
        if checked.question is not None:
            step.question, step.question_param, _ = checked.question
        elif not checked.planned and not checked.errors:
            step.answer = text
        return step

    def _bind(self, offered: Mapping[str, ToolSpec]) -> Any:
        """The chat model with the offered tools and the control tools bound."""
        definitions = [openai_tool_definition(spec) for spec in offered.values()]
        definitions.append(ask_tool_definition())
        if self.search is not None:
            definitions.append(search_tool_definition())
        try:
            return self.chat_model.bind_tools(definitions)
        except (NotImplementedError, AttributeError) as exc:
            raise ModelPlannerError(f"the chat model has no tool calling ({exc})") from exc

    def _search(
        self, reply: Any, queries: list[dict[str, Any]], offered: dict[str, ToolSpec],
        step: ModelStep,
    ) -> list[Any]:
        """Run the model's searches; offer what they find; answer every call of the reply."""
        from langchain_core.messages import ToolMessage

        assert self.search is not None
        answered: list[Any] = [reply]
        for raw in getattr(reply, "tool_calls", None) or []:
            if raw.get("name") != SEARCH_TOOL:
                text = "not run: send it again with the others, now that the search is done"
            else:
                query = str((raw.get("args") or {}).get("query") or "").strip()
                found = []
                for candidate in self.search(query) if query else []:
                    spec = self.catalog.tools.get(candidate["tool_id"])
                    if spec is None:
                        continue
                    name = spec.call_name or spec.name
                    if name not in offered:
                        offered[name] = spec
                        step.found.append(candidate)
                    found.append(f"{name}: {(spec.description or '').strip()[:160]}")
                text = ("found (now offered): " + "; ".join(found)) if found else (
                    "found no tool for that query")
            answered.append(ToolMessage(text, tool_call_id=str(raw.get("id") or "search")))
        return answered

    async def _invoke(self, bound: Any, messages: list[Any]) -> Any:
        try:
            return await bound.ainvoke(messages)
        except Exception as exc:  # noqa: BLE001 - any client failure is the model's, named
            raise ModelPlannerError(
                f"the chat model could not be called: {type(exc).__name__}: {str(exc)[:300]}"
            ) from exc

    def _repair_messages(self, reply: Any, checked: _Checked, next_number: int) -> list[Any]:
        """The model's own answer, a result per call (the validator's message) and a request."""
        from langchain_core.messages import HumanMessage, ToolMessage

        problems = {call["call_id"]: problem for call, problem in checked.errors}
        answered: list[Any] = [reply]
        raw_calls = list(getattr(reply, "invalid_tool_calls", None) or []) + list(
            getattr(reply, "tool_calls", None) or []
        )
        for offset, raw in enumerate(raw_calls):
            problem = problems.get(f"c{next_number + offset}")
            text = f"rejected: {problem}" if problem else "not run: send it again with the others"
            answered.append(ToolMessage(text, tool_call_id=str(raw.get("id") or f"r{offset}")))
        listing = "\n".join(f"- {call['name']}: {problem}" for call, problem in checked.errors)
        answered.append(
            HumanMessage(
                "Some of your tool calls cannot be run:\n"
                f"{listing}\n"
                "Send the calls of this step again, all of them, corrected (numbering starts "
                f"again at c{next_number}); or answer in text if no offered tool can do it."
            )
        )
        return answered

    def _check(
        self,
        reply: Any,
        offered: Mapping[str, ToolSpec],
        sub_intents: Sequence[SubIntent],
        candidates: Mapping[str, Sequence[Candidate]],
        known: set[str],
        covered: set[str],
        next_number: int,
    ) -> _Checked:
        checked = _Checked()
        number = next_number
        known, covered = set(known), set(covered)  # this reply's own; a repair starts afresh
        for invalid in getattr(reply, "invalid_tool_calls", None) or []:
            call: TranscriptCall = {"call_id": f"c{number}", "name": str(invalid.get("name")),
                                    "args": {}}
            number += 1
            checked.errors.append(
                (call, f"its arguments are not valid JSON: {str(invalid.get('args'))[:200]}")
            )
        for raw in getattr(reply, "tool_calls", None) or []:
            call = {"call_id": f"c{number}", "name": str(raw.get("name")),
                    "args": dict(raw.get("args") or {})}
            number += 1
            if call["name"] == SEARCH_TOOL:
                checked.errors.append((call, "no more searches in this step: use the tools "
                                       "offered, or answer in text"))
                continue
            if call["name"] == SEARCH_TOOL:
                checked.errors.append((call, "no more searches in this step: use the tools "
                                       "offered, or answer in text"))
                continue
            if call["name"] == ASK_TOOL:
                question = str(call["args"].get("question") or "").strip()
                if not question:
                    checked.errors.append((call, "zspace_ask_user needs a 'question'"))
                    continue
                parameter = call["args"].get("parameter")
                checked.question = (question, str(parameter) if parameter else None,
                                    call["call_id"])
                checked.accepted.append(call)
                continue
            spec = offered.get(call["name"])
            if spec is None:
                names = ", ".join(offered) or "none"
                checked.errors.append(
                    (call, f"no tool named {call['name']!r} was offered (offered: {names})")
                )
                continue
            planned, problem = self._planned(call, spec, sub_intents, candidates, known, covered)
            if problem is not None:
                checked.errors.append((call, problem))
                continue
            assert planned is not None
            known.add(call["call_id"])
            covered.add(planned["sub_intent_id"])
            checked.planned.append(planned)
            checked.accepted.append(call)
        return checked

    def _planned(
        self,
        call: TranscriptCall,
        spec: ToolSpec,
        sub_intents: Sequence[SubIntent],
        candidates: Mapping[str, Sequence[Candidate]],
        known: set[str],
        covered: set[str],
    ) -> tuple[PlannedCall | None, str | None]:
        args: dict[str, ArgSource] = {}
        literal: dict[str, Any] = {}
        depends: list[str] = []
        for name, value in call["args"].items():
            if isinstance(value, str):
                match = _REFERENCE.match(value.strip())
                if match:
                    source, path = match.group(1), match.group(2)
                    if source not in known:
                        return None, (
                            f"argument {name!r} refers to {source}, which is not an earlier call"
                        )
                    args[name] = {"from_call": source, "field": path, "origin": "model"}
                    if source not in depends:
                        depends.append(source)
                    continue
                if _EMBEDDED_REFERENCE.search(value):
                    return None, (
                        f"argument {name!r}: a reference must be the whole value "
                        f"(\"${{cN.field}}\"), not part of a text"
                    )
            args[name] = {"value": value, "origin": "model"}
            literal[name] = value
        problems = _literal_problems(spec, literal, set(args) - set(literal))
        if problems:
            return None, "; ".join(problems)
        planned: PlannedCall = {
            "call_id": call["call_id"],
            "sub_intent_id": _sub_intent_for(spec.id, sub_intents, candidates, covered),
            "tool_id": spec.id,
            "role": "core",
            "args": args,
            "depends_on": depends,
            "side_effect": bool(spec.side_effect),
        }
        return planned, None


def _literal_problems(
    spec: ToolSpec, literal: Mapping[str, Any], referenced: set[str]
) -> list[str]:
    """Schema problems of the literal arguments; referenced ones are checked after resolution."""
    if not referenced:
        return validation_errors(spec, literal)
    schema = dict(spec.input_schema)
    schema["required"] = [r for r in schema.get("required") or [] if r not in referenced]
    return validation_errors(spec.model_copy(update={"input_schema": schema}), literal)


def _sub_intent_for(
    tool_id: str,
    sub_intents: Sequence[SubIntent],
    candidates: Mapping[str, Sequence[Candidate]],
    covered: set[str],
) -> str:
    """The sub-intent a call serves: the first that retrieved the tool and has no call yet.

    Falls back to the first that retrieved it, then to the first sub-intent.
    """
    retrieved = [
        sub["id"] for sub in sub_intents
        if any(c["tool_id"] == tool_id for c in candidates.get(sub["id"]) or [])
    ]
    for sub_id in retrieved:
        if sub_id not in covered:
            return sub_id
    if retrieved:
        return retrieved[0]
    return sub_intents[0]["id"] if sub_intents else "s1"


def _text_of(reply: Any) -> str:
    content = getattr(reply, "content", "")
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content]
        return " ".join(part for part in parts if part).strip()
    return str(content or "").strip()
