"""Typed spans of a request for the schema binder: numbers, money, quoted text, names, lists.

The binder's reading of a request, in the shared span type (:class:`stores.language.spans.Span`)
and with the shared interface: ``extract_spans(text)`` (ordered, non-overlapping; a list's
items in ``.items``) and ``context_words(text, span)``. Chinese or mixed text is read by the
shared reader alone. For English it differs from the shared reader where binding needs the
value as written: dates and durations as written, a unit or counted noun with its number
("298K", "5 m/s", "3 tickets"), "Maroon 5" and "S&P 500" one name, "City, ST" one name with
its parts, amounts said as a loss marked ``falling``.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from datetime import datetime
from typing import Any

from nodes.planning.joined_spans import join_feet_inches, join_models, join_regions
from nodes.planning.name_spans import CONNECTORS, NOT_NAMES, add_span, is_free, scan_names
from nodes.planning.span_lists import group_lists
from nodes.planning.spoken_spans import (
    called_names,
    hour_range_starts,
    hours_of_the_day_said,
    phone_spans,
    said_lengths,
)
from stores.language import spans as shared_spans
from stores.language.cues import english_cue_words
from stores.language.keywords import STOPWORDS
from stores.language.places import PLACE_INTRODUCERS, place_written_lower
from stores.language.spans import Span
from stores.language.spans_numbers import CURRENCY_WORDS, find_word_numbers, is_ordinal
from stores.language.spans_text import find_quoted, is_region_name
from stores.language.units import unit_of

__all__ = ["RANGE_JOIN", "Span", "context_words", "extract_spans"]

_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
# Months said by their names (no abbreviations: "may", "mar" are words too).
MONTH_NAMES = frozenset(_MONTHS[:12])

# A URL ends before the sentence's own punctuation ("... from https://x.org/a.json?").
_URL = re.compile(r"\bhttps?://[^\s,;]+[^\s,;.)?!:'\"]|\bwww\.[^\s,;]+[^\s,;.)?!:'\"]", re.I)
# A domain name said bare ("example.org", "docs.python.org"): a common top-level domain ends it.
_DOMAIN = re.compile(
    r"(?<![\w@/.\-])(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)+"
    r"(?:com|org|net|io|dev|ai|app|edu|gov|info|co|uk|de|fr|jp|cn|in|ca|au|us|eu)(?![\w\-]|\.\w)"
)
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_PATH = re.compile(
    # (a sentence's period after a path is no part of it: "inside /home/ana/docs.")
    r"(?<![\w/])(?:~|\.{1,2})?/(?:[\w.\-]+/)*[\w.\-]*[\w\-]/?"
    # a drive's path ("C:/data/cars.csv", "D:\\reports\\q1.xlsx")
    r"|(?<![\w/\\])[A-Za-z]:[/\\](?:[\w.\-]+[/\\])*[\w.\-]*[\w\-][/\\]?"
    r"|\b[\w\-]+\.(?:txt|csv|json|py|md|pdf|png|jpe?g|xlsx|xml|ya?ml|log|html|docx?)\b"
)
# "repo acme/widgets", "torvalds/linux": a name with a slash inside, an owner and a name.
_SLASHED = re.compile(r"(?<![\w/.])[A-Za-z][\w.\-]*(?:/[\w.\-]*[A-Za-z0-9])+(?![\w/])")
def _quoted_pair(first: int) -> str:
    """A quoted key, a colon and a quoted value; its quotes are groups ``first`` and +2."""
    return (rf"(['\"])([A-Za-z_][\w .\-]{{0,30}})\{first}\s*:\s*"
            rf"(['\"])([^'\"\n]{{0,80}})\{first + 2}")


_QUOTED_PAIR = re.compile(_quoted_pair(1))
_QUOTED_PAIRS = re.compile(rf"{_quoted_pair(1)}(?:\s*,\s*{_quoted_pair(5)})*")
# ("X-Api-Key: abc123": a header's key is hyphenated)
_KEYVALUE = re.compile(
    r"(?<![\w\-])([A-Za-z_][\w.]*(?:-[A-Za-z0-9_]+)*)\s*(?:=|:)\s*(\"[^\"]*\"|'[^']*'|[^\s,;]+)"
)
_ISO_DATE = re.compile(
    r"\b\d{4}[-/]\d{2}[-/]\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?)?\b"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
    r"|\b\d{1,2}-\d{1,2}-\d{4}\b"  # "01-01-1980"
)
_MONTH_DATE = re.compile(
    r"\b\d{4}\s+(?:" + "|".join(_MONTHS) + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?\b"  # 2023 April 4th
    r"|\b(?:" + "|".join(_MONTHS) + r")(?:\.\s*|\.?\s+)\d{1,2}(?:st|nd|rd|th)?"
    r"(?:(?:,\s*|\s+)\d{4})?\b"  # "March 11, 2022", "Jun.20,2023"
    r"|\b(?:" + "|".join(m for m in _MONTHS[:12] if m != "may") + r")\d{1,2}(?:st|nd|rd|th)?"
    r"(?:(?:,\s*|\s+)\d{4})?\b"  # "June01 2023": the day written on to the month's name
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:" + "|".join(_MONTHS) + r")\.?"
    r"(?:(?:,\s*|\s+)\d{4})?\b",  # "15th October 2023", "15th October,2023"
    re.I,
)
# A day said relative to today ("tomorrow", "the day before yesterday", "next Friday",
# "last Monday"), kept as written: a parameter that asks for a date's format gets it resolved
# (:func:`nodes.planning.param_values.date_as_described`).
_RELATIVE_DAY = re.compile(
    r"\b(?:the\s+day\s+(?:after\s+tomorrow|before\s+yesterday)"
    r"|today(?!\s+is\b|'s\s+date)|tomorrow|yesterday"  # "today is Monday" tells, asks nothing
    r"|tonight|(?:next|last|this|coming|previous)\s+"
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
    # "today April 25th 2023": the date written out is the day; the word only says it.
    r"(?![\s,]+(?:the\s+)?(?:\d{4}-|\d{1,2}/|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:"
    + "|".join(_MONTHS) + r")\b|(?:" + "|".join(_MONTHS) + r")(?:\b|\d)))",
    re.I,
)
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)(?!\w)|\b\d{1,2}:\d{2}\b", re.I)
_MONEY = re.compile(
    # "$3m", "$2 million"; "$300,000 mortgage" has no scale
    r"(?:[$€£¥]\s?)(\d+(?:,\d{3})*(?:\.\d+)?)(?:\s*(k|m|million|billion|thousand)(?![A-Za-z]))?"
    r"|\b(\d+(?:,\d{3})*(?:\.\d+)?)\s*(?:dollars|usd|euros?|eur|pounds|gbp|yen|yuan|rmb)\b",
    re.I,
)
_PERCENT = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s+cent\b)", re.I)
_NUMBER = re.compile(
    r"(?<![\w.])[-−]?\d+(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\w.])[-−]?\d*\.?\d+(?:[eE][-+]?\d+)?"
    r"(?:\s*[x×*]\s*10\^[-+]?\d+|\^[-+]?\d+)?"
)
_UNIT_ATTACHED = re.compile(r"[A-Za-z°µΩ/²³^\d]*[A-Za-z°µΩ²³](?:\^\d+)?")
# "600 at-bats": a hyphenated word is one counted noun.
_UNIT_FOLLOWING = re.compile(
    r"\s+([A-Za-z°µΩ/²³]+(?:-[A-Za-z]+)*(?:\^\d+)?(?:/[A-Za-z²³^\d]+)?)"
)
# Words of arithmetic said between numbers, never a number's unit.
_OPERATORS = frozenset({"plus", "minus", "times", "divided", "over", "mod", "modulo"})
# The scale after "degrees": "degrees Fahrenheit" is one unit.
_DEGREE_SCALE = re.compile(r"\s+(celsius|fahrenheit|kelvin)\b", re.I)
_WORD = re.compile(r"[A-Za-z][\w'’\-.]*[\w]|[A-Za-z]|\d[\w.\-]*")
# "the next month", "the past decade", "the coming week": one of the unit ("last year" is a
# date, not read here).
_NEXT_UNIT = re.compile(
    r"\b(?:next|past|coming|upcoming)\s+"
    r"(second|minute|hour|day|night|week|month|quarter|year|decade|century)\b",
    re.I,
)
_IN_YEARS = {"decade": (10, "years"), "century": (100, "years")}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# A formula written with a power ("2x^2", "3x^2 + 2x - 1", "exp(-x^2)"): one value, in the
# notation of the functions' language ("**"). A single-letter variable stands alone; a
# power after a number's unit ("10 m^3", "m/s^2") is no formula.
_TERM = (
    r"(?:\d+(?:\.\d+)?(?:\s*\*\s*)?)?(?<![A-Za-z])[a-z](?![A-Za-z(])(?:\s*(?:\^|\*\*)\s*\d+)?"
    r"|\d+(?:\.\d+)?"
)
_PLAIN = rf"-?\s*(?:{_TERM})(?:\s*[-+*/]\s*(?:{_TERM}))*"
_CALL = rf"(?<![A-Za-z])[a-z]{{2,5}}\(\s*{_PLAIN}\s*\)(?:\s*(?:\^|\*\*)\s*\d+)?"
_EXPRESSION = re.compile(
    rf"(?:{_CALL}|{_TERM})(?:\s*[-+*/]\s*(?:{_CALL}|{_TERM}))*"
)
_SEASON = re.compile(r"(?<![\w\-/])((?:19|20)\d\d)[-–/](\d\d)(?![\w\-/])")
_MIXED_IDENTIFIER = re.compile(
    r"(?<![\w.\-/])(?=[\w\-]*[A-Za-z][\w\-]*?\d)[A-Za-z0-9][\w\-]+[A-Za-z0-9](?![\w\-])"
    r"|(?<![\w.\-/])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w\-])"  # your_dataset_name
)
# A house number, up to four capitalised words and a street word, then the capitalised parts
# (town, state, country) or postal codes after commas.
_STREET_WORDS = (
    "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Court|Ct|Place|Pl|"
    "Parkway|Pkwy|Highway|Hwy|Terrace|Circle|Square|Sq"
)
_STREET_ADDRESS = re.compile(
    # ("350 5th Ave": an ordinal is a street's name too)
    rf"(?<![\w.])\d{{1,6}}[A-Za-z]?\s+(?:(?:[A-Z][\w'\-]*\s+|\d{{1,3}}(?:st|nd|rd|th)\s+){{1,4}}"
    rf"(?:{_STREET_WORDS})\b\.?"
    # "my house located at 123 main street": written in lower case, the street's word whole
    r"|(?:(?!(?:the|a|an|of|per|down|up|along|on|in|to|from|by|and|or|my|our|your)\b)"
    r"[a-z][a-z'\-]*\s+){1,3}(?:street|avenue|road|boulevard|lane|drive|parkway|highway)\b)"
    # (", I can wait 10 minutes": the speaker, no part of the address)
    r"(?:,\s*(?:(?!I\b|I')[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,3}(?:\s+\d{5}(?:-\d{4})?)?"
    r"|\d{5}(?:-\d{4})?))*"
)
# Digits written as a code: grouped by hyphens ("1-523-1713-5704"), or with a leading zero
# ("0001067983"); and the word after "ID" ("project ID badae").
_DIGIT_CODE = re.compile(r"(?<![\w.\-/])(?:\d+(?:-\d+){2,}|0\d{3,})(?![\w\-/]|\.\d)")
# Upper-case letters and digits joined by slashes, with a letter and a digit ("2022/AL2562").
_SLASHED_CODE = re.compile(
    r"(?<![\w.\-/])(?=[A-Z0-9/]*[A-Z])(?=[A-Z0-9/]*\d)[A-Z0-9]+(?:/[A-Z0-9]+)+(?![\w\-/])"
)
_AFTER_ID = re.compile(r"\b(?:ID|Id|id)\b\s*[:#]?\s*([A-Za-z0-9][\w\-]*)")
_SCIENTIFIC = re.compile(r"\d+e[-+]?\d+")  # "1e5"; "6E123" is a flight, not 6 x 10^123
# A handle or a channel: "@nasa", "#general" (not an e-mail, not "#5", not "C#").
_TAGGED = re.compile(r"(?<![\w@#&.])[@#]([A-Za-z][\w\-]{1,38}[A-Za-z0-9])(?![\w@])")
_IDENTIFIER = re.compile(r"\b(?=[A-Za-z_\-]*\d)(?=\d*[A-Za-z_])[A-Za-z0-9][\w\-]{2,}\b")


# English words that give the amount after them a downward sign ("a loss of $1000").
_FALLING = frozenset(
    """loss losses lost lose losing deficit decrease decreased decline declined drop dropped
    fall fell fallen minus reduction""".split()
)
_AMOUNTS = frozenset({"number", "money", "percent"})


def _signed(text: str, span: Span) -> Span:
    """Mark an amount said as a loss or a fall (the two words before it, "by"/"of" skipped)."""
    if span.kind == "list":
        items = tuple(_signed(text, item) for item in span.items)
        return replace(span, items=items) if items != span.items else span
    if span.kind not in _AMOUNTS:
        return span
    before = [w.lower() for w in _WORD.findall(text[: span.start])][-3:]
    while before and before[-1] in {"of", "by", "a", "an", "the"}:
        before.pop()
    return replace(span, falling=True) if before and before[-1] in _FALLING else span



def _owner_and_name(raw: str) -> bool:
    """"acme/widgets", "torvalds/linux", "org/team/repo": not "and/or", "km/h", "yes/no"."""
    parts = raw.split("/")
    if any(unit_of(part) for part in parts):
        return False  # "miles/hour", "km/h": a rate's units
    # "true/false", "on/off": words offered as alternatives are short plain words
    marked = any(re.search(r"[\d_.\-]|[a-z][A-Z]", part) for part in parts)
    long_enough = len(parts) > 2 or min(len(p) for p in parts) >= 4
    alternatives = raw.lower() in {
        "either/or", "and/or", "true/false", "input/output", "read/write", "yes/no"
    }
    return marked or (long_enough and not alternatives)


def _number(raw: str) -> float:
    text = raw.replace(",", "").replace("−", "-").replace("×", "x").replace(" ", "")
    if "^" in text:
        if "x10^" in text or "*10^" in text:
            base, power = re.split(r"[x*]10\^", text)
            return float(base) * float(10 ** int(power))
        base, power = text.split("^")
        return float(float(base) ** int(power))
    value = float(text)
    if value.is_integer() and "." not in text and "e" not in text.lower():
        return int(value)
    return value



def _scan_atoms(text: str, now: datetime | None) -> list[Span]:
    spans: list[Span] = []
    taken: list[tuple[int, int]] = []
    quoted = list(find_quoted(text))
    # A literal whose strings are quoted ("{'math': 90, 'science': 75}") is one value, not
    # its quoted keys; brackets inside a quoted text stay that text's.
    for start, end in _bracketed(text):
        if any(q_start < start and end <= q_end for _, _, q_start, q_end in quoted):
            continue
        literal = _literal(text[start:end])
        if literal is not None and is_free(taken, start, end):
            add_span(spans, taken, Span("json", literal, text[start:end], start, end))
    # "'name':'John Doe', 'email':'jd@x.org'": quoted pairs said without braces are one
    # object (a pair alone is a key and its value).
    for run in _QUOTED_PAIRS.finditer(text):
        pairs = _QUOTED_PAIR.findall(run.group())
        if not is_free(taken, run.start(), run.end()):
            continue
        if len(pairs) == 1:
            _, key, _, value = pairs[0]
            add_span(spans, taken, Span("keyvalue", _scalar(value), run.group(), run.start(),
                                    run.end(), key=key))
        else:
            add_span(spans, taken, Span("json", {key: _scalar(value) for _, key, _, value in pairs},
                                    run.group(), run.start(), run.end()))
    for _, inner, start, end in quoted:
        if is_free(taken, start, end):
            add_span(spans, taken, Span("quoted", inner, text[start:end], start, end))
    for kind, pattern in (("url", _URL), ("email", _EMAIL), ("url", _DOMAIN)):
        for match in pattern.finditer(text):
            if is_free(taken, match.start(), match.end()):
                add_span(
                    spans,
                    taken,
                    Span(kind, match.group(), match.group(), match.start(), match.end()),
                )
    # "text +14155550123 saying ...", "for an hour and a half": numbers said as people say them
    for span in [*phone_spans(text), *said_lengths(text)]:
        if is_free(taken, span.start, span.end):
            add_span(spans, taken, span)
    _scan_expressions(text, spans, taken)
    for match in _KEYVALUE.finditer(text):
        if not is_free(taken, match.start(), match.end()):
            continue
        written = match.group(2)
        # "p = 0.3." ends a sentence: the stop is no part of the value.
        trimmed = written.rstrip(".?!)") if written[:1] not in "\"'" else written
        trimmed = trimmed or written
        end = match.end() - (len(written) - len(trimmed))
        raw = trimmed.strip("\"'")
        if match.group(0).count(":") and not re.search(r"\d|[\"']", written):
            continue  # "Note: the ..." is prose, not a pair
        if len(match.group(1)) == 1 and re.match(r":[/\\]", text[match.end(1):]):
            continue  # "E:\\reports\\q1.xlsx" is a drive's path
        if ":" in text[match.end(1) : match.start(2)] and re.match(
            r"\s*(?:,|and\b)\s*[^\s:=]+(?:\s*(?:,|and\b)|\s*$|[.?!])", text[end:]
        ) and not re.match(r"\s*,\s*[A-Za-z_][\w.]*\s*[:=]", text[end:]):
            continue  # "these: 3, 4, 5" opens a list; its first item is no pair's value
        add_span(
            spans,
            taken,
            Span(
                "keyvalue",
                _scalar(raw),
                text[match.start() : end],
                match.start(),
                end,
                key=match.group(1),
            ),
        )
    for match in _PATH.finditer(text):
        if is_free(taken, match.start(), match.end()) and (
            "/" in match.group() or "." in match.group() or "\\" in match.group()
        ):
            if re.fullmatch(r"\d+/\d+", match.group().strip("/")):
                continue
            add_span(
                spans, taken, Span("path", match.group(), match.group(), match.start(), match.end())
            )
    for match in _SLASHED.finditer(text):
        if is_free(taken, match.start(), match.end()) and _owner_and_name(match.group()):
            kind = "identifier" if is_region_name(match.group()) else "path"  # "Asia/Tokyo"
            raw = match.group()
            add_span(spans, taken, Span(kind, raw, raw, match.start(), match.end()))
    for kind, pattern in (
        ("date", _ISO_DATE), ("date", _MONTH_DATE), ("date", _RELATIVE_DAY), ("time", _TIME)
    ):
        for match in pattern.finditer(text):
            if is_free(taken, match.start(), match.end()):
                surface = match.group().strip()
                add_span(spans, taken, Span(kind, surface, surface, match.start(), match.end()))
    # "from 1 to 3 pm", "tonight at 8": hours said with the half of the day elsewhere
    for span in [*hour_range_starts(text), *hours_of_the_day_said(text)]:
        if is_free(taken, span.start, span.end):
            add_span(spans, taken, span)
    # "2020 Addison Street, Berkeley, CA, USA": a street address is one value, commas and all.
    for match in _STREET_ADDRESS.finditer(text):
        if is_free(taken, match.start(), match.end()):
            written = match.group()
            if re.search(r"[a-z]{3,}\.$", written):
                written = written[:-1]  # "to 42 Elm Street. Cash on delivery.": the sentence's
            add_span(spans, taken, Span("name", written, written, match.start(),
                                    match.start() + len(written)))
    for match in _MONEY.finditer(text):
        if not is_free(taken, match.start(), match.end()):
            continue
        raw = match.group(1) or match.group(3)
        value = _number(raw)
        scale = (match.group(2) or "").lower()
        value = value * {"k": 1000, "thousand": 1000, "m": 1e6, "million": 1e6, "billion": 1e9}.get(
            scale, 1
        )
        start = match.start()
        # "cash flows of -$100, $40": a minus before the currency sign (not "$5-$10", a range).
        if re.search(r"(?:^|[\s,(\[:])[-−]$", text[max(0, start - 2) : start]):
            value, start = -value, start - 1
        add_span(
            spans,
            taken,
            Span(
                "money",
                value,
                text[start : match.end()],
                start,
                match.end(),
                unit="USD" if "$" in match.group() else None,
            ),
        )
    for match in _PERCENT.finditer(text):
        if is_free(taken, match.start(), match.end()):
            add_span(
                spans,
                taken,
                Span(
                    "percent",
                    _number(match.group(1)),
                    match.group(),
                    match.start(),
                    match.end(),
                    unit="%",
                ),
            )
    # "3pak7", "ef903ac-893-f00", "AB1010CD": a token with a digit after a letter is an id,
    # read whole before numbers take its digits ("5kg" and "3pm" stay a number and a time).
    for match in (*_SLASHED_CODE.finditer(text), *_DIGIT_CODE.finditer(text)):
        measure = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z].*)", match.group())
        if measure is not None and unit_of(measure.group(2)) is not None:
            if is_free(taken, match.start(), match.end()):  # "5J/K": 5 joules per kelvin, no code
                add_span(spans, taken, Span("number", _number(measure.group(1)), match.group(),
                                        match.start(), match.end(), unit=measure.group(2)))
            continue
        if is_free(taken, match.start(), match.end()):
            add_span(spans, taken,
                 Span("identifier", match.group(), match.group(), match.start(), match.end()))
    for match in _TAGGED.finditer(text):
        # "@nasa", "#general": a handle or a channel; the sign is how it was written
        if is_free(taken, match.start(), match.end()):
            add_span(spans, taken, Span("identifier", match.group(1), match.group(1),
                                    *match.span(1)))
            taken.append(match.span())
    for match in _AFTER_ID.finditer(text):
        word = match.group(1)
        if (not word.isdigit() and word.lower() not in NOT_NAMES | CONNECTORS
                and is_free(taken, *match.span(1))):
            add_span(spans, taken, Span("identifier", word, word, *match.span(1)))
    for match in _SEASON.finditer(text):
        first, second = int(match.group(1)), int(match.group(2))
        if second == (first + 1) % 100 and is_free(taken, match.start(), match.end()):
            # "the 2023-24 season": one season, no range of years
            add_span(spans, taken, Span("identifier", match.group(), match.group(),
                                        match.start(), match.end()))
    for match in _MIXED_IDENTIFIER.finditer(text):
        if is_free(taken, match.start(), match.end()) and not _SCIENTIFIC.fullmatch(match.group()):
            add_span(spans, taken,
                 Span("identifier", match.group(), match.group(), match.start(), match.end()))
    scan_names(text, spans, taken)
    for span in called_names(text):  # "files named readme"
        if is_free(taken, span.start, span.end):
            add_span(spans, taken, span)
    for match in _NUMBER.finditer(text):
        if not is_free(taken, match.start(), match.end()):
            continue
        try:
            value = _number(match.group())
        except (ValueError, OverflowError):
            continue
        end = match.end()
        scale = re.match(r"\s*(hundred|thousand|million|billion|trillion)\b", text[end:], re.I)
        if scale:
            value = value * {"hundred": 100, "thousand": 1000, "million": 10**6,
                             "billion": 10**9, "trillion": 10**12}[scale.group(1).lower()]
            end += scale.end()
        unit = None
        attached = _UNIT_ATTACHED.match(text, end)
        if attached is not None and attached.group() == "k" and not scale:
            # "25k borrowed", "a 120k salary": thousands, written short ("298K" is kelvin)
            value, end = value * 1000, attached.end()
        elif attached and attached.group() and not text[end : end + 1].isspace():
            unit, end = attached.group(), attached.end()
        else:
            following = re.match(_UNIT_FOLLOWING, text[end:])
            if following and following.group(1).lower() not in NOT_NAMES | CONNECTORS | (
                STOPWORDS | _OPERATORS
            ):  # "from 1985 like new": "like" is no unit, "133 plus 34" no "plus"
                unit, end = following.group(1), end + following.end()
        scale_word = _DEGREE_SCALE.match(text, end) if unit in {"degree", "degrees"} else None
        if scale_word is not None:  # "72 degrees Fahrenheit": one unit, the scale's
            unit, end = scale_word.group(1).lower(), scale_word.end()
        add_span(
            spans,
            taken,
            Span("number", value, text[match.start() : end], match.start(), end, unit=unit),
        )
    # Number words are read by the shared reader ("twenty five", "a dozen", not the pronoun
    # "one", no ordinals); the binder adds the word after as the unit or counted noun.
    for hit in find_word_numbers(text):
        start, end = hit.start, hit.end
        written = text[start:end]
        if is_ordinal(written) or not is_free(taken, start, end) or written.lower() == "half":
            continue
        following = re.match(r"\s+([A-Za-z]+)", text[end:])
        unit = None
        if following and following.group(1).lower() not in NOT_NAMES | CONNECTORS:
            unit, end = following.group(1), end + following.end()
        currency = CURRENCY_WORDS.get(str(unit).lower()) if unit else None
        if currency is not None:
            # "twenty-five thousand dollars" is money, as "25000 dollars" is
            add_span(spans, taken, Span("money", hit.value, text[start:end], start, end,
                                        unit=currency))
            continue
        add_span(spans, taken, Span("number", hit.value, text[start:end], start, end, unit=unit))
    # "the next month" counts one month (a parameter counting months takes 1).
    for match in _NEXT_UNIT.finditer(text):
        if is_free(taken, match.start(), match.end()):
            # Decades and centuries in years: the unit tables have no decade.
            count, unit = _IN_YEARS.get(match.group(1).lower(), (1, match.group(1)))
            add_span(
                spans,
                taken,
                Span("number", count, match.group(), match.start(), match.end(), unit=unit),
            )
    for match in re.finditer(r"\b(true|false)\b", text, re.I):
        if is_free(taken, match.start(), match.end()):
            add_span(
                spans,
                taken,
                Span(
                    "boolean",
                    match.group().lower() == "true",
                    match.group(),
                    match.start(),
                    match.end(),
                ),
            )
    for match in _IDENTIFIER.finditer(text):
        if is_free(taken, match.start(), match.end()):
            add_span(
                spans,
                taken,
                Span("identifier", match.group(), match.group(), match.start(), match.end()),
            )
    _scan_lower_case_places(text, spans, taken)
    spans.sort(key=lambda s: s.start)
    return spans


def _scan_lower_case_places(text: str, spans: list[Span], taken: list[tuple[int, int]]) -> None:
    """Places written in lower case after a word that introduces one ("weather in boston").

    The place is spelt as its name is ("Boston", "New York"): a country, or a large city
    (:func:`stores.language.places.place_written_lower`).
    """
    words = list(re.finditer(r"[a-z][a-z'\-]*", text))
    index = 0
    while index < len(words):
        before = words[index - 1].group() if index else ""
        glued = index and not text[words[index - 1].end() : words[index].start()].strip()
        if before not in PLACE_INTRODUCERS or not glued:
            index += 1
            continue
        for width in (3, 2, 1):
            window = words[index : index + width]
            if len(window) < width or any(
                text[a.end() : b.start()] != " " for a, b in zip(window, window[1:], strict=False)
            ):
                continue
            start, end = window[0].start(), window[-1].end()
            if text[end : end + 1].isalnum() or not is_free(taken, start, end) or (
                window[0].group() in STOPWORDS or window[-1].group() in STOPWORDS
            ):
                continue
            place = place_written_lower(text[start:end])
            if place is not None:
                add_span(spans, taken, Span("name", place, text[start:end], start, end))
                index += width - 1
                break
        index += 1


def as_formula(written: str) -> str | None:
    """A formula written with a power, in "**" notation; None for anything else."""
    match = _EXPRESSION.fullmatch(written.strip())
    if match is None or not re.search(r"\^|\*\*", written):
        return None
    return re.sub(r"\s*\^\s*", "**", match.group())


def _scan_expressions(text: str, spans: list[Span], taken: list[tuple[int, int]]) -> None:
    """Formulas with a power ("2x^2 + 1"), quoted or not; the unit of a number is none."""
    for index, span in enumerate(spans):
        formula = as_formula(span.value) if span.kind == "quoted" else None
        if formula is not None:
            spans[index] = replace(span, kind="expression", value=formula)
    for match in _EXPRESSION.finditer(text):
        written = match.group().rstrip()
        start, end = match.start(), match.start() + len(written)
        before = text[:start]
        if (
            not re.search(r"\^|\*\*", written)
            or not is_free(taken, start, end)
            or re.search(r"(?:\d\s*|/)$", before)  # "10 m^3", "m/s^2": a unit
        ):
            continue
        formula = as_formula(written)
        if formula is not None:
            add_span(spans, taken, Span("expression", formula, written, start, end))



def _bracketed(text: str) -> list[tuple[int, int]]:
    """The outermost balanced ``[...]`` and ``{...}`` stretches of one line ("[ [1, 2], [3] ]")."""
    found: list[tuple[int, int]] = []
    stack: list[tuple[str, int]] = []
    pairs = {"]": "[", "}": "{"}
    for index, char in enumerate(text):
        if char == "\n":
            stack.clear()
        elif char in "[{":
            stack.append((char, index))
        elif char in pairs:
            if not stack or stack[-1][0] != pairs[char]:
                stack.clear()
                continue
            _, start = stack.pop()
            if not stack:
                found.append((start, index + 1))
    return found


def _literal(raw: str) -> Any:
    for parse in (json.loads, ast.literal_eval):
        try:
            return parse(raw)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _scalar(raw: str) -> Any:
    lowered = raw.lower()
    if lowered in {"true", "false"}:
        return lowered == "true"
    try:
        return _number(raw)
    except (ValueError, OverflowError):
        return raw




def is_relative_day(span: Span) -> bool:
    """Whether a span is a day said relative to today ("tonight", "next Friday")."""
    return span.kind == "date" and _RELATIVE_DAY.fullmatch(span.text) is not None


def extract_spans(text: str, *, now: datetime | None = None) -> list[Span]:
    """The typed spans of a text, ordered and non-overlapping; lists hold their items."""
    if _CJK.search(text):
        # Chinese or mixed: the shared span library reads Chinese numbers, dates and money.
        return shared_spans.extract_spans(text, now=now)
    atoms = join_feet_inches(text, join_models(text, _scan_atoms(text, now)))
    atoms = _share_range_year(text, join_regions(text, atoms))
    # "25 MPG": a unit's abbreviation read into its number is no name of its own as well
    # ("the 2019 Eredivisie" keeps its name).
    atoms = [a for a in atoms if a.kind != "name" or not a.text.isupper() or not any(
        other.kind == "number" and other.start <= a.start and a.end <= other.end
        for other in atoms)]
    return [_signed(text, span) for span in group_lists(text, atoms)]


_YEAR = re.compile(r"\b\d{4}\b")
RANGE_JOIN = re.compile(r"\s*(?:to|through|thru|until|till|and|-|–)\s*", re.I)


def _share_range_year(text: str, atoms: list[Span]) -> list[Span]:
    """Give a range's first date the year said once, after the second date.

    "April 3rd to April 5th 2023": the first date is of that year too, not a date of no year.
    """
    dates = sorted((a for a in atoms if a.kind == "date"), key=lambda a: a.start)
    shared: dict[int, Span] = {}
    for first, second in zip(dates, dates[1:], strict=False):
        if RANGE_JOIN.fullmatch(text[first.end : second.start]) is None:
            continue
        said_first, said_second = _YEAR.search(first.text), _YEAR.search(second.text)
        if said_second is not None and said_first is None and _MONTH_DATE.fullmatch(first.text):
            shared[id(first)] = replace(first, value=f"{first.value} {said_second.group()}")
        elif said_first is not None and said_second is None and _MONTH_DATE.fullmatch(
            second.text
        ):
            # "from 2023 April 4th to April 8th": the second date is of the first one's year.
            shared[id(second)] = replace(second, value=f"{second.value} {said_first.group()}")
    return [shared.get(id(atom), atom) for atom in atoms]


def context_words(text: str, span: Span, window: int = 4) -> tuple[list[str], list[str]]:
    """Up to ``window`` lower-cased words before and after a span (nearest last / first).

    The shared reader's words (:func:`stores.language.spans.context_words`: they stop at a
    quotation mark); Chinese words count as their English cue words.
    """
    before, after = shared_spans.context_words(text, span, window)
    if _CJK.search(text):
        before = english_cue_words(before, nearest_last=True)[-window:]
        after = english_cue_words(after, nearest_last=False)[:window]
    return before, after
