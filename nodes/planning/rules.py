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

import asyncio
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langgraph.runtime import Runtime

from nodes.context import Context, resolve_context
from nodes.planning.binding import (
    OWN_IDENTIFIER_SPACES,
    coerce_to_schema,
    enum_mentioned,
    find_named_value,
    identified_object,
    plain_bases,
)
from nodes.state import ArgSource, Candidate, Intent, PlannedCall, SubIntent, ZState
from stores.catalog.depgraph import DependencyGraphError, NoChainFound, ToolDependencyGraph
from stores.catalog.model import Catalog, ToolSpec
from stores.execution.policy import environment_allows
from stores.language.entities import extract_entities
from stores.language.keywords import lemmatize, tokenize
from stores.language.lexicon import Lexicon

IDEMPOTENCY_PARAM = "idempotency_key"
OPERATION_MATCH = 2.0
TARGET_MATCH = 1.5
TAG_WEIGHT = 0.5
# How the decider weighs a candidate's binding (a dry run of the navigator): each value the
# user gave that the call consumes counts, directly more than through a lookup; each lookup
# costs a little (the shorter plan wins) and each required value nobody gave costs more.
COVER_WEIGHT = 1.5
LOOKUP_COVER_WEIGHT = 0.75
LOOKUP_COST = 0.5
MISSING_PENALTY = 1.0
MAX_BIND_TRIALS = 8
RESIDUE_PENALTY = 1.0
# A write the user asks for cannot be done by a tool known to be read-only (a "check whether
# an order could move" lookalike), nor a lookup by a tool that writes.
EFFECT_MISMATCH = 3.0
READ_OPERATIONS = frozenset({"get", "list", "search", "count", "verify"})
# What the tool's name says about the clause's operation and object counts again against
# binding: a lookup that consumes "account 123456" is not what "show the cart of account
# 123456" asks for.
FIT_EMPHASIS = 1.0
NAME_FILLERS = frozenset({"by", "for", "from", "the", "and", "with", "all", "info", "details"})
# Free-form parameters that take every ``key=value`` the user wrote for the call.
ATTRIBUTE_PARAMS = frozenset({"attributes", "properties", "options", "variant"})
# A parameter that takes a value the user named otherwise ("20 percent off" is the value).
PARAM_ALIASES: dict[str, tuple[str, ...]] = {
    "value": ("amount", "percent"),
    "line1": ("street",),
    "address_line": ("street",),
    "amount": ("balance",),
}
# Parameters a bare number in the clause may fill when nothing else names it ("top up by 5").
NUMERIC_SLOTS = ("amount", "value", "quantity")


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

    The policy's environment rule, with an unknown side effect counted as writing; an empty
    allow-list means no restriction, as the run's executor reads it.
    """
    return environment_allows(spec.environment, spec.side_effect is not False, environments or None)


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
    return (name_operations, name_objects, set(spec.capability_tags[:2]), set(spec.entity_tags[:2]))


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
        self._all_subs = list(intent["sub_intents"])
        for sub in intent["sub_intents"]:
            if sub["action"] == "direct_answer":
                outcome.decisions[sub["id"]] = {"action": "direct_answer"}
                continue
            choice = self._choose_and_bind(
                sub,
                candidates.get(sub["id"], []),
                excluded.get(sub["id"], []),
                intent,
                outcome.calls,
                core_by_sub,
                clarifications,
            )
            if choice is not None and choice[3] and _nothing_understood(sub):
                # A read may answer a clause nobody understood ("hola"), but asking the user
                # for a value of a tool the planner only guessed at answers nothing.
                choice = None
            if choice is None:
                if retrieval_rounds < self.context.max_retrieval_rounds:
                    outcome.retrieve_again.append(sub["id"])
                    outcome.decisions[sub["id"]] = {
                        "action": "retrieve_api",
                        "reason": "no candidate fits",
                    }
                elif _nothing_understood(sub):
                    outcome.gaps.append(
                        f"{sub['text']}: I could not tell what to do (no action or object I "
                        "know) and never guess a call that changes data; say it with a verb "
                        "and an object, e.g. 'create a test product'"
                    )
                    outcome.decisions[sub["id"]] = {"action": "gap", "reason": "not understood"}
                else:
                    outcome.gaps.append(f"{sub['text']}: no suitable tool was found")
                    outcome.decisions[sub["id"]] = {"action": "gap", "reason": "no tool fits"}
                continue
            spec, fit, calls, missing = choice
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
            _keep_said_order(calls[-1], outcome.calls)
            outcome.calls.extend(calls)
            core_by_sub[sub["id"]] = calls[-1]["call_id"]
            outcome.decisions[sub["id"]] = {
                "action": "call_api",
                "tool": spec.id,
                "fit": round(fit, 3),
            }
        return outcome

    # ---------------------------------------------------------------- decider
    def _choose_and_bind(
        self,
        sub: SubIntent,
        candidates: Sequence[Candidate],
        excluded: Sequence[str],
        intent: Intent,
        planned: list[PlannedCall],
        core_by_sub: Mapping[str, str],
        clarifications: Mapping[str, Any],
    ) -> tuple[ToolSpec, float, list[PlannedCall], list[str]] | None:
        """Pick the core tool by name fit, rank and how well the user's values bind to it.

        Each of the best-fitting candidates is bound in a dry run: a tool that consumes the
        values the user gave ("delivery 2" for ``assign_rider``) beats one that ignores them,
        and a tool whose required inputs nobody gave loses some of its fit.
        """
        scored = self._score_candidates(sub, candidates, excluded)
        best: tuple[tuple[float, int], ToolSpec, float, list[PlannedCall], list[str]] | None
        best = None
        for score, rank, spec, fit in scored[:MAX_BIND_TRIALS]:
            calls, missing = self._bind_call(
                sub, spec, intent, planned, core_by_sub, clarifications
            )
            direct, through_lookups = _consumed_values(calls)
            lookups = sum(1 for c in calls if c["role"] == "auxiliary")
            total = (
                score
                + FIT_EMPHASIS * fit
                + COVER_WEIGHT * len(direct)
                + LOOKUP_COVER_WEIGHT * len(through_lookups - direct)
                - LOOKUP_COST * lookups
                - MISSING_PENALTY * len(missing)
            )
            key = (total, -rank)
            if best is None or key > best[0]:
                best = (key, spec, total, calls, missing)
        if best is None:
            return None
        return best[1], best[2], best[3], best[4]

    def _score_candidates(
        self, sub: SubIntent, candidates: Sequence[Candidate], excluded: Sequence[str]
    ) -> list[tuple[float, int, ToolSpec, float]]:
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
            unknown_domain = _nothing_understood(sub)
            if fit == 0.0 and not unknown_domain:
                continue
            if unknown_domain and spec.side_effect is not False:
                # Nothing in the clause was understood ("hola", "asdf"): a read may still
                # answer it, but an effect is never the planner's guess.
                continue
            score = fit + 1.0 / (rank + 1) - RESIDUE_PENALTY * self._name_residue(sub, spec)
            if _contradicts_effect(sub["operation"], spec):
                score -= EFFECT_MISMATCH
            scored.append((score, rank, spec, fit))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return scored

    def _name_residue(self, sub: SubIntent, spec: ToolSpec) -> int:
        """Words of the tool's name the clause does not account for.

        ``get_order_history`` says more than "show order 3" asks, and
        ``check_stock_availability`` more than "the stock level of product 3": the tool whose
        name the request explains fully is the one meant.
        """
        words = set(re.findall(r"[a-z]+", sub["text"].lower()))
        said = {lemmatize(w) for w in words} | words
        terms = {sub["operation"], sub["target"]}
        for match in self.lexicon.find_terms([lemmatize(w) for w in tokenize(sub["text"])]):
            terms.add(match.canonical)
        residue = 0
        for word in tokenize(spec.name):
            lemma = lemmatize(word)
            if len(lemma) < 3 or lemma in NAME_FILLERS or lemma in said or word in said:
                continue
            canonical = {
                self.lexicon.canonical(lemma, "operation"),
                self.lexicon.canonical(lemma, "object"),
            }
            if canonical & terms:
                continue
            residue += 1
        return residue

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
        self._bind_leftover_number(sub, spec, args)
        for param in missing:
            # A value said elsewhere in the request ("... for account 123456, then ...").
            found, value, key = find_named_value(
                param, intent["entities"].get("named") or {}, self.lexicon
            )
            if found and param not in args:
                args[param] = {
                    "value": coerce_to_schema(value, properties.get(param, {})),
                    "origin": f"request:{key}",
                }
        missing = [p for p in missing if p not in args]
        auxiliary: list[PlannedCall] = []
        if missing:
            auxiliary, missing = self._auxiliary_calls(sub, spec, args, missing, intent, planned)
        auxiliary.extend(
            self._optional_lookups(sub, spec, args, [*planned, *auxiliary], core_by_sub)
        )
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
        for alias in PARAM_ALIASES.get(param, ()):
            value = (sub.get("entities") or {}).get(alias)
            if value is not None:
                return {"value": coerce_to_schema(value, schema), "origin": f"entity:{alias}"}
        if param in ATTRIBUTE_PARAMS:
            attributes = self._attribute_pairs(sub, spec, intent)
            if attributes:
                return {"value": attributes, "origin": "entity:pairs"}
        if schema.get("enum"):
            mentioned = enum_mentioned(sub["text"], schema)
            if mentioned is not None:
                return {"value": mentioned, "origin": "text"}
        earlier = self._from_earlier_call(sub, spec, param, planned, core_by_sub, required)
        if earlier is not None:
            return earlier
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
        """An earlier call's output for ``param``.

        Required inputs take the latest call that can produce them, a call about the
        parameter's own object first (the coupon of ``issue_coupon``, not the coupon field of
        an order). Optional inputs are only identifiers, and only when the clause points at
        them: it refers by pronoun to the step that made them, names their object, or repeats
        a value that call was given ("assign Tom to it" after "add a rider named Tom").
        """
        try:
            edges = self.graph.producers(spec.id, param)
        except DependencyGraphError:
            return None
        if not edges:
            return None
        if not identified_object(param):
            return None  # prices, amounts, statuses come from the user, not another call
        by_tool = {edge.source: edge for edge in reversed(edges)}
        noun = _param_noun(param, self.lexicon)
        candidates = [c for c in reversed(planned) if c["tool_id"] in by_tool]
        if not required:
            pointed = self._pointed_objects(sub)
            referred = {core_by_sub[d] for d in sub["depends_on"] if d in core_by_sub}
            named = _named_objects(sub["text"], self.lexicon)
            text = sub["text"].lower()
            candidates = [
                c
                for c in candidates
                if (noun in pointed and c["call_id"] in referred)
                or (noun in named and noun in self._tool_objects(c["tool_id"]))
                or _repeats_a_value(c, text)
            ]
        own = [c for c in candidates if noun and noun in self._tool_objects(c["tool_id"])]
        for call in [*own, *candidates]:
            edge = by_tool[call["tool_id"]]
            return {"from_call": call["call_id"], "field": edge.output_field, "origin": "output"}
        return None

    def _tool_objects(self, tool_id: str) -> set[str]:
        spec = self.catalog.tools.get(tool_id)
        return tool_terms(spec, self.lexicon)[1] if spec is not None else set()

    def _pointed_objects(self, sub: SubIntent) -> set[str]:
        """Objects a clause points at with a pronoun: the targets of the steps it refers to."""
        words = set(re.findall(r"[a-z']+", sub["text"].lower()))
        if not words & POINTING_PRONOUNS:
            return set()
        targets = {sub["target"]}
        for other in getattr(self, "_all_subs", []):
            if other["id"] in sub["depends_on"]:
                # What that step was about, and the objects it named ("restock product 1").
                targets.add(other["target"])
                for key in other.get("entities") or {}:
                    targets.add(self.lexicon.canonical(key, "object") or key)
        if words & PERSON_PRONOUNS:
            targets.add("user")
        return {t for t in targets if t}

    def _attribute_pairs(self, sub: SubIntent, spec: ToolSpec, intent: Intent) -> str:
        """The ``key=value`` pairs written in this clause that are no parameter of the tool."""
        properties = _properties(spec)
        text = sub["text"].lower().replace(" ", "")
        pairs = [
            f"{key}={value}"
            for key, value in (intent["entities"].get("pairs") or {}).items()
            if key not in properties and f"{key}=" in text
        ]
        return ",".join(pairs)

    def _bind_leftover_number(
        self, sub: SubIntent, spec: ToolSpec, args: dict[str, ArgSource]
    ) -> None:
        """Give the one bare number of a clause to the tool's one free amount-like slot."""
        properties = _properties(spec)
        required = [
            p
            for p in _required(spec)
            if p not in args
            and not identified_object(p)  # an id is never a bare number's guess
            and _is_numeric(properties.get(p, {}))
        ]
        slots = required or [
            p
            for p in NUMERIC_SLOTS
            if p in properties and p not in args and _is_numeric(properties[p])
        ]
        if not slots or len(required) > 1:
            return
        entities = extract_entities(sub["text"], self.lexicon)
        named = [*(sub.get("entities") or {}).values(), *entities["named"].values()]
        taken = {number for number in (_as_float(v) for v in named) if number is not None}
        leftovers = [float(n) for n in entities["numbers"]]
        leftovers += [float(a["value"]) for a in entities["amounts"]]
        free = list(dict.fromkeys(n for n in leftovers if n not in taken))
        if len(free) == 1:
            args[slots[0]] = {
                "value": coerce_to_schema(free[0], properties[slots[0]]),
                "origin": "text",
            }

    def _optional_lookups(
        self,
        sub: SubIntent,
        spec: ToolSpec,
        args: dict[str, ArgSource],
        planned: Sequence[PlannedCall],
        core_by_sub: Mapping[str, str],
    ) -> list[PlannedCall]:
        """Lookups that turn a value the user gave into an optional identifier of the tool.

        "the orders of account 123456": ``list_orders`` has an optional ``user_id``; the
        account number becomes one through a read-only lookup the dependency graph knows.
        """
        consumed = {
            source["origin"].split(":", 1)[1]
            for source in args.values()
            if source.get("origin", "").startswith(("entity:", "request:"))
        }
        unused = {k: v for k, v in (sub.get("entities") or {}).items() if k not in consumed}
        if not unused:
            return []
        calls: list[PlannedCall] = []
        for param in _properties(spec):
            if (
                param in args
                or param == IDEMPOTENCY_PARAM
                or not identified_object(param)
            ):
                continue
            try:
                edges = self.graph.producers(spec.id, param)
            except DependencyGraphError:
                return calls
            for edge in edges:
                source = self.catalog.tools.get(edge.source)
                if (
                    source is None
                    or source.side_effect is not False
                    or not callable_in(source, self.context.environments)
                    or not _required(source)
                ):
                    continue
                source_args: dict[str, ArgSource] = {}
                for needed in _required(source):
                    found, value, key = find_named_value(needed, unused, self.lexicon)
                    if not found:
                        break
                    source_args[needed] = {
                        "value": coerce_to_schema(value, _properties(source).get(needed, {})),
                        "origin": f"entity:{key}",
                    }
                if len(source_args) != len(_required(source)):
                    continue
                reused = _identical_call([*planned, *calls], source.id, source_args)
                call_id = reused or f"{sub['id']}.aux{len(calls) + 1}o"
                if reused is None:
                    calls.append(
                        {
                            "call_id": call_id,
                            "sub_intent_id": sub["id"],
                            "tool_id": source.id,
                            "role": "auxiliary",
                            "args": source_args,
                            "depends_on": [],
                            "side_effect": False,
                        }
                    )
                args[param] = {
                    "from_call": call_id,
                    "field": edge.output_field,
                    "origin": "auxiliary",
                }
                for used in source_args.values():
                    unused.pop(used.get("origin", ":").split(":", 1)[1], None)
                break
        return calls

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
            writes = step_spec.side_effect is not False
            if (writes or not step_args) and not (writes and sub["operation"] == "create"):
                # Acting on an existing object never invents it: a lookup must start from a
                # value the user gave, and only creating something may create what it needs
                # ("an order for account 123456" may create its test product).
                return [], missing
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


POINTING_PRONOUNS = frozenset(
    {"it", "its", "them", "their", "they", "him", "his", "her", "he", "she", "theirs"}
)
PERSON_PRONOUNS = frozenset({"them", "their", "they", "him", "his", "her", "he", "she"})


def _keep_said_order(core: PlannedCall, planned: Sequence[PlannedCall]) -> None:
    """Make a call wait for the latest earlier write to the same object.

    "Assign a rider to delivery 2 and mark delivery 2 as picked up", "start a membership for
    him and show his membership": nothing links the two steps' data, yet the second only
    works after the first. A call that names the same identifier as an earlier
    side-effecting call of another step, literally or from the same earlier output, runs
    after it, in the order the user said them.
    """
    mine = _identifier_sources(core)
    if not mine:
        return
    for call in reversed(planned):
        if call["sub_intent_id"] == core["sub_intent_id"] or not call["side_effect"]:
            continue
        if mine & _identifier_sources(call) and call["call_id"] not in core["depends_on"]:
            core["depends_on"] = sorted({*core["depends_on"], call["call_id"]})
            return


def _identifier_sources(call: PlannedCall) -> set[tuple[str, str]]:
    """Where a call's identifiers come from: a literal value, or an earlier call's field."""
    sources: set[tuple[str, str]] = set()
    for param, source in call["args"].items():
        if not identified_object(param):
            continue
        if "from_call" in source:
            sources.add((param, f"{source['from_call']}.{source.get('field')}"))
        elif "value" in source:
            sources.add((param, str(source["value"])))
    return sources


def _contradicts_effect(operation: str, spec: ToolSpec) -> bool:
    """Whether the tool's known side effect contradicts the operation asked for."""
    if not operation or spec.side_effect is None:
        return False
    return (operation in READ_OPERATIONS) == bool(spec.side_effect)


def _param_noun(param: str, lexicon: Lexicon) -> str:
    """The object a parameter identifies: ``coupon_id`` → coupon, ``account_number`` → account."""
    bases = plain_bases(param)
    for base in bases[1:] or bases:
        canonical = lexicon.canonical(base.replace("_", " "), "object")
        if canonical and base not in OWN_IDENTIFIER_SPACES:
            return canonical
    return bases[-1] if bases else param


def _named_objects(text: str, lexicon: Lexicon) -> set[str]:
    tokens = [lemmatize(t) for t in tokenize(text)]
    return {m.canonical for m in lexicon.find_terms(tokens) if m.kind == "object"}


def _repeats_a_value(call: PlannedCall, text: str) -> bool:
    for source in call["args"].values():
        value = source.get("value")
        if isinstance(value, str) and len(value) >= 3 and not value.isdigit():
            if re.search(rf"\b{re.escape(value.lower())}\b", text):
                return True
    return False


def _is_numeric(schema: Mapping[str, Any]) -> bool:
    kinds = {schema.get("type")} | {
        option.get("type") for option in schema.get("anyOf") or [] if isinstance(option, dict)
    }
    return bool(kinds & {"number", "integer"})


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _consumed_values(calls: Sequence[PlannedCall]) -> tuple[set[str], set[str]]:
    """Keys of the user's values a call consumes directly, and through its lookups."""
    direct: set[str] = set()
    through: set[str] = set()
    for call in calls:
        for source in call["args"].values():
            origin = source.get("origin", "")
            if origin.startswith(("entity:", "request:")) or origin in {"text", "clarification"}:
                key = origin.split(":", 1)[-1]
                (direct if call["role"] == "core" else through).add(key)
    return direct, through


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

    def decide() -> PlanOutcome:
        planner: Planner = planner_factory(context)
        return planner.plan(
            state["intent"],
            state.get("candidates") or {},
            state.get("clarifications") or {},
            state.get("excluded_tools") or {},
            state.get("retrieval_rounds") or 0,
        )

    # Loading the catalog and the dependency graph touches files and SQLite: off the loop.
    outcome = await asyncio.to_thread(decide)
    return {
        "plan": outcome.calls,
        "pending_question": outcome.question,
        "retry_subintents": outcome.retrieve_again,
        "gaps": outcome.gaps,
        "decisions": outcome.decisions,
    }


def _nothing_understood(sub: SubIntent) -> bool:
    """No operation and no object of the clause was recognized ("hola", "asdf")."""
    return not sub["operation"] and not sub["target"]
