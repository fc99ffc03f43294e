"""Which of a parameter's allowed values a request names, and where.

The enum of a schema, or the values its description lists, said word for word, with a typo,
by a lemma ("detail" for "detailed"), by a word made from it ("musical" for "Music"), by its
place ("London time" for an enum's "Europe/London"), by the name of a code (ISO tables: "into
Spanish" for "es"), by a unit's name ("in miles" for "mi") or, for an action, by a synonym
("remove" for "delete"). :func:`enum_value` finds the one the text names first;
:func:`enum_mentions` every one it names word for word, in order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import Any

from rapidfuzz import fuzz

from nodes.planning.param_fit import Param
from nodes.planning.value_forms import operation_option
from stores.language.codes import code_in
from stores.language.identifiers import singular
from stores.language.keywords import STOPWORDS, lemmatize
from stores.language.units import system_option, unit_option

# Where a value said as a word starts: no letter before it, nor a letter's apostrophe ("I'm").
_WORD_START = r"(?<![\w])(?<![A-Za-z]['’])"


def enum_value(text: str, param: Param) -> tuple[Any, int] | tuple[Any, int, int] | None:
    """The enum (or allowed) value the text names, typo-tolerant, and where it starts.

    A third item, when the value was said in words of the request, is where they end.
    """
    options = [o for o in (param.enum or param.allowed) if isinstance(o, str) and o.strip()]
    if _case_tells_apart(options):
        exact = [(m.start(), o) for o in options
                 for m in re.finditer(rf"{_WORD_START}{re.escape(o)}(?![\w])", text)]
        if exact:
            return min(exact)[1], min(exact)[0]
        return code_in(text, options) or unit_option(text, options) or system_option(text, options)
    lowered = text.lower()
    best: tuple[float, Any, int, int] | None = None
    candidate: tuple[float, Any, int, int] | None
    for option in options:
        # An enum's "Europe/London" is said by its place: "at 8pm London time" (a description's
        # examples are no such list: the request that names one names it whole).
        said = option.lower().rsplit("/", 1)[-1] if param.enum else option.lower()
        spoken = re.sub(r"[_\-]+", " ", said).strip()
        # "I'm" says no size "M": a letter after an apostrophe is part of its word; a
        # letter is said as written ("a" is no "A")
        found = re.search(rf"{_WORD_START}{re.escape(option.strip())}(?![\w])", text) \
            if _one_letter(option) else \
            re.search(rf"{_WORD_START}{re.escape(spoken)}(?![\w])", lowered)
        glued = [] if found else _glued_hits(lowered, spoken)
        if found:
            candidate = (100.0 + len(spoken), option, found.start(), found.end())
            if _DECLINED.search(lowered[: found.start()]):
                candidate = (50.0 + len(spoken), *candidate[1:])  # "celsius over fahrenheit"
        elif glued:
            candidate = (100.0 + len(spoken), option, *glued[0])
        else:
            if len(spoken) < 5 or re.search(r"\d", spoken):
                continue  # "2022-04-27" is no typo of the example "2022-04-28"
            found_words = list(re.finditer(r"[a-z0-9]+", lowered))
            words = [w.group() for w in found_words]
            width = len(spoken.split())
            candidate = None
            for index in range(len(words) - width + 1):
                window = " ".join(words[index : index + width])
                ratio = fuzz.ratio(window, spoken)
                if _lemmas(window) == _lemmas(spoken):
                    ratio = 95.0  # "detail" names "detailed"
                elif width == 1 and window.startswith(spoken) and len(window) - len(spoken) <= 3:
                    ratio = 90.0  # "musical" names "Music"
                if ratio >= 88 and (candidate is None or ratio > candidate[0]):
                    first, last = found_words[index], found_words[index + width - 1]
                    candidate = (ratio, option, first.start(), last.end())
            if candidate is None:
                continue
        if best is None or candidate[0] > best[0]:
            best = candidate
    if best is None:
        # "into Spanish" names the code "es", "in miles" the symbol "mi"; "remove" the action
        # "delete".
        return (code_in(text, options) or unit_option(text, options)
                or system_option(text, options) or _operation_at(text, options)
                or _abbreviated_at(lowered, options))
    return (best[1], best[2], best[3])


# Allowed values written short for the word a request says ("the average humidity": "avg").
_SHORT_FORMS = {
    "avg": "average", "min": "minimum", "max": "maximum", "asc": "ascending",
    "desc": "descending", "temp": "temperature", "std": "standard",
    "approx": "approximate", "med": "median", "cnt": "count",
}


def _abbreviated_at(lowered: str, options: Sequence[str]) -> tuple[Any, int] | None:
    """The allowed value written short for a word the request says whole, and where."""
    hits = []
    for option in options:
        whole = _SHORT_FORMS.get(option.strip().lower())
        found = re.search(rf"\b{whole}\b", lowered) if whole else None
        if found is not None:
            hits.append((found.start(), option))
    return (min(hits)[1], min(hits)[0]) if hits else None


def _operation_at(text: str, options: Sequence[str]) -> tuple[Any, int] | None:
    """The action value the text asks for by a synonym (:func:`operation_option`).

    Its place is -1: the word that asks is a verb, no span a value could be taken from.
    """
    option = operation_option(text, options)
    return None if option is None else (option, -1)


def _one_letter(option: str) -> bool:
    """Whether an allowed value is one letter ("A", "G", "x")."""
    return len(option.strip()) == 1 and option.strip().isalpha()


def _case_tells_apart(options: Sequence[str]) -> bool:
    """Whether two allowed values differ only in case ("AA", "Aa", "aa"): case then counts."""
    lowered = [o.lower() for o in options]
    return len(set(lowered)) < len(lowered)


def _lemmas(text: str) -> tuple[str, ...]:
    return tuple(lemmatize(singular(word)) for word in text.split())


def _inside_name(text: str, start: int) -> bool:
    """Whether the word at ``start`` is a capitalised word of a name of two words or more.

    The word before counts only when it opens no sentence ("Show the History of Rome").
    """
    word = re.match(r"[A-Z][a-z]+\b", text[start:])
    if word is None:
        return False
    after = re.match(r" [A-Z][a-z]+\b", text[start + word.end() :]) is not None
    before = re.search(r"\w,?\s+[A-Z][a-z]+ $", text[:start]) is not None
    return after or before


def enum_mentions(
    text: str, param: Param, *, by_one_word: AbstractSet[str] | None = None
) -> list[Any]:
    """Every enum (or allowed) value the text names word for word, in the order said.

    ``by_one_word`` (for an array of things to include: the words of the other parameters'
    names) also counts a value of two words or more named by a word of it no other value
    has (:func:`_distinctive_word_hits`), unless that word names another parameter ("the Los
    Angeles court" is the court's location, no "court_updates") or stands beside a value
    named whole ("fiction section" names "Fiction", no "Children Section").
    """
    options = [o for o in (param.enum or param.allowed) if isinstance(o, str) and o.strip()]
    if _case_tells_apart(options):
        exact = sorted((m.start(), o) for o in options
                       for m in re.finditer(rf"{_WORD_START}{re.escape(o)}(?![\w])", text))
        return list(dict.fromkeys(option for _, option in exact))
    lowered = text.lower()
    found: list[tuple[int, int, Any]] = []
    partial: list[tuple[int, Any]] = []  # (where, value) named by one word of it
    words = [
        (m.start(), lemmatize(singular(m.group()))) for m in re.finditer(r"[a-z0-9]+", lowered)
    ]
    for option in param.enum or param.allowed:
        if not isinstance(option, str) or not option.strip():
            continue
        spoken = re.sub(r"[_\-]+", " ", option.lower()).strip()
        if _one_letter(option):
            # "a DNA sequence with more G and C": a letter is said as written, not "a"
            found.extend((m.start(), m.end(), option) for m in re.finditer(
                rf"{_WORD_START}{re.escape(option.strip())}(?![\w])", text))
            continue
        # "Wi-Fi" said "wi-fi", "wi fi" or "wifi_": hyphens, underscores and spaces alike.
        pattern = r"[\s\-_]*".join(re.escape(w) for w in spoken.split())
        hits = [m.start() for m in re.finditer(rf"{_WORD_START}{pattern}(?![\w])", lowered)]
        lemmas = _lemmas(spoken)
        if not hits:
            # "rebound stats" names "Rebounds", "toll roads" names "tolls": the same lemmas.
            width = len(lemmas)
            hits = [
                words[i][0]
                for i in range(len(words) - width + 1)
                if width and tuple(w for _, w in words[i : i + width]) == lemmas
                and all(len(w) > 2 for w in lemmas)
            ]
        if not hits:
            hits = [start for start, _ in _glued_hits(lowered, spoken)]
        if not hits:
            hits = _shortened_hits(lowered, spoken, param.enum or param.allowed)
        if not hits:
            hits = _words_close_together(words, lemmas)
        if not hits and by_one_word is not None:
            hits_by_word = _distinctive_word_hits(words, lemmas, param.enum or param.allowed)
            partial.extend((start, option) for start, word in hits_by_word
                           if word not in by_one_word)
            continue
        if option.islower():
            # "the Natural History Museum" names a museum, not the "history" of one
            hits = [start for start in hits if not _inside_name(text, start)]
        found.extend((start, start + len(spoken), option) for start in hits)
    for start, option in partial:
        word = re.match(r"[a-z0-9]+", lowered[start:])
        end = start + (len(word.group()) if word else 0)
        if not any(_BESIDE.fullmatch(lowered[e:start]) or _BESIDE.fullmatch(lowered[end:s])
                   for s, e, _ in found):
            found.append((start, end, option))
    # "like new" names "Like New", not "New" as well: a value inside a longer one said is not.
    said = [(start, end, option) for start, end, option in found
            if not any(s <= start and end <= e and e - s > end - start for s, e, _ in found)]
    # "celsius over fahrenheit", "in English rather than French": the value declined is none
    # of the values asked for
    wanted = [item for item in said if not _DECLINED.search(lowered[: item[0]])]
    return list(dict.fromkeys(option for _, _, option in sorted(wanted or said)))


_DECLINED = re.compile(
    r"\b(?:over|rather\s+than|instead\s+of|not|except|but\s+not)\s+(?:(?:the|in|a|an)\s+)?$"
)


# Only spaces or hyphens between two words: "fiction section", "fiction-section".
_BESIDE = re.compile(r"[\s\-]+$|^[\s\-]+")


def _distinctive_word_hits(
    words: Sequence[tuple[int, str]], lemmas: tuple[str, ...], options: Sequence[Any]
) -> list[tuple[int, str]]:
    """Where a value of two words or more is named by one word of it no other value has.

    "with backstage access" names "Backstage Pass" ("Pass" is in "Parking Pass" too), "the
    goal and assist" names "Goals Scored" and "Assists Made", "facilities for disabled people"
    names "Disabled Access". A word of four letters or more that is no function word.
    """
    if len(lemmas) < 2:
        return []
    others: set[str] = set()
    for option in options:
        spoken = re.sub(r"[_\-]+", " ", str(option).lower()).strip()
        if _lemmas(spoken) != lemmas:
            others.update(_lemmas(spoken))
    own = {w for w in lemmas if len(w) >= 4 and w not in STOPWORDS and w not in others}
    return [(start, word) for start, word in words if word in own][:1]


def _glued_hits(lowered: str, spoken: str) -> list[tuple[int, int]]:
    """Where a one-word value is said as two or three words: "uber XL" for "UberXL".

    The words written together are the value, letter for letter (typos are not read here: a
    glued value is already the user's own spelling of it).
    """
    if " " in spoken or len(spoken) < 4:
        return []
    words = list(re.finditer(r"[a-z0-9]+", lowered))
    hits = []
    for width in (2, 3):
        for index in range(len(words) - width + 1):
            window = words[index : index + width]
            gaps = (lowered[a.end() : b.start()] for a, b in zip(window, window[1:], strict=False))
            if "".join(w.group() for w in window) == spoken and all(
                re.fullmatch(r"[\s\-_]+", gap) for gap in gaps
            ):
                hits.append((window[0].start(), window[-1].end()))
    return sorted(hits)


def _shortened_hits(lowered: str, spoken: str, options: Sequence[Any]) -> list[int]:
    """Where a shortened word names a one-word value it begins: "carbs" for "Carbohydrates".

    The short form keeps at least four letters and lacks at least three; no other allowed
    value begins with it.
    """
    if " " in spoken:
        return []
    hits = []
    for match in re.finditer(r"[a-z]+", lowered):
        short = singular(match.group())
        if len(short) < 4 or len(spoken) - len(short) < 3 or not spoken.startswith(short):
            continue
        if sum(str(o).lower().startswith(short) for o in options) == 1:
            hits.append(match.start())
    return hits


def _words_close_together(words: Sequence[tuple[int, str]], lemmas: tuple[str, ...]) -> list[int]:
    """Where every word of a value of two or more words is said within a short stretch.

    "high and low temperatures" names "high_low_temperature": its words in order, within a
    stretch of twice as many words.
    """
    if len(lemmas) < 2 or any(len(w) < 3 for w in lemmas):
        return []
    said = [w for _, w in words]
    for start in range(len(said)):
        position, found = start, 0
        while position < len(said) and found < len(lemmas):
            if said[position] == lemmas[found]:
                found += 1
            elif found == 0 or position - start > 2 * len(lemmas):
                break
            position += 1
        if found == len(lemmas):
            return [words[start][0]]
    return []
