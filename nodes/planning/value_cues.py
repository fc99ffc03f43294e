"""Cues of a value beside a parameter that its name's content words do not give.

The parameter model and the main cue score are :mod:`nodes.planning.param_fit`'s; these are
the readings it adds, each from the schema's names and the request's words alone:

- a one-letter name said right before its value ("k of 3", "n = 10");
- the ends of a range ("$300,000 to $400,000", "between 10 and 90") for a parameter whose
  name says it is the low or the high end (``min``, ``lower_bound``, ``max``, ``end``);
- the words before a value that are its own, not an earlier value's ("3 bedrooms, 2
  bathrooms": "bedrooms" is no cue of 2);
- the head word of a name (``year1_revenue`` is a revenue, not a year);
- series of parameters (``side1``/``side2``, ``first_x``/``second_x``, ``year1``/``year2``)
  that a list, or values said twice in one shape, fill in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from nodes.planning.request_spans import Span, context_words
from stores.language.identifiers import singular, split_words
from stores.language.keywords import STOPWORDS, lemmatize

_NAME_LINKS = frozenset({"of", "is", "equal", "equals", "to", "as", "being", "at"})


def name_said_before(text: str, span: Span, name: str) -> bool:
    """A one- or two-letter parameter name stands right before the value ("k of 3", "K 5").

    The only cue such a name ("n", "K", "x") can have: its content words are empty. Names
    that are also English words ("a", "i") need a linking word ("a of 1").
    """
    name = name.lower()
    if len(name) > 2 or not name.isalpha():
        return False
    before, _ = context_words(text, span, window=3)
    linked = False
    while before and before[-1] in _NAME_LINKS:
        before.pop()
        linked = True
    if not before or before[-1] != name:
        return False
    return linked or name not in STOPWORDS


# Words by which a parameter's name says it is the low or the high end of a range.
_LOW_END = frozenset({"min", "minimum", "low", "lower", "start", "from", "begin", "least", "floor",
                      "initial", "first", "beginning", "in"})
_HIGH_END = frozenset({"max", "maximum", "high", "upper", "end", "to", "most", "ceiling", "final",
                       "last", "ending", "out"})
# "from April 4th to April 8th": a range of dates, one said after the other.
_DATE_RANGE_AFTER = re.compile(r"\s*(?:to|through|thru|until|till|-|–)\s*\w", re.I)
_DATE_RANGE_BEFORE = re.compile(r"\b(?:to|through|thru|until|till)\s*$|[-–]\s*$", re.I)
# "25 degrees Celsius to 100", "x=1 to x=5": up to two unit words after the first value, and a
# variable's name before either.
_UNIT_WORDS = r"(?:\s*[A-Za-z°%]{1,12}){0,2}"
_VARIABLE = r"(?:[A-Za-z_]\w{0,3}\s*=\s*)?"
_RANGE_AFTER = re.compile(
    _UNIT_WORDS + r"\s*(?:to|-|–|through|until)\s*" + _VARIABLE + r"[$€£¥]?\s*-?\d", re.I
)
_RANGE_BEFORE = re.compile(
    r"\d[\d,.]*" + _UNIT_WORDS + r"\s*(?:to|-|–|through|until)\s*" + _VARIABLE
    + r"[$€£¥]?\s*$", re.I
)
_BETWEEN = re.compile(r"\bbetween\s+[$€£¥]?\s*$", re.I)
_BETWEEN_SECOND = re.compile(
    r"\bbetween\s+[$€£¥]?\s*\d[\d,.]*\s*[A-Za-z%]{0,12}\s+and\s+[$€£¥]?\s*$", re.I
)


def range_end(text: str, span: Span, name: str, name_words: Iterable[str]) -> bool:
    """Whether the value is the end of a range this parameter's name asks for.

    The first of "$300,000 to $400,000" or "between 10 and 90" goes to a ``min``/``lower``
    parameter, the second to a ``max``/``upper`` one.
    """
    numeric_pair = span.kind == "keyvalue" and isinstance(span.value, int | float)
    words = set(split_words(name.lower())) | set(name_words)
    before, after = text[max(0, span.start - 40) : span.start], text[span.end :]
    if span.kind == "date":  # "check in from April 4th to April 8th"
        return bool((_DATE_RANGE_AFTER.match(after) and words & _LOW_END)
                    or (_DATE_RANGE_BEFORE.search(before) and words & _HIGH_END))
    if span.kind not in {"number", "money", "percent"} and not numeric_pair:
        return False
    first = _RANGE_AFTER.match(after) is not None or (
        _BETWEEN.search(before) is not None
        and re.match(r"\s*and\s*[$€£¥]?\s*\d", after) is not None
    )
    second = _RANGE_BEFORE.search(before) is not None or _BETWEEN_SECOND.search(before) is not None
    return bool((first and words & _LOW_END) or (second and words & _HIGH_END))


# One end said alone: "over $50", "at least 4 stars" (a lower bound); "under 30 minutes",
# "no more than 1 stop" (an upper one). The parameter's name says which end it takes.
_AT_LEAST = re.compile(
    r"\b(?:over|above|more\s+than|greater\s+than|higher\s+than|bigger\s+than|larger\s+than"
    r"|longer\s+than|at\s+least|no\s+less\s+than|not\s+less\s+than|minimum(?:\s+of)?"
    r"|exceeding|starting\s+(?:at|from))\s+[$€£¥]?\s*$",
    re.I,
)
_AT_MOST = re.compile(
    r"\b(?:under|below|less\s+than|fewer\s+than|lower\s+than|smaller\s+than|shorter\s+than"
    r"|cheaper\s+than|at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to"
    r"|maximum(?:\s+of)?|within|not\s+exceeding|no\s+higher\s+than"
    # "nothing above $200", "not over 3 hours": the end not to pass
    r"|(?:nothing|none|not)\s+(?:over|above|more\s+than|higher\s+than|pricier\s+than))"
    r"\s+[$€£¥]?\s*$",
    re.I,
)
_LOWER_BOUND = frozenset({"min", "minimum", "least", "lower", "low", "floor", "from"})
_UPPER_BOUND = frozenset({"max", "maximum", "most", "upper", "high", "ceiling", "limit", "to"})


def bound_side(text: str, span: Span, name: str) -> int:
    """Whether a value said as one end ("over $50") is this parameter's end of a range.

    1 when the parameter's name says the end the words before the value say (``min_amount``
    for "over $50"), -1 when it says the other end (``min_minutes`` for "under 30 minutes"),
    0 when either says nothing of ends.
    """
    if span.kind not in {"number", "money", "percent"}:
        return 0
    before = text[max(0, span.start - 30) : span.start]
    if _RANGE_AFTER.match(text[span.end :]) or _RANGE_BEFORE.search(before):
        return 0  # "within $300,000 to $400,000": both ends said, a range
    least, most = _AT_LEAST.search(before), _AT_MOST.search(before)
    # "no more than" says at most, "no less than" at least: the longer phrase is said.
    said = 0 if not least and not most else 1 if most is None or (
        least is not None and least.start() < most.start()) else -1
    words = set(split_words(name.lower()))
    wants = 1 if words & _LOWER_BOUND else -1 if words & _UPPER_BOUND else 0
    if not said or not wants:
        return 0
    return 1 if said == wants else -1


_SEPARATOR = re.compile(r"[,;]|\b(?:and|or)\b", re.I)


def own_words_before(text: str, span: Span, window: int = 4) -> list[str]:
    """The words before a value that are its own, not an earlier value's.

    In "3 dozen eggs and 2 loaves of bread" and "3 bedrooms, 2 bathrooms", "eggs" and
    "bedrooms" are the cues of 3, not of 2: past an earlier number only the words after the
    separator that follows it are kept (without one, the words after its unit).
    """
    before, _ = context_words(text, span, window=window)
    head = text[: span.start]
    words = list(re.finditer(r"\S+", head))[-window:]
    if not words or re.search(r"[\u3400-\u9fff]", head):
        return before
    numbers = list(re.finditer(r"(?<![\w.])\d+(?:[.,]\d+)*", head[words[0].start() :]))
    if not numbers:
        return before
    tail = head[words[0].start() + numbers[-1].end() :]
    separators = list(_SEPARATOR.finditer(tail))
    if separators:
        tail = tail[separators[-1].end() :]
    else:
        tail = re.sub(r"^\S*\s*", "", tail)  # the earlier number's own unit
    return [w.lower() for w in re.findall(r"[A-Za-z][\w'\-]*", tail)][-window:]


def head_word(name: str) -> str:
    """The last word of a parameter's name, digits left out: ``year1_revenue`` is a revenue."""
    words = re.findall(r"[a-z]+", " ".join(split_words(name)).lower())
    return lemmatize(singular(words[-1])) if words else ""


def numbered_siblings(names: Iterable[str], have: set[str], count: int) -> bool:
    """Whether every name is the first of a numbered series with ``count`` members in ``have``.

    ``year1`` and ``year1_revenue`` with ``year2`` and ``year2_revenue`` beside them: values
    said twice in the same shape fill the series, they are not two calls.
    """
    names = list(names)
    if not names or count < 2:
        return False
    for name in names:
        if not re.search(r"(?<![0-9])1(?![0-9])", name):
            return False
        series = [
            re.sub(r"(?<![0-9])1(?![0-9])", str(k), name, count=1) for k in range(2, count + 1)
        ]
        if any(other not in have for other in series):
            return False
    return True


_ORDINAL_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


def series_position(name: str) -> tuple[str, int] | None:
    """A parameter's series and its place in it, or None (no number, no ordinal word).

    ``side2`` is ("side", 2); ``second_note_frequency`` is ("note_frequency", 2); ``phone_b``
    is ("phone", 2).
    """
    match = re.fullmatch(r"(.*?)[_\-]?(\d+)", name)
    if match:
        return match.group(1).lower(), int(match.group(2))
    lettered = re.fullmatch(r"(.+?)(?:[_\-]([a-dA-D])|(?<=[a-z])([A-D]))", name)
    if lettered:  # ``phone_a``, ``pointB``: a series by letters
        letter = (lettered.group(2) or lettered.group(3)).lower()
        return lettered.group(1).lower(), ord(letter) - ord("a") + 1
    words = [w.lower() for w in split_words(name)]
    places = [i for i, w in enumerate(words) if w in _ORDINAL_WORDS]
    if len(places) != 1:
        return None
    rest = words[: places[0]] + words[places[0] + 1 :]
    return ("_".join(rest), _ORDINAL_WORDS[words[places[0]]]) if rest else None
