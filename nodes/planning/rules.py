"""The rule planner: NaviAgent's decider per sub-intent, schema-driven, no model.

For each sub-intent the decider picks one of four actions: answer directly, ask for a missing
value (clarify), retrieve again with a reformulated query, or call a tool. For calls it chooses
the core tool among the eligible candidates (:mod:`nodes.planning.eligibility`) by a dry run of
binding: each required argument is bound from a clarification, the sub-intent's entities, an
enum value the clause names, the output of an earlier call, or the request's entities
(:mod:`nodes.planning.binding`); inputs nobody gave come from auxiliary calls the navigator
finds in the tool dependency graph (:mod:`nodes.planning.navigator`). Deterministic, so
re-planning is safe.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from nodes.context import Context
from nodes.parsing.splitting import unwrap_request
from nodes.planning.alternatives import alternatives_question, said_alternatives
from nodes.planning.binding import (
    coerce_to_schema,
    enum_mentioned,
    find_named_value,
    required_params,
    schema_properties,
)
from nodes.planning.bound_choices import (
    BoundChoice,
    complete_read_instead,
    consumed_values,
    naming_other_tools,
    restating_choice,
)
from nodes.planning.clause_calls import (
    bare_repeat,
    clarifying_question,
    completes_earlier_call,
    fold_fragments,
    follow_said_steps,
    merge_restated_sets,
    planned_already,
    repeat_over_referent,
    restated_call,
    settle_waiting,
    stated_outright,
)
from nodes.planning.continuation import (
    BindCall,
    add_named_argument,
    complete_earlier_read,
    continue_earlier_read,
    inherit_said_same,
)
from nodes.planning.draft import NO_TOOL_FOUND, PlanDraft, PlanRequest
from nodes.planning.eligibility import (
    ScoredCandidate,
    better_fitting_writer,
    fit_reason,
    nothing_understood,
    own_untagged_server_tool,
    refused_fits_better,
    refused_gap,
    score_candidates,
    values_a_retry_drops,
)
from nodes.planning.later_values import add_later_options
from nodes.planning.leftover_values import bind_leftover_number
from nodes.planning.navigator import Navigator, keep_said_order
from nodes.planning.other_reads import coordinated_reads, cut_at_other_read
from nodes.planning.param_values import stated_default
from nodes.planning.schema_binder import Binding, bind_tool, name_words
from nodes.state import ArgSource, Intent, PlannedCall, SubIntent, ZState
from stores.catalog.depgraph import ToolDependencyGraph
from stores.catalog.model import IDEMPOTENCY_PARAM, Catalog, ToolSpec
from stores.language.keywords import STOPWORDS, tokenize
from stores.language.lexicon import Lexicon
from stores.language.vocabulary import domain_vocabulary
from stores.retrieval.embeddings import Embedder

# How the decider weighs a candidate's binding (a dry run of the navigator): each value the
# user gave that the call consumes counts, directly more than through a lookup; each lookup
# costs a little (the shorter plan wins) and each required value nobody gave costs more.
COVER_WEIGHT = 1.5
LOOKUP_COVER_WEIGHT = 0.75
LOOKUP_COST = 0.5
MISSING_PENALTY = 1.0
# A side-effecting candidate loses this much per value of the user's that it leaves unused
# while another candidate consumes it.
UNUSED_BY_WRITE_PENALTY = 1.5
MAX_BIND_TRIALS = 8
# Words by which a clause points back at what the clause before it named.
_RELATIVE_DAYS = frozenset({"today", "tomorrow", "yesterday", "tonight"})


def _binder_reads_better(read: Any, entity: Any) -> bool:
    """Whether the schema binder's value beats the parser's entity for the same parameter.

    The binder read more of the same value ("New York City", not "New York"), or the same
    value without the lower-case words the entity took along ("Sacramento", not "Sacramento
    on"; "London", not "London including"), or a date written out where the entity is only
    a relative day ("for today April 25th 2023"), or a whole list where the entity is one
    item of it ("data: 85, 90, 88" read as the key and its first value).
    """
    if not isinstance(entity, str):
        return False
    if isinstance(read, list):
        return True
    if isinstance(read, str):
        if len(read) > len(entity) and entity.lower() in read.lower():
            return True
        if read.lower() in entity.lower() and all(
            w in STOPWORDS or w.islower() for w in entity.replace(read, " ").split()
        ):
            return True
    return entity.lower() in _RELATIVE_DAYS
_REFERS_BACK = re.compile(
    r"\b(?:it|its|them|the\s+same|(?:this|that|these|those)\s+"
    r"(?!is\b|are\b|was\b|were\b|i\b|we\b|you\b|he\b|she\b|they\b)[a-z]+)\b",
    re.I,
)
# What the clause's own words say of the tool's name (operation, object) counts again against
# binding: a lookup that consumes "account 123456" is not what "order something for account
# 123456" asks for. An object the clause inherits from the one before counts once (in the
# score), or it outweighs the clause's lead in words and meaning for another tool.
FIT_EMPHASIS = 1.0


# How the tool-fit gate knew a clause is about a tool when the clause says so itself.
_SAID_THE_TOOL = frozenset({"words", "meaning"})


class RulePlanner:
    """Builds the plan DAG for one intent by rules (a :class:`~nodes.planning.draft.Planner`)."""

    def __init__(
        self,
        catalog: Catalog,
        graph: ToolDependencyGraph,
        lexicon: Lexicon,
        context: Context,
        embedder: Embedder | None = None,
    ) -> None:
        """Plan with this catalog, dependency graph, lexicon and run context.

        With ``embedder`` (the retriever's model), free-text values are also found by meaning.
        """
        self.catalog = catalog
        self.graph = graph
        self.lexicon = lexicon
        self.context = context
        self.navigator = Navigator(catalog, graph, lexicon, context.environments)
        self._bindings: dict[tuple[str, str], Binding] = {}
        self.vocabulary = domain_vocabulary()
        self.embedder = embedder
        self._vectors: dict[str, Any] = {}

    def draft(self, state: ZState) -> PlanDraft:
        """Decide every sub-intent in order and return the plan."""
        return self.plan(PlanRequest.from_state(state))

    def plan(self, request: PlanRequest) -> PlanDraft:
        """Decide every sub-intent of the request in order.

        In a request of several clauses, a clause that misses a value ("Can you calculate
        the force in both scenarios?") waits until the others are decided: when another
        clause calls the same tool with its values, the clause is covered by that call and
        nobody is asked. Otherwise its value is asked for, and the clauses that do not need
        the answer keep their calls (:func:`~nodes.planning.clause_calls.settle_waiting`).
        A single clause that misses a value asks for it.
        """
        subs = request.intent["sub_intents"]
        draft = PlanDraft(request)
        if len(subs) > 1:
            waiting: list[tuple[SubIntent, str]] = []
            for sub in subs:
                self._decide(draft, sub, waiting=waiting)
            fold_fragments(draft, self._says_operation)
            settle_waiting(draft, waiting, self.catalog)
            add_later_options(draft, self.catalog)
            return draft
        for sub in subs:
            if not self._decide(draft, sub):
                break
        return draft

    # ---------------------------------------------------------------- decider
    def _decide(
        self,
        draft: PlanDraft,
        sub: SubIntent,
        waiting: list[tuple[SubIntent, str]] | None = None,
    ) -> bool:
        """Decide one sub-intent into the draft; False when a question stops the plan.

        With ``waiting``, a clause that misses a value is put there (with its tool) instead
        of asking.
        """
        if sub["action"] == "direct_answer":
            draft.decide(sub["id"], "direct_answer")
            return True
        choice = self._choose_and_bind(draft, sub) or self._continuation(draft, sub)
        if choice is None and (self._completes_earlier_read(draft, sub) or add_named_argument(
                draft, sub, self.catalog, self._bind_for(draft), self._says_operation)):
            return True
        if choice is not None and choice.missing and (sub.get("answer") or (
                nothing_understood(sub) and (
                    len(draft.request.intent["sub_intents"]) > 1
                    or fit_reason(sub["text"], choice.spec, None, self.embedder)
                    not in _SAID_THE_TOOL))):
            # A read may answer a clause nobody understood ("hola"), but asking the user
            # for a value of a tool the planner only guessed at answers nothing. A clause
            # that says what the tool is about ("What's the weather like?" for a weather
            # tool: its words or its meaning) is understood enough to ask for the city, when
            # it is the whole request: among other clauses ("Imagine you host a poker game
            # ... Who won?") such a question would stop the calls the others make. A clause
            # with its own answer ("2^10?") is answered rather than questioned.
            choice = None
        refused = self._refused_fits_better(draft, sub, choice)
        if refused is not None and not self._policy_explains(draft, choice, refused.spec):
            refused = None
        if refused is not None:
            draft.gaps.append(refused_gap(sub, refused.spec, self.context.environments))
            draft.decide(sub["id"], "gap", tool=refused.spec.id, reason="environment policy")
            return True
        short = self._retry_falls_short(draft, sub, choice)
        if short is not None:
            # The alignment check adds which call failed and why.
            draft.gaps.append(f"{sub['text']}: not retried: {short}")
            draft.decide(sub["id"], "gap", reason="retry falls short")
            return True
        if choice is None and sub.get("answer"):
            # No tool does it, and the clause has its own answer (arithmetic).
            draft.decide(sub["id"], "direct_answer", reason="no tool does it")
            return True
        if choice is None:
            if draft.request.retrieval_rounds < self.context.max_retrieval_rounds:
                draft.retrieve_again.append(sub["id"])
                draft.decide(sub["id"], "retrieve_api", reason="no candidate fits")
            elif nothing_understood(sub):
                draft.gaps.append(
                    f"{sub['text']}: I could not tell what to do (no action or object I "
                    "know) and never guess a call that changes data; say it with a verb "
                    "and an object, e.g. 'create a test product'"
                )
                draft.decide(sub["id"], "gap", reason="not understood")
            else:
                draft.gaps.append(f"{sub['text']}: {NO_TOOL_FOUND}")
                draft.decide(sub["id"], "gap", reason="no tool fits")
            return True
        spec = choice.spec
        if choice.missing and waiting is not None:
            waiting.append((sub, spec.id))
            draft.decide(sub["id"], "clarify_intent", tool=spec.id, missing=choice.missing)
            return True
        if choice.missing:
            param = choice.missing[0]
            if f"{sub['id']}.{param}" in draft.request.clarifications:
                draft.gaps.append(f"{sub['text']}: no usable value for '{param}' of {spec.id}")
                draft.decide(sub["id"], "gap", tool=spec.id)
                return True
            draft.question = {
                "sub_intent": sub["id"],
                "param": param,
                "tool_id": spec.id,
                "question": clarifying_question(sub, spec, param),
            }
            draft.decide(sub["id"], "clarify_intent", tool=spec.id, missing=choice.missing)
            return False
        sub, rest = cut_at_other_read(sub, choice.spec, self._scored_for(draft),
                                      self._bind_for(draft))
        choice = self._chosen_on(draft, sub, choice) if rest is not None else choice
        keep_said_order(choice.calls[-1], draft.calls)
        inherit_said_same(draft, sub, choice.calls[-1])
        follow_said_steps(sub, choice.calls[-1], draft)
        cores = []
        for core in merge_restated_sets(self._repeated_cores(sub, choice.calls[-1])):
            same = (planned_already(core, draft.calls) or restated_call(core, draft.calls)
                    or bare_repeat(core, draft.calls))
            if same is None:
                cores.append(core)
            else:
                draft.shared.add(same["call_id"])
        either = said_alternatives(sub["text"], cores) \
            if cores and cores[0].get("side_effect") is not False else None
        if either is not None:
            # "Book a table at 7pm or 8pm": one write, and which value is the user's to say
            param, options = either
            draft.decide(sub["id"], "clarify_intent", tool=spec.id, missing=[param])
            question = {"sub_intent": sub["id"], "param": param, "tool_id": spec.id,
                        "question": alternatives_question(spec.id, param, options)}
            if waiting is not None:
                waiting.append((sub, spec.id))
                draft.question = draft.question or question
                return True
            draft.question = question
            return False
        if len(cores) == 1:
            cores = repeat_over_referent(sub, cores[0], draft.calls)
        if not cores:
            # Another clause already makes this very call ("Can you help me solve them?").
            draft.decide(sub["id"], "covered", tool=spec.id)
            return True
        completed = completes_earlier_call(
            cores, draft.calls, stated_outright(sub["text"], list(schema_properties(spec)))
        )
        if completed is not None:
            # "Create a profile named X with class Mage, set the starting level to 5": the
            # second clause only adds an argument to the first clause's call.
            draft.decide(sub["id"], "covered", tool=spec.id, completes=completed)
            return True
        draft.add_calls(sub["id"], [*choice.calls[:-1], *cores])
        extras = coordinated_reads(sub, spec, self._scored_for(draft), self._bind_for(draft), rest)
        for number, extra in enumerate(extras, start=2):
            for core in self._repeated_cores(sub, extra):
                core["call_id"] = core["call_id"].replace(".core", f".core{number}.", 1)
                draft.add_calls(sub["id"], [core])
        draft.decide(sub["id"], "call_api", tool=spec.id, fit=round(choice.score, 3))
        return True

    def _continuation(self, draft: PlanDraft, sub: SubIntent) -> BoundChoice | None:
        """The earlier clause's read, called again with this clause's own values."""
        found = continue_earlier_read(draft, sub, self.catalog, self._says_operation,
                                      self._bind_for(draft))
        return None if found is None else BoundChoice(found[0], 0.0, found[1], [])

    def _completes_earlier_read(self, draft: PlanDraft, sub: SubIntent) -> bool:
        """Fold a clause no tool fits into the earlier read it says again, more fully."""
        return complete_earlier_read(draft, sub, self.catalog, self._bind_for(draft))

    def _scored_for(self, draft: PlanDraft) -> Callable[[SubIntent], list[ScoredCandidate]]:
        """:meth:`_scored` on this draft, for the rules on other reads a clause names."""
        return lambda sub: self._scored(draft, sub)

    def _bind_for(self, draft: PlanDraft) -> BindCall:
        """:meth:`_bind_call` on this draft, for the continuation rules."""
        return lambda sub, spec: self._bind_call(draft, sub, spec)

    def _says_operation(self, sub: SubIntent) -> bool:
        """Whether a clause names an operation of the lexicon ("calculate", "find").

        A capitalised word after the first is part of a name: "New York" asks for nothing new;
        a past participle describes ("the case filed in Ohio"), it asks for nothing either.
        """
        words = sub["text"].split()
        tokens = tokenize(" ".join(words[:1] + [w for w in words[1:] if not w[:1].isupper()]))
        return any(
            m.kind == "operation" and not tokens[m.start].endswith("ed")
            for m in self.lexicon.find_terms(tokens)
        )

    def _chosen_on(self, draft: PlanDraft, sub: SubIntent, choice: BoundChoice) -> BoundChoice:
        """The chosen tool bound again on the clause's first part."""
        calls, _ = self._bind_call(draft, sub, choice.spec)
        return BoundChoice(choice.spec, choice.score, calls, [])

    def _retry_falls_short(
        self, draft: PlanDraft, sub: SubIntent, choice: BoundChoice | None
    ) -> str | None:
        """Why the retry of a failed sub-intent must stop here, or None when it may go on.

        Another tool is tried only when it runs on what the user gave: a failure is never
        turned into a question about a tool the user did not pick.
        """
        request = draft.request
        failed = request.excluded.get(sub["id"], [])
        if choice is None or sub["id"] not in request.retry_effects or not failed:
            return None
        if choice.missing:
            return (
                f"the other tool of the same kind, {choice.spec.id}, needs "
                f"'{choice.missing[0]}', which the request does not give"
            )
        tried = [self.catalog.tools[t] for t in failed if t in self.catalog.tools]
        dropped = values_a_retry_drops(
            choice.calls, [c for spec in tried for c in self._bind_call(draft, sub, spec)[0]]
        )
        if dropped:
            return (
                f"the other tool of the same kind, {choice.spec.id}, does not use "
                f"{', '.join(repr(v) for v in dropped)} from the request"
            )
        return None

    def _policy_explains(
        self, draft: PlanDraft, choice: BoundChoice | None, refused: ToolSpec
    ) -> bool:
        """Whether a refused tool that fits better is the answer, not the planner's choice.

        A tool of the user's own MCP server that lacks an environment tag displaces a worse
        callable choice (the run must not write elsewhere instead); any other refused tool
        (another environment, an untagged catalog entry) is only named when nothing callable
        fits after the last retrieval round.
        """
        if choice is not None:
            return own_untagged_server_tool(refused)
        return draft.request.retrieval_rounds >= self.context.max_retrieval_rounds

    def _refused_fits_better(
        self, draft: PlanDraft, sub: SubIntent, choice: BoundChoice | None
    ) -> ScoredCandidate | None:
        """A tool the environment policy refused that fits the clause better than the choice."""
        request = draft.request
        refused = request.policy_refused.get(sub["id"], [])
        if not refused:
            return None
        retry_effect = request.retry_effects.get(sub["id"])
        eligible = self._scored(draft, sub)
        chosen = choice.spec if choice is not None else None
        return refused_fits_better(
            sub, refused, eligible, chosen, self.catalog, self.lexicon, retry_effect
        )

    def _scored(self, draft: PlanDraft, sub: SubIntent) -> list[ScoredCandidate]:
        """The clause's candidates scored for fit, in the decider's order."""
        request = draft.request
        return score_candidates(
            sub,
            request.candidates.get(sub["id"], []),
            request.excluded.get(sub["id"], []),
            self.catalog,
            self.lexicon,
            self.context.environments,
            request.retry_effects.get(sub["id"]),
            embedder=self.embedder,
        )

    def _choose_and_bind(self, draft: PlanDraft, sub: SubIntent) -> BoundChoice | None:
        """Pick the core tool by its score (name fit, rank, lead) and how its values bind.

        Each of the best-fitting candidates is bound in a dry run: a tool that consumes the
        values the user gave ("delivery 2" for ``assign_rider``) beats one that ignores them,
        and a tool whose required inputs nobody gave loses some of its fit.
        """
        scored = self._scored(draft, sub)
        trials = []
        for candidate in scored[:MAX_BIND_TRIALS]:
            calls, missing = self._bind_call(draft, sub, candidate.spec)
            trials.append((candidate, calls, missing, *consumed_values(calls)))
        # Values the user stated (an id, an amount, a key=value): words of the request an enum
        # matched ("text") are too weak to say a write ignored something.
        given = set().union(*(direct | through for *_, direct, through in trials)) - {"text"}
        named = [name_words(c.spec.name) for c, *_ in trials]
        choices: list[tuple[tuple[float, int], BoundChoice]] = []
        for candidate, calls, missing, direct, through_lookups in trials:
            # "board games from store BoardGameGeek": a value that is another candidate's
            # own name names that tool; consumed by this one it is no value of the user's.
            others = [words for (c, *_), words in zip(trials, named, strict=True)
                      if c.spec.id != candidate.spec.id]
            direct = direct - naming_other_tools(calls, others)
            # ... and the tool it names is the one the user asked for by name.
            mine = name_words(candidate.spec.name)
            named_by_user = any(naming_other_tools(other_calls, [mine])
                                for other, other_calls, *_ in trials
                                if other.spec.id != candidate.spec.id)
            lookups = sum(1 for c in calls if c["role"] == "auxiliary")
            total = (
                candidate.score
                + FIT_EMPHASIS * candidate.own_fit
                + COVER_WEIGHT * (len(direct) + named_by_user)
                + LOOKUP_COVER_WEIGHT * len(through_lookups - direct)
                - LOOKUP_COST * lookups
                - MISSING_PENALTY * len(missing)
            )
            if candidate.spec.side_effect is not False and not missing:
                # A write that binds completely yet ignores a value the user gave, which
                # another candidate would use, is not the write asked for ("add 25 dollars to
                # the wallet of account 123456" is no new account). A candidate still missing
                # inputs already pays for them, and its lookups are not planned yet.
                total -= UNUSED_BY_WRITE_PENALTY * len(given - direct - through_lookups)
            choices.append(((total, -candidate.rank),
                            BoundChoice(candidate.spec, total, calls, missing)))
        if not choices:
            return None
        best = max(choices, key=lambda item: item[0])[1]
        again = restating_choice(sub["text"], best, choices, draft.calls)
        if again is not None:
            return again
        complete = complete_read_instead(best, choices)
        if complete is not None:
            return complete
        said = [str(source["value"]) for source in (best.calls[-1]["args"].values()
                                                     if best.calls else [])
                if isinstance(source.get("value"), str)
                and str(source.get("origin", "")).startswith(("span:", "entity:"))]
        writer = better_fitting_writer(best.spec, scored, sub["text"], said)
        if writer is not None:
            # Never a write on another server that fits the request worse (see eligibility);
            # of that server's writes, the one that binds best ("add a person named Carol"
            # creates an entity; it adds no observation to one).
            theirs = [item for item in choices if item[1].spec.agent == writer.spec.agent
                      and item[1].spec.side_effect is not False]
            if theirs:
                return max(theirs, key=lambda item: item[0])[1]
            calls, missing = self._bind_call(draft, sub, writer.spec)
            return BoundChoice(writer.spec, best.score, calls, missing)
        return best

    def _repeated_cores(self, sub: SubIntent, core: PlannedCall) -> list[PlannedCall]:
        """One core call per argument set the request gives ("in Paris and in Rome")."""
        binding = self._bindings.get((sub["text"], core["tool_id"]))
        if binding is None or len(binding.sets) < 2:
            return [core]
        varying = {
            param
            for param, source in core["args"].items()
            if source.get("origin") != "clarification" and (
                source.get("origin") == f"span:{param}"
                or repr(source.get("value")) == repr(binding.sets[0].get(param))
                or str(source.get("value")) == str(binding.sets[0].get(param))
            )
            and len({repr(s.get(param)) for s in binding.sets}) > 1
        }
        if not varying:
            return [core]
        cores: list[PlannedCall] = []
        for number, values in enumerate(binding.sets):
            args = dict(core["args"])
            for param in varying:
                args[param] = {"value": values[param], "origin": f"span:{param}"}
            call_id = core["call_id"] if number == 0 else f"{core['call_id']}{number + 1}"
            repeated = PlannedCall(**core)
            repeated["call_id"], repeated["args"] = call_id, args
            cores.append(repeated)
        return cores

    # ---------------------------------------------------------------- binding
    def _bind_call(
        self, draft: PlanDraft, sub: SubIntent, spec: ToolSpec
    ) -> tuple[list[PlannedCall], list[str]]:
        """Bind a call of ``spec`` for the sub-intent (a dry run: the draft is only read).

        Returns:
            ``(calls, missing)``: its auxiliary calls then its core call, and the required
            inputs nobody gave.
        """
        intent = draft.request.intent
        properties = schema_properties(spec)
        args: dict[str, ArgSource] = {}
        missing: list[str] = []
        spans = self._schema_binding(sub["text"], spec)
        for param in required_params(spec):
            source = self._bind_param(draft, sub, spec, param, required=True, spans=spans)
            if source is None:
                missing.append(param)
            else:
                args[param] = source
        for param in properties:
            if param in args or param == IDEMPOTENCY_PARAM or param in missing:
                continue
            source = self._bind_param(draft, sub, spec, param, required=False, spans=spans)
            if source is not None:
                args[param] = source
        bind_leftover_number(sub, spec, args, self.vocabulary.numeric_slots, self.lexicon)
        request_text = unwrap_request(str(intent.get("request") or ""))
        if spans is not None and request_text and request_text.strip() != sub["text"].strip():
            # A phrase the clause gave only by meaning ("song" for the region) yields to a
            # value another clause says with evidence ("... in Australia").
            guessed = [p for p in required_params(spec)
                       if args.get(p, {}).get("origin") == f"span:{p}" and p not in spans.evidence]
            whole = self._schema_binding(request_text, spec) if guessed else None
            for param in guessed:
                if whole is not None and param in whole.evidence and (
                    whole.sets[0].get(param) != args[param].get("value")
                ):
                    args[param] = {"value": whole.sets[0][param], "origin": f"elsewhere:{param}"}
        if missing and request_text and request_text.strip() != sub["text"].strip():
            # A value said in another clause of the request ("... at 20 m/s and then
            # accelerates at 10 m/s^2"): a clause that refers back ("that event") reads the
            # clause right before first (the last one named), then the whole request.
            subs = intent["sub_intents"]
            position = next((i for i, s in enumerate(subs) if s["id"] == sub["id"]), 0)
            refers = position > 0 and _REFERS_BACK.search(sub["text"]) is not None
            texts = [subs[position - 1]["text"]] if refers else []
            for text in [*texts, request_text]:
                whole = self._schema_binding(text, spec)
                for param in missing:
                    if param in whole.sets[0] and param not in args:
                        args[param] = {
                            "value": whole.sets[0][param], "origin": f"elsewhere:{param}"
                        }
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
            auxiliary, missing = self.navigator.auxiliary_calls(draft, sub, spec, args, missing)
        for param in missing:
            # Neither said nor looked up: the value the schema gives by default, if it states one.
            stated, value = stated_default(properties.get(param))
            if stated:
                args[param] = {"value": value, "origin": f"default:{param}"}
        missing = [p for p in missing if p not in args]
        auxiliary.extend(self.navigator.optional_lookups(draft, sub, spec, args, auxiliary))
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

    def _schema_binding(self, text: str, spec: ToolSpec) -> Binding:
        """The schema binder's reading of a text for a tool (cached per text and tool)."""
        key = (text, spec.id)
        if key not in self._bindings:
            self._bindings[key] = bind_tool(
                text, spec, self._similarity if self.embedder is not None else None
            )
        return self._bindings[key]

    def _similarity(self, query: str, phrases: Sequence[str]) -> list[float]:
        """Cosine between a text and phrases with the run's embedding model (cached)."""
        assert self.embedder is not None
        new = [t for t in dict.fromkeys([query, *phrases]) if t not in self._vectors]
        if new:
            for text, vector in zip(new, self.embedder.embed(new), strict=True):
                self._vectors[text] = vector
        anchor = self._vectors[query]
        return [float(anchor @ self._vectors[phrase]) for phrase in phrases]

    def _bind_param(
        self,
        draft: PlanDraft,
        sub: SubIntent,
        spec: ToolSpec,
        param: str,
        required: bool,
        spans: Binding | None = None,
    ) -> ArgSource | None:
        """Where one argument's value comes from, in order of trust; None when from nowhere."""
        schema = schema_properties(spec).get(param, {})
        clarifications = draft.request.clarifications
        answer_key = f"{sub['id']}.{param}"
        if answer_key in clarifications and clarifications[answer_key] not in (None, ""):
            return {
                "value": coerce_to_schema(clarifications[answer_key], schema),
                "origin": "clarification",
            }
        found, value, key = find_named_value(param, sub.get("entities") or {}, self.lexicon)
        if found:
            read = spans.sets[0].get(param) if spans is not None else None
            if read is not None and _binder_reads_better(read, value):
                return {"value": read, "origin": f"span:{param}"}
            return {"value": coerce_to_schema(value, schema), "origin": f"entity:{key}"}
        for alias in sorted(self.vocabulary.param_aliases.get(param, ())):
            if alias in schema_properties(spec):
                continue  # "15% of 80": the percent is the tool's own ``percent``, not ``value``
            value = (sub.get("entities") or {}).get(alias)
            if value is not None:
                return {"value": coerce_to_schema(value, schema), "origin": f"entity:{alias}"}
        if param in self.vocabulary.attribute_params:
            attributes = _attribute_pairs(sub, spec, draft.request.intent)
            if attributes:
                return {"value": attributes, "origin": "entity:pairs"}
        if schema.get("enum"):
            read = spans.sets[0].get(param) if spans is not None else None
            if read is not None and read in schema["enum"] and spans is not None \
                    and spans.evidence.get(param, 0.0) >= 2.0:
                # The schema binder read it named outright, with the other parameters in
                # view ("72 degrees Fahrenheit to Celsius": from one, to the other). An
                # allowed value named is a word of the request, as weak a sign of which tool
                # as the enum match below ("wallet" names pay_order's method "balance").
                return {"value": read, "origin": "text"}
            mentioned = enum_mentioned(sub["text"], schema)
            if mentioned is not None:
                return {"value": mentioned, "origin": "text"}
        earlier = self.navigator.from_earlier_call(draft, sub, spec, param, required)
        if earlier is not None or spans is None or param not in spans.sets[0]:
            return earlier
        return {"value": spans.sets[0][param], "origin": f"span:{param}"}


def _attribute_pairs(sub: SubIntent, spec: ToolSpec, intent: Intent) -> str:
    """The ``key=value`` pairs written in this clause that are no parameter of the tool."""
    properties = schema_properties(spec)
    text = sub["text"].lower().replace(" ", "")
    pairs = [
        f"{key}={value}"
        for key, value in (intent["entities"].get("pairs") or {}).items()
        if key not in properties and f"{key}=" in text
    ]
    return ",".join(pairs)
