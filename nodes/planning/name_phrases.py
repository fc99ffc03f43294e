"""Free text said right beside a parameter's name in the request.

The one word before it ("using simpson method": :func:`phrase_before_name`) and the words
after it ("resistivity of copper": :func:`phrase_after_cue`). The schema binder takes them for
a free-text parameter nothing else filled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from nodes.planning.param_fit import _WEAK, Param, _word_match
from nodes.planning.request_spans import Span
from stores.language.identifiers import singular
from stores.language.keywords import STOPWORDS, lemmatize, same_root

__all__ = ["phrase_after_cue", "phrase_before_name", "word_between_the_and_name"]

# Name words too general to say what the word before them is ("the hotel name", "a room type").
_GENERAL_NAME_WORDS = frozenset({"name", "id", "type", "number", "value", "data", "info"})


# Words before a noun that say how many or which, not what: "different missions".
_VAGUE = frozenset(
    "different various several other same certain specific particular many multiple such "
    "given following more most few new old".split()
)


def phrase_before_name(
    text: str, param: Param, taken: Sequence[Span], exclude: AbstractSet[str] = frozenset()
) -> Span | None:
    """The word said right before the parameter's name: "simpson" of "using simpson method".

    One lower-case word (with a number before it: "24 hour format"), not a stopword, not a
    verb in "-ing", no word of the tool's own name (``exclude``: "chord progression" of a
    chord progression tool), not inside another value; the name not going on with "of" ("the
    method of ...": what follows says it).
    """
    if param.kind != "string" or param.enum or param.closed or param.identifier:
        return None
    words = list(re.finditer(r"[A-Za-z0-9][\w'\-]*", text))
    for index, word in enumerate(words[1:], start=1):
        lemma = lemmatize(singular(word.group().lower()))
        if lemma not in param.name_words or lemma in _GENERAL_NAME_WORDS:
            continue
        if re.match(r"\s+of\b", text[word.end() :]):
            continue
        before = words[index - 1]
        said = before.group()
        if (
            text[before.end() : word.start()] != " "
            or not re.fullmatch(r"[a-z][a-z\-]*", said)
            or said in STOPWORDS or said in _WEAK or said in _VAGUE or said.endswith("ing")
            or lemmatize(singular(said)) in param.name_words | exclude
        ):
            continue
        start = before.start()
        if index >= 2 and words[index - 2].group().isdigit() and (
            text[words[index - 2].end() : start] == " "
        ):
            start = words[index - 2].start()
        if any(not (before.end() <= s.start or start >= s.end) for s in taken):
            continue
        return Span("phrase", text[start : before.end()], text[start : before.end()], start,
                    before.end())
    return None



_DETERMINED = re.compile(r"\b(?:the|my|our|your|this|that)\s+$", re.I)
# A name said after the noun: it is the value, not the word before the noun.
_NAMED_AFTER = re.compile(
    r"\s*(?:,|:|-|\bis\b|\bnamed\b|\bcalled\b|\btitled\b|\bknown\s+as\b)?\s*(?:the\s+)?"
    r"(?:[A-Z0-9'\"“‘`(\[{]|[a-z]+_)"
)


def word_between_the_and_name(
    text: str, param: Param, taken: Sequence[Span], exclude: AbstractSet[str] = frozenset()
) -> str | None:
    """The one lower-case word between "the" and the parameter's name: "the orders table".

    :func:`phrase_before_name` after a determiner, a single word (no number: in "the 2023
    regular season" the year is the value), and no name said after the noun ("the online
    game Overwatch", "my favorite artist, Taylor Swift": the name is the value).
    """
    named = phrase_before_name(text, param, taken, exclude)
    if named is None or _DETERMINED.search(text[: named.start]) is None \
            or not re.fullmatch(r"[a-z][a-z\-]*", str(named.value)):
        return None
    noun = re.match(r"\s+[A-Za-z]+", text[named.end :])
    after = text[named.end + (noun.end() if noun else 0) :]
    return None if _NAMED_AFTER.match(after) else str(named.value)

# Prepositions the stopword list leaves out, that end a value said after its cue.
_PLACE_PREPOSITIONS = frozenset(
    "near around across along beyond inside outside toward towards since".split()
)


def phrase_after_cue(text: str, param: Param, taken: Sequence[Span]) -> Span | None:
    """A lower-case value right after the parameter's name ("resistivity of copper").

    The name may be said by a word of its family ("specializing in" for ``specialization``);
    an array of text takes the value as its first item.
    """
    texts = param.kind == "array" and param.item_kind == "string"
    if (param.kind != "string" and not texts) or not param.name_words:
        return None
    words = list(re.finditer(r"[A-Za-z][\w'\-]*", text))
    for index, word in enumerate(words):
        lemma = lemmatize(singular(word.group().lower()))
        if not _word_match(lemma, param.name_words) and not any(
            same_root(word.group(), name) for name in param.name_words
        ):
            continue
        stop = index + 1
        while stop < len(words) and words[stop].group().lower() in {
            "of",
            "is",
            "as",
            "called",
            "named",
            "to",
            "be",
            "for",
            "in",
            "the",
            "a",
            "an",
            "at",
        }:
            stop += 1
        if (
            stop >= len(words)
            or stop == index + 1
            and text[word.end() : words[stop].start()].strip() not in {":", "="}
        ):
            continue
        value_words: list[re.Match[str]] = []
        position = stop
        while position < len(words) and len(value_words) < 3:
            candidate = words[position].group()
            if candidate.lower() in STOPWORDS or candidate.lower() in _WEAK \
                    or candidate.lower() in _PLACE_PREPOSITIONS:
                break  # "criminal law near me": where is no part of the value
            if value_words and text[words[position - 1].end() : words[position].start()].strip():
                break
            value_words.append(words[position])
            position += 1
        if not value_words:
            continue
        start, end = value_words[0].start(), value_words[-1].end()
        # "invented the theory of relativity": a noun after its article, with what it is of.
        of = re.match(r"\s+of\s+([a-z][\w\-]*)\b", text[end:])
        if (len(value_words) == 1 and of is not None and of.group(1) not in STOPWORDS
                and of.group(1) not in _WEAK
                and re.search(r"\b(?:the|a|an)\s+$", text[:start], re.I) is not None):
            end += of.end()
        if any(not (end <= s.start or start >= s.end) for s in taken):
            continue
        return Span("phrase", text[start:end], text[start:end], start, end)
    return None


def phrase_after_described_noun(
    text: str, param: Param, taken: Sequence[Span], exclude: AbstractSet[str] = frozenset()
) -> Span | None:
    """The lower-case words after "<the tool's own thing> of": "the population of pandas".

    For a text parameter nothing else filled, whose description speaks of a word of the
    tool's own name (``exclude``; ``estimate_population``: "The species for which population
    needs to be estimated"): what that thing is of is the value, one to three words up to a
    stopword, a preposition or punctuation, none inside another value. ("the theory of
    evolution" for a discovery is the whole: "theory" is no word of the tool's name.)
    """
    if param.kind != "string" or param.enum or param.closed or param.identifier:
        return None
    nouns = (param.description_words - param.name_words) & exclude
    for found in re.finditer(r"\b([a-z][a-z\-]+)\s+of\s+(?:the\s+)?", text):
        if lemmatize(singular(found.group(1))) not in nouns and found.group(1) not in nouns:
            continue
        words = list(re.finditer(r"[A-Za-z][\w'\-]*", text[found.end():]))
        value: list[re.Match[str]] = []
        for word in words[:3]:
            said = word.group()
            if not re.fullmatch(r"[a-z][a-z\-]*", said) or said in STOPWORDS or said in _WEAK \
                    or said in _PLACE_PREPOSITIONS:
                break
            if value and text[found.end() + value[-1].end(): found.end() + word.start()] != " ":
                break
            value.append(word)
        if not value:
            continue
        start, end = found.end() + value[0].start(), found.end() + value[-1].end()
        if any(not (end <= s.start or start >= s.end) for s in taken):
            continue
        return Span("phrase", text[start:end], text[start:end], start, end)
    return None
