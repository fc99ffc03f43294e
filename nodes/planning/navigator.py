"""NaviAgent's navigator: where a call's inputs come from when the user did not give them.

Over the tool dependency graph (:mod:`stores.catalog.depgraph`, edges "an output of tool A can
feed an input of tool B"), the navigator finds an earlier call of the plan whose output feeds an
input, the read-only lookups that turn a value the user gave into an identifier the tool takes,
and the auxiliary chains, searched backwards from the core tool to inputs the user gave. It
also keeps the order the user said things in when two steps touch the same object.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from nodes.planning.binding import (
    coerce_to_schema,
    find_named_value,
    identified_object,
    own_identifier_spaces,
    plain_bases,
    required_params,
    schema_properties,
)
from nodes.planning.draft import PlanDraft
from nodes.planning.eligibility import callable_in, tool_terms
from nodes.state import ArgSource, PlannedCall, SubIntent
from stores.catalog.depgraph import DependencyGraphError, NoChainFound, ToolDependencyGraph
from stores.catalog.model import IDEMPOTENCY_PARAM, Catalog, ToolSpec
from stores.language.keywords import lemmatize, tokenize
from stores.language.lexicon import Lexicon
from stores.language.vocabulary import domain_vocabulary

POINTING_PRONOUNS = frozenset(
    {"it", "its", "them", "their", "they", "him", "his", "her", "he", "she", "theirs"}
)
PERSON_PRONOUNS = frozenset({"them", "their", "they", "him", "his", "her", "he", "she"})


class Navigator:
    """Finds the sources of a call's inputs in the plan so far and the dependency graph."""

    def __init__(
        self,
        catalog: Catalog,
        graph: ToolDependencyGraph,
        lexicon: Lexicon,
        environments: Sequence[str] | None,
    ) -> None:
        """Navigate this catalog's dependency graph, calling only what the environments allow."""
        self.catalog = catalog
        self.graph = graph
        self.lexicon = lexicon
        self.environments = environments

    # ------------------------------------------------------------ earlier calls
    def from_earlier_call(
        self, draft: PlanDraft, sub: SubIntent, spec: ToolSpec, param: str, required: bool
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
        noun = param_noun(param, self.lexicon)
        candidates = [c for c in reversed(draft.calls) if c["tool_id"] in by_tool]
        if not required:
            pointed = self._pointed_objects(draft, sub)
            referred = {draft.core_by_sub[d] for d in sub["depends_on"] if d in draft.core_by_sub}
            named = named_objects(sub["text"], self.lexicon)
            text = sub["text"].lower()
            candidates = [
                c
                for c in candidates
                if (noun in pointed and c["call_id"] in referred)
                or (noun in named and noun in self._tool_objects(c["tool_id"]))
                or repeats_a_value(c, text)
            ]
        own = [c for c in candidates if noun and noun in self._tool_objects(c["tool_id"])]
        for call in [*own, *candidates]:
            edge = by_tool[call["tool_id"]]
            return {"from_call": call["call_id"], "field": edge.output_field, "origin": "output"}
        return None

    def _tool_objects(self, tool_id: str) -> set[str]:
        spec = self.catalog.tools.get(tool_id)
        return tool_terms(spec, self.lexicon)[1] if spec is not None else set()

    def _pointed_objects(self, draft: PlanDraft, sub: SubIntent) -> set[str]:
        """Objects a clause points at with a pronoun: the targets of the steps it refers to."""
        words = set(re.findall(r"[a-z']+", sub["text"].lower()))
        if not words & POINTING_PRONOUNS:
            return set()
        targets = {sub["target"]}
        for other in draft.request.intent["sub_intents"]:
            if other["id"] in sub["depends_on"]:
                # What that step was about, and the objects it named ("restock product 1").
                targets.add(other["target"])
                for key in other.get("entities") or {}:
                    targets.add(self.lexicon.canonical(key, "object") or key)
        if words & PERSON_PRONOUNS:
            targets |= domain_vocabulary().person_objects
        return {t for t in targets if t}

    # ------------------------------------------------------------ lookups
    def optional_lookups(
        self,
        draft: PlanDraft,
        sub: SubIntent,
        spec: ToolSpec,
        args: dict[str, ArgSource],
        pending: Sequence[PlannedCall],
    ) -> list[PlannedCall]:
        """Lookups that turn a value the user gave into an optional identifier of the tool.

        "the orders of account 123456": ``list_orders`` has an optional ``user_id``; the
        account number becomes one through a read-only lookup the dependency graph knows.
        ``pending`` are this call's auxiliary calls, not in the draft yet.
        """
        consumed = {
            source["origin"].split(":", 1)[1]
            for source in args.values()
            if source.get("origin", "").startswith(("entity:", "request:"))
        }
        unused = {k: v for k, v in (sub.get("entities") or {}).items() if k not in consumed}
        if not unused:
            return []
        planned = [*draft.calls, *pending]
        calls: list[PlannedCall] = []
        for param in schema_properties(spec):
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
                    or not callable_in(source, self.environments)
                    or not required_params(source)
                ):
                    continue
                source_args: dict[str, ArgSource] = {}
                for needed in required_params(source):
                    found, value, key = find_named_value(needed, unused, self.lexicon)
                    if not found:
                        break
                    source_args[needed] = {
                        "value": coerce_to_schema(value, schema_properties(source).get(needed, {})),
                        "origin": f"entity:{key}",
                    }
                if len(source_args) != len(required_params(source)):
                    continue
                reused = identical_call([*planned, *calls], source.id, source_args)
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

    # ------------------------------------------------------------ chains
    def auxiliary_calls(
        self,
        draft: PlanDraft,
        sub: SubIntent,
        spec: ToolSpec,
        args: dict[str, ArgSource],
        missing: list[str],
    ) -> tuple[list[PlannedCall], list[str]]:
        """The chain of calls that produces the missing inputs from values the user gave.

        Returns:
            ``(auxiliary calls, inputs still missing)``; no calls when no chain fits.
        """
        intent = draft.request.intent
        named = {**(intent["entities"].get("named") or {}), **(sub.get("entities") or {})}
        # The graph speaks parameter names: say which parameters the user's values can fill.
        available = set(args) | self.fillable_parameters(named)
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
            if step_spec is None or not callable_in(step_spec, self.environments):
                return [], missing
            step_args: dict[str, ArgSource] = dict(pending_feeds.get(step.tool_id, {}))
            properties = schema_properties(step_spec)
            for param in required_params(step_spec):
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
            reused = identical_call(draft.calls, step.tool_id, step_args)
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

    def fillable_parameters(self, named: Mapping[str, Any]) -> set[str]:
        """Catalog parameters the user's named values can fill (``account`` → ``account_number``).

        Parameters are indexed once per catalog by their plain base name, so this costs a few
        dictionary look-ups per value instead of a lexicon pass over every parameter.
        """
        by_base = parameters_by_base(self.catalog)
        fillable: set[str] = set()
        for key in named:
            lowered = str(key).lower()
            keys = {lowered}
            if lowered not in own_identifier_spaces():
                canonical = self.lexicon.canonical(lowered.replace("_", " "), "object")
                if canonical:
                    keys.add(canonical.replace(" ", "_"))
            for base in keys:
                fillable.update(by_base.get(base, ()))
        return fillable


_PARAMETER_INDEX: dict[int, tuple[int, dict[str, set[str]]]] = {}


def parameters_by_base(catalog: Catalog) -> dict[str, set[str]]:
    """Every input parameter of the catalog under its name and the object it identifies."""
    cached = _PARAMETER_INDEX.get(id(catalog))
    if cached is not None and cached[0] == len(catalog.tools):
        return cached[1]
    index: dict[str, set[str]] = {}
    for spec in catalog.tools.values():
        for param in schema_properties(spec):
            for base in plain_bases(param):
                index.setdefault(base, set()).add(param)
    _PARAMETER_INDEX[id(catalog)] = (len(catalog.tools), index)
    return index


# ---------------------------------------------------------------- said order
def keep_said_order(core: PlannedCall, planned: Sequence[PlannedCall]) -> None:
    """Make a call wait for the latest earlier write to the same object.

    "Assign a rider to delivery 2 and mark delivery 2 as picked up", "start a membership for
    him and show his membership": nothing links the two steps' data, yet the second only
    works after the first. A call that names the same identifier as an earlier
    side-effecting call of another step, literally or from the same earlier output, runs
    after it, in the order the user said them.
    """
    mine = identifier_sources(core)
    if not mine:
        return
    for call in reversed(planned):
        if call["sub_intent_id"] == core["sub_intent_id"] or not call["side_effect"]:
            continue
        if mine & identifier_sources(call) and call["call_id"] not in core["depends_on"]:
            core["depends_on"] = sorted({*core["depends_on"], call["call_id"]})
            return


def identifier_sources(call: PlannedCall) -> set[tuple[str, str]]:
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


# ---------------------------------------------------------------- helpers
def identical_call(
    planned: Sequence[PlannedCall], tool_id: str, args: Mapping[str, ArgSource]
) -> str | None:
    """The id of a planned call of this tool with these very arguments, if any (reused)."""
    for call in planned:
        if call["tool_id"] == tool_id and call["args"] == dict(args):
            return call["call_id"]
    return None


def param_noun(param: str, lexicon: Lexicon) -> str:
    """The object a parameter identifies: ``coupon_id`` → coupon, ``account_number`` → account."""
    bases = plain_bases(param)
    for base in bases[1:] or bases:
        canonical = lexicon.canonical(base.replace("_", " "), "object")
        if canonical and base not in own_identifier_spaces():
            return canonical
    return bases[-1] if bases else param


def named_objects(text: str, lexicon: Lexicon) -> set[str]:
    """The canonical objects a clause names."""
    tokens = [lemmatize(t) for t in tokenize(text)]
    return {m.canonical for m in lexicon.find_terms(tokens) if m.kind == "object"}


def repeats_a_value(call: PlannedCall, text: str) -> bool:
    """Whether the clause repeats a (non-numeric) value the call was given."""
    for source in call["args"].values():
        value = source.get("value")
        if isinstance(value, str) and len(value) >= 3 and not value.isdigit():
            if re.search(rf"\b{re.escape(value.lower())}\b", text):
                return True
    return False
