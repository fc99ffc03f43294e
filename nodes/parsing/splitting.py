"""Splitting a request into clauses: lines, steps, sentences, quotes, "then", "and".

How it splits (in this order): lines and numbered steps; sentences; ``;``; "then",
"and then", "after that", "afterwards", "finally", "lastly"; a leading "after X, Y" or
"before X, Y" and an inner "Y after X" / "Y before X" (reordered so X runs first when it
names an operation); then ", X", "and X", "also X", "plus X" only when X starts with an
operation ("orders and payments" stays one clause; "create a user and pay" splits).

A sentence that only states facts ("A car starts at 5 m/s. It accelerates at 2 m/s^2 for
10 s. What is its displacement?") asks for nothing: it is no clause of its own but the
context of the request that follows it (of the one before it when none follows), written
before that clause's text so its values bind there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from nodes.parsing.chitchat import chit_chat
from stores.language.keywords import lemmatize, token_spans
from stores.language.lexicon import Lexicon, TermMatch
from stores.language.vocabulary import DomainVocabulary

LEADING_FILLERS = frozenset(
    """please pls kindly also then and finally lastly first firstly second secondly third next
    now just i we you want wanna need would like to could can will let let's lets me us go ahead
    should must have 'd i'd we'd so ok okay afterwards additionally plus""".split()
)
DETERMINERS = frozenset(
    "a an the this that these those my your his her its our their each every some any".split()
)
_COUNT_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty
    hundred dozen few several couple""".split()
)
PREPOSITIONS = frozenset("for of to with from by using in on at".split())
# Verbs that send words to someone ("and email Sam that ..."), followed by who gets them: a
# new step, though no operation of the lexicon ("email" is as often a noun).
_SENDING_VERBS = frozenset({"email", "text", "message", "ping", "notify", "tell", "remind", "call"})
_RECIPIENT = re.compile(
    r"\s+(?:[\w.+\-]+@[\w\-]+\.[\w.]+|[A-Z][\w'\-]*|him|her|them|me|us|(?:the|my|our)\s+[a-z]+)"
    # what is sent follows ("... and email a@b.com" alone is an attribute, no step)
    r"\s*(?:that|saying|to|about|[:'\"“])"
)


def opens_with_sending(text: str) -> bool:
    """Whether a clause opens with a verb that sends words to someone ("Email Sam that ...")."""
    first = re.match(r"\s*(?:(?:please|and|then|also)\s+)*([A-Za-z]+)", text, re.I)
    return first is not None and first.group(1).lower() in _SENDING_VERBS and (
        _RECIPIENT.match(text, first.end()) is not None
    )


# Who a statement is about: "The car ...", "It has ...", "They plan ...", "I invested ...".
_SUBJECTS = DETERMINERS | frozenset(
    "i we you he she it they there one all both neither none many most several".split()
    # "I'm on a diet.", "We're in Paris.": the subject and its verb written as one word
    + "i'm i've we're we've you're you've they're they've he's she's".split()
)
# "John has ...", "Tech Corp is ...": a name followed by one of these is a subject.
_AFTER_SUBJECT = frozenset("is are was were has have had will would who which whose".split())
# When a statement happened, said before its subject: "Yesterday I ...", "Last week we ...".
_TIME_OPENERS = frozenset(
    """yesterday today tomorrow tonight recently earlier lately usually often sometimes later
    meanwhile afterwards suddenly""".split()
)
_RELATIVE_TIME = frozenset("last next this every".split())
# A request said as a statement: "I would like to know ...", "we need to ...", "help me".
_WISH = re.compile(
    r"\b(?:i|we)\b[^.?!]*?(?:\b(?:want|wanna|need|wish|interested|curious)|'d\s+like|"
    r"\bwould\s+like|\blooking\s+for|\blike\s+to)\b"
    r"|\b(?:help|tell|show|give|let|get)\s+(?:me|us)\b",
    re.I,
)
# An opening phrase before the subject: "At the start, it ...", "Suddenly, the driver ...".
_PREPOSITION_ALTERNATIVES = "|".join(sorted(PREPOSITIONS))
_INTO_ALTERNATIVES = "|".join(sorted(PREPOSITIONS | {"into"}))
_OPENING = re.compile(rf"^(?:(?:\w+ly)|(?:{_PREPOSITION_ALTERNATIVES})\b[^,]{{0,60}}),\s*", re.I)


QUOTED = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|「[^」\n]*」|‘[^’\n]*’|(?<![\w'’])'[^'\n]+'(?![\w])")
# Line breaks, and numbered or bulleted steps at the start or after punctuation ("1) ...").
_LINE_BREAKS = re.compile(
    r"\s*\n+\s*(?:(?:\(?\d{1,2}[.)]|[-*•])\s+)?|(?:^|(?<=[:;,.!?])\s*)"
    r"(?:\(?\d{1,2}[.)]|step\s+\d+\s*[:.)]?|[-*•])\s+(?=\D)|(?:^|\s)\(?\d{1,2}\)\s+(?=\D)",
    re.I,
)
_ABBREVIATION = re.compile(
    r"\b(?:no|e\.g|i\.e|vs|mr|mrs|ms|dr|st|approx|etc|nr|inc|ltd|corp|co|llc|plc|bros|jr|sr|"
    r"mt|ave|blvd|dept|prof)\.$",
    re.I,
)
# A word of at most three letters before a stop that the next word goes on from in lower
# case is shortened ("3000 sq ft. in New York", "5 min. later", "Washington, D.C. in miles"),
# no sentence's end.
_SHORTENED_WORD = re.compile(r"(?<![\w.])(?:[A-Za-z]{1,3}|(?:[A-Za-z]\.)+[A-Za-z])\.$")
_STRONG_SPLIT = re.compile(
    r"\s*(?:,\s*)?\b(?:and\s+)?(?:then|afterwards|after\s+that|after\s+which|after\s+this(?!\s+\d)|"
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


_CONDITION = re.compile(
    r"^\s*(?:if|when|assuming|suppose)\s+(?P<fact>[^,?]+),\s*(?P<ask>.+)$", re.I | re.S
)


def _lines(text: str) -> list[tuple[str, bool]]:
    """Lines and numbered steps, each with whether a step number (not the first) led it."""
    pieces: list[tuple[str, bool]] = []
    start = 0
    numbered = False
    step = 0
    for match in _LINE_BREAKS.finditer(text):
        if match.end() == match.start():
            continue
        number = re.search(r"\d+", match.group())
        if "\n" not in match.group() and _inside_parentheses(text, match.start()):
            continue  # "the pairs (45, 60) and (81, 27)": "60)" closes a pair, no step "60)"
        if "\n" not in match.group() and number is not None and int(number.group()) != step + 1:
            continue  # "I have a number, 6. Later ...": a step number counts from 1, in order
        pieces.append((text[start : match.start()], numbered))
        numbered = number is not None
        step = int(number.group()) if number is not None else step
        start = match.end()
    pieces.append((text[start:], numbered))
    return pieces


def _inside_parentheses(text: str, position: int) -> bool:
    """Whether an opening parenthesis before ``position`` on its line is still open."""
    line = text[text.rfind("\n", 0, position) + 1 : position]
    return line.count("(") > line.count(")")


def _protect_quotes(text: str) -> tuple[str, list[str]]:
    quotes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        quotes.append(match.group())
        return f"\x01{len(quotes) - 1}\x02"

    return QUOTED.sub(keep, text), quotes


def _restore_quotes(text: str, quotes: Sequence[str]) -> str:
    return re.sub(r"\x01(\d+)\x02", lambda m: quotes[int(m.group(1))], text)


def unwrap_request(text: str) -> str:
    """A request wrapped whole in double quotes is the request, not a quoted value."""
    stripped = text.strip()
    if len(stripped) > 2 and stripped[0] in "\"“" and stripped[-1] in "\"”":
        inner = stripped[1:-1]
        if not any(mark in inner for mark in "\"“”"):
            return inner
    return text


def _split_sentences(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in re.finditer(r"[.!?]+(?=\s+|$)", text):
        candidate = text[start : match.end()]
        if _ABBREVIATION.search(candidate) or _SHORTENED_WORD.search(candidate) and re.match(
            r"\s+[a-z]", text[match.end() :]
        ):
            continue
        if match.group() in {"?", "!"} and re.match(
            rf"\s+(?:{_INTO_ALTERNATIVES})\s", text[match.end() :]
        ):
            # "Translate Hello, how are you? from English to French": a question passed on,
            # and the sentence goes on in lower case with a preposition
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(text[start:])
    return [p.strip() for p in pieces if p.strip(" .!?")] or ([text] if text.strip() else [])


_QUESTION_WORDS = frozenset({"what", "what's", "which", "who", "whom", "whose", "how", "where",
                             "when", "why"})
_NOT_VERBS = PREPOSITIONS | DETERMINERS | _QUESTION_WORDS | frozenset(
    "i you he she it we they me us him them there here is are was were be".split()
)


# Words passed on as they are follow: "saying ...", "the sentence ...".
_PASSING_ON = re.compile(
    r"\b(?:saying|that\s+says|which\s+says|stating)\s+\S"
    r"|(?<![\w-])(?:the|this|following)\s+(?:sentence|phrase|text|message|quote|words"
    r"|statement)(?:\s*:)?\s+(?!(?:of|to|for|in|on|at|and|is|are|was|as|that|which|from|by"
    r"|with|into|below|above|here|there)\b)\S",
    re.I,
)


def _passes_on(head: str, rest: str) -> bool:
    """Whether a comma falls inside words passed on as they are, not between two steps.

    After a marker of passed-on words ("saying", "the sentence") the words run
    on past a comma ("saying Just landed in Tokyo, see you all soon!"); and a question
    whose question mark the sentence goes on after, in lower case ("Translate Hello, how
    are you? from English to French"), is a question passed on, not the user's own.
    """
    if _PASSING_ON.search(head):
        return True
    return _starts_with_question(rest) and re.search(
        rf"\?\s+(?:{_INTO_ALTERNATIVES})\s", rest
    ) is not None


def _leading_words(text: str) -> list[str]:
    """The words of a piece from its first one that is no filler ("please", "also", ...)."""
    words = [t for *_, t in token_spans(text, split_identifiers=False)]
    index = 0
    while index < len(words) and words[index] in LEADING_FILLERS:
        index += 1
    return words[index:]


def _first_word(text: str) -> str:
    words = _leading_words(text)
    return words[0] if words else ""


def _starts_like_clause(text: str) -> bool:
    """Whether a piece starts as a request of its own, not as a phrase ("For account 1").

    A verb ("Invest $2000 in Google") or a question word ("what is the capital of ...").
    """
    first = _first_word(text)
    if not first.isalpha():
        return False
    return first in _QUESTION_WORDS or first not in _NOT_VERBS


def _starts_with_question(text: str) -> bool:
    """Whether a piece starts with a question word: ", what is the population of Canada".

    A question word right before a determiner starts a clause that describes, not a question
    (", where the dilution is 5 times"; ", when the price drops").
    """
    words = _leading_words(text)
    if not words or words[0] not in _QUESTION_WORDS:
        return False
    return len(words) < 2 or words[1] not in DETERMINERS


def states_facts(sentence: str) -> bool:
    """Whether a sentence only states facts and asks for nothing.

    A statement starts with its subject ("The first cone ...", "It has ...", "John has ...",
    after an opening phrase such as "At the start,"), is no question, and says no wish of
    the speaker ("I would like to know ...", "help me ..."). A sentence that starts with a
    verb ("Find ...", "Use a level of 0.05") asks.
    """
    text = sentence.strip()
    if not text or text.endswith("?") or _WISH.search(text):
        return False
    rest = _clean_clause(text)
    opening = _OPENING.match(rest)
    if opening is not None:
        rest = rest[opening.end() :]
    words = [t for *_, t in token_spans(rest, split_identifiers=False)]
    if words[:1] and words[0] in _TIME_OPENERS:
        words = words[1:]  # "Yesterday I drove ...", "Last week we ..."
    elif len(words) > 2 and words[0] in _RELATIVE_TIME and words[2] in _SUBJECTS:
        words = words[2:]
    if not words or not words[0].replace("'", "").isalpha():
        return False
    return words[0] in _SUBJECTS or (len(words) > 1 and words[1] in _AFTER_SUBJECT)


# The speaker as a statement's subject: "I'm traveling to Japan.", "We have two kids."
_SPEAKER = frozenset("i we i'm we're i've we've i'll we'll my our".split())


def about_the_speaker(sentence: str) -> bool:
    """Whether a sentence only states something about the speaker ("I'm flying to Japan.").

    Such a sentence is context for the request around it, never a request of its own.
    """
    if not states_facts(sentence):
        return False
    rest = _clean_clause(sentence)
    opening = _OPENING.match(rest)
    words = [t for *_, t in token_spans(rest[opening.end() :] if opening else rest,
                                         split_identifiers=False)]
    if words[:1] and words[0] in _TIME_OPENERS:
        words = words[1:]
    return bool(words) and words[0].replace("’", "'") in _SPEAKER


def _sentence(clause: str) -> str:
    """A clause as a sentence of a longer text: it ends with a stop (or its own mark)."""
    clause = clause.strip()
    return clause if clause[-1:] in ".?!" else clause + "."


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


# Prepositions a clause of its own may start with when it only says new values for the ask
# before it: "... from Boston to Albany, then from Albany to Buffalo".
_ELLIPSIS_PREPOSITIONS = frozenset("from for to in at on with between by".split())


def _repeat_elided_asks(
    clauses: Sequence[tuple[str, bool, bool]], names_operation: Callable[[str], bool]
) -> list[tuple[str, bool, bool]]:
    """A clause that is only a phrase repeats the ask of the clause before it.

    "Get the distance from Boston to Albany, then from Albany to Buffalo": the second
    clause starts with a preposition the first one has and names no operation; it is the
    first clause's words up to that preposition, followed by its own ("Get the distance
    from Albany to Buffalo").
    """
    result: list[tuple[str, bool, bool]] = []
    for clause, after, facts in clauses:
        previous = next((c for c, _, f in reversed(result) if not f), None)
        words = [t for *_, t in token_spans(clause, split_identifiers=False)]
        lead = words[0] if words else ""
        if (
            previous is not None
            and not facts
            and lead in _ELLIPSIS_PREPOSITIONS
            and not names_operation(clause)
            and not any(w in _QUESTION_WORDS for w in words)
        ):
            found = re.search(rf"\b{lead}\b", previous, re.I)
            if found is not None and found.start() > 0:
                clause = previous[: found.start()] + clause.lstrip()
        result.append((clause, after, facts))
    return result


class ClauseSplitter:
    """Splits a request into clauses in execution order, reading verbs through the lexicon.

    Args:
        lexicon: Synonym lexicon that says which words are operations and objects.
        vocabulary: Domain vocabulary that says which nouns are also verbs ("order it").
    """

    def __init__(self, lexicon: Lexicon, vocabulary: DomainVocabulary) -> None:
        self.lexicon = lexicon
        self.vocabulary = vocabulary

    def split(self, text: str) -> list[str]:
        """Split a request into clauses in execution order (see the module docstring).

        Args:
            text: The request (an output-format phrase already removed).

        Returns:
            The clauses; "after"/"before" clauses are reordered so prerequisites come first.
        """
        return [clause for clause, _ in self.split_steps(text)]

    def split_steps(self, text: str) -> list[tuple[str, bool]]:
        """The clauses of :meth:`split`, each with whether it follows the one before.

        A clause follows when "then", "after that", "finally" or a step number led it.
        """
        return [(clause, after) for clause, after, _ in self.split_with_context(text)]

    def split_with_context(self, text: str) -> list[tuple[str, bool, str]]:
        """The clauses of :meth:`split_steps`, each with its text in context, or "".

        A request of requests and statements ("John has $5000. How much will he have at 4%
        after 5 years?") gives each statement to the request after it (the last ones to the
        request before them): the clause in context is its statements and it, in the order
        said. A request of statements alone is split as usual.
        """
        protected, quotes = _protect_quotes(unwrap_request(text))
        clauses: list[tuple[str, bool, bool]] = []  # (clause, after, states facts)
        for line, numbered in _lines(protected):
            line_start = True
            for sentence in _split_sentences(line or ""):
                condition = _CONDITION.match(sentence)
                if condition is not None and states_facts(
                    _restore_quotes(condition.group("fact"), quotes)
                ) and _starts_with_question(condition.group("ask")):
                    # "If it's 9:30 in London, what time is it in Tokyo?": the condition
                    # states what the question asks from, it asks nothing of its own.
                    clauses.append((condition.group("fact"), numbered and line_start, True))
                    sentence = condition.group("ask")
                    line_start = False
                if states_facts(_restore_quotes(sentence, quotes)):
                    clauses.append((sentence, numbered and line_start, True))
                    line_start = False
                    continue
                for part in sentence.split(";"):
                    for index, strong in enumerate(_STRONG_SPLIT.split(part)):
                        piece_start = True
                        for ordered in self._order_temporal(strong):
                            for clause in self._split_weak(ordered):
                                after = (index > 0 and piece_start) or (numbered and line_start)
                                clauses.append((clause, after, False))
                                piece_start = line_start = False
        restored = [
            (_restore_quotes(_clean_clause(c), quotes), a, facts) for c, a, facts in clauses
        ]
        kept = [(c, a, facts) for c, a, facts in restored if c.strip(" ,.;!?")]
        kept = _repeat_elided_asks(kept, self._names_operation)
        if all(facts for *_, facts in kept) or not any(facts for *_, facts in kept):
            return [(c, a, "") for c, a, _ in kept]
        merged: list[tuple[str, bool, str]] = []
        pending: list[str] = []
        for clause, after, facts in kept:
            if facts:
                pending.append(_sentence(clause))
                continue
            merged.append((clause, after, " ".join([*pending, _sentence(clause)])))
            pending = []
        if pending:
            clause, after, context = merged[-1]
            merged[-1] = (clause, after, " ".join([context, *pending]))
        return merged

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
            if match.group().strip().startswith(",") and _passes_on(head, rest):
                continue  # "Post a tweet saying Just landed in Tokyo, see you all soon!"
            if (
                not prefix
                and not self._names_operation(head)
                and chit_chat(head) is None
                and not _starts_like_clause(head)
            ):
                continue  # "For account 123456, create an order": the head is no clause
            if self._starts_with_operation(rest) or _starts_with_question(rest):
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
        if matches[0].start != 0 or any(t in PREPOSITIONS for t in tokens[matches[0].stop :]):
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
        while index < len(spans) and spans[index][2] in LEADING_FILLERS:
            index += 1
        return spans[index:]

    def _starts_with_operation(self, text: str) -> bool:
        """Whether a clause starts (after fillers) with a verb: "and pay it", "then order it"."""
        spans = self._content_tokens(text)
        if not spans:
            return False
        tokens = [t for *_, t in spans]
        if self.order_as_verb(tokens, 0):
            return True
        if tokens[0] in _SENDING_VERBS and _RECIPIENT.match(text, spans[0][1]):
            return True  # "... and email sam@x.io that dinner is booked"
        if len(spans) > 1 and all(text[start : start + 1].isupper() for start, _, _ in spans[:2]):
            return False  # "Tokyo, London and New York": a capital word before another is a name
        matches = self.lexicon.find_terms(tokens[:4])
        if not matches or matches[0].start != 0 or matches[0].kind != "operation":
            return False
        return not self.is_noun_use(tokens, matches[0])

    def _names_operation(self, text: str) -> bool:
        tokens = [t for *_, t in token_spans(text, split_identifiers=False)]
        if any(m.kind == "operation" for m in self.lexicon.find_terms(tokens)):
            return True
        if any(t in {"ordering", "ordered"} for t in tokens):
            return True
        return any(
            self.order_as_verb(tokens, index)
            and (index == 0 or tokens[index - 1] not in DETERMINERS | PREPOSITIONS)
            for index in range(len(tokens))
        )

    def is_noun_use(self, tokens: Sequence[str], match: TermMatch) -> bool:
        """Whether an operation word is used as a noun: "refunds", "a refund", "the return"."""
        surface = " ".join(tokens[match.start : match.stop])
        if self.lexicon.canonical(surface, "object") is None:
            return False
        if match.start > 0 and tokens[match.start - 1] in DETERMINERS:
            return True
        if match.start > 0 and self.lexicon.canonical(tokens[match.start - 1], "operation"):
            return True  # "show refund 1": the first word is the verb
        last = tokens[match.stop - 1]
        return last.endswith("s") and lemmatize(last, self.lexicon.vocabulary) != last

    def order_as_verb(self, tokens: Sequence[str], index: int) -> bool:
        """Whether a noun is used as a verb: "order it", "order 3 mugs", "review order 17"."""
        if index >= len(tokens) or tokens[index] not in self.vocabulary.noun_verbs:
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
        orderable = self.vocabulary.orderable
        if following in orderable or following in _COUNT_WORDS:
            return True  # "order product 2", "order three units of ..."
        if following == "the" and index + 2 < len(tokens) and tokens[index + 2] in orderable:
            return True  # "order the product for account 654321"
        if tokens[index] == "review" and following in {"the", "order", "product", "my", "their"}:
            return True
        if following.isdigit() and index + 2 < len(tokens):
            after = tokens[index + 2]
            return after.endswith("s") and not after.isdigit() and after not in {"status"}
        return False
