"""plan: NaviAgent's decider and navigator, per sub-intent, over the retrieved candidates.

For each sub-intent the decider picks one of four actions: answer directly, ask for a missing
value (clarify), retrieve again with a reformulated query, or call a tool. For calls the
navigator chooses the core tool, binds each required argument — from a clarification, the
sub-intent's entities, an enum value the clause names, the output of an earlier call, the
request's entities — and, for inputs nobody gave, inserts auxiliary calls found by a backward
search over the tool dependency graph. The output is a DAG of planned calls, each argument
with its source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime

from nodes.binding import (
    OWN_IDENTIFIER_SPACES,
    coerce_to_schema,
    enum_mentioned,
    find_named_value,
    plain_bases,
)
from nodes.context import Context, resolve_context
from nodes.state import ArgSource, Candidate, Intent, PlannedCall, SubIntent, ZState
from stores.catalog import Catalog, ToolSpec
from stores.depgraph import DependencyGraphError, NoChainFound, ToolDependencyGraph
from stores.keywords import lemmatize, tokenize
from stores.lexicon import Lexicon

IDEMPOTENCY_PARAM = "idempotency_key"
OPERATION_MATCH = 2.0
TARGET_MATCH = 1.5
TAG_WEIGHT = 0.5


@dataclass
class PlanOutcome:
    """What the planner decided for the whole intent."""

    calls: list[PlannedCall] = field(default_factory=list)
    question: dict[str, Any] | None = None
    retrieve_again: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)


def callable_in(spec: ToolSpec, environments: Sequence[str] | None) -> bool:
    """Whether a run with this environment allow-list may call the tool.

    A tool tagged for an allowed environment may be called; an untagged tool only when it is
    known to have no side effect (read from, never written to); any other tag never.
    """
    if not environments:
        return True
    if spec.environment is not None:
        return spec.environment in environments
    return spec.side_effect is False


def tool_terms(spec: ToolSpec, lexicon: Lexicon) -> tuple[set[str], set[str], set[str], set[str]]:
    """Canonical operations and objects a tool is about.

    Returns:
        ``(name operations, name objects, tag operations, tag objects)``: what the tool's
        name says weighs more than its tags, which are derived from its description (a
        "preview_order" tool describes the order it would create, but it creates nothing).
    """
    name_operations: set[str] = set()
    name_objects: set[str] = set()
    for word in (lemmatize(w) for w in tokenize(spec.name)):
        operation = lexicon.canonical(word, "operation")
        obj = lexicon.canonical(word, "object")
        if operation:
            name_operations.add(operation)
        if obj:
            name_objects.add(obj)
    return (name_operations, name_objects, set(spec.capability_tags[:2]),
            set(spec.entity_tags[:2]))


def _required(spec: ToolSpec) -> list[str]:
    return [p for p in spec.input_schema.get("required") or [] if p != IDEMPOTENCY_PARAM]


def _properties(spec: ToolSpec) -> dict[str, Any]:
    return dict(spec.input_schema.get("properties") or {})


class Planner:
    """Builds the plan DAG for one intent; deterministic, so re-planning is safe."""

    def __init__(
        self,
        catalog: Catalog,
        graph: ToolDependencyGraph,
        lexicon: Lexicon,
        context: Context,
    ) -> None:
        """Plan with this catalog, dependency graph, lexicon and run context."""
        self.catalog = catalog
        self.graph = graph
        self.lexicon = lexicon
        self.context = context

    def plan(
        self,
        intent: Intent,
        candidates: Mapping[str, Sequence[Candidate]],
        clarifications: Mapping[str, Any],
        excluded: Mapping[str, Sequence[str]],
        retrieval_rounds: int,
    ) -> PlanOutcome:
        """Decide every sub-intent in order and return the plan."""
        outcome = PlanOutcome()
        core_by_sub: dict[str, str] = {}
        for sub in intent["sub_intents"]:
            if sub["action"] == "direct_answer":
                outcome.decisions[sub["id"]] = {"action": "direct_answer"}
                continue
            choice = self._choose_core(
                sub, candidates.get(sub["id"], []), excluded.get(sub["id"], [])
            )
            if choice is None:
                if retrieval_rounds < self.context.max_retrieval_rounds:
                    outcome.retrieve_again.append(sub["id"])
                    outcome.decisions[sub["id"]] = {
                        "action": "retrieve_api",
                        "reason": "no candidate fits",
                    }
                else:
                    outcome.gaps.append(f"{sub['text']}: no suitable tool was found")
                    outcome.decisions[sub["id"]] = {"action": "gap", "reason": "no tool fits"}
                continue
            spec, fit = choice
            calls, missing = self._bind_call(
                sub, spec, intent, outcome.calls, core_by_sub, clarifications
            )
            if missing:
                param = missing[0]
                if f"{sub['id']}.{param}" in clarifications:
                    outcome.gaps.append(
                        f"{sub['text']}: no usable value for '{param}' of {spec.id}"
                    )
                    outcome.decisions[sub["id"]] = {"action": "gap", "tool": spec.id}
                    continue
                outcome.question = {
                    "sub_intent": sub["id"],
                    "param": param,
                    "tool_id": spec.id,
                    "question": _question(sub, spec, param),
                }
                outcome.decisions[sub["id"]] = {
                    "action": "clarify_intent",
                    "tool": spec.id,
                    "missing": missing,
                }
                return outcome
            outcome.calls.extend(calls)
            core_by_sub[sub["id"]] = calls[-1]["call_id"]
            outcome.decisions[sub["id"]] = {
                "action": "call_api",
                "tool": spec.id,
                "fit": round(fit, 3),
            }
        return outcome

    # ---------------------------------------------------------------- decider
    def _choose_core(
        self, sub: SubIntent, candidates: Sequence[Candidate], excluded: Sequence[str]
    ) -> tuple[ToolSpec, float] | None:
        environments = self.context.environments
        scored: list[tuple[float, int, ToolSpec, float]] = []
        for rank, candidate in enumerate(candidates):
            spec = self.catalog.tools.get(candidate["tool_id"])
            if spec is None or spec.id in excluded or not callable_in(spec, environments):
                continue
            name_ops, name_objects, tag_ops, tag_objects = tool_terms(spec, self.lexicon)
            fit = 0.0
            if sub["operation"] and sub["operation"] in name_ops:
                fit += OPERATION_MATCH
            elif sub["operation"] and sub["operation"] in tag_ops:
                fit += OPERATION_MATCH * TAG_WEIGHT
            if sub["target"] and sub["target"] in name_objects:
                fit += TARGET_MATCH
            elif sub["target"] and sub["target"] in tag_objects:
                fit += TARGET_MATCH * TAG_WEIGHT
            unknown_domain = not sub["operation"] and not sub["target"]
            if fit == 0.0 and not unknown_domain:
                continue
            score = fit + 1.0 / (rank + 1)
            scored.append((score, rank, spec, fit))
        if not scored:
            return None
        scored.sort(key=lambda item: (-item[0], item[1]))
        best = scored[0]
        return best[2], best[0]

    def _fillable_parameters(self, named: Mapping[str, Any]) -> set[str]:
        """Catalog parameters the user's named values can fill (``account`` → ``account_number``).

        Parameters are indexed once per catalog by their plain base name, so this costs a few
        dictionary look-ups per value instead of a lexicon pass over every parameter.
        """
        by_base = _parameters_by_base(self.catalog)
        fillable: set[str] = set()
        for key in named:
            lowered = str(key).lower()
            keys = {lowered}
            if lowered not in OWN_IDENTIFIER_SPACES:
                canonical = self.lexicon.canonical(lowered.replace("_", " "), "object")
                if canonical:
                    keys.add(canonical.replace(" ", "_"))
            for base in keys:
                fillable.update(by_base.get(base, ()))
        return fillable

    # -------------------------------------------------------------- navigator
    def _bind_call(
        self,
        sub: SubIntent,
        spec: ToolSpec,
        intent: Intent,
        planned: list[PlannedCall],
        core_by_sub: Mapping[str, str],
        clarifications: Mapping[str, Any],
    ) -> tuple[list[PlannedCall], list[str]]:
        properties = _properties(spec)
        args: dict[str, ArgSource] = {}
        missing: list[str] = []
        for param in _required(spec):
            source = self._bind_param(
                sub,
                spec,
                param,
                properties.get(param, {}),
                intent,
                planned,
                core_by_sub,
                clarifications,
                required=True,
            )
            if source is None:
                missing.append(param)
            else:
                args[param] = source
        for param, schema in properties.items():
            if param in args or param == IDEMPOTENCY_PARAM or param in missing:
                continue
            source = self._bind_param(
                sub,
                spec,
                param,
                schema,
                intent,
                planned,
                core_by_sub,
                clarifications,
                required=False,
            )
            if source is not None:
                args[param] = source
        auxiliary: list[PlannedCall] = []
        if missing:
            auxiliary, missing = self._auxiliary_calls(sub, spec, args, missing, intent, planned)
        core: PlannedCall = {
            "call_id": f"{sub['id']}.core",
            "sub_intent_id": sub["id"],
            "tool_id": spec.id,
            "role": "core",
            "args": args,
            "depends_on": sorted({s["from_call"] for s in args.values() if "from_call" in s}),
            "side_effect": spec.side_effect is not False,
        }
        return [*auxiliary, core], missing

    def _bind_param(
        self,
        sub: SubIntent,
        spec: ToolSpec,
        param: str,
        schema: Mapping[str, Any],
        intent: Intent,
        planned: list[PlannedCall],
        core_by_sub: Mapping[str, str],
        clarifications: Mapping[str, Any],
        required: bool,
    ) -> ArgSource | None:
        answer_key = f"{sub['id']}.{param}"
        if answer_key in clarifications and clarifications[answer_key] not in (None, ""):
            return {
                "value": coerce_to_schema(clarifications[answer_key], schema),
                "origin": "clarification",
            }
        found, value, key = find_named_value(param, sub.get("entities") or {}, self.lexicon)
        if found:
            return {"value": coerce_to_schema(value, schema), "origin": f"entity:{key}"}
        if schema.get("enum"):
            mentioned = enum_mentioned(sub["text"], schema)
            if mentioned is not None:
                return {"value": mentioned, "origin": "text"}
        earlier = self._from_earlier_call(sub, spec, param, planned, core_by_sub, required)
        if earlier is not None:
            return earlier
        if required:
            found, value, key = find_named_value(
                param, intent["entities"].get("named") or {}, self.lexicon
            )
            if found:
                return {"value": coerce_to_schema(value, schema), "origin": f"request:{key}"}
        return None

    def _from_earlier_call(
        self,
        sub: SubIntent,
        spec: ToolSpec,
        param: str,
        planned: Sequence[PlannedCall],
        core_by_sub: Mapping[str, str],
        required: bool,
    ) -> ArgSource | None:
        try:
            edges = self.graph.producers(spec.id, param)
        except DependencyGraphError:
            return None
        if not edges:
            return None
        by_tool = {edge.source: edge for edge in reversed(edges)}
        allowed_calls = None
        if not required:
            # Optional inputs come only from sub-intents this one says it depends on.
            allowed_calls = {core_by_sub[d] for d in sub["depends_on"] if d in core_by_sub}
        for call in reversed(planned):
            if allowed_calls is not None and call["call_id"] not in allowed_calls:
                continue
            edge = by_tool.get(call["tool_id"])
            if edge is not None:
                return {
                    "from_call": call["call_id"],
                    "field": edge.output_field,
                    "origin": "output",
                }
        return None

    def _auxiliary_calls(
        self,
        sub: SubIntent,
        spec: ToolSpec,
        args: dict[str, ArgSource],
        missing: list[str],
        intent: Intent,
        planned: Sequence[PlannedCall],
    ) -> tuple[list[PlannedCall], list[str]]:
        named = {**(intent["entities"].get("named") or {}), **(sub.get("entities") or {})}
        # The graph speaks parameter names: say which parameters the user's values can fill.
        available = set(args) | self._fillable_parameters(named)
        try:
            steps = self.graph.plan_inputs(spec.id, available)
        except NoChainFound as exc:
            return [], [p for p in missing if p in set(exc.missing)] or missing
        except DependencyGraphError:
            return [], missing
        calls: list[PlannedCall] = []
        call_of_tool: dict[str, str] = {}
        pending_feeds: dict[str, dict[str, ArgSource]] = {}
        for index, step in enumerate(steps, start=1):
            step_spec = self.catalog.tools.get(step.tool_id)
            if step_spec is None or not callable_in(step_spec, self.context.environments):
                return [], missing
            step_args: dict[str, ArgSource] = dict(pending_feeds.get(step.tool_id, {}))
            properties = _properties(step_spec)
            for param in _required(step_spec):
                if param in step_args:
                    continue
                found, value, key = find_named_value(param, named, self.lexicon)
                if not found:
                    return [], missing
                step_args[param] = {
                    "value": coerce_to_schema(value, properties.get(param, {})),
                    "origin": f"entity:{key}",
                }
            reused = _identical_call(planned, step.tool_id, step_args)
            call_id = reused or f"{sub['id']}.aux{index}"
            call_of_tool[step.tool_id] = call_id
            if reused is None:
                calls.append(
                    {
                        "call_id": call_id,
                        "sub_intent_id": sub["id"],
                        "tool_id": step.tool_id,
                        "role": "auxiliary",
                        "args": step_args,
                        "depends_on": sorted(
                            {s["from_call"] for s in step_args.values() if "from_call" in s}
                        ),
                        "side_effect": step_spec.side_effect is not False,
                    }
                )
            for feed in step.feeds:
                source: ArgSource = {
                    "from_call": call_id,
                    "field": feed.output_field,
                    "origin": "auxiliary",
                }
                if feed.target == spec.id:
                    args.setdefault(feed.param, source)
                else:
                    pending_feeds.setdefault(feed.target, {})[feed.param] = source
        still_missing = [p for p in missing if p not in args]
        return calls, still_missing


_PARAMETER_INDEX: dict[int, tuple[int, dict[str, set[str]]]] = {}


def _parameters_by_base(catalog: Catalog) -> dict[str, set[str]]:
    """Every input parameter of the catalog under its name and its name without an id suffix."""
    cached = _PARAMETER_INDEX.get(id(catalog))
    if cached is not None and cached[0] == len(catalog.tools):
        return cached[1]
    index: dict[str, set[str]] = {}
    for spec in catalog.tools.values():
        for param in _properties(spec):
            for base in plain_bases(param):
                index.setdefault(base, set()).add(param)
    _PARAMETER_INDEX[id(catalog)] = (len(catalog.tools), index)
    return index


def _identical_call(
    planned: Sequence[PlannedCall], tool_id: str, args: Mapping[str, ArgSource]
) -> str | None:
    for call in planned:
        if call["tool_id"] == tool_id and call["args"] == dict(args):
            return call["call_id"]
    return None


def _question(sub: SubIntent, spec: ToolSpec, param: str) -> str:
    described = (_properties(spec).get(param) or {}).get("description")
    hint = f" ({described})" if described else ""
    return (
        f"To {sub['text'].strip().rstrip('.')!r} I need a value for '{param}'{hint} "
        f"of {spec.id}. What should it be?"
    )


async def plan(state: ZState, runtime: Runtime[Context], *, planner_factory: Any) -> dict[str, Any]:
    """Decide an action per sub-intent and build the plan DAG.

    Reads ``intent``, ``candidates``, ``clarifications``, ``excluded_tools``,
    ``retrieval_rounds``; writes ``plan``, ``pending_question``, ``retry_subintents``,
    ``gaps`` and ``decisions``.
    """
    context = resolve_context(runtime)
    planner: Planner = planner_factory(context)
    intent = state["intent"]
    outcome = planner.plan(
        intent,
        state.get("candidates") or {},
        state.get("clarifications") or {},
        state.get("excluded_tools") or {},
        state.get("retrieval_rounds") or 0,
    )
    return {
        "plan": outcome.calls,
        "pending_question": outcome.question,
        "retry_subintents": outcome.retrieve_again,
        "gaps": outcome.gaps,
        "decisions": outcome.decisions,
    }
