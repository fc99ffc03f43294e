"""What a parameter's description says, read from its words alone.

The values it allows ("Can be 'summary' or 'detailed'", "('Celsius' or 'Fahrenheit')"),
whether it describes a count ("The number of dice thrown") and of what, the unit such a count
is in ("Number of days": days), and the preposition it ends with ("The platform the user is
playing on"). The binder (:mod:`nodes.planning.param_fit`) weighs these against the request;
nothing here reads the request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from stores.language.codes import codes_of
from stores.language.date_formats import described_date_format
from stores.language.identifiers import singular
from stores.language.keywords import STOPWORDS, lemmatize
from stores.language.units import unit_of

__all__ = [
    "allowed_values",
    "counted_phrase",
    "counted_unit",
    "describes_count",
    "stranded_preposition",
]

_ALLOWED = re.compile(r"['\"]([^'\"]{1,40})['\"]")
_CLOSED_LIST = re.compile(
    r"allowed|one of|options|possible values|choose|either|can be|must be|valid values|"
    r"supported|accepted|could be|may be",
    re.I,
)
_OPEN_LIST = re.compile(
    r"e\.g\.?|i\.e\.?|such as|\blike\b|for example|for instance|example|\betc\b", re.I
)
# "'now' for current, 'weekend' for the coming weekend": each value said with what it means.
_QUOTED_MEANINGS = re.compile(r"['\"]([^'\"]{1,40})['\"]\s+(?:for|means|is\s+for)\s+\w")
_QUOTED_CHOICES = re.compile(
    r"\(\s*['\"][^'\"]{1,40}['\"](?:\s*(?:,|\bor\b|/)\s*['\"][^'\"]{1,40}['\"])+\s*\)"
)


def allowed_values(description: str) -> tuple[tuple[str, ...], bool]:
    """Values a description lists for a string, and whether the list is closed.

    "Can be 'summary' or 'detailed'" is closed (only those); "e.g. vegan, gluten-free" gives
    examples of an open set.
    """
    closed = bool(_CLOSED_LIST.search(description))
    opened = _OPEN_LIST.search(description)
    meanings = _QUOTED_MEANINGS.findall(description)
    if len(meanings) >= 2 and not opened:
        return tuple(dict.fromkeys(v.strip() for v in meanings)), True
    if meanings and not closed and not opened:
        # "Title, or 'last' for the last watched": one value with a meaning of its own, in
        # an open set
        return (meanings[0].strip(),), False
    if not closed and not opened:
        # "The unit ('Celsius' or 'Fahrenheit')": quoted choices in brackets close the list.
        choices = _QUOTED_CHOICES.search(description)
        if choices is None:
            return (), False
        return tuple(dict.fromkeys(v.strip() for v in _ALLOWED.findall(choices.group()))), True
    values = [m.strip() for m in _ALLOWED.findall(description)]
    if opened and not values:
        # "E.g: C Major, A Minor": the colon or comma after the marker opens the list.
        after = description[opened.end() :].lstrip(" :,")
        tail = re.split(r"[.;)]\s", after + " ", maxsplit=1)[0]
        tail = re.sub(r"\s*\b(?:etc|and so on)\b\.?", "", tail)  # "victim, verdict etc."
        values = [v.strip(" .'\"") for v in re.split(r",|\bor\b|\band\b", tail)]
        # "e.g. Boston, MA", "e.g. Tokyo, Japan", "e.g. New York, NY, you should format it
        # as City, State": a place and its region are one example ("e.g. Italian, Japanese"
        # are two).
        joined: list[str] = []
        for value in values:
            if joined and _names_region(value) and joined[-1][:1].isupper() \
                    and re.search(r"[a-z]", joined[-1]) and "," not in joined[-1]:
                joined[-1] = f"{joined[-1]}, {value}"
            else:
                joined.append(value)
        values = joined
        values = [v for v in values if v and (len(v.split()) <= 3 or _place_example(v))]
    listed = tuple(dict.fromkeys(v for v in values if v))
    # "Must be in MM-DD-YYYY format" closes nothing: a closed list lists its values.
    return listed, closed and not opened and bool(listed)


def _place_example(value: str) -> bool:
    """A place of up to three words and its region: "New York City, NY"."""
    head, _, region = value.rpartition(", ")
    return bool(head) and len(head.split()) <= 3 and _names_region(region)


def _names_region(value: str) -> bool:
    """A state's or country's code or name ("MA", "California", "Japan")."""
    return re.fullmatch(r"[A-Z]{2,3}", value) is not None or bool(
        codes_of(value, "region") or codes_of(value, "country"))


# "The number of dice thrown", "How many rooms": a count, though named ``dice_number``; "The
# number of the account" identifies one.
_DESCRIBES_COUNT = re.compile(
    r"\s*(?:the\s+)?(?:(?:total|maximum|minimum)\s+)?(?:(?:number|count|quantity)\s+of\s+"
    r"(?!the\b|a\b|an\b|this\b|that\b|its\b)|how\s+many\b)",
    re.I,
)
# "The number of dice thrown", "number of the slots": the noun a description counts.
_COUNTED_NOUN = re.compile(
    r"\b(?:number|count) of (?:the |a |an )?([A-Za-z][A-Za-z\-]*(?: [A-Za-z][A-Za-z\-]*){0,2})",
    re.I,
)


def describes_count(description: str) -> bool:
    """Whether the description opens by saying its parameter is a count of things."""
    return _DESCRIBES_COUNT.match(description) is not None


def counted_unit(description: str) -> Any | None:
    """The unit a count's description counts in: "Number of days for the forecast" (days)."""
    counted = _DESCRIBES_COUNT.match(description)
    if counted is None:
        return None
    word = re.match(r"[A-Za-z]+", description[counted.end():].lstrip())
    # A plural unit word only ("days", "years"): pint reads many short words as units.
    if word is None or len(word.group()) < 4 or not word.group().endswith("s"):
        return None
    return unit_of(word.group())


def counted_phrase(description: str) -> list[str]:
    """The lemmas of what a description counts: "Number of top schisms to return" (top, schism).

    The words after "number of" up to the first little word; empty when it counts nothing.
    """
    counted = _COUNTED_NOUN.search(description)
    phrase: list[str] = []
    for word in counted.group(1).lower().split() if counted is not None else ():
        if word in STOPWORDS:
            break
        phrase.append(lemmatize(singular(word)))
    return phrase


# Not "for", "in", "to": "the company you want the revenue for" would make every "for X" a
# company.
_STRANDED = frozenset({"on", "into", "onto", "with", "about"})


def stranded_preposition(description: str) -> str | None:
    """The preposition a description ends with ("The platform the user is playing on."), if any.

    Only the rarer prepositions count; a description of fewer than three words has none.
    """
    words: list[str] = re.findall(r"[A-Za-z]+", description)
    last = words[-1].lower() if len(words) >= 3 else ""
    return last if last in _STRANDED else None


# An ISO date shown, or the standard named ("Start time, ISO 8601").
_ISO_EXAMPLE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:\b|T\d)|\bISO[- ]?8601\b")


def asks_date_form(schema: Mapping[str, Any]) -> bool:
    """Whether a parameter wants a calendar date, not words.

    Its description names the format ("YYYY-MM-DD", "month-day-year", "ISO 8601") or shows
    an ISO date (with its time or not), or its schema's format is ``date`` or ``date-time``.
    """
    description = str(schema.get("description") or "")
    return (
        described_date_format(description) is not None
        or _ISO_EXAMPLE.search(description) is not None
        or schema.get("format") in {"date", "date-time"}
    )


_CLOCK_FORM = re.compile(r"\bHH:?MM\b|\b24[- ]hour\b|\b12[- ]hour\b", re.I)


def asks_clock_form(schema: Mapping[str, Any]) -> bool:
    """Whether a parameter wants a time of day: "HH:MM", "24-hour format", ``format: time``."""
    description = str(schema.get("description") or "")
    return _CLOCK_FORM.search(description) is not None or schema.get("format") == "time"


# Where a description starts its examples: what follows may well be the value itself.
_EXAMPLES = re.compile(
    r"\b(?:e\.\s?g\.?|i\.\s?e\.?|eg|such\s+as|for\s+example|for\s+instance|like|"
    r"example|examples|default|defaults|options|can\s+be|could\s+be|one\s+of)\b.*",
    re.IGNORECASE | re.DOTALL,
)
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\([^)]*\)")


# Where a description's head (what kind of thing the value is) gives way to what it is said of.
_HEAD_ENDS = re.compile(
    r"\b(?:of|for|which|whose|that|to|in|on|at|by|with|from|where|when|needs?|is|are)\b",
    re.IGNORECASE,
)


def context_of_value(description: str) -> str:
    """What a description says around its value: not its head, examples or listed values.

    "The species for which population needs to be estimated" -> "for which population needs
    to be estimated"; "Search term, e.g. 'food' or 'restaurants'" -> "" (its examples may be
    the value); "The scientific discovery or theory." -> "" (the head says what the value is:
    "the theory of evolution" is one). Words said here are cues of the value, never the value.
    """
    described = without_examples(description)
    head_end = _HEAD_ENDS.search(described)
    return described[head_end.start() :] if head_end else ""


def without_examples(description: str) -> str:
    """A description without the examples and values it lists ("e.g. ...", quoted words)."""
    return _EXAMPLES.sub("", _QUOTED.sub(" ", description))


def written_shape(text: str) -> str:
    """How a token is written: runs of capitals "A", small letters "a", digits "9".

    "MSFT" -> "A", "SFO-2" -> "A-9", "rs6034464" -> "a9", "Paris" -> "Aa".
    """
    return re.sub(r"[A-Z]+", "A", re.sub(r"[a-z]+", "a", re.sub(r"[0-9]+", "9", text)))


@lru_cache(maxsize=4096)
def example_shapes(description: str) -> frozenset[str]:
    """How the description's examples are written, when that says something ("e.g. MSFT").

    Only shapes with capitals or digits in them and no spaces: a capitalized word ("Aa") or
    a plain word says nothing of a value's form.
    """
    found = _EXAMPLES.search(description)
    said = [q.strip("'\"`()") for q in _QUOTED.findall(description)]
    if found is not None:
        said += re.findall(r"[\w\-/.:]+", found.group())
    shapes = set()
    for token in said:
        token = token.strip(".,:;")
        if not 2 <= len(token) <= 24 or " " in token or token.lower() in _EXAMPLE_WORDS:
            continue
        shape = written_shape(token)
        if ("A" in shape or "9" in shape) and shape not in {"Aa", "9", "a", "A.a", "a.a"}:
            shapes.add(shape)
    return frozenset(shapes)


_EXAMPLE_WORDS = frozenset({"eg", "e.g", "ie", "i.e", "example", "examples", "such", "as", "like"})


_DELIMITED = re.compile(
    r"\bcomma[- ]?(?:separated|delimited)\b|\b(?:separated|delimited)\s+(?:by\s+|with\s+)?"
    r"(?:a\s+)?commas?\b",
    re.I,
)
_DELIMITED_EXAMPLE = re.compile(r"['\"`]\s*[\w\-]+(,\s*)[\w\-]+")


def list_delimiter(description: str) -> str | None:
    """The delimiter of a text parameter that carries a list, or None for one value.

    "Comma-separated list of cuisines, e.g. 'thai,indian'": several values said ("Italian
    and Mexican") are one value joined by commas, written as the example writes them
    (without a space here; ", " when the example has one or there is none).
    """
    if not _DELIMITED.search(description):
        return None
    example = _DELIMITED_EXAMPLE.search(description)
    return example.group(1) if example is not None else ", "
