"""What a parameter's schema says of the form its value takes, read from the schema alone.

A string that must be an e-mail address, a URL or a path (:func:`written_form`); a value a
naming verb introduces (:func:`named_by_verb`); an enum of actions whose value the request
names by a synonym (:func:`operation_option`). The schema binder's type fit and cues use them
(:mod:`nodes.planning.param_fit`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from stores.language.identifiers import singular
from stores.language.keywords import STOPWORDS, lemmatize, tokenize
from stores.language.lexicon import Lexicon

# How a schema says which written form a string takes: JSON Schema's ``format``, or a word of
# the parameter's name or description. A span of that form fits it better than any other
# string ("an email to Andy at andy@x.ai" for the recipient's email address).
_SCHEMA_FORMS = {"email": "email", "idn-email": "email", "uri": "url", "url": "url", "iri": "url",
                 "uri-reference": "url"}
_FORM_NAME_WORDS = (
    ("email", frozenset({"email", "mail"})),
    ("url", frozenset({"url", "uri", "link", "endpoint", "website", "webpage"})),
    ("path", frozenset({"path", "directory", "folder", "filepath", "dir"})),
)
_FORM_DESCRIPTIONS = (
    ("email", re.compile(r"\be-?mail address", re.I)),
    ("url", re.compile(r"\b(?:url|uri)s?\b", re.I)),
    ("path", re.compile(r"\b(?:file|directory|folder)\s+path\b|\bpath\s+(?:to|of)\b", re.I)),
)
FORM_FIT = 1.5
# A duration the description shows written short: "Look-back window, e.g. '15m', '2h', '1d'".
_SHORT_DURATION_EXAMPLE = re.compile(r"(?<![\w.])\d+(?:s|m|h|d|w)(?![\w])")
_SHORT_DURATION_LETTERS = {1: "s", 60: "m", 3600: "h", 86400: "d", 604800: "w"}


def short_duration(schema: Mapping[str, Any], amount: Any, seconds: int | None) -> str | None:
    """A duration as a string parameter shows it in its examples ("2 hours": "2h"), or None.

    ``seconds`` is the length of the duration's unit; only a description that writes two or
    more examples that way asks for it.
    """
    description = str(schema.get("description") or "")
    if schema.get("type") != "string" or len(_SHORT_DURATION_EXAMPLE.findall(description)) < 2:
        return None
    letter = _SHORT_DURATION_LETTERS.get(seconds or 0)
    if letter is None or not isinstance(amount, int | float) or isinstance(amount, bool):
        return None
    number = int(amount) if float(amount).is_integer() else amount
    return f"{number}{letter}"
# A name said beside an address ("to John Doe at john@x.com") is no address.
OTHER_FORM_FIT = 0.2
# A verb of naming right before a value says it is a name or a title: "my speaker named
# 'ue boom'", "an article titled 'AI today'".
_NAMING_VERBS = {"named": "name", "called": "name", "titled": "title", "entitled": "title"}


def written_form(name_words: AbstractSet[str], schema: Mapping[str, Any]) -> str | None:
    """The written form ("email", "url", "path") the parameter's schema asks for, if any."""
    form = _SCHEMA_FORMS.get(str(schema.get("format") or "").lower())
    if form is not None:
        return form
    for form, words in _FORM_NAME_WORDS:
        if name_words & words:
            return form
    description = str(schema.get("description") or "")
    return next((form for form, said in _FORM_DESCRIPTIONS if said.search(description)), None)


# Words of a parameter that may hold a file's path without saying "path" (what
# :func:`written_form` reads as a path is said by ``_FORM_NAME_WORDS`` and the description).
_FILE_WORDS = frozenset(
    """file filename document source destination image script dataset src dst target location
    input output repo repository root data csv""".split()
)
_SAYS_FILES = re.compile(r"\b(?:files?|path|director(?:y|ies)|folders?|repositor(?:y|ies))\b",
                         re.I)


def holds_files(name_words: AbstractSet[str], schema: Mapping[str, Any]) -> bool:
    """Whether a parameter's name or description speaks of files, folders or paths.

    A path fills no other ("Open /srv/readme.md": a file is no node's name).
    """
    if name_words & _FILE_WORDS:
        return True
    return _SAYS_FILES.search(str(schema.get("description") or "")) is not None


def named_by_verb(text: str, start: int, param_name: str) -> bool:
    """Whether a naming verb right before ``start`` says the value is the parameter's name."""
    verb = re.search(r"(\w+)\s*[:\"'“`]?\s*$", text[:start])
    noun = _NAMING_VERBS.get(verb.group(1).lower()) if verb else None
    # "a meeting called Budget Review" names the event's title when it has no name
    return noun is not None and (noun in param_name.lower()
                                 or noun == "name" and "title" in param_name.lower())


def operation_option(text: str, options: Sequence[str]) -> str | None:
    """The enum value that names, in other words, the operation the text asks for.

    "Remove the 'ravi' task" for a parameter allowing ``add``, ``delete`` and ``update``:
    the lexicon (a data file) reads "remove" and ``delete`` as one operation. Only for a
    parameter whose values name two or more distinct operations (an action to perform), and
    only when the text asks for exactly one of them: a status ``open`` is no "create".
    """
    lexicon = Lexicon.default()
    by_operation: dict[str, list[str]] = {}
    for option in options:
        canonical = lexicon.canonical(option.replace("_", " "), "operation")
        if canonical is not None:
            by_operation.setdefault(canonical, []).append(option)
    if len(by_operation) < 2:
        return None
    asked = {
        match.canonical
        for match in lexicon.find_terms(tokenize(text))
        if match.kind == "operation" and match.canonical in by_operation
    }
    if len(asked) != 1:
        return None
    named = by_operation[asked.pop()]
    return named[0] if len(named) == 1 else None


_ITEM = r"(?:(?:the|a|an)\s+)?([A-Za-z][\w'\-]*(?:\s+[A-Za-z][\w'\-]*){0,2}?)"
_NEXT_ITEM = re.compile(r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)" + _ITEM +
                        r"(?=\s*(?:[,.;:?!)]|$)|\s+(?:and|or)\b)")


def coordinated_phrases(text: str, end: int) -> list[str]:
    """The phrases coordinated with a value that ends at ``end``.

    "nucleus, mitochondria, and cytoplasm" gives ``["mitochondria", "cytoplasm"]`` after
    "nucleus". Each further item is one to three words, none a stopword, and ends where its
    clause or the list ends (a comma, a full stop, "and"/"or"): "copper and the density of
    aluminum" coordinates no value ("density" goes on with "of").
    """
    items: list[str] = []
    position = end
    while True:
        found = _NEXT_ITEM.match(text, position)
        if found is None:
            break
        item = found.group(1)
        if any(word.lower() in STOPWORDS for word in item.split()):
            break
        items.append(item)
        position = found.end()
    return items


_LAST_WORDS = re.compile(r"([A-Za-z][\w'\-]*)\s+(?:(?:the|a|an)\s+)?$")


def said_alike(text: str, first: Any, other: Any) -> bool:
    """Whether a later value is said in the frame of an earlier one, joined to it.

    "the number 4567 and the number 7890": the same word ("number") right before each, and
    "and" or a comma between them: the second is another value of the first's parameter.
    Both arguments are spans (``start``/``end`` offsets into ``text``).
    """
    between = text[first.end : other.start]
    if not re.search(r"\band\b|,", between) or re.search(r"[.;?!]", between):
        return False
    mine = _LAST_WORDS.search(text[: first.start])
    theirs = _LAST_WORDS.search(text[: other.start])
    return (
        mine is not None
        and theirs is not None
        and mine.group(1).lower() == theirs.group(1).lower()
        and mine.group(1).lower() not in STOPWORDS
    )


_LIST_JOIN = re.compile(r"\s*,\s*(?:(?:and|or)\s+(?:also\s+)?)?|\s+(?:and|or)\s+(?:also\s+)?")
_LOWER_WORD = re.compile(r"[a-z][a-z'\-]*")
_RELATIVES = frozenset({"that", "which", "who"})
_ARTICLES = frozenset({"a", "an", "the"})
# Prepositions the stopword list leaves out: "sandpaper near Leeds" ends at "sandpaper".
_ENDS_ITEM = frozenset(
    "near around within across along via per without under over than below above inside "
    "outside toward towards including".split()
)


def lower_case_lists(text: str) -> list[list[str]]:
    """Lists of lower-case things said with "and"/"or": "uses spinach and goat cheese".

    Each item is one to three lower-case words, none a stopword. The first item starts after
    a stopword or punctuation, less a leading verb: a word in "-ing" ("selling nails") or
    the word right after "that"/"which"/"who" ("that uses spinach"). A list of one kind of
    value said alike ("5 and 7", "Paris and Rome") is a span of its own, not read here.
    """
    words = list(re.finditer(r"[A-Za-z][\w'\-]*|[^\sA-Za-z]", text))
    lists: list[list[str]] = []
    index = 0
    while index < len(words):
        run = _lower_run(words, index)
        if not run:
            index += 1
            continue
        end = words[run[-1]].end()
        items = [run]
        position = run[-1] + 1
        while position < len(words):
            join = _LIST_JOIN.match(text, end)
            if join is None or not join.group().strip():
                break
            nxt = next((i for i in range(position, len(words)) if words[i].start() >= join.end()),
                       None)
            if nxt is None or words[nxt].start() != join.end():
                break
            if _article_before_each(words, items[0][0], nxt):
                nxt += 1  # "a wolf and a coyote": an article before each item
            following = _lower_run(words, nxt)
            if not following:
                break
            items.append(following)
            end = words[following[-1]].end()
            position = following[-1] + 1
        if len(items) > 1:
            first = items[0]
            verbs = [i for i, w in enumerate(first) if words[w].group().endswith("ing")]
            first = first[verbs[-1] + 1:] if verbs else first
            if first and first[0] > 0 and words[first[0] - 1].group().lower() in _RELATIVES:
                first = first[1:]
            if not first:
                index = position
                continue
            items[0] = first
            lists.append([" ".join(words[i].group() for i in item) for item in items])
        index = position
    return lists


def _article_before_each(words: Sequence[re.Match[str]], first: int, nxt: int) -> bool:
    """The list's first item and the word at ``nxt`` each follow an article ("a X and a Y")."""
    return (
        first > 0 and words[first - 1].group().lower() in _ARTICLES
        and words[nxt].group().lower() in _ARTICLES and nxt + 1 < len(words)
        and words[nxt + 1].start() == words[nxt].end() + 1
    )


def _lower_run(words: Sequence[re.Match[str]], start: int) -> list[int]:
    """The indexes of up to three lower-case non-stopwords in a row from ``start``."""
    run: list[int] = []
    index = start
    while index < len(words) and len(run) < 3:
        word = words[index].group()
        if word == "per" and run and index + 1 < len(words) \
                and _LOWER_WORD.fullmatch(words[index + 1].group()) \
                and words[index + 1].group() not in STOPWORDS:
            # "points per game, assists": a rate is one item, the noun before "per" and after
            run = [run[-1], index]
            index += 1
            continue
        if (not _LOWER_WORD.fullmatch(word) or word in STOPWORDS or word in _ENDS_ITEM
                or word in {"and", "or"}):
            break
        if run and words[index].start() - words[index - 1].end() != 1:
            break
        if index > 0 and words[index - 1].group() in {".", "@", "/", ":"} \
                and words[index - 1].end() == words[index].start():
            break  # "team@corp.com": a part of an address or a path is no item
        run.append(index)
        index += 1
    return run


_NAME_LINK = re.compile(r"(?:\s*[:=]\s*|\s+(?:(?:is|of|as|says?|reads?)\s+)?)")
_CLAUSE_END = re.compile(r"[,.;!?\n]|\s+(?:then|and then)\b")


def free_text_after_name(text: str, name_words: AbstractSet[str], span_start: int,
                         span_end: int) -> str | None:
    """The words after a parameter's name, to the end of their clause, around a value found.

    "a note with body call the dentist at 3 pm": a time was found for ``body``, but the
    name is followed by free text that holds it, and the text is the value. None when the
    value is right after the name with nothing more in its clause ("label Gym at 6 am":
    "at 6 am" is another value's).
    """
    stop = _CLAUSE_END.search(text, span_end)
    end = stop.start() if stop else len(text)
    for word in re.finditer(r"[A-Za-z][\w'\-]*", text[:span_start]):
        if lemmatize(singular(word.group().lower())) not in name_words:
            continue
        link = _NAME_LINK.match(text, word.end())
        if link is None:
            continue
        start = link.end()
        stretch = text[start:end].strip()
        between = [w.lower() for w in re.findall(r"[A-Za-z][\w'\-]*", text[start:span_start])]
        said = [w for w in between if w not in STOPWORDS and w not in {"id", "number", "no"}
                and lemmatize(singular(w)) not in name_words]
        if said and not text[start:span_start].strip()[:1].isupper():
            return stretch  # the clause says more before the value: the value is inside it
    return None
