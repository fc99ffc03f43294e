"""Numbers, times and names said the way people say them, each as a typed span.

A name given in lower case after "named" or "called" ("files named readme"); telephone
numbers ("+14155550123", "Text 555-0134 that ..."), lengths said in words ("for an
hour and a half", "in half an hour"), the first hour of a range whose half of the day is said
once ("from 1 to 3 pm"), and a bare hour after a part of the day ("tonight at 8"). The span
reader (:mod:`nodes.planning.request_spans`) adds each where nothing else was read.
"""

from __future__ import annotations

import re

from stores.language.spans import Span

__all__ = [
    "called_names", "hour_range_starts", "hours_of_the_day_said", "phone_spans", "said_lengths"
]

# "files named readme", "a list called groceries": the word after is a name, whatever its case.
_CALLED = re.compile(r"\b(?:named|called|titled)\s+([a-z][\w\-]*[a-z0-9]|[a-z])(?![\w\-/])")
# Words that follow "called" as a verb ("called on", "called it").
_NOT_A_NAME = frozenset(
    """a an the on it for by to in at from with that this my your his her our their and or
    is are was were be been""".split()
)

_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}(?:[\s\-.]?\(?\d{2,4}\)?){2,5}(?![\w\-])"
    r"|(?<![\w\-])(?:\(\d{3}\)\s?|\d{3}-)\d{3}-\d{4}(?![\w\-])"
)
# "Text 555-0134": a local number, after a word that dials it
_LOCAL_PHONE = re.compile(
    r"\b(?:text|call|phone|dial|ring|number)\s+(\d{3}-\d{4})(?![\w\-])", re.I
)
_SAID_LENGTH = re.compile(
    r"\b(?:(?:an?|one)\s+(?P<half_unit>hour|minute|day|week|month|year)\s+and\s+(?P<half>a\s+half)"
    r"|(?P<part>half)\s+an?\s+(?P<part_unit>hour|minute|day|week|month|year)"
    r"|(?<=\bfor\s)an?\s+(?P<unit>hour|minute)|(?<=\bin\s)an?\s+(?P<unit2>hour|minute))\b",
    re.I,
)
_HOUR_RANGE = re.compile(
    r"\b(?P<first>1[0-2]|0?[1-9])(?::(?P<minute>[0-5]\d))?\s*(?:to|-|–|until|till)\s*"
    r"(?P<second>1[0-2]|0?[1-9])(?::[0-5]\d)?\s*(?P<half>[ap]\.?m\.?)(?!\w)",
    re.I,
)
# "a table for two tonight at 8": a bare hour after a part of the day and "at" is a time.
_DAY_AT_HOUR = re.compile(
    r"\b(?P<day>tonight|(?:this|tomorrow)\s+(?:morning|evening|night)|tomorrow\s+night)"
    r"\s+at\s+(?P<hour>1[0-2]|0?[1-9])(?::(?P<minute>[0-5]\d))?\b"
    r"(?!\s*(?:[:.]\d|%|[ap]\.?m|percent\b|degrees?\b))",
    re.I,
)


def called_names(text: str) -> list[Span]:
    """A lower-case name after "named", "called" or "titled" ("Find files named readme")."""
    return [
        Span("name", m.group(1), m.group(1), *m.span(1))
        for m in _CALLED.finditer(text)
        if m.group(1) not in _NOT_A_NAME
    ]


def phone_spans(text: str) -> list[Span]:
    """Telephone numbers, as written: international, with an area code, or after "call"."""
    places = [m.span() for m in _PHONE.finditer(text)]
    places += [m.span(1) for m in _LOCAL_PHONE.finditer(text)]
    return [Span("identifier", text[a:b], text[a:b], a, b) for a, b in places]


def said_lengths(text: str) -> list[Span]:
    """"an hour and a half" (1.5 h), "half an hour" (0.5 h), "for an hour" (1 h)."""
    found = []
    for match in _SAID_LENGTH.finditer(text):
        amount = 1.5 if match.group("half") else 0.5 if match.group("part") else 1
        unit = (match.group("unit") or match.group("unit2") or match.group("part_unit")
                or match.group("half_unit"))
        found.append(Span("number", amount, match.group(), match.start(), match.end(),
                          unit=unit.lower()))
    return found


def hour_range_starts(text: str) -> list[Span]:
    """"from 1 to 3 pm": the first hour, in the half of the day the second one is said in."""
    found = []
    for match in _HOUR_RANGE.finditer(text):
        half = match.group("half").lower().replace(".", "")
        if int(match.group("first")) > int(match.group("second")) % 12:
            half = "am" if half == "pm" else "pm"  # "9-5pm": from the morning
        written = f"{match.group('first')}:{match.group('minute') or '00'}{half}"
        end = match.end("minute") if match.group("minute") else match.end("first")
        found.append(Span("time", written, written, match.start(), end))
    return found


def hours_of_the_day_said(text: str) -> list[Span]:
    """"tonight at 8" is 8 pm, "tomorrow morning at 7" 7 am."""
    found = []
    for match in _DAY_AT_HOUR.finditer(text):
        half = "am" if match.group("day").lower().endswith("morning") else "pm"
        written = f"{match.group('hour')}:{match.group('minute') or '00'}{half}"
        found.append(Span("time", written, written, match.start("hour"), match.end()))
    return found
