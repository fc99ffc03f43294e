"""Free text by meaning: the phrase of a request nearest to a parameter's description.

The schema binder's last resort for a required string parameter nothing else fills
(:func:`phrases_by_meaning`): the lower-case phrases of the request left over ("the plasma
membrane", "a vegetarian lasagna recipe") are scored against the parameter's name and
description with the embedding model's cosine, and the nearest one fills it when it is near
enough, or far ahead of the rest.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Any

from nodes.planning.descriptions import asks_date_form, context_of_value
from nodes.planning.param_fit import _WEAK, DATE_WORDS, Param, content_words
from nodes.planning.param_values import stated_default
from nodes.planning.request_spans import Span
from nodes.planning.said_forms import TRIP_END_LIFT, trip_end_said
from nodes.planning.value_forms import written_form
from stores.language.identifiers import singular, split_words
from stores.language.keywords import STOPWORDS, lemmatize

Similarity = Callable[[str, Sequence[str]], Sequence[float]]

# How near in meaning (cosine) a phrase must be to a parameter's description to fill it.
PHRASE_SIMILARITY = 0.25
# A phrase less near fills it when every other phrase is this much less near still.
PHRASE_SIMILARITY_ALONE = 0.15
PHRASE_LEAD = 0.15
# Words that say when or which of a series ("last night", "the latest trend"): alone, never a
# value of free text ("next month" may be one).
_WHEN_WORDS = frozenset(
    "last next previous past coming upcoming recent latest earlier later".split()
)
# "turn the kitchen fan off", "switch on the porch light": the thing switched.
_NOUNS = r"[a-z]+(?:\s+(?!(?:in|at|on|off|of|the|and|to|for|please|now)\b)[a-z]+){0,2}"
_SWITCHED = re.compile(
    rf"\b(?:turn|switch|power)\s+(?:on|off)\s+(?:the\s+|my\s+)(?P<thing>{_NOUNS})"
    rf"|\b(?:turn|switch|power)\s+(?:the\s+|my\s+)(?P<other>{_NOUNS})\s+(?:on|off)\b",
    re.I,
)
# How much less near in meaning "X of Y" or "Z X" may be than "X" and still be the value said.
OF_SLACK = 0.15


def _opens_sentence(text: str, word: re.Match[str]) -> bool:
    """A capitalised word that opens a sentence before a lower-case one: its verb ("Find")."""
    before = text[: word.start()].rstrip(" '\"")
    return (
        (not before or before[-1] in ".!?")
        and word.group()[:1].isupper()
        and re.match(r"\s+[a-z]", text[word.end() :]) is not None
    )


_TIME_NOUNS = frozenset(
    """day days week weeks weekend month months year years today tomorrow tonight yesterday
    morning evening night season quarter decade century""".split()
)


def _says_a_time(text: str) -> bool:
    """Whether a request says a time in words ("next month", "this weekend")."""
    return any(word in _TIME_NOUNS for word in re.findall(r"[a-z]+", text.lower()))


# "want to", "would like to", "wanna": the word after is a verb wished for.
_WISHED = re.compile(
    r"(?:\b(?:want|wants|wanted|need|needs|like|love|try|trying|going|wish|hope|plan"
    r"|planning)\s+to|\bwanna|\bgonna)\s+$",
    re.I,
)


def _said_as_verb(text: str, word: re.Match[str]) -> bool:
    """A verb said as the clause's verb, no part of a phrase of values.

    A past tense after a relative or question word, or before the "by" of a passive ("Who
    discovered radium", "... published by"; "smoked salmon" keeps its adjective); the verb
    after "want to", "would like to" ("I want to listen to some jazz").
    """
    if _WISHED.search(text[: word.start()]) is not None:
        return True  # "I want to listen to some jazz": the verb wished for, no value
    lowered = word.group().lower()
    if not lowered.endswith("ed") or lowered.endswith("eed") or "-" in lowered:
        return False
    return (
        re.search(r"\b(?:who|which|that|what)\s+$", text[: word.start()], re.I) is not None
        or re.match(r"\s+by\b", text[word.end() :]) is not None
    )


def phrases_by_meaning(
    text: str,
    atoms: Sequence[tuple[Span, int]],
    used: set[int],
    values: dict[str, list[Any]],
    params: Sequence[Param],
    similarity: Similarity,
    exclude: set[str],
    described: frozenset[str] = frozenset(),
) -> None:
    """Fill required free-text parameters with the phrase nearest their description.

    No phrase is made only of words the tool says of itself (``described``).
    """
    wanted = [
        p
        for p in params
        if p.name not in values
        and p.required
        and p.kind == "string"
        and not p.closed
        and not p.enum
        and not p.identifier
        # "Which folders can you access?": a path, a web address or an e-mail address is
        # written as one, never a phrase of plain words
        and written_form(p.name_words, p.schema) not in {"path", "url", "email"}
        # "at the moment" is no date "YYYY-MM-DD": a date is said as one or not at all
        and not asks_date_form(p.schema)
        # "minutes played" is no date either: a date's phrase says a time ("next month")
        and not (p.name_words & {"date", "datetime", "deadline"} and not _says_a_time(text))
    ]
    if not wanted:
        return
    for param in list(wanted):
        # "Add milk to my shopping list" for list_name: the word that names which list
        named = _which_one_said(text, param)
        if named is not None:
            values[param.name] = [named]
            wanted.remove(param)
    found = _SWITCHED.search(text)
    switched = (found.group("thing") or found.group("other")) if found is not None else None
    blocked = [(atoms[i][0].start, atoms[i][0].end) for i in used]
    blocked += [
        (m.start(), m.end())
        for v in values.values()
        for item in v
        if isinstance(item, str) and item
        for m in re.finditer(re.escape(item), text)
    ]
    words = [
        m
        for m in re.finditer(r"[A-Za-z][A-Za-z'\-]*", text)
        if all(m.end() <= a or m.start() >= b for a, b in blocked)
    ]
    runs: list[list[re.Match[str]]] = [[]]
    for index, word in enumerate(words):
        lowered = word.group().lower()
        lemma = lemmatize(singular(lowered))
        useless = lowered in STOPWORDS or lowered in _WEAK or len(lowered) < 3 \
            or lemma in exclude or _opens_sentence(text, word) or _said_as_verb(text, word)
        adjacent = index > 0 and not text[words[index - 1].end() : word.start()].strip()
        if useless or not adjacent:
            runs.append([])
        if not useless:
            runs[-1].append(word)
    phrases = list(
        dict.fromkeys(
            text[run[i].start() : run[j - 1].end()]
            for run in runs
            for i in range(len(run))
            for j in range(i + 1, min(len(run), i + 3) + 1)
        )
    )
    # "the theory of evolution", "the law of universal gravitation": a noun and what it is
    # of, one phrase (the "X of Y" phrase -> its X).
    fuller = {
        text[first[-1].start() : second[last].end()]: first[-1].group()
        for first, second in zip(runs, runs[1:], strict=False)
        if first and second
        and re.fullmatch(r"\s+of\s+", text[first[-1].end() : second[0].start()])
        # "the theory of", not "a sculpture made of": the noun right after its article.
        and re.search(r"\b(?:the|a|an)\s+$", text[: first[-1].start()], re.I)
        for last in range(min(len(second), 3))
    }
    phrases += [phrase for phrase in fuller if phrase not in phrases]
    phrases = [phrase for phrase in phrases if phrase.lower() not in _WHEN_WORDS]
    if not phrases:
        return
    for param in wanted:
        query = " ".join(split_words(param.name)) + ": " + str(param.schema.get("description", ""))
        # A plural scores as its singular when that is nearer: the small embedding model
        # puts "tigers" far from "Species of the animal" and "tiger" near it.
        singulars = [_singular_phrase(phrase) for phrase in phrases]
        scores = [max(pair) for pair in zip(similarity(query, phrases),
                                            similarity(query, singulars), strict=True)]
        # "a cab from the airport to ...": the phrase "from" says is where a trip starts;
        # "Turn the kitchen fan off": what is switched is what the call acts on
        for index, phrase in enumerate(phrases):
            if trip_end_said(text, phrase, param) or phrase == switched:
                scores[index] += TRIP_END_LIFT
        # The parameter's own name said ("the living room") is its cue, never its value, nor
        # are the words its description describes the value with ("recipe" of "the dish whose
        # recipe is fetched").
        cues = param.name_words | content_words(context_of_value(str(
            param.schema.get("description") or "")))
        own = [i for i, phrase in enumerate(phrases)
               if content_words(phrase) and content_words(phrase) <= cues | described]
        for index in own:
            scores[index] = -1.0
        # "the population of pandas" for "the species for which population is estimated":
        # what the cue word is of is the value, as near as the whole.
        for index, phrase in enumerate(phrases):
            head = fuller.get(phrase)
            tail = phrase.split(" of ", 1)[-1]
            if head is not None and content_words(head) <= cues and tail in phrases:
                at = phrases.index(tail)
                scores[at], scores[index] = max(scores[at], scores[index]), -1.0
        best = max(range(len(phrases)), key=lambda i: scores[i])
        # The noun said with what it is of ("theory" of "theory of evolution") or with the
        # words before it ("membrane" of "the plasma membrane") is the whole.
        whole = [i for i, phrase in enumerate(phrases)
                 if (fuller.get(phrase) == phrases[best] or phrase.endswith(" " + phrases[best]))
                 and scores[i] >= scores[best] - OF_SLACK
                 # "plays jazz" is no genre of music "to be played": a cue is no part of it
                 and not (content_words(phrase) - content_words(phrases[best])) & cues]
        noun_at = best
        best = max(whole, key=lambda i: scores[i]) if whole else best
        # The whole is as near as its head noun ("the louvre museum" as "museum").
        near = max(scores[best], scores[noun_at])
        # Parts of the chosen phrase compete with it for nothing ("louvre" of it).
        rest = [score for i, score in enumerate(scores)
                if i not in {best, noun_at} and phrases[i] not in phrases[best]]
        # "a vegetarian lasagna recipe" for "Dish name": the one phrase of some meaning near,
        # far ahead of the rest, is the value though the small model rates it low.
        alone = near >= PHRASE_SIMILARITY_ALONE and all(
            score <= near - PHRASE_LEAD for score in rest
        )
        if near >= PHRASE_SIMILARITY or alone:
            values[param.name] = [phrases[best]]
            phrases.pop(best)
            if not phrases:
                return


def _which_one_said(text: str, param: Param) -> str | None:
    """The word before the thing a ``<thing>_name`` parameter names: "my shopping list"."""
    words = [word.lower() for word in split_words(param.name)]
    if len(words) != 2 or words[1] != "name":
        return None
    thing = words[0]
    match = re.search(rf"\b(?:my|the|our|your|a|an)\s+([a-z][a-z\-]+)\s+{re.escape(thing)}s?\b",
                      text)
    if match is None or match.group(1) in STOPWORDS or match.group(1) in _WEAK \
            or match.group(1) in _WHEN_WORDS:
        return None
    return match.group(1)


def _singular_phrase(phrase: str) -> str:
    """The phrase with its last word in the singular ("tigers" -> "tiger")."""
    head, _, last = phrase.rpartition(" ")
    one = singular(last) if last.islower() else last
    return f"{head} {one}" if head else one


# How near in meaning a word must be to a parameter's stated default to be a value of its
# kind ("red" and 'black': 0.64 with the offline model), and how far ahead of the next word.
DEFAULT_KIND_SIMILARITY = 0.55
DEFAULT_KIND_LEAD = 0.2


def values_like_default(
    text: str,
    atoms: Sequence[tuple[Span, int]],
    values: dict[str, list[Any]],
    params: Sequence[Param],
    similarity: Similarity,
    exclude: set[str],
) -> None:
    """An optional text parameter's value: the word of the kind its stated default shows.

    "Draw a rectangle ... in red" for ``color`` ("Default is 'black'"): the default is one
    value of the parameter, and the one word of the request near it in meaning, far ahead of
    every other word, is another. Words of the tool's name, of other values and stopwords are
    none.
    """
    taken = [(span.start, span.end) for span, _ in atoms]
    said = {str(v).lower() for given in values.values() for v in given}
    words = [
        m for m in re.finditer(r"[a-z][a-z\-]{2,}", text)
        if m.group() not in STOPWORDS and m.group() not in _WEAK
        and lemmatize(singular(m.group())) not in exclude and m.group() not in said
        and all(m.end() <= a or m.start() >= b for a, b in taken)
    ]
    for param in params:
        if param.name in values or param.required or param.kind != "string" or param.enum \
                or param.closed or param.identifier or param.name_words & DATE_WORDS:
            continue
        stated, default = stated_default(param.schema)
        if not stated or not isinstance(default, str) \
                or not re.fullmatch(r"[A-Za-z]+(?: [A-Za-z]+)?", default):
            continue
        candidates = list(dict.fromkeys(
            m.group() for m in words
            if lemmatize(singular(m.group())) not in param.name_words | param.description_words
        ))
        if not candidates:
            continue
        scores = sorted(zip(similarity(default.lower(), candidates), candidates, strict=True),
                        reverse=True)
        best, word = scores[0]
        runner_up = scores[1][0] if len(scores) > 1 else 0.0
        if best >= DEFAULT_KIND_SIMILARITY and best - runner_up >= DEFAULT_KIND_LEAD:
            # "globally" for 'Global', "footballer" for 'Football': the default said in
            # another form is the default, written as the tool writes it.
            alike = len(os.path.commonprefix([word, default.lower()])) >= 5
            values[param.name] = [default if alike else word]
