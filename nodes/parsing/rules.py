"""Intent parsing: a request becomes an ordered tree of sub-intents (Z-Space §3.2).

Two parsers share one interface, `IntentParser`:

- `RuleIntentParser` is deterministic and offline (the embedded default). It splits compound
  requests into clauses, finds each clause's operation and target object through the synonym
  lexicon, extracts entities with `stores.entities`, links clauses that refer to each other,
  and proposes one of NaviAgent's four actions per clause.
- `LLMIntentParser` asks any LangChain chat model for an `IntentModel` (structured output with
  bounded repair), then normalizes it through the lexicon and overrides literal values with
  the rule extractor's, so a model cannot invent an id. It can fall back to another parser.

How the rule parser splits (in this order): lines and numbered steps; sentences; ``;``;
"then", "and then", "after that", "afterwards", "finally", "lastly"; a leading "after X, Y"
or "before X, Y" and an inner "Y after X" / "Y before X" (reordered so X runs first when it
names an operation); then ", X", "and X", "also X", "plus X" only when X starts with an
operation ("orders and payments" stays one clause; "create a user and pay" splits).

How ``depends_on`` is filled (simple and predictable, the planner refines it):

1. A clause with a pronoun ("it", "them", "that", "the same") or without an object of its own
   depends on the previous sub-intent (for "them"/"him"/"her", the latest one about a user)
   and inherits its target and the ids bound to that target.
2. A clause that mentions an object without giving its id depends on the latest earlier
   sub-intent whose target is that object ("place an order ..., advance the order"), unless
   the clause creates another one of that object.
3. A clause that creates an object depends on earlier sub-intents that created what it
   consumes (`CONSUMES`: an order consumes a product, a user, an address, a coupon ...).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from nodes.prompts import INTENT_PARSE_PROMPT
from nodes.schemas import IntentModel
from nodes.state import Action, Entities, Intent, SubIntent
from stores.language.detect import guess_non_english
from stores.language.entities import extract_entities, scan_entities
from stores.language.keywords import extract_keywords, lemmatize, token_spans
from stores.language.lexicon import Lexicon, TermMatch
from stores.llm import MAX_REPAIRS, StructuredOutputError, invoke_structured

__all__ = [
    "CONSUMES",
    "IntentParseError",
    "IntentParser",
    "LLMIntentParser",
    "RuleIntentParser",
    "parse_request",
]


class IntentParseError(ValueError):
    """A request could not be parsed into an intent; the message says what to do."""


class IntentParser(Protocol):
    """Anything that turns a request into an `Intent`."""

    def parse(self, request: str) -> Intent:
        """Parse one request."""
        ...


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
    if not isinstance(request, str):
        raise IntentParseError(
            f"the request must be text, got {type(request).__name__}; pass the user's message"
        )
    return (parser or RuleIntentParser()).parse(request)


# --- domain knowledge -------------------------------------------------------------------------

CONSUMES: dict[str, frozenset[str]] = {
    "order": frozenset({"product", "sku", "user", "address", "coupon", "cart", "shop"}),
    "payment": frozenset({"order"}),
    "delivery": frozenset({"order", "address", "rider", "shop"}),
    "review": frozenset({"order", "product"}),
    "refund": frozenset({"order", "payment"}),
    "product": frozenset({"shop", "category"}),
    "sku": frozenset({"product"}),
    "inventory": frozenset({"product", "sku"}),
    "cart": frozenset({"product", "sku", "user"}),
    "address": frozenset({"user"}),
    "membership": frozenset({"user"}),
    "wallet": frozenset({"user"}),
    "invoice": frozenset({"order", "payment"}),
}
"""What creating an object uses: a created product feeds a later "create an order"."""

_CATEGORY_OF: dict[str, str] = {
    "order": "order", "cart": "order", "payment": "payment", "invoice": "payment",
    "wallet": "payment", "refund": "refund", "product": "product", "sku": "product",
    "category": "product", "inventory": "product", "shop": "shop", "user": "user",
    "address": "user", "token": "user", "notification": "user", "points": "membership",
    "membership": "membership", "coupon": "coupon", "delivery": "delivery",
    "rider": "delivery", "review": "review", "status": "order",
}  # fmt: skip
_OPERATION_CATEGORY = {"pay": "payment", "refund": "refund", "ship": "delivery"}

# Operations on one existing object: without an id, a reference or a producer, ask.
_INSTANCE_OPERATIONS = frozenset(
    {"cancel", "delete", "update", "advance", "pay", "refund", "ship", "redeem", "assign"}
)
_NO_INSTANCE_OBJECTS = frozenset({"status", "category", "token", "notification", ""})
_PERSON_OBJECTS = frozenset({"user"})
_GIVING_OPERATIONS = frozenset({"issue", "refund", "assign"})
_CONTAINERS = frozenset({"cart", "inventory", "wallet"})

_NOMINALIZATIONS = {
    "creation": "create", "deletion": "delete", "removal": "delete", "cancellation": "cancel",
    "modification": "update", "registration": "create", "generation": "create",
    "issuance": "issue", "issuing": "issue", "assignment": "assign", "verification": "verify",
    "validation": "verify", "redemption": "redeem", "retrieval": "get", "activation": "create",
    "renewal": "create", "shipping": "ship", "lookup": "get",
}  # fmt: skip

_LEADING_FILLERS = frozenset(
    """please pls kindly also then and finally lastly first firstly second secondly third next
    now just i we you want wanna need would like to could can will let let's lets me us go ahead
    should must have 'd i'd we'd so ok okay afterwards additionally plus""".split()
)
_DETERMINERS = frozenset(
    "a an the this that these those my your his her its our their each every some any".split()
)
_PERSON_PRONOUNS = frozenset({"them", "their", "they", "him", "her", "his", "he", "she"})
_THING_PRONOUNS = frozenset({"it", "its"})
_DEMONSTRATIVES = frozenset({"this", "that", "these", "those", "same", "said", "above"})
_QUANTIFIERS = frozenset(
    """all every each latest last recent newest oldest first any some most pending my our
    these those""".split()
)
# Nouns that are verbs at the start of a clause, with the object they create.
_NOUN_VERBS = {"order": "order", "reorder": "order", "review": "review"}
_INDEFINITES = frozenset({"a", "an", "any", "some", "another", "new", "one"})
# What "order X" buys: after these nouns "order" is a verb ("order product 2").
# What one issues to a person; "giving" anything else creates it for them.
_GIVEN_OBJECTS = frozenset(
    {"coupon", "template", "points", "invoice", "refund", "token", "notification"}
)
_ORDERABLE = frozenset(
    "product products item items sku skus variant variants unit units goods merchandise".split()
)
_INTERROGATIVES = frozenset(
    "what which who whom whose how when where were was is are did does do has have".split()
)
_COUNT_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty
    hundred dozen few several couple""".split()
)
_PREPOSITIONS = frozenset("for of to with from by using in on at".split())
_BE_FORMS = frozenset({"be", "been", "being", "is", "are", "was", "were", "get", "gets", "got"})


# --- chit-chat and arithmetic -----------------------------------------------------------------

_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|yo|greetings|good\s+(?:morning|afternoon|evening|day)|howdy)"
    r"(?:\s+(?:there|all|team|bot|zspace))?[\s!.,]*$",
    re.I,
)
_THANKS = re.compile(
    r"^(?:(?:ok(?:ay)?|great|cool|awesome|perfect|nice|good|fine)[\s,!.]*)?"
    r"(?:thanks?(?:\s+you)?|thx|ty|cheers|much\s+appreciated)(?:\s+(?:a\s+lot|so\s+much|very"
    r"\s+much))?[\s!.]*$|^(?:ok(?:ay)?|great|cool|awesome|perfect|bye|goodbye)[\s!.]*$",
    re.I,
)
_CAPABILITY = re.compile(
    r"^(?:what\s+(?:can|do)\s+you\s+do|who\s+are\s+you|what\s+are\s+you|help|how\s+do\s+(?:you|"
    r"i)\s+use\s+(?:you|this)|what\s+(?:tools|services)\s+do\s+you\s+(?:have|offer)|"
    r"how\s+can\s+you\s+help(?:\s+me)?)[\s?!.]*$",
    re.I,
)
_DEFINITION = re.compile(
    r"^(?:what\s+is|what's|whats|what\s+are|what\s+does)\s+(?:an?\s+)?([a-z][a-z\s-]{0,30}?)"
    r"(?:\s+mean)?\s*\?*$",
    re.I,
)
_ARITHMETIC_LEAD = re.compile(
    r"^(?:what\s+is|what's|whats|how\s+much\s+is|calculate|compute|evaluate|solve)\s+", re.I
)
_ARITHMETIC_WORDS = [
    (re.compile(r"\bmultiplied\s+by\b|\btimes\b|×", re.I), "*"),
    (re.compile(r"\bdivided\s+by\b|÷", re.I), "/"),
    (re.compile(r"\bplus\b", re.I), "+"),
    (re.compile(r"\bminus\b", re.I), "-"),
    (re.compile(r"(?<=\d)\s*x\s*(?=\d)", re.I), "*"),
    (re.compile(r"\^"), "**"),
]
_ARITHMETIC_TEXT = re.compile(r"[\d\s.+\-*/()%]+")

GREETING_ANSWER = (
    "Hello! I create and look up test data for the e-commerce and delivery platform (users, "
    "shops, products, orders, payments, coupons, deliveries, reviews, refunds, memberships). "
    "What would you like to do?"
)
THANKS_ANSWER = "You're welcome!"
CAPABILITY_ANSWER = (
    "I turn requests about test data into tool calls on the platform: users and accounts, "
    "addresses, shops, products and SKUs, inventory, carts, orders and their statuses, "
    "payments, coupons, deliveries and riders, reviews, refunds and memberships. For example: "
    "'create a product, place an order for account 123456 and advance it to pending payment'."
)

_BINARY_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


def _evaluate(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 64 or abs(left) > 1e6):
            raise ValueError("exponent too large")
        return float(_BINARY_OPERATORS[type(node.op)](left, right))
    raise ValueError("not arithmetic")


def _arithmetic_answer(clause: str) -> str | None:
    """Answer "what is 2+2" / "calculate 3 times 4"; None if the clause is not arithmetic."""
    body = _ARITHMETIC_LEAD.sub("", clause.strip()).rstrip("?!. =")
    for pattern, replacement in _ARITHMETIC_WORDS:
        body = pattern.sub(replacement, body)
    if not body or not _ARITHMETIC_TEXT.fullmatch(body) or not re.search(r"\d", body):
        return None
    if not re.search(r"\d\s*(?:[+\-*/%]|\*\*)\s*[\d(]", body):
        return None
    try:
        value = _evaluate(ast.parse(body.strip(), mode="eval"))
    except ZeroDivisionError:
        return f"{body.strip()} is undefined (division by zero)."
    except (SyntaxError, ValueError, OverflowError, RecursionError):
        return None
    shown = str(int(value)) if value.is_integer() else f"{value:.10g}"
    return f"{body.strip()} = {shown}"


@dataclass(frozen=True)
class _ChitChat:
    kind: str  # greeting, thanks, capability, arithmetic, definition
    answer: str | None


def _chit_chat(clause: str) -> _ChitChat | None:
    text = " ".join(clause.strip().split())
    if not text:
        return None
    if _GREETING.match(text):
        return _ChitChat("greeting", GREETING_ANSWER)
    if _THANKS.match(text):
        return _ChitChat("thanks", THANKS_ANSWER)
    if _CAPABILITY.match(text):
        return _ChitChat("capability", CAPABILITY_ANSWER)
    arithmetic = _arithmetic_answer(text)
    if arithmetic is not None:
        return _ChitChat("arithmetic", arithmetic)
    definition = _DEFINITION.match(text)
    if definition and re.match(r"^what\s+(?:is|are|does)\s+an?\s|^what's\s+an?\s", text, re.I):
        return _ChitChat("definition", None)
    return None


# --- output format ----------------------------------------------------------------------------

_FORMATS: list[tuple[str, re.Pattern[str]]] = [
    (
        "md",
        re.compile(
            r"\b(?:as|in|into)\s+(?:a\s+)?(?:markdown\s+|md\s+)?table\b|\btable\s+format\b|"
            r"\btabular(?:\s+form(?:at)?)?\b|\b(?:as|in)\s+markdown\b",
            re.I,
        ),
    ),
    ("json", re.compile(r"\b(?:as|in|into)\s+(?:a\s+)?json\b|\bjson\s+format\b", re.I)),
    (
        "text",
        re.compile(
            r"\b(?:as|in)\s+(?:a\s+)?(?:short\s+|brief\s+|plain\s+)?(?:summary|text|prose|"
            r"paragraph|sentences?)\b|\bin\s+plain\s+(?:english|words)\b",
            re.I,
        ),
    ),
]
_FORMAT_LEAD = re.compile(
    r"(?:,?\s*(?:and\s+)?(?:then\s+)?(?:please\s+)?(?:show|give|return|display|present|output|"
    r"format|print|list|send|report|put)\s+(?:me\s+)?(?:it|them|those|the\s+results?|the\s+"
    r"output|everything|the\s+data|all\s+of\s+(?:it|them))?\s*(?:to\s+me\s+)?)?$",
    re.I,
)


def _detect_output_format(text: str) -> tuple[str | None, str]:
    """Find "as a table" / "in JSON" / "as a summary"; return the format and the text without it."""
    for name, pattern in _FORMATS:
        match = pattern.search(text)
        if match is None:
            continue
        before = text[: match.start()]
        lead = _FORMAT_LEAD.search(before)
        cut = lead.start() if lead is not None and lead.group().strip() else match.start()
        remainder = (text[:cut].rstrip(" ,") + " " + text[match.end() :].lstrip(" ,")).strip()
        return name, remainder
    if re.search(r"\bsummari[sz]e\b", text, re.I):
        return "text", text
    return None, text


# --- splitting --------------------------------------------------------------------------------

_QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|‘[^’\n]*’|(?<![\w'’])'[^'\n]+'(?![\w])")
# Line breaks, and numbered or bulleted steps at the start or after punctuation ("1) ...").
_LINE_BREAKS = re.compile(
    r"\s*\n+\s*(?:(?:\(?\d{1,2}[.)]|[-*•])\s+)?|(?:^|(?<=[:;,.!?])\s*)"
    r"(?:\(?\d{1,2}[.)]|step\s+\d+\s*[:.)]?|[-*•])\s+(?=\D)|(?:^|\s)\(?\d{1,2}\)\s+(?=\D)",
    re.I,
)
_ABBREVIATION = re.compile(r"\b(?:no|e\.g|i\.e|vs|mr|mrs|ms|dr|st|approx|etc|nr)\.$", re.I)
_STRONG_SPLIT = re.compile(
    r"\s*(?:,\s*)?\b(?:and\s+)?(?:then|afterwards|after\s+that|after\s+which|after\s+this|"
    r"subsequently|finally|lastly|once\s+(?:that'?s\s+|that\s+is\s+|it'?s\s+|it\s+is\s+)?"
    r"done|when\s+(?:that'?s\s+|it'?s\s+)?done)\b\s*,?\s*",
    re.I,
)
_WEAK_SPLIT = re.compile(
    r"\s*,\s*(?:and\s+|also\s+|plus\s+|next,?\s+)?|\s+and\s+(?:also\s+)?|\s+also\s+|"
    r"\s+plus\s+|\s+as\s+well\s+as\s+",
    re.I,
)
_LEADING_AFTER = re.compile(
    r"^(?:right\s+)?(after|once|when|as\s+soon\s+as|upon|before)\s+(.+?)\s*,\s*(.+)$", re.I | re.S
)
_INNER_AFTER = re.compile(
    r"\s*,?\s+\b(after|once|as\s+soon\s+as|before)\s+(?!that\b|which\b)", re.I
)


def _protect_quotes(text: str) -> tuple[str, list[str]]:
    quotes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        quotes.append(match.group())
        return f"\x01{len(quotes) - 1}\x02"

    return _QUOTED.sub(keep, text), quotes


def _restore_quotes(text: str, quotes: Sequence[str]) -> str:
    return re.sub(r"\x01(\d+)\x02", lambda m: quotes[int(m.group(1))], text)


def _split_sentences(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in re.finditer(r"[.!?]+(?=\s+|$)", text):
        candidate = text[start : match.end()]
        if _ABBREVIATION.search(candidate):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip(" .!?")] or ([text] if text.strip() else [])


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
    chit_chat: _ChitChat | None = None


class RuleIntentParser:
    """Deterministic, offline intent parser built on the synonym lexicon.

    Args:
        lexicon: Synonym lexicon; None uses ``Lexicon.default()``.
    """

    name = "rules"

    def __init__(self, lexicon: Lexicon | None = None) -> None:
        self.lexicon = lexicon or Lexicon.default()

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
        if not isinstance(request, str):
            raise IntentParseError(
                f"the request must be text, got {type(request).__name__}; pass the user's message"
            )
        text = " ".join(request.replace("\r", "\n").split(" ")).strip()
        output_format, body = _detect_output_format(text)
        entities = cast(Entities, extract_entities(request, self.lexicon))
        clauses = [self._analyze(piece) for piece in self.split(body)]
        clauses = [c for c in clauses if c.text.strip(" ,.;!?")]
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
            language = guess_non_english(_QUOTED.sub(" ", body))
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
        """Split a request into clauses in execution order (see the module docstring).

        Args:
            text: The request (an output-format phrase already removed).

        Returns:
            The clauses; "after"/"before" clauses are reordered so prerequisites come first.
        """
        protected, quotes = _protect_quotes(text)
        clauses: list[str] = []
        for line in _LINE_BREAKS.split(protected):
            for sentence in _split_sentences(line or ""):
                for part in sentence.split(";"):
                    for strong in _STRONG_SPLIT.split(part):
                        for ordered in self._order_temporal(strong):
                            clauses.extend(self._split_weak(ordered))
        restored = [_restore_quotes(_clean_clause(c), quotes) for c in clauses]
        return [c for c in restored if c.strip(" ,.;!?")]

    # splitting helpers ------------------------------------------------------------------------

    def _order_temporal(self, clause: str) -> list[str]:
        """Reorder "after X, Y", "Y after X" and "before X, Y" so prerequisites run first."""
        clause = clause.strip()
        if not clause:
            return []
        leading = _LEADING_AFTER.match(clause)
        if leading is not None and self._names_operation(leading.group(2)):
            word, first, second = leading.group(1).lower(), leading.group(2), leading.group(3)
            if word == "before":
                return [*self._order_temporal(second), first]
            return [first, *self._order_temporal(second)]
        for match in _INNER_AFTER.finditer(clause):
            main, rest = clause[: match.start()], clause[match.end() :]
            if not main.strip() or not self._names_operation(rest):
                continue
            if not self._names_operation(main):
                continue
            if match.group(1).lower() == "before":
                return [main, *self._order_temporal(rest)]
            return [*self._order_temporal(rest), main]
        return [clause]

    def _split_weak(self, clause: str) -> list[str]:
        """Split at ", X" / "and X" when X starts with an operation or another thing to create.

        "create a user and a product" gives "create a user" and "create a product".
        """
        pieces: list[str] = []
        start = 0
        create_verb = self._create_verb(clause.split(",", 1)[0])
        prefix = ""
        for match in _WEAK_SPLIT.finditer(clause):
            rest = clause[match.end() :]
            head = clause[start : match.start()]
            if not prefix and not self._names_operation(head) and _chit_chat(head) is None:
                continue  # "For account 123456, create an order": the head is no clause
            if self._starts_with_operation(rest):
                next_prefix = ""
            elif create_verb is not None and self._starts_with_counted_object(rest):
                next_prefix = create_verb + " "
            elif (verb := self._possessed_object_verb(head, rest)) is not None:
                next_prefix = verb + " "  # "show product 1 and its stock"
            else:
                continue
            if head.strip():
                pieces.append(prefix + head)
                start = match.end()
                prefix = next_prefix
        pieces.append(prefix + clause[start:])
        return [p for p in pieces if p.strip()]

    def _possessed_object_verb(self, head: str, rest: str) -> str | None:
        """The lookup verb of "show product 1 and its stock" when ``rest`` is "its <object>"."""
        words = [t for *_, t in token_spans(rest, split_identifiers=False)][:4]
        if len(words) < 2 or words[0] not in {"its", "their", "his", "her"}:
            return None
        found = self.lexicon.find_terms(words[1:])
        if not found or found[0].start != 0 or found[0].kind != "object":
            return None
        if len(words) > found[0].stop + 1:
            return None  # "... and its price to 10" goes on: not a bare object
        if not re.search(r"\d", head):
            return None  # "list users and their addresses": no one object to look at
        spans = self._content_tokens(head)
        matches = self.lexicon.find_terms([t for *_, t in spans])
        if not matches or matches[0].start != 0 or matches[0].kind != "operation":
            return None
        if matches[0].canonical not in {"get", "list", "search"}:
            return None
        first, last = spans[matches[0].start], spans[matches[0].stop - 1]
        return head[first[0] : last[1]]

    def _create_verb(self, clause: str) -> str | None:
        """The create verb of "create a user and a product" ("make", "add" ...), if any.

        Only a clause whose objects follow the verb without a preposition qualifies, so
        "create an order for a user and a product" stays one clause.
        """
        spans = self._content_tokens(clause)
        tokens = [t for *_, t in spans]
        matches = self.lexicon.find_terms(tokens)
        if not matches or matches[0].kind != "operation" or matches[0].canonical != "create":
            return None
        if matches[0].start != 0 or any(t in _PREPOSITIONS for t in tokens[matches[0].stop :]):
            return None
        first, last = spans[matches[0].start], spans[matches[0].stop - 1]
        return clause[first[0] : last[1]]

    def _starts_with_counted_object(self, text: str) -> bool:
        """Whether text starts "a product", "another user", "2 shops", "twenty-five skus"."""
        tokens = [t for *_, t in token_spans(text, split_identifiers=False)][:6]
        index = 0
        while index < len(tokens) and (
            tokens[index] in {"a", "an", "another", "one", "new", "test", "more"}
            or tokens[index].isdigit()
            or tokens[index] in _COUNT_WORDS
        ):
            index += 1
        if index == 0:
            return False
        matches = self.lexicon.find_terms(tokens[index : index + 3])
        return bool(matches) and matches[0].start <= 1 and matches[0].kind == "object"

    def _content_tokens(self, text: str) -> list[tuple[int, int, str]]:
        spans = token_spans(text, split_identifiers=False)
        index = 0
        while index < len(spans) and spans[index][2] in _LEADING_FILLERS:
            index += 1
        return spans[index:]

    def _starts_with_operation(self, text: str) -> bool:
        """Whether a clause starts (after fillers) with a verb: "and pay it", "then order it"."""
        spans = self._content_tokens(text)
        if not spans:
            return False
        tokens = [t for *_, t in spans]
        if self._order_as_verb(tokens, 0):
            return True
        matches = self.lexicon.find_terms(tokens[:4])
        if not matches or matches[0].start != 0 or matches[0].kind != "operation":
            return False
        return not self._is_noun_use(tokens, matches[0])

    def _names_operation(self, text: str) -> bool:
        tokens = [t for *_, t in token_spans(text, split_identifiers=False)]
        if any(m.kind == "operation" for m in self.lexicon.find_terms(tokens)):
            return True
        if any(t in {"ordering", "ordered"} for t in tokens):
            return True
        return any(
            self._order_as_verb(tokens, index)
            and (index == 0 or tokens[index - 1] not in _DETERMINERS | _PREPOSITIONS)
            for index in range(len(tokens))
        )

    def _is_noun_use(self, tokens: Sequence[str], match: TermMatch) -> bool:
        """Whether an operation word is used as a noun: "refunds", "a refund", "the return"."""
        surface = " ".join(tokens[match.start : match.stop])
        if self.lexicon.canonical(surface, "object") is None:
            return False
        if match.start > 0 and tokens[match.start - 1] in _DETERMINERS:
            return True
        if match.start > 0 and self.lexicon.canonical(tokens[match.start - 1], "operation"):
            return True  # "show refund 1": the first word is the verb
        last = tokens[match.stop - 1]
        return last.endswith("s") and lemmatize(last, self.lexicon.vocabulary) != last

    @staticmethod
    def _order_as_verb(tokens: Sequence[str], index: int) -> bool:
        """Whether a noun is used as a verb: "order it", "order 3 mugs", "review order 17"."""
        if index >= len(tokens) or tokens[index] not in _NOUN_VERBS:
            return False
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if following in {
            "a",
            "an",
            "it",
            "them",
            "one",
            "some",
            "another",
            "more",
            "this",
            "that",
            "something",
            "these",
            "those",
        }:
            return True
        if following in _ORDERABLE or following in _COUNT_WORDS:
            return True  # "order product 2", "order three units of ..."
        if following == "the" and index + 2 < len(tokens) and tokens[index + 2] in _ORDERABLE:
            return True  # "order the product for account 654321"
        if tokens[index] == "review" and following in {"the", "order", "product", "my", "their"}:
            return True
        if following.isdigit() and index + 2 < len(tokens):
            after = tokens[index + 2]
            return after.endswith("s") and not after.isdigit() and after not in {"status"}
        return False

    # clause analysis --------------------------------------------------------------------------

    def _analyze(self, clause_text: str) -> _Clause:
        clause = _Clause(text=clause_text.strip())
        clause.chit_chat = _chit_chat(clause.text)
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
        operation_terms = [m for m in operation_terms if not self._is_noun_use(tokens, m)]
        object_terms = [m for m in terms if m.kind == "object"]
        # An operation word used as a noun ("the refund") is an object if the lexicon says so.
        for match in terms:
            if match.kind == "operation" and self._is_noun_use(tokens, match):
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
            operation = next((_NOMINALIZATIONS[t] for t in tokens if t in _NOMINALIZATIONS), "")
        objects = [m for m in object_terms if m.canonical != "status"] or object_terms
        possessors = _possessors(masked, spans, objects)
        target = self._choose_target(
            tokens, operation, operation_match, objects, relative_start, possessors
        )
        if order_verb_at is not None and operation == "create" and operation_match is None:
            target = _NOUN_VERBS[tokens[order_verb_at]]
        if operation == "pay" and target in {"product", "sku"}:
            # One pays for orders: "buy the product" places an order for it.
            operation, target = "create", "order"
        clause.explicit_operation = bool(operation)
        if not operation and (target or clause.has_values):
            operation = self._default_operation(tokens)
        if operation == "update" and "status" in named:
            operation = "advance"
        operation, target = self._refine_operation(
            tokens, operation, operation_match, target, objects
        )
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
        keywords = extract_keywords(masked, self.lexicon, max_keywords=10)
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
        - "after ordering product 5": a gerund of "order" creates an order;
        - "show the shops", "which riders": a lookup of a plural object lists them;
        - "list a product in the shop": listing *a* thing for sale creates it.
        """
        content = [t for t in tokens if t not in _LEADING_FILLERS]
        first = content[0] if content else ""
        if (
            operation_match is not None
            and first in _INTERROGATIVES
            and operation_match.start > 0
            and tokens[operation_match.start - 1] in _BE_FORMS - {"get", "gets", "got"}
        ):
            operation = "get"
        if operation_match is None and first in {"ordering", "ordered"}:
            operation, target = "create", "order"
        if operation == "restock":
            operation, target = "create", "inventory"  # restocking adds inventory
        if operation == "issue" and target and target not in _GIVEN_OBJECTS:
            operation = "create"  # "give them an address", "give her a gold membership"
        match = next((m for m in objects if m.canonical == target), None)
        if match is None:
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
        while index < len(tokens) and tokens[index] in _LEADING_FILLERS:
            index += 1
        if self._order_as_verb(tokens, index):
            return index
        # "Using account 123456, order product 3": the verb after a leading phrase.
        for position in range(index + 1, len(tokens)):
            if (
                tokens[position] == "order"
                and tokens[position - 1] not in _DETERMINERS | _PREPOSITIONS
                and self._order_as_verb(tokens, position)
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
                m for m in before if m.start == 0 or tokens[m.start - 1] not in _PREPOSITIONS
            ]
            return (subjects or before)[0].canonical
        if not after:
            return before[-1].canonical if before else main[0].canonical
        surface = tokens[operation_match.start]
        if surface in {"add", "put", "insert"}:
            for match in after:
                preceding = tokens[match.start - 1] if match.start > 0 else ""
                preceding2 = tokens[match.start - 2] if match.start > 1 else ""
                if match.canonical in _CONTAINERS and (
                    preceding in {"to", "into", "in"}
                    or preceding2 in {"to", "into", "in"}
                    or _after_preposition(tokens, match.start, {"to", "into", "in"})
                ):
                    return match.canonical
        while len(after) > 1 and after[0] in possessors:
            after = after[1:]  # "user 42's wallet": the wallet is acted on
        first = after[0].canonical
        if operation in _GIVING_OPERATIONS and first in _PERSON_OBJECTS:
            others = [m.canonical for m in after[1:] if m.canonical not in _PERSON_OBJECTS]
            if others:
                return others[0]
        return first

    @staticmethod
    def _default_operation(tokens: Sequence[str]) -> str:
        """The operation of a clause with an object but no verb: "an order for user 42"."""
        words = set(tokens)
        if words & {"want", "need", "like", "wanna"} and words & {"a", "an", "new", "some"}:
            return "create"
        return "get"

    # linking ----------------------------------------------------------------------------------

    def _link(self, clauses: Sequence[_Clause]) -> list[SubIntent]:
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
                    (p for p in reversed(earlier_tasks) if p[1].target in _PERSON_OBJECTS),
                    None,
                ) or (earlier_tasks[-1] if earlier_tasks else None)
            if referent is None and (clause.thing_pronoun or not target) and earlier_tasks:
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
            elif not target and (clause.thing_pronoun or operation):
                # "pay the order after creating it": the clause first in execution refers ahead.
                target = next((c.target for c in clauses[index + 1 :] if c.target), "")

            if operation == "pay" and (
                clause.target in {"product", "sku"}
                or (target in {"product", "sku"} and clause.thing_pronoun)
            ):
                operation, target = "create", "order"  # "buy product 5", not "... check out"
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
            if operation == "create" and target in CONSUMES:
                for sub, _ in earlier_tasks:
                    consumed = sub["target"]
                    if (
                        sub["operation"] == "create"
                        and consumed in CONSUMES[target]
                        and not self._has_id_for(entities, consumed)
                    ):
                        depends.append(sub["id"])
            depends = sorted(set(depends), key=lambda d: int(d[1:]))
            action: Action = "call_api" if (operation or target) else "retrieve_api"
            question: str | None = None
            if (
                action == "call_api"
                and operation in _INSTANCE_OPERATIONS
                and (target not in _NO_INSTANCE_OBJECTS or (not target and referent is None))
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
                    answer=None,
                    question=question,
                )
            )
        return subs

    def _has_id_for(self, entities: dict[str, Any], obj: str) -> bool:
        for key, value in entities.items():
            if not isinstance(value, str):
                continue
            stem = key[:-3] if key.endswith("_id") else key
            stem = stem.split("_")[0] if stem.endswith(("_number", "_code", "_no")) else stem
            if stem == obj or self.lexicon.canonical(stem, "object") == obj:
                return True
        return False

    def _inherit_ids(self, entities: dict[str, Any], source: SubIntent, obj: str) -> None:
        """Copy the ids ``source`` bound for ``obj`` ("get order 17, then cancel it")."""
        for key, value in source["entities"].items():
            if key in entities or not isinstance(value, str):
                continue
            stem = key[:-3] if key.endswith("_id") else key
            if stem == obj or self.lexicon.canonical(stem, "object") == obj:
                entities[key] = value

    @staticmethod
    def _category(sub_intents: Sequence[SubIntent]) -> str:
        for sub in sub_intents:
            if sub["action"] == "direct_answer":
                continue
            if sub["target"] in _CATEGORY_OF:
                return _CATEGORY_OF[sub["target"]]
            if sub["operation"] in _OPERATION_CATEGORY:
                return _OPERATION_CATEGORY[sub["operation"]]
        return "general"


def _clean_clause(clause: str) -> str:
    text = clause.strip(" ,;:.\t")
    text = re.sub(
        r"^(?:(?:and|then|also|finally|lastly|first(?:ly)?|second(?:ly)?|next|afterwards|"
        r"plus|so|now|after\s+that)\b[\s,]*)+",
        "",
        text,
        flags=re.I,
    )
    return text.strip(" ,;:")


def _mask(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Replace value spans by a neutral token so their words are not read as terms."""
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        if start < cursor:
            continue
        pieces.append(text[cursor:start])
        pieces.append(" 0 ")
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _is_masked_token(tokens: Sequence[str], match: TermMatch) -> bool:
    return any(t == "0" for t in tokens[match.start : match.stop])


_GIVE_ME = re.compile(
    r"\b(?:give|send|get|bring|fetch|show)\s+me\b(?!\s+(?:a|an|one|some|new|another|\d+)\s+"
    r"(?!list\b|summary\b|overview\b|report\b|breakdown\b|copy\b|view\b))",
    re.I,
)


def _rewrite_give_me(text: str) -> str:
    """Read "give me the order details" as "show ...": it asks to see, not to issue."""
    return _GIVE_ME.sub("show", text)


def _possessors(
    text: str, spans: Sequence[tuple[int, int, str]], objects: Sequence[TermMatch]
) -> list[TermMatch]:
    """Objects followed by a possessive and another object: the user in "user 42's wallet"."""
    found: list[TermMatch] = []
    for current, following in zip(objects, objects[1:], strict=False):
        between = text[spans[current.stop - 1][1] : spans[following.start][0]]
        if re.fullmatch(r"\s*(?:0\s*|\S+)?['’]s\s+", between):
            found.append(current)
    return found


def _after_preposition(
    tokens: Sequence[str], index: int, prepositions: frozenset[str] | set[str] = _PREPOSITIONS
) -> bool:
    """Whether the object at ``index`` follows a preposition: "to the user's cart"."""
    position = index - 1
    while position >= 0 and index - position <= 5:
        token = tokens[position]
        if token in prepositions:
            return True
        if (
            token in _DETERMINERS
            or token in {"s", "'s", "0"}
            or token.isdigit()
            or (token.isalpha() and index - position <= 3)
        ):
            position -= 1
            continue
        return False
    return False


def _relative_clause_start(tokens: Sequence[str], objects: Sequence[TermMatch]) -> int:
    """Token index where "whose"/"who"/"that ..." after an object starts, else len(tokens)."""
    object_ends = {m.stop for m in objects}
    for index, token in enumerate(tokens):
        if token in {"whose", "who", "which", "where"} and index > 0:
            return index
        if token == "that" and index in object_ends:
            return index
    return len(tokens)


def _demonstrative(tokens: Sequence[str]) -> bool:
    """Whether a clause points back: "that order", "the same user", "cancel that"."""
    for index, token in enumerate(tokens):
        if token in {"same", "said", "above", "aforementioned"}:
            return True
        if token in {"this", "that", "these", "those"}:
            following = tokens[index + 1] if index + 1 < len(tokens) else ""
            preceding = tokens[index - 1] if index > 0 else ""
            if preceding in {"so", "such"}:
                continue
            if following in {"", "one", "ones", "and", "too", "as", "then"} or following.isalpha():
                return True
    return False


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


# --- the LLM parser ---------------------------------------------------------------------------


class LLMIntentParser:
    """Intent parser backed by a chat model's structured output.

    Args:
        chat_model: Any LangChain chat model (``with_structured_output`` is used when present).
        lexicon: Synonym lexicon for normalizing operations and targets; None uses the default.
        fallback: Parser used when the model fails (e.g. `RuleIntentParser`); its intent is
            marked ``parser="rules (llm failed: ...)"``. None raises `IntentParseError`.
        max_repairs: Repair rounds after an invalid answer.
    """

    name = "llm"

    def __init__(
        self,
        chat_model: Any,
        lexicon: Lexicon | None = None,
        fallback: IntentParser | None = None,
        max_repairs: int = MAX_REPAIRS,
    ) -> None:
        self.chat_model = chat_model
        self.lexicon = lexicon or Lexicon.default()
        self.fallback = fallback
        self.max_repairs = max_repairs

    def prompt(self, request: str) -> str:
        """The prompt sent to the model for ``request``."""
        safe = request.replace("</request>", "</ request>")
        return INTENT_PARSE_PROMPT.format(
            request=safe,
            operations=", ".join(sorted(self.lexicon.operations)),
            objects=", ".join(sorted(self.lexicon.objects)),
        )

    def parse(self, request: str) -> Intent:
        """Parse with the model; fall back or raise `IntentParseError` if it fails.

        Args:
            request: The user's request.

        Returns:
            The intent, ``parser="llm"`` (or the fallback's intent with a failure marker).

        Raises:
            IntentParseError: If the model gives no valid intent and there is no fallback.
        """
        if not isinstance(request, str):
            raise IntentParseError(
                f"the request must be text, got {type(request).__name__}; pass the user's message"
            )
        try:
            model = invoke_structured(
                self.chat_model, IntentModel, self.prompt(request), self.max_repairs
            )
        except StructuredOutputError as exc:
            reason = f"no valid IntentModel after {exc.attempts} attempts"
            return self._fall_back(request, reason, exc)
        except Exception as exc:  # noqa: BLE001 - a model or network failure of any kind
            return self._fall_back(request, f"{type(exc).__name__}: {exc}"[:200], exc)
        return self.to_intent(request, model)

    def _fall_back(self, request: str, reason: str, exc: Exception) -> Intent:
        if self.fallback is None:
            raise IntentParseError(
                f"the LLM intent parser failed ({reason}); use a model that supports "
                "structured output, or pass fallback=RuleIntentParser()"
            ) from exc
        intent = self.fallback.parse(request)
        intent["parser"] = f"{intent.get('parser') or 'fallback'} (llm failed: {reason})"
        return intent

    def to_intent(self, request: str, model: IntentModel) -> Intent:
        """Turn a validated `IntentModel` into plain state data, normalized and fact-checked.

        Operations and targets go through the lexicon; literal values come from the rule
        extractor, and a value the model reports is kept only if the request contains it.

        Args:
            request: The request the model parsed.
            model: The model's answer.

        Returns:
            The intent, ``parser="llm"``.
        """
        literal = _Literals(request, self.lexicon)
        subs: list[SubIntent] = []
        for sub in model.sub_intents:
            operation = self._canonical(sub.operation, "operation")
            target = self._canonical(sub.target, "object")
            rule_named = extract_entities(sub.text, self.lexicon)["named"]
            entities: dict[str, Any] = {}
            for key, value in {**sub.entities, **rule_named}.items():
                clean_key = "_".join(str(key).lower().split())
                if clean_key and literal.contains(value):
                    entities[clean_key] = value
            for key, value in rule_named.items():
                if literal.contains(value):
                    entities["_".join(key.lower().split())] = value
            keywords = [k.lower().strip() for k in sub.keywords if k.strip()]
            keywords += extract_keywords(sub.text, self.lexicon, max_keywords=10)
            keywords = list(dict.fromkeys([*(k for k in (operation, target) if k), *keywords]))
            subs.append(
                SubIntent(
                    id=sub.id,
                    text=sub.text,
                    operation=operation,
                    target=target,
                    keywords=keywords,
                    entities=entities,
                    depends_on=list(sub.depends_on),
                    action=sub.action,
                    answer=sub.answer,
                    question=sub.question,
                )
            )
        rule_format, _ = _detect_output_format(request)
        first = subs[0]
        return Intent(
            request=request,
            category=(model.category or "general").strip().lower() or "general",
            operation=first["operation"],
            target=first["target"],
            keywords=list(dict.fromkeys(k for s in subs for k in s["keywords"])),
            entities=cast(Entities, extract_entities(request, self.lexicon)),
            sub_intents=subs,
            parser=self.name,
            output_format=model.output_format or rule_format,
        )

    def _canonical(self, term: str, kind: str) -> str:
        term = term.strip().lower()
        if not term:
            return ""
        found = self.lexicon.canonical(term, "operation" if kind == "operation" else "object")
        return found or term


class _Literals:
    """Checks that a value the model reports is written in the request."""

    def __init__(self, request: str, lexicon: Lexicon) -> None:
        self.text = " ".join(request.lower().replace("_", " ").split())
        entities = extract_entities(request, lexicon)
        self.numbers = {float(n) for n in entities["numbers"]}
        self.numbers |= {float(a["value"]) for a in entities["amounts"]}
        self.numbers |= {float(v) for v in entities["named"].values() if isinstance(v, int | float)}

    def contains(self, value: Any) -> bool:
        if isinstance(value, bool) or value is None:
            return False
        if isinstance(value, int | float):
            number = float(value)
            return number in self.numbers or _number_text(number) in self.text
        if isinstance(value, str):
            needle = " ".join(value.lower().replace("_", " ").split())
            return bool(needle) and needle in self.text
        return False


def _number_text(number: float) -> str:
    return str(int(number)) if number.is_integer() else str(number)
