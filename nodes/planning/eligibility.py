"""Which candidates may serve a sub-intent, and how well their names fit it.

A candidate is eligible when the run's environments allow calling it (the policy's one rule),
the alignment check did not exclude it, and its name or tags say the clause's operation or
object, or the clause is about the tool: it shares enough words with the tool's schema, or,
with the run's embedding model, its meaning is close to the tool's name and description
(:mod:`nodes.planning.relevance`, :func:`fit_reason`); it then scores by that fit, its
retrieval rank, the words of its name the clause does not account for, whether its known side
effect contradicts the operation asked for, and how much less the clause shares with it than
with the closest other candidate (:func:`led_by_the_closest`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from nodes.planning.param_fit import describe_params
from nodes.planning.relevance import (
    MIN_MEANING,
    MIN_PARTIAL_MEANING,
    MIN_RELEVANCE,
    NAMED_VALUE_EVIDENCE,
    cosines,
    meaning,
    names_the_server,
    relevance,
    values_fit,
)
from nodes.planning.schema_binder import Binding, bind_schema, bind_tool
from nodes.planning.telling_values import telling_values
from nodes.state import Candidate, PlannedCall, SubIntent
from stores.catalog.model import Catalog, ToolSpec
from stores.execution.policy import environment_allows, environment_fix, listed_over_mcp
from stores.language.cues import english_words_of
from stores.language.keywords import lemmatize, same_root, tokenize
from stores.language.lexicon import Lexicon
from stores.retrieval.embeddings import Embedder

OPERATION_MATCH = 2.0
TARGET_MATCH = 1.5
TAG_WEIGHT = 0.5
RESIDUE_PENALTY = 1.0
# A write the user asks for cannot be done by a tool known to be read-only (a "check whether
# an order could move" lookalike), nor a lookup by a tool that writes.
EFFECT_MISMATCH = 3.0
READ_OPERATIONS = frozenset({"get", "list", "search", "count", "verify"})
RELEVANCE_WEIGHT = 0.5
# Among candidates, what a clause shares with each one against the best of them: a tool the
# clause shares fewer words (relevance units) or less meaning (cosine) with than another
# candidate loses this much per unit of the gap. The lexicon's fit ties often ("get" in both
# ``get_history`` and ``get_projection``) and the retrieval rank alone then decided.
WORDS_LEAD = 0.25
MEANING_LEAD = 2.0
# The words (relevance) a request must share with a tool whose allowed value it names for
# that to admit the tool (:func:`names_its_values`): one word of its description.
NAMED_VALUES_WORDS = 0.4
# The meaning a request holding telling values must have with the tool (MiniLM cosine): the
# held-out requests it admits lie at 0.16-0.27; an unrelated one ("Mix the color #FAEBD7
# with #00FFFF" for a religious-history tool) near 0.
MIN_TELLING_MEANING = 0.15
NAME_FILLERS = frozenset({"by", "for", "from", "the", "and", "with", "all", "info", "details"})


@dataclass(frozen=True)
class ScoredCandidate:
    """An eligible candidate: its score, retrieval rank, tool and name fit."""

    score: float
    rank: int
    spec: ToolSpec
    fit: float
    relevance: float = 0.0
    # What the clause shares with this candidate less than with the best one (<= 0).
    lead: float = 0.0
    # ``fit`` without an object the clause inherits from the clause before ("also find the
    # nature of the offenses" after "the conviction status").
    own_fit: float = 0.0


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
    name_objects: set[str] = set()
    said: list[tuple[int, str, bool]] = []
    words = [lemmatize(w) for w in tokenize(spec.name)]
    for position, word in enumerate(words):
        operation = lexicon.canonical(word, "operation")
        obj = lexicon.canonical(word, "object")
        if operation:
            said.append((position, operation, obj is not None))
        if obj:
            name_objects.add(obj)
    # A name says what it does by its first word ("read_file", "move_file": the file is no
    # "file a complaint") or, named object first, by its last ("user_delete"); a later word
    # the lexicon also knows as a thing done keeps its operation ("create_refund" refunds).
    first = {op for position, op, _ in said if position == 0}
    last = {op for position, op, _ in said if position == len(words) - 1}
    both = {op for position, op, thing in said if position > 0 and thing}
    name_operations = (first | both) if first else (last or {op for _, op, _ in said})
    return (name_operations, name_objects, set(spec.capability_tags[:2]), set(spec.entity_tags[:2]))


# Operations that remove or undo what the others make.
REMOVALS = frozenset({"delete", "cancel", "archive"})


def undoes_the_other(operation: str, tool_operations: AbstractSet[str]) -> bool:
    """One of the request's operation and the tool's removes, the other does not.

    Only when both are known writes and differ: "delete my emails" against ``send_email``,
    "book a table" against ``cancel_booking`` ("dropped from rest" against
    ``calculate_final_speed`` is a read's business).
    """
    if not operation or not tool_operations or operation in tool_operations:
        return False
    if not tool_operations - READ_OPERATIONS or operation in READ_OPERATIONS:
        return False  # a read against a write weighs as a mismatch of effect, no more
    return (operation in REMOVALS) != bool(tool_operations & REMOVALS)


def nothing_understood(sub: SubIntent) -> bool:
    """No operation and no object of the clause was recognized ("hola", "asdf")."""
    return not sub["operation"] and not sub["target"]


def score_candidates(
    sub: SubIntent,
    candidates: Sequence[Candidate],
    excluded: Sequence[str],
    catalog: Catalog,
    lexicon: Lexicon,
    environments: Sequence[str] | None,
    retry_effect: bool | None = None,
    embedder: Embedder | None = None,
) -> list[ScoredCandidate]:
    """The eligible candidates of a sub-intent, best first (ties keep the retrieval order).

    ``retry_effect`` is set when the sub-intent is retried after its call failed: only tools
    with the same kind of action are eligible (a failed read is retried with a known read,
    never with a tool that may write). With ``embedder`` (the retriever's model), a tool the
    clause shares too few words with is still eligible when their meanings are close.
    """
    scored: list[ScoredCandidate] = []
    said = {(m.kind, m.canonical) for m in lexicon.find_terms(tokenize(sub["text"]))}
    for rank, candidate in enumerate(candidates):
        spec = catalog.tools.get(candidate["tool_id"])
        if spec is None or spec.id in excluded or not callable_in(spec, environments):
            continue
        if retry_effect is not None and (spec.side_effect is not False) != retry_effect:
            continue
        name_ops, name_objects, tag_ops, tag_objects = tool_terms(spec, lexicon)
        if undoes_the_other(sub["operation"], name_ops | tag_ops):
            continue  # "delete all my emails" is never send_email, nor "book" a cancel
        operation_fit = target_fit = 0.0
        if sub["operation"] and sub["operation"] in name_ops:
            operation_fit = OPERATION_MATCH
        elif sub["operation"] and sub["operation"] in tag_ops:
            operation_fit = OPERATION_MATCH * TAG_WEIGHT
        if sub["target"] and sub["target"] in name_objects:
            target_fit = TARGET_MATCH
        elif sub["target"] and sub["target"] in tag_objects:
            target_fit = TARGET_MATCH * TAG_WEIGHT
        if operation_fit and sub["operation"] == "get" and ("operation", "get") not in said:
            # The default of a clause with no verb ("git log of X"): a tool whose name says
            # "show" or "get" is no better for it than one the clause names.
            operation_fit *= TAG_WEIGHT
        fit = operation_fit + target_fit
        # An operation is often implied by the clause's object ("order something" creates),
        # an object only by the clause before.
        own_fit = operation_fit + target_fit * (("object", sub["target"]) in said)
        unknown_domain = nothing_understood(sub)
        shared = relevance(sub["text"], spec.name, spec.description, spec.input_schema)
        shared += names_the_server(sub["text"], spec.agent, f"{spec.name} {spec.description}")
        named_object = sub["target"] and (
            sub["target"] in name_objects or sub["target"] in tag_objects
        )
        if (
            not named_object
            and (fit == 0.0 or not sub["target"] or spec.side_effect is not False)
            and fit_reason(sub["text"], spec, shared, embedder) is None
            and not (operation_fit and writes_as_said(sub["text"], spec, embedder))
        ):
            # A verb alone ("calculate", "get") says nothing of which tool: a request that
            # names no object the lexicon knows must share what the tool is about with its
            # schema ("show their wallet balance" may still use get_user), in words or in
            # meaning ("Canadian dollars" for a currency converter). A write whose name
            # fits by its operation only ("order a coffee" against create_calendar_event)
            # must too: an effect is never chosen on the verb alone. The verb may be said
            # by the name or by the description's verbs ("Move or rename files" renames).
            continue
        if unknown_domain and spec.side_effect is not False:
            # Nothing in the clause was understood ("hola", "asdf"): a read may still
            # answer it, but an effect is never the planner's guess.
            continue
        score = fit + 1.0 / (rank + 1) - RESIDUE_PENALTY * name_residue(sub, spec, lexicon)
        if fit == 0.0:
            # No word of the lexicon names the tool: what the request shares with its
            # schema is the fit ("the capital of Brazil" for ``country_info.capital``).
            score += RELEVANCE_WEIGHT * shared
        if contradicts_effect(sub["operation"], spec) or asks_of_a_writer(
            sub, ("operation", sub["operation"]) in said, name_ops
        ):
            score -= EFFECT_MISMATCH
        scored.append(ScoredCandidate(score, rank, spec, fit, shared, own_fit=own_fit))
    scored = led_by_the_closest(sub["text"], scored, embedder)
    scored.sort(key=lambda item: (-item.score, item.rank))
    return scored


def led_by_the_closest(
    text: str, scored: Sequence[ScoredCandidate], embedder: Embedder | None
) -> list[ScoredCandidate]:
    """The candidates with their gap to the closest one in words and meaning taken off.

    The relative fit among the candidates: each loses :data:`WORDS_LEAD` per unit of
    :func:`~nodes.planning.relevance.relevance` and :data:`MEANING_LEAD` per unit of cosine
    it has less than the best candidate. Without an embedding model nothing changes (the
    words alone are the absolute fit already weighed).
    """
    if embedder is None or len(scored) < 2:
        return list(scored)
    closeness_of = [
        meaning(text, c.spec.name, c.spec.description, embedder) for c in scored
    ]
    best_words = max(c.relevance for c in scored)
    best_meaning = max(closeness_of)
    led = []
    for candidate, close in zip(scored, closeness_of, strict=True):
        lead = WORDS_LEAD * (candidate.relevance - best_words) + MEANING_LEAD * (
            close - best_meaning
        )
        led.append(replace(candidate, score=candidate.score + lead, lead=lead))
    return led


def fit_reason(
    text: str, spec: ToolSpec, shared: float | None = None, embedder: Embedder | None = None
) -> str | None:
    """Why a clause is about the tool whatever the lexicon says, or None when it is not.

    "words": it shares enough with the tool's schema (``shared``, the
    :func:`~nodes.planning.relevance.relevance` score, computed when not given); "meaning"
    (:func:`means_the_tool`); "values" (:func:`gives_its_values`). The one home of the gate
    that ``python -m bench gate_dev`` measures.
    """
    if shared is None:
        shared = relevance(text, spec.name, spec.description, spec.input_schema)
    if shared >= MIN_RELEVANCE:
        return "words"
    if means_the_tool(text, spec, embedder):
        return "meaning"
    # The two value tests read the request with the binder once between them.
    read: list[Binding] = []

    def bound() -> Binding:
        if not read:
            read.append(bind_schema(text, spec.input_schema, segment=0))
        return read[0]

    if gives_its_values(text, spec, embedder, bound):
        return "values"
    if tells_its_values(text, spec, embedder, bound):
        return "telling values"
    if shared >= NAMED_VALUES_WORDS and names_its_values(text, spec, bound):
        return "named values"
    # "turn off the light in the kitchen" for control_device(device, command: on | off): no
    # word shared and the meaning rated far, but a value the call needs and the tool allows
    # is named outright, and the rest is read as the planner reads it, phrases by meaning
    # too. (An optional one is weaker: "the distance in kilometers" names the unit of a tool
    # that tells the time difference between two places.)
    if embedder is not None and names_its_values(
        text, spec, lambda: bind_tool(text, spec, cosines(embedder), segment=0)
    ):
        return "named values"
    return None


def _sentence_meaning(text: str, spec: ToolSpec, embedder: Embedder) -> float:
    """:func:`meaning` of the clause, or of its best sentence when it has several.

    "I'm trying to lose weight. How many calories are in an avocado?": the statement before
    the question is context for its values, and dilutes what the question means.
    """
    # A sentence of a few words ("Hi!", "Thanks.") is no statement and says too little.
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if len(s.split()) >= 4]
    texts = [text, *sentences] if len(sentences) > 1 else [text]
    return max(meaning(part, spec.name, spec.description, embedder) for part in texts)


def means_the_tool(text: str, spec: ToolSpec, embedder: Embedder | None) -> bool:
    """Whether a clause's meaning is close to the tool's (False without an embedding model).

    Only for tools known not to write: closeness of meaning is a softer test than shared
    words, and an effect is never the planner's guess ("cancel my trip" is near in meaning
    to booking a trip).
    """
    if embedder is None or spec.side_effect is not False:
        return False
    return _sentence_meaning(text, spec, embedder) >= MIN_MEANING


def gives_its_values(
    text: str, spec: ToolSpec, embedder: Embedder | None,
    bound: Callable[[], Binding] | None = None,
) -> bool:
    """A meaning somewhat close, and every required value of the tool given.

    A terse or abbreviated schema may share no word with a request said in other words
    ("Which hour is it in Lisbon" for ``tzq``, "current local time of a city"): the meaning
    above :data:`~nodes.planning.relevance.MIN_PARTIAL_MEANING` and all the required values
    are the evidence, whatever words are shared. Only for tools known not to write, as
    :func:`means_the_tool` (:func:`~nodes.planning.relevance.values_fit`). ``bound`` gives
    the binder's reading of the request when the caller shares one.
    """
    if embedder is None or spec.side_effect is not False:
        return False
    binding = bound() if bound is not None else bind_schema(text, spec.input_schema, segment=0)
    if not values_fit(text, spec.input_schema, binding):
        return False
    if meaning(text, spec.name, spec.description, embedder) >= MIN_PARTIAL_MEANING:
        return True
    frame = request_frame(text, binding)
    return frame != text and meaning(frame, spec.name, spec.description, embedder) >= (
        MIN_PARTIAL_MEANING
    )


def tells_its_values(
    text: str, spec: ToolSpec, embedder: Embedder | None,
    bound: Callable[[], Binding] | None = None,
) -> bool:
    """Every required value given, one value written in a form only such a parameter takes.

    "how many units of HD-2291-BLK do we have in WH-03?" for ``get_stock(sku,
    warehouse_id)``: words and meaning are far (0.20), but an identifier for the identifier
    the tool takes is evidence no name or number is (:mod:`nodes.planning.telling_values`).
    The meaning must not be unrelated (:data:`MIN_TELLING_MEANING`). Only for tools known not
    to write, as :func:`gives_its_values`.
    """
    if embedder is None or spec.side_effect is not False:
        return False
    binding = bound() if bound is not None else bind_schema(text, spec.input_schema, segment=0)
    if binding.missing:
        return False
    # Optional values as the planner reads them for a tool that does not write.
    read = bind_schema(text, spec.input_schema, segment=0, read_only=True)
    if not telling_values(text, spec.input_schema, read):
        return False
    return meaning(text, spec.name, spec.description, embedder) >= MIN_TELLING_MEANING


# What a value of the request is replaced by when its frame is compared with a tool.
_VALUE_PLACEHOLDER = "something"


def request_frame(text: str, binding: Binding) -> str:
    """The request with the free text it gives as values said as "something".

    "Search for the latest news about electric cars" is about its query, not about cars:
    compared with ``web_search``'s "Search the web for a query", the whole request is far in
    meaning (0.24 with MiniLM) while its frame "Search for something" is close (0.72). Only
    lower-case text values of two words or more, said word for word: a name ("the composer
    of Moonlight Sonata", "from San Francisco") and a single word are what a request is
    about ("the weather in Tokyo"), and numbers and dates stay.
    """
    frame = text
    for value in sorted(
        (v for args in binding.sets for v in args.values() if isinstance(v, str)),
        key=len, reverse=True,
    ):
        words = value.split()
        if len(words) >= 2 and value == value.lower() and value in frame:
            frame = frame.replace(value, _VALUE_PLACEHOLDER)
    return frame


def writes_as_said(text: str, spec: ToolSpec, embedder: Embedder | None) -> bool:
    """A write whose name says the clause's verb, with its meaning near and every value given.

    "Save the text 'hello world' to notes/hello.txt" for ``write_file(path, content)``, "make
    a new folder /srv/photos" for ``create_directory(path)``: the clause says the operation
    the tool's name says (the caller checks that), its meaning is somewhat close
    (:data:`~nodes.planning.relevance.MIN_PARTIAL_MEANING`), and every required value is
    read from the request's typed spans and cue words (:func:`values_fit`), so the call is
    what was said, not the planner's guess. A tool that requires nothing never passes here.
    """
    if embedder is None or not spec.input_schema.get("required"):
        return False
    if meaning(text, spec.name, spec.description, embedder) < MIN_PARTIAL_MEANING:
        return False
    return values_fit(text, spec.input_schema)


def names_its_values(
    text: str, spec: ToolSpec, bound: Callable[[], Binding] | None = None
) -> bool:
    """Every required value given, one of them an allowed value named outright.

    "what is the capital of australia" for ``country_info(country, field: capital |
    population | currency)``: the small embedding model rates the meaning far (0.22), but
    the request names one of the few values the tool allows and gives the rest; with a word
    shared too (:data:`NAMED_VALUES_WORDS`) that is evidence enough. Only for tools known
    not to write. ``bound`` gives the binder's reading of the request when the caller shares
    one.
    """
    if spec.side_effect is not False or not spec.input_schema.get("required"):
        return False
    binding = bound() if bound is not None else bind_schema(text, spec.input_schema, segment=0)
    if binding.missing:
        return False
    required = set(spec.input_schema.get("required") or [])
    closed = {p.name for p in describe_params(spec.input_schema)
              if (p.enum or p.closed) and p.name in required}
    return any(binding.evidence.get(name, 0.0) >= NAMED_VALUE_EVIDENCE for name in closed)


# Where an argument's value came from when the user gave it (see the rule planner's binding).
_USER_ORIGINS = ("entity:", "request:", "span:", "elsewhere:")


def user_given_values(calls: Sequence[PlannedCall]) -> list[str]:
    """The literal values the user gave that these calls consume, as text, in order."""
    found: list[str] = []
    for call in calls:
        for source in call["args"].values():
            origin = str(source.get("origin") or "")
            if "value" in source and (
                origin.startswith(_USER_ORIGINS) or origin in {"text", "clarification"}
            ):
                found.append(str(source["value"]))
    return list(dict.fromkeys(found))


def values_a_retry_drops(
    replacement: Sequence[PlannedCall], failed: Sequence[PlannedCall]
) -> list[str]:
    """Values of the request the failed tool's call used and its replacement would not.

    A retry must do what the failed call was asked to do with another tool: a lookup of
    "T-999" is not replaced by a health check that takes nothing. Judged on the values,
    whatever parameter names the two tools give them.
    """
    kept = {v.lower() for v in user_given_values(replacement)}
    return [v for v in user_given_values(failed) if v.lower() not in kept]


def better_fitting_writer(
    chosen: ToolSpec, scored: Sequence[ScoredCandidate], text: str = "",
    values: Sequence[str] = (),
) -> ScoredCandidate | None:
    """A write tool of another server that fits the request better than the chosen writer.

    The choice among candidates weighs how well values bind and what the domain lexicon
    says ("person" is the sandbox's user); across servers that must not turn a request for
    one system into a write on another: when the chosen tool writes and a writer of another
    server shares strictly more of the request's words with its own schema (the
    :func:`~nodes.planning.relevance.relevance` measure, domain-free), that writer is the
    one meant, bound or not: if it cannot be bound the planner asks for what it needs,
    never writes elsewhere instead. The words of ``values`` (what the chosen call takes
    from ``text``) are the user's data, not words for a tool: "Create a folder named
    archive" names no ``archive_product``.
    """
    if chosen.side_effect is False:
        return None
    mine = next((c for c in scored if c.spec.id == chosen.id), None)
    if mine is None:
        return None
    writers = [
        c for c in scored
        if c.spec.side_effect is not False and c.spec.agent != chosen.agent
        and c.relevance > mine.relevance
    ]
    if writers and text and values:
        data = {w.lower() for value in values for w in re.findall(r"[A-Za-z]+", value)}
        rest = re.sub(r"[A-Za-z]+", lambda m: " " if m.group().lower() in data else m.group(),
                      text)

        def shared(spec: ToolSpec) -> float:
            return relevance(rest, spec.name, spec.description, spec.input_schema)

        own = shared(chosen)
        writers = [c for c in writers if shared(c.spec) > own]
    return max(writers, key=lambda c: (c.relevance, -c.rank), default=None)


def refused_gap(sub: SubIntent, spec: ToolSpec, environments: Sequence[str] | None) -> str:
    """The gap that names a tool the environment policy refused and the line that allows it."""
    return (
        f"{sub['text']}: the tool that fits, {spec.id}, was refused by the environment policy: "
        f"{environment_fix(spec, list(environments or []) or ['test'])}"
    )


def own_untagged_server_tool(spec: ToolSpec) -> bool:
    """A tool of the user's MCP server that lacks an environment tag (one config line away)."""
    return listed_over_mcp(spec) and not spec.environment


def closeness(candidate: ScoredCandidate) -> float:
    """How well a candidate's name fits the clause, whatever its retrieval rank.

    Without the lead over the other candidates either: it compares candidates scored in
    separate lists (the refused ones with the callable ones).
    """
    return candidate.score - 1.0 / (candidate.rank + 1) - candidate.lead


def refused_fits_better(
    sub: SubIntent,
    refused: Sequence[Candidate],
    eligible: Sequence[ScoredCandidate],
    chosen: ToolSpec | None,
    catalog: Catalog,
    lexicon: Lexicon,
    retry_effect: bool | None = None,
) -> ScoredCandidate | None:
    """The best tool the environment policy refused, when it fits better than the choice.

    Scored as any candidate (without the environment rule): it wins when nothing callable
    was chosen, when its name fits the clause strictly better than the chosen tool's, or
    when it is a :func:`better_fitting_writer` than the chosen writer. A
    refused tool with the name of a callable candidate (a production twin of the test tool)
    never wins: the callable one is the one meant.
    """
    callable_names = {c.spec.name for c in eligible}
    scored = [
        c for c in score_candidates(sub, refused, [], catalog, lexicon, None, retry_effect)
        if c.spec.name not in callable_names
    ]
    if not scored:
        return None
    best = scored[0]
    chosen_entry = next((c for c in eligible if chosen is not None and c.spec.id == chosen.id),
                        None)
    if chosen_entry is None or closeness(best) > closeness(chosen_entry):
        return best
    if chosen is not None:
        # A refused writer of another server that fits the request better (the relevance
        # measure) is the one meant, as among callable tools: never write elsewhere instead.
        return better_fitting_writer(chosen, [chosen_entry, *scored])
    return None


def name_residue(sub: SubIntent, spec: ToolSpec, lexicon: Lexicon) -> int:
    """Words of the tool's name the clause does not account for.

    ``get_order_history`` says more than "show order 3" asks, and
    ``check_stock_availability`` more than "the stock level of product 3": the tool whose
    name the request explains fully is the one meant.
    """
    words = set(re.findall(r"[a-z]+", sub["text"].lower()))
    words |= set(english_words_of(sub["text"]))  # Chinese cue words: "读取文件" says read, file
    said = {lemmatize(w) for w in words} | words
    terms = {sub["operation"], sub["target"]}
    for match in lexicon.find_terms([lemmatize(w) for w in tokenize(sub["text"])]):
        terms.add(match.canonical)
    residue = 0
    for word in tokenize(spec.name):
        lemma = lemmatize(word)
        if len(lemma) < 3 or lemma in NAME_FILLERS or lemma in said or word in said:
            continue
        if any(same_root(word, other) for other in words):
            continue  # "Analyze the sentiment" explains ``sentiment_analysis``'s "analysis"
        canonical = {
            lexicon.canonical(lemma, "operation"),
            lexicon.canonical(lemma, "object"),
        }
        if canonical & terms:
            continue
        residue += 1
    return residue


_QUESTION = re.compile(
    r"^\s*(?:what|which|who|whom|whose|where|when|how|is|are|was|were|does|do|did|has|have)"
    r"\b|\?\s*$",
    re.I,
)


def asks_of_a_writer(sub: SubIntent, said: bool, name_operations: AbstractSet[str]) -> bool:
    """A clause that reads (a question, or a read said) against a tool named for a write.

    "What files are in /home/ana?" is no delete_file, whatever its words share; the tool's
    name says what it does when nothing else does (BFCL's tools carry no side effect).
    """
    if not name_operations or name_operations & READ_OPERATIONS:
        return False
    operation = sub["operation"]
    if operation and said:
        return operation in READ_OPERATIONS
    return _QUESTION.search(sub["text"]) is not None and not said


def contradicts_effect(operation: str, spec: ToolSpec) -> bool:
    """Whether the tool's known side effect contradicts the operation asked for."""
    if not operation or spec.side_effect is None:
        return False
    return (operation in READ_OPERATIONS) == bool(spec.side_effect)
