"""The rule intent parser: deterministic and offline, built on the synonym lexicon.

`RuleIntentParser` splits compound requests into clauses (`nodes.parsing.splitting`), finds
each clause's operation and target object through the synonym lexicon, extracts entities with
`stores.language.entities`, links clauses that refer to each other, and proposes one of
NaviAgent's four actions per clause.

How ``depends_on`` is filled (simple and predictable, the planner refines it):

1. A clause with a pronoun ("it", "them", "that", "the same") or without an object of its own
   depends on the previous sub-intent (for "them"/"him"/"her", the latest one about a user)
   and inherits its target and the ids bound to that target.
2. A clause that mentions an object without giving its id depends on the latest earlier
   sub-intent whose target is that object ("place an order ..., advance the order"), unless
   the clause creates another one of that object.
3. A clause that creates an object depends on earlier sub-intents that created what it
   consumes (``consumes`` in the domain vocabulary: an order consumes a product, a user, an
   address, a coupon ...).

The domain's words (what an object consumes, which operations need an instance, the
categories, nouns used as verbs, what "buy a product" or "restock" mean there ...) come from
the domain vocabulary, ``stores/language/data/vocabulary.yaml``; this module holds English
grammar only (pronouns, quantifiers, question words, forms of "be").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from nodes.parsing import IntentParseError, IntentParser, require_text
from nodes.parsing.chitchat import ChitChat, chit_chat
from nodes.parsing.clause_words import after_preposition as _after_preposition
from nodes.parsing.clause_words import asks_of_the_past
from nodes.parsing.clause_words import demonstrative as _demonstrative
from nodes.parsing.clause_words import is_masked_token as _is_masked_token
from nodes.parsing.clause_words import mask as _mask
from nodes.parsing.clause_words import possessors as _possessors
from nodes.parsing.clause_words import relative_clause_start as _relative_clause_start
from nodes.parsing.clause_words import rewrite_give_me as _rewrite_give_me
from nodes.parsing.clause_words import summary_ask as _summary_ask
from nodes.parsing.formats import detect_output_format
from nodes.parsing.splitting import (
    DETERMINERS,
    LEADING_FILLERS,
    PREPOSITIONS,
    QUOTED,
    ClauseSplitter,
    opens_with_sending,
)
from nodes.state import Action, Entities, Intent, SubIntent
from stores.language.cues import english_words_of
from stores.language.detect import CJK_LANGUAGE, guess_non_english
from stores.language.entities import extract_entities, scan_entities
from stores.language.gloss import english_gloss
from stores.language.identifiers import identifier_base
from stores.language.keywords import extract_keywords, lemmatize, token_spans
from stores.language.lexicon import Lexicon, TermMatch
from stores.language.spans_text import without_paths
from stores.language.vocabulary import domain_vocabulary

__all__ = ["RuleIntentParser", "parse_request"]


def parse_request(request: str, parser: IntentParser | None = None) -> Intent:
    """Parse ``request`` with ``parser`` (the offline `RuleIntentParser` if None).

    Args:
        request: The user's request.
        parser: Any `IntentParser`.

    Returns:
        The intent.

    Raises:
        IntentParseError: If the request is not text or the parser cannot parse it.
    """
    require_text(request)
    return (parser or RuleIntentParser()).parse(request)


# --- words -----------------------------------------------------------------------------------

_PERSON_PRONOUNS = frozenset({"them", "their", "they", "him", "her", "his", "he", "she"})
_THING_PRONOUNS = frozenset({"it", "its"})
_QUANTIFIERS = frozenset(
    """all every each latest last recent newest oldest first any some most my our
    these those""".split()
)
_INDEFINITES = frozenset({"a", "an", "any", "some", "another", "new", "one"})
_INTERROGATIVES = frozenset(
    "what which who whom whose how when where were was is are did does do has have".split()
)
_BE_FORMS = frozenset({"be", "been", "being", "is", "are", "was", "were", "get", "gets", "got"})


# Words after which a word is a noun: "print the file", "open my book", "a new start".
_ARTICLES = frozenset("a an the my your his her its our their".split())


def _after_article(tokens: Sequence[str], match: TermMatch) -> bool:
    """An operation word used as a noun after an article ("print the file", "a new post").

    The lexicon's objects are read as nouns there already (``is_noun_use``); any other word
    is too, so "Print the file /srv/notes.txt" is no "file" (create), nor "Open the post" a post.
    """
    if match.start == 0 or tokens[match.start - 1] not in _ARTICLES:
        return False
    # "an estimated value", "the updated price": a participle still says what is asked.
    return not tokens[match.start].endswith(("ed", "ing"))


def _asks_which_ones(content: Sequence[str]) -> bool:
    """A question for the things of a kind: "what files are in …", "which rooms are free".

    "what" or "which", a plural noun, then a form of "be" ("are", "were"): the plural asked
    for by its kind is a listing, as for the lexicon's own objects ("which riders").
    """
    if len(content) < 3 or content[0] not in {"what", "which"}:
        return False
    noun, verb = content[1], content[2]
    return (verb in {"are", "were"} and len(noun) > 3 and noun.endswith("s")
            and not noun.endswith(("ss", "us", "is")))


# --- the rule parser --------------------------------------------------------------------------


@dataclass
class _Clause:
    text: str
    operation: str = ""
    target: str = ""
    objects: list[str] = field(default_factory=list)
    named: dict[str, Any] = field(default_factory=dict)
    has_values: bool = False
    person_pronoun: bool = False
    thing_pronoun: bool = False
    quantified: bool = False
    indefinite: bool = False
    explicit_operation: bool = False
    keywords: list[str] = field(default_factory=list)
    chit_chat: ChitChat | None = None
    # What the clause is answered with when no tool of the catalog does it ("what's 2 plus 2"
    # with a calculator tool is the tool's; without one, the arithmetic is the answer).
    fallback_answer: str | None = None
    after: bool = False


class RuleIntentParser:
    """Deterministic, offline intent parser built on the synonym lexicon.

    Args:
        lexicon: Synonym lexicon; None uses ``Lexicon.default()``.
    """

    name = "rules"

    def __init__(self, lexicon: Lexicon | None = None) -> None:
        self.lexicon = lexicon or Lexicon.default()
        self.vocabulary = domain_vocabulary()
        self.splitter = ClauseSplitter(self.lexicon, self.vocabulary)

    # public ---------------------------------------------------------------------------------

    def parse(self, request: str) -> Intent:
        """Parse a request into an intent tree (see the module docstring).

        Args:
            request: The user's request.

        Returns:
            The intent, ``parser="rules"``.

        Raises:
            IntentParseError: If ``request`` is not a string, or it is clearly written in
                another language and no English verb in it was understood.
        """
        require_text(request)
        return self._parse(request, gloss=True)

    def _parse(self, request: str, *, gloss: bool) -> Intent:
        text = " ".join(request.replace("\r", "\n").split(" ")).strip()
        output_format, body = detect_output_format(text)
        entities = cast(Entities, extract_entities(request, self.lexicon))
        clauses = []
        for piece, after, in_context in self.splitter.split_with_context(body):
            clause = self._analyze(piece)
            clause.after = after
            if in_context and clause.chit_chat is None:
                # The statements around the request are part of what it says (values to
                # bind, words to retrieve by); what it asks is read from the request alone.
                clause.text = in_context
            clauses.append(clause)
        clauses = [c for c in clauses if c.text.strip(" ,.;!?")]
        asks = [c for c in clauses if c.chit_chat is None and not _summary_ask(c.text)]
        if asks:
            # "..., then the derivative of x^3 at 2. Can you solve these for me?": the closing
            # ask points back at the others and asks nothing of its own.
            clauses = [c for c in clauses if c.chit_chat is not None or c in asks]
        actionable = [c for c in clauses if c.chit_chat is None]
        if actionable:
            # "Hi, create an order. Thanks!": greetings and thanks around a task are dropped.
            clauses = [
                c
                for c in clauses
                if c.chit_chat is None or c.chit_chat.kind not in {"greeting", "thanks"}
            ]
        if not any(c.explicit_operation for c in clauses):
            # Quoted values ("Le Petit Prince") are data, not the request's language.
            language = guess_non_english(QUOTED.sub(" ", body))
            if language == CJK_LANGUAGE and gloss:
                # "北京今天的天气怎么样？": no verb the cue words list; read its English gloss
                # (CC-CEDICT, word for word; values and quoted text kept as written).
                glossed = english_gloss(text)
                if guess_non_english(QUOTED.sub(" ", glossed)) is None:
                    intent = self._parse(glossed, gloss=False)
                    intent["request"] = request
                    intent["parser"] = f"{self.name} (English gloss: {glossed})"
                    return intent
            if language is not None:
                raise IntentParseError(
                    f"it looks like it is written in {language}, and the offline rule-based "
                    "parser reads English only. Rephrase it in English, or run with a chat "
                    "model (--model, or Deps(chat_model=...)), which reads other languages"
                )
        sub_intents = self._link(clauses)
        if not sub_intents:
            sub_intents = [_empty_request_sub_intent(text)]
        first = sub_intents[0]
        keywords = list(dict.fromkeys(k for s in sub_intents for k in s["keywords"]))
        return Intent(
            request=request,
            category=self._category(sub_intents),
            operation=first["operation"],
            target=first["target"],
            keywords=keywords,
            entities=entities,
            sub_intents=sub_intents,
            parser=self.name,
            output_format=output_format,
        )

    def split(self, text: str) -> list[str]:
        """Split a request into clauses in execution order (see `nodes.parsing.splitting`).

        Args:
            text: The request (an output-format phrase already removed).

        Returns:
            The clauses; "after"/"before" clauses are reordered so prerequisites come first.
        """
        return self.splitter.split(text)

    # clause analysis --------------------------------------------------------------------------

    def _analyze(self, clause_text: str) -> _Clause:
        clause = _Clause(text=clause_text.strip())
        clause.chit_chat = chit_chat(clause.text)
        if clause.chit_chat is not None and clause.chit_chat.kind in _TOOL_MAY_ANSWER:
            clause.fallback_answer, clause.chit_chat = clause.chit_chat.answer, None
        if clause.chit_chat is not None:
            clause.keywords = []
            return clause
        scan = scan_entities(clause.text, self.lexicon)
        named = dict(scan.entities["named"])
        clause.named = named
        clause.has_values = bool(
            named or scan.entities["ids"] or scan.entities["quoted"] or scan.entities["pairs"]
        )
        masked = _mask(clause.text, scan.value_spans)
        masked = _rewrite_give_me(masked)
        spans = token_spans(masked, split_identifiers=False)
        tokens = [t for *_, t in spans]
        terms = [m for m in self.lexicon.find_terms(tokens) if not _is_masked_token(tokens, m)]
        operation_terms = [m for m in terms if m.kind == "operation"]
        operation_terms = [m for m in operation_terms if not self.splitter.is_noun_use(tokens, m)
                           and not _after_article(tokens, m)]
        object_terms = [m for m in terms if m.kind == "object"]
        # An operation word used as a noun ("the refund") is an object if the lexicon says so.
        for match in terms:
            if match.kind == "operation" and self.splitter.is_noun_use(tokens, match):
                surface = " ".join(tokens[match.start : match.stop])
                canonical = self.lexicon.canonical(surface, "object")
                if canonical is not None:
                    object_terms.append(TermMatch(match.start, match.stop, canonical, "object"))
        object_terms.sort(key=lambda m: m.start)
        relative_start = _relative_clause_start(tokens, object_terms)

        operation_match = next((m for m in operation_terms if m.start < relative_start), None) or (
            operation_terms[0] if operation_terms else None
        )
        operation = operation_match.canonical if operation_match is not None else ""
        order_verb_at = self._order_verb_position(tokens)
        if not operation and order_verb_at is not None:
            operation = "create"
        if not operation:
            nominal = self.vocabulary.nominalizations
            operation = next((nominal[t] for t in tokens if t in nominal), "")
        objects = [m for m in object_terms if m.canonical != "status"] or object_terms
        possessors = _possessors(masked, spans, objects)
        target = self._choose_target(
            tokens, operation, operation_match, objects, relative_start, possessors
        )
        if order_verb_at is not None and operation == "create" and operation_match is None:
            target = self.vocabulary.noun_verbs[tokens[order_verb_at]]
        # What the words mean here ("buy the product" places an order for it; restocking
        # adds inventory): the vocabulary's operation_rewrites.
        operation, target = self._rewrite(operation, target)
        said_as = (
            masked[spans[operation_match.start][0] : spans[operation_match.stop - 1][1]]
            if operation_match is not None else ""
        )
        if said_as and operation not in _READS and asks_of_the_past(clause.text, said_as):
            # "When was notes.txt last modified?", "Who created order 5?": a question of
            # what was done, answered by reading, never by doing it again.
            operation = "get"
        clause.explicit_operation = bool(operation)
        if not operation and (target or clause.has_values):
            operation = self._default_operation(tokens)
        if operation == "update" and "status" in named:
            operation = self.vocabulary.status_operation
        operation, target = self._refine_operation(
            tokens, operation, operation_match, target, objects
        )
        if opens_with_sending(clause.text):
            # "email sam@x.io that dinner is booked": the words passed on ask for nothing
            operation = self.lexicon.canonical("send", "operation") or operation
        clause.operation = operation
        clause.target = target
        clause.objects = list(dict.fromkeys(m.canonical for m in objects))
        if target and target not in clause.objects:
            clause.objects.insert(0, target)
        clause.indefinite = any(
            m.canonical == target
            and any(t in _INDEFINITES for t in tokens[max(0, m.start - 2) : m.start])
            for m in objects
        )
        clause.person_pronoun = any(t in _PERSON_PRONOUNS for t in tokens)
        clause.thing_pronoun = any(t in _THING_PRONOUNS for t in tokens) or _demonstrative(tokens)
        clause.quantified = any(t in _QUANTIFIERS for t in tokens) or "status" in named
        # A path's own words ("tmp", "root", "docs") say where, not what to do.
        keywords = extract_keywords(without_paths(masked), self.lexicon, max_keywords=10)
        # Chinese cue words add their English words ("读取文件": read, path, file), which
        # tool names and schemas are written in.
        keywords += english_words_of(masked)
        clause.keywords = list(dict.fromkeys([*(k for k in (operation, target) if k), *keywords]))
        return clause

    def _refine_operation(
        self,
        tokens: Sequence[str],
        operation: str,
        operation_match: TermMatch | None,
        target: str,
        objects: Sequence[TermMatch],
    ) -> tuple[str, str]:
        """Read questions, plurals and "list a product" the way people mean them.

        - "what payments were made for order 2": a verb after a form of "be" in a question
          describes what exists, it does not ask to make more: a lookup;
        - "after ordering product 5": a gerund of a noun verb (``noun_verbs``) creates one;
        - "show the shops", "which riders": a lookup of a plural object lists them;
        - "list a product in the shop": listing *a* thing for sale creates it.
        """
        content = [t for t in tokens if t not in LEADING_FILLERS]
        first = content[0] if content else ""
        if (
            operation_match is not None
            and first in _INTERROGATIVES
            and operation_match.start > 0
            and tokens[operation_match.start - 1] in _BE_FORMS - {"get", "gets", "got"}
        ):
            operation = "get"
        if (
            operation_match is not None
            and first in {"what", "who", "which"}
            and operation_match.start == tokens.index(first) + 1
        ):
            # "what changed in the repo?", "who cancelled order 5?": a question of what
            # happened reads; it never does the thing again.
            operation = "get"
        noun_verb = lemmatize(first, self.lexicon.vocabulary)
        if (
            operation_match is None
            and first.endswith(("ing", "ed"))
            and noun_verb in self.vocabulary.noun_verbs
        ):
            operation, target = "create", self.vocabulary.noun_verbs[noun_verb]
        if (
            operation == self.vocabulary.issuing_operation
            and target
            and target not in self.vocabulary.given_objects
        ):
            operation = "create"  # "give them an address", "give her a gold membership"
        match = next((m for m in objects if m.canonical == target), None)
        if match is None:
            if operation in {"", "get", "search"} and _asks_which_ones(content):
                operation = "list"  # "what files are in /srv/docs?", "which rooms are free"
            return operation, target
        surface = tokens[match.stop - 1]
        plural = surface != target and surface.endswith("s") and not target.endswith("s")
        plural = plural or (surface.endswith("es") and target.endswith("s") and surface != target)
        if operation in {"get", "search"} and plural:
            operation = "list"
        elif (
            operation == "list"
            and not plural
            and any(
                t in {"a", "an", "new", "another"}
                for t in tokens[max(0, match.start - 2) : match.start]
            )
        ):
            operation = "create"
        return operation, target

    def _order_verb_position(self, tokens: Sequence[str]) -> int | None:
        index = 0
        while index < len(tokens) and tokens[index] in LEADING_FILLERS:
            index += 1
        if self.splitter.order_as_verb(tokens, index):
            return index
        # "Using account 123456, order product 3": the verb after a leading phrase.
        for position in range(index + 1, len(tokens)):
            if (
                tokens[position] in self.vocabulary.noun_verbs
                and tokens[position - 1] not in DETERMINERS | PREPOSITIONS
                and self.splitter.order_as_verb(tokens, position)
            ):
                return position
        return None

    def _choose_target(
        self,
        tokens: Sequence[str],
        operation: str,
        operation_match: TermMatch | None,
        objects: Sequence[TermMatch],
        relative_start: int,
        possessors: Sequence[TermMatch] = (),
    ) -> str:
        if not objects:
            return ""
        main = [m for m in objects if m.start < relative_start] or list(objects)
        if operation_match is None:
            return main[0].canonical
        after = [m for m in main if m.start >= operation_match.stop]
        before = [m for m in main if m.stop <= operation_match.start]
        object_slot = tokens[operation_match.stop : operation_match.stop + 2]
        if not after and any(t in _THING_PRONOUNS | {"them", "this", "that"} for t in object_slot):
            return ""  # "have user 42 buy it": "it" is the object, resolved from earlier steps
        if (
            object_slot[:1] == ["it"]
            and after
            and all(_after_preposition(tokens, m.start) for m in after)
        ):
            return ""  # "issue it to account 654321": "it" is the object, the account receives
        preceding_op = tokens[operation_match.start - 1] if operation_match.start > 0 else ""
        if before and preceding_op in _BE_FORMS:
            # Passive voice: "the order for user 42 should be paid" acts on the order.
            subjects = [
                m for m in before if m.start == 0 or tokens[m.start - 1] not in PREPOSITIONS
            ]
            return (subjects or before)[0].canonical
        if not after:
            return before[-1].canonical if before else main[0].canonical
        surface = tokens[operation_match.start]
        if surface in {"add", "put", "insert"}:
            for match in after:
                preceding = tokens[match.start - 1] if match.start > 0 else ""
                preceding2 = tokens[match.start - 2] if match.start > 1 else ""
                if match.canonical in self.vocabulary.containers and (
                    preceding in {"to", "into", "in"}
                    or preceding2 in {"to", "into", "in"}
                    or _after_preposition(tokens, match.start, {"to", "into", "in"})
                ):
                    return match.canonical
        while len(after) > 1 and after[0] in possessors:
            after = after[1:]  # "user 42's wallet": the wallet is acted on
        first = after[0].canonical
        people = self.vocabulary.person_objects
        if operation in self.vocabulary.giving_operations and first in people:
            others = [m.canonical for m in after[1:] if m.canonical not in people]
            if others:
                return others[0]
        return first

    def _rewrite(self, operation: str, target: str) -> tuple[str, str]:
        """The operation and object meant, by the vocabulary's ``operation_rewrites``."""
        rewrites = self.vocabulary.operation_rewrites
        meant = rewrites.get(f"{operation} {target}") or rewrites.get(f"{operation} *")
        if meant is None:
            return operation, target
        meant_operation, _, meant_object = meant.partition(" ")
        return meant_operation, meant_object or target

    @staticmethod
    def _default_operation(tokens: Sequence[str]) -> str:
        """The operation of a clause with an object but no verb: "an order for user 42"."""
        words = set(tokens)
        if words & {"want", "need", "like", "wanna"} and words & {"a", "an", "new", "some"}:
            return "create"
        return "get"

    # linking ----------------------------------------------------------------------------------

    def _link(self, clauses: Sequence[_Clause]) -> list[SubIntent]:
        people, consumes = self.vocabulary.person_objects, self.vocabulary.consumes
        subs: list[SubIntent] = []
        for index, clause in enumerate(clauses):
            sub_id = f"s{index + 1}"
            if clause.chit_chat is not None:
                subs.append(_direct_answer(sub_id, clause))
                continue
            entities: dict[str, Any] = dict(clause.named)
            depends: list[str] = []
            target = clause.target
            earlier = [(s, c) for s, c in zip(subs, clauses[:index], strict=True)]
            earlier_tasks = [(s, c) for s, c in earlier if c.chit_chat is None]

            referent: tuple[SubIntent, _Clause] | None = None
            if clause.person_pronoun:
                referent = next(
                    (p for p in reversed(earlier_tasks) if p[1].target in people),
                    None,
                ) or (earlier_tasks[-1] if earlier_tasks else None)
            if (
                referent is None
                and (clause.thing_pronoun or (not target and not self._names_own_thing(clause)))
                and earlier_tasks
            ):
                referent = earlier_tasks[-1]
            operation = clause.operation
            if referent is not None:
                depends.append(referent[0]["id"])
                if not target:
                    target = referent[0]["target"]
                    if not clause.explicit_operation:
                        # "advance order 17 to shipped, then to delivered": the verb carries over.
                        operation = referent[0]["operation"]
                self._inherit_ids(entities, referent[0], referent[0]["target"])
            elif not target and (
                clause.thing_pronoun or (operation and not self._has_own_words(clause))
            ):
                # "pay the order after creating it": the clause first in execution refers ahead;
                # "find a recipe ..., then a restaurant ..." names its own thing and keeps it.
                target = next((c.target for c in clauses[index + 1 :] if c.target), "")

            # "buy product 5" places an order, not "... check out" (operation_rewrites).
            for said in (clause.target, target if clause.thing_pronoun else ""):
                if said and f"{operation} {said}" in self.vocabulary.operation_rewrites:
                    operation, target = self._rewrite(operation, said)
                    break
            mentioned = list(dict.fromkeys([*([target] if target else []), *clause.objects]))
            for obj in mentioned:
                if self._has_id_for(entities, obj):
                    continue
                if obj == target and operation == "create":
                    continue
                producer = next(
                    (
                        p
                        for p in reversed(earlier_tasks)
                        if p[0]["target"] == obj or self._has_id_for(p[0]["entities"], obj)
                    ),
                    None,
                )
                if producer is not None:
                    depends.append(producer[0]["id"])
                    self._inherit_ids(entities, producer[0], obj)
            if operation == "create" and target in consumes:
                for sub, _ in earlier_tasks:
                    consumed = sub["target"]
                    if (
                        sub["operation"] == "create"
                        and consumed in consumes[target]
                        and not self._has_id_for(entities, consumed)
                    ):
                        depends.append(sub["id"])
            depends = sorted(set(depends), key=lambda d: int(d[1:]))
            action: Action = "call_api" if (operation or target) else "retrieve_api"
            question: str | None = None
            if (
                action == "call_api"
                and operation in self.vocabulary.instance_operations
                and (
                    (target and target not in self.vocabulary.no_instance_objects)
                    or (not target and referent is None)
                )
                and not depends
                and not clause.has_values
                and not clause.quantified
                and not clause.indefinite
                and not entities
            ):
                action = "clarify_intent"
                question = (
                    f"Which {target} should I {operation}? Please give its {target} id or "
                    f"number (for example '{target} 123')."
                    if target
                    else f"What should I {operation}? Please name the object and give its id."
                )
            keywords = list(dict.fromkeys([*(k for k in (operation, target) if k),
                                           *clause.keywords]))  # fmt: skip
            subs.append(
                SubIntent(
                    id=sub_id,
                    text=clause.text,
                    operation=operation,
                    target=target,
                    keywords=keywords,
                    entities=entities,
                    depends_on=depends,
                    action=action,
                    answer=clause.fallback_answer,
                    question=question,
                )
            )
            if clause.after and len(subs) > 1:
                subs[-1]["after"] = [subs[-2]["id"]]  # "then": runs after, value or not
        return subs

    @staticmethod
    def _names_own_thing(clause: _Clause) -> bool:
        """Whether a clause with its own verb names its own thing, one the lexicon lacks.

        "... then give the weather forecast for Rome" asks about the forecast, not about
        the object of the clause before it; "... and pay" names nothing and goes on with it,
        and "... then set the starting level to 5" changes what the clause before it made.
        """
        if not clause.explicit_operation or clause.operation == "update":
            return False
        return any(k not in (clause.operation, clause.target) for k in clause.keywords)

    def _has_own_words(self, clause: _Clause) -> bool:
        """Whether a clause says words the lexicon does not know, whatever its verb.

        "provide the exhibition details of the museum" does; "creating it" does not.
        """
        return any(
            k not in (clause.operation, clause.target) and self.lexicon.canonical(k) is None
            for k in clause.keywords
        )

    def _has_id_for(self, entities: dict[str, Any], obj: str) -> bool:
        for key, value in entities.items():
            if not isinstance(value, str):
                continue
            stem = identifier_base(key)
            if stem == obj or self.lexicon.canonical(stem, "object") == obj:
                return True
        return False

    def _inherit_ids(self, entities: dict[str, Any], source: SubIntent, obj: str) -> None:
        """Copy the ids ``source`` bound for ``obj`` ("get order 17, then cancel it")."""
        for key, value in source["entities"].items():
            if key in entities or not isinstance(value, str):
                continue
            stem = identifier_base(key)
            if stem == obj or self.lexicon.canonical(stem, "object") == obj:
                entities[key] = value

    def _category(self, sub_intents: Sequence[SubIntent]) -> str:
        categories = self.vocabulary.categories
        by_operation = self.vocabulary.operation_categories
        for sub in sub_intents:
            if sub["action"] == "direct_answer":
                continue
            if sub["target"] in categories:
                return categories[sub["target"]]
            if sub["operation"] in by_operation:
                return by_operation[sub["operation"]]
        return "general"


_READS = frozenset({"get", "list", "search", "count"})
# Chit-chat a tool of the catalog may do instead of the canned answer: a sum for a calculator.
_TOOL_MAY_ANSWER = frozenset({"arithmetic"})


def _direct_answer(sub_id: str, clause: _Clause) -> SubIntent:
    chit = clause.chit_chat
    return SubIntent(
        id=sub_id,
        text=clause.text,
        operation="",
        target="",
        keywords=[],
        entities={},
        depends_on=[],
        action="direct_answer",
        answer=chit.answer if chit is not None else None,
        question=None,
    )


def _empty_request_sub_intent(text: str) -> SubIntent:
    return SubIntent(
        id="s1",
        text=text,
        operation="",
        target="",
        keywords=[],
        entities={},
        depends_on=[],
        action="clarify_intent",
        answer=None,
        question="What would you like me to do? For example: 'create a product and place an "
        "order for account 123456'.",
    )
