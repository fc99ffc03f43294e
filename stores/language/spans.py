"""Typed spans of a request: the values a user wrote, with their kind, value and offsets.

`extract_spans` reads numbers (with units), money, percentages, dates, times, durations, quoted
text, paths, URLs, e-mails, identifiers, ``key=value`` pairs, JSON literals, lists, proper
names and booleans from a request (English, Chinese or mixed) and returns them ordered by
start and non-overlapping; `context_words` gives the words around a span, for matching cue
words ("quantity", "数量") against parameters; `written_number` gives a numeric span's number
as written ("2 hours" → 2). The schema-driven binder assigns spans to parameters; nothing here
knows a domain (units, currencies, month and number words are language).

How overlaps are settled (stronger first): quoted text and JSON (the longer wins), URLs and
e-mails, paths, dates/times, identifiers, numbers; then a number takes the currency, ``%`` or
unit written next to it (money, percent, duration, a number with a unit); then names and
booleans fill what is left. Values the user quoted stay ``quoted`` whatever they contain (a
request wrapped in quotes as a whole is read inside).
Adjacent values of one kind joined by ``,``/``and``/``or``/``、`` become a ``list`` whose
``items`` are the item spans; ``key=value``, ``key: value`` and ``key is value`` become a
``keyvalue`` whose ``items`` hold the value's own span (when the value is one).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from stores.language.keywords import STOPWORDS
from stores.language.spans_dates import find_dates, stated_today
from stores.language.spans_numbers import (
    NumberHit,
    currency_before,
    find_chinese_numbers,
    find_compact_durations,
    find_digit_numbers,
    find_word_numbers,
    is_ordinal,
    percent_before,
    seconds_per_unit,
    tidy,
    unit_after,
)
from stores.language.spans_text import (
    Candidate,
    find_booleans,
    find_identifiers,
    find_json,
    find_names,
    find_quoted,
    find_urls_emails_paths,
)

SPAN_KINDS = (
    "number", "money", "percent", "date", "time", "datetime", "duration", "quoted", "path",
    "url", "email", "identifier", "keyvalue", "json", "list", "name", "boolean", "expression",
)  # fmt: skip


@dataclass(frozen=True)
class Span:
    """One typed value of a request.

    Attributes:
        kind: One of `SPAN_KINDS`.
        value: The typed value: int/float for numbers, float for money and percent (the
            number: "15%" is 15.0), ISO strings for dates ("YYYY-MM-DD"), times ("HH:MM") and
            datetimes, seconds for durations (an int when whole; `written_number` gives the
            count of the unit written), str for quoted text (without the quotes), paths, URLs,
            e-mails, identifiers and names, bool for booleans, the parsed dict/list for JSON,
            the list of item values for lists, the typed value for key/value pairs.
        text: The surface text exactly as in the request (``request[start:end]``).
        start: Offset of the first character in the request.
        end: Offset after the last character.
        unit: The unit written after a number, lower-case ("km", "hours", "%", "celsius"),
            the ISO code of money ("USD"), or a compass point of a coordinate ("n", "w"; south
            and west values are negative).
        key: For ``keyvalue``: the key as written.
        items: For ``list``: the item spans in order; for ``keyvalue``: the value's span; for
            a ``name`` written as place and region ("Tokyo, Japan"): the two names.
        falling: The amount was said as a loss or a fall ("a loss of $1000", "dropped by
            5%"): ``value`` is its size; a parameter described as possibly negative takes it
            negative. Set by the schema binder's reading of a request.
    """

    kind: str
    value: Any
    text: str
    start: int
    end: int
    unit: str | None = None
    key: str | None = None
    items: tuple[Span, ...] = ()
    falling: bool = False


def extract_spans(text: str, *, now: datetime | None = None) -> list[Span]:
    """Return the typed spans of ``text``, ordered by start and non-overlapping.

    Args:
        text: A request, in English, Chinese or both.
        now: The moment relative dates ("tomorrow", "next Monday", "in 3 days") count from;
            the current local time when None. A request that says which day is today
            ("Today is Friday 2023-09-29", "今天是2024年3月5日") counts from that day.

    Returns:
        The spans; a list's items live in its ``items``, a pair's value in the pair's.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    moment = stated_today(text) or now or datetime.now()
    strong = _resolve(
        text,
        [
            *((0, c) for c in find_quoted(text)),
            *((0, c) for c in find_json(text)),
            *((1 if c[0] != "path" else 2, c) for c in find_urls_emails_paths(text)),
            *((3, (d.kind, d.value, d.start, d.end)) for d in find_dates(text, moment)),
            *((3, c) for c in find_compact_durations(text)),
            *((4, c) for c in find_identifiers(text)),
            *((5, ("number", n.value, n.start, n.end)) for n in _numbers(text)),
        ],
        [],
    )
    occupied = _Occupied(strong)
    spans = _join_durations(text, [_with_units(text, span, occupied) for span in strong])
    spans = _resolve(
        text, [(6, c) for c in find_names(text)] + [(6, c) for c in find_booleans(text)], spans
    )
    spans = _group_lists(text, spans)
    return _pair_keys(text, spans)


def _numbers(text: str) -> Iterable[NumberHit]:
    yield from find_digit_numbers(text)
    yield from find_word_numbers(text)
    yield from find_chinese_numbers(text)


class _Occupied:
    """Non-overlapping spans sorted by start, with an overlap test in O(log n)."""

    def __init__(self, spans: Iterable[Span] = ()) -> None:
        self.starts: list[int] = []
        self.spans: list[Span] = []
        for span in spans:
            self.add(span)

    def overlaps(self, start: int, end: int) -> bool:
        # Only the last span starting before ``end`` can reach into [start, end).
        index = bisect.bisect_left(self.starts, end)
        return index > 0 and self.spans[index - 1].end > start

    def add(self, span: Span) -> None:
        index = bisect.bisect_left(self.starts, span.start)
        self.starts.insert(index, span.start)
        self.spans.insert(index, span)


def _resolve(text: str, candidates: list[tuple[int, Candidate]], kept: list[Span]) -> list[Span]:
    """Keep candidates by rank (then longer first) that overlap nothing kept before them."""
    accepted = _Occupied(kept)
    ranked = sorted(candidates, key=lambda rc: (rc[0], rc[1][2] - rc[1][3], rc[1][2]))
    for _, (kind, value, start, end) in ranked:
        if start >= end or accepted.overlaps(start, end):
            continue
        accepted.add(Span(kind, value, text[start:end], start, end))
    return accepted.spans


_COMPASS = re.compile(r"\s?°?\s?([NSEW])(?![A-Za-z0-9])")
_SCALE_AFTER = re.compile(
    r"[ \t]?(thousand|million|billion|k|m|b|bn)(?![A-Za-z])", re.IGNORECASE
)
_SCALE_VALUES = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "b": 1e9, "bn": 1e9,
}  # fmt: skip


def _with_units(text: str, span: Span, others: _Occupied) -> Span:
    """Give a number the currency, percent sign or unit written next to it."""
    if span.kind == "duration" and span.unit is None:
        # "1h30m": the last unit written is the unit.
        last_unit = re.search(r"[a-z]+$", span.text)
        return Span("duration", span.value, span.text, span.start, span.end,
                    last_unit.group() if last_unit else None)  # fmt: skip
    if span.kind != "number":
        return span

    def free(start: int, end: int) -> bool:
        return not others.overlaps(start, end)

    value = span.value
    start, end = span.start, span.end
    scale = _SCALE_AFTER.match(text, end)
    if scale is not None and free(end, scale.end()) and not span.text.isalpha():
        word = scale.group(1).lower()
        # "5m" is metres, "5 million" a scale: a one-letter scale counts right after a currency
        # ("$5k") or as a capital M or B written against the number ("1.5M users"); a capital
        # K is as often kelvin ("300K") as thousands, so it stays a plain number.
        capital = scale.group(1) in {"M", "B"} and scale.start(1) == end
        if len(word) > 2 or capital or currency_before(text, start) is not None:
            value = tidy(float(value) * _SCALE_VALUES[word])
            end = scale.end()
    currency = currency_before(text, start)
    if currency is not None and free(currency[1], start):
        return Span("money", float(value), text[currency[1] : end], currency[1], end,
                    unit=currency[0])  # fmt: skip
    percent_start = percent_before(text, start)
    if percent_start is not None and free(percent_start, start):
        return Span("percent", float(value), text[percent_start:end], percent_start, end, "%")
    heading = _COMPASS.match(text, end)
    if heading is not None and "." in span.text and free(end, heading.end()):
        # "37.8651 N, 119.5383 W": south and west are negative coordinates.
        letter = heading.group(1).upper()
        signed = -abs(value) if letter in "SW" else value
        return Span("number", signed, text[start : heading.end()], start, heading.end(),
                    unit=letter.lower())  # fmt: skip
    unit = None if is_ordinal(span.text) else unit_after(text, end)
    if unit is not None and free(end, unit.end):
        surface = text[start : unit.end]
        if unit.kind == "money":
            return Span("money", float(value), surface, start, unit.end, unit.unit)
        if unit.kind == "percent":
            return Span("percent", float(value), surface, start, unit.end, "%")
        if unit.kind == "duration":
            # Whole seconds as an int; "0.25 seconds" keeps its fraction.
            seconds = tidy(round(float(value) * unit.factor, 6))
            return Span("duration", seconds, surface, start, unit.end, unit.unit)
        return Span("number", value, surface, start, unit.end, unit.unit)
    return Span("number", value, text[start:end], start, end)


def written_number(span: Span) -> int | float | None:
    """The number as the user wrote it, or None for a span that is not a number.

    A duration's value is in seconds; this gives the count of its unit ("2 hours" → 2,
    "90 minutes" → 90). Numbers, money and percentages give their value, a pair its value's.
    """
    if span.kind == "keyvalue":
        return written_number(span.items[0]) if span.items else None
    if span.kind == "duration" and span.unit is not None:
        seconds = seconds_per_unit(span.unit)
        return tidy(span.value / seconds) if seconds else None
    if span.kind in {"number", "money", "percent"} and isinstance(span.value, int | float):
        return tidy(span.value) if isinstance(span.value, float) else span.value
    return None


_DURATION_GLUE = re.compile(r"\s*(?:and)?\s*")


def _join_durations(text: str, spans: list[Span]) -> list[Span]:
    """Join "1 hour 30 minutes", "2 hours and 15 minutes" into one duration.

    The unit is the last one written, so `written_number` counts it ("1 hour 30 minutes" is 90
    minutes).
    """
    out: list[Span] = []
    for span in spans:
        last = out[-1] if out else None
        if (
            last is not None
            and span.kind == last.kind == "duration"
            and seconds_per_unit(span.unit) < seconds_per_unit(last.unit)
            and _DURATION_GLUE.fullmatch(text, last.end, span.start)
        ):
            out[-1] = Span(
                "duration",
                tidy(last.value + span.value),
                text[last.start : span.end],
                last.start,
                span.end,
                span.unit,
            )
            continue
        out.append(span)
    return out


# --- lists ------------------------------------------------------------------------------------

_LISTABLE = frozenset(
    "number money percent date time datetime duration quoted path url email identifier name"
    " boolean".split()
)
_LIST_SEPARATOR = re.compile(
    r"^(?:\s*[,，、;；]\s*(?:(?:and|or|&)\s+)?|\s+(?:and|or|&)\s+|\s*[和及与或]\s*)$"
)
_BRACKET_BEFORE = re.compile(r"[\[(（【]\s*$")
_BRACKET_AFTER = re.compile(r"\s*[\])）】]")
_RANGE_LEADS = re.compile(r"(?:\bbetween|\bfrom|介于|从)\s*$", re.IGNORECASE)


def _compatible(first: Span, second: Span) -> bool:
    if first.kind != second.kind or first.kind not in _LISTABLE:
        return False
    return first.kind != "number" or first.unit == second.unit


def _group_lists(text: str, spans: list[Span]) -> list[Span]:
    """Join adjacent values of one kind ("Paris, London and Tokyo", "[1, 2, 3]") into lists."""
    out: list[Span] = []
    index = 0
    while index < len(spans):
        stop = index + 1
        while (
            stop < len(spans)
            and _compatible(spans[index], spans[stop])
            and _LIST_SEPARATOR.match(text[spans[stop - 1].end : spans[stop].start])
        ):
            stop += 1
        items = spans[index:stop]
        start, end = items[0].start, items[-1].end
        bracket_open = _BRACKET_BEFORE.search(text, max(0, start - 8), start)
        bracket_close = _BRACKET_AFTER.match(text, end)
        bracketed = bool(bracket_open and bracket_close)
        # A one-item bracket must hold exactly one value ("[5]"), not "(5 units)".
        if bracketed and len(items) == 1 and items[0].kind not in {"number", "quoted"}:
            bracketed = False
        if (
            len(items) == 2
            and _RANGE_LEADS.search(text, max(0, start - 12), start)
            and not bracketed
        ):
            # "between 3 and 5" is a range: two values, not a list.
            out.extend(items)
            index = stop
            continue
        if (
            len(items) == 2
            and items[0].kind == "name"
            and text[items[0].end : items[1].start] == ", "
        ):
            # "Riga, Latvia", "Naples, Florida": two names joined by a comma alone are a place
            # and its region; a list of two says "and" ("Paris and London").
            out.append(
                Span("name", text[start:end], text[start:end], start, end, items=tuple(items))
            )
            index = stop
            continue
        if len(items) >= 2 or bracketed:
            if bracketed and bracket_open is not None and bracket_close is not None:
                start = bracket_open.start()
                end = bracket_close.end()
            out.append(
                Span(
                    "list",
                    [s.value for s in items],
                    text[start:end],
                    start,
                    end,
                    unit=items[0].unit if items[0].kind == "number" else None,
                    items=tuple(items),
                )  # fmt: skip
            )
        else:
            out.extend(items)
        index = stop
    return out


# --- key/value pairs --------------------------------------------------------------------------

_KEY_EQUALS = re.compile(r"(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*$")
_KEY_COLON = re.compile(
    r"(?<![A-Za-z0-9_'’])((?:[A-Za-z][A-Za-z0-9_-]*[ \t]){0,1}[A-Za-z_][A-Za-z0-9_-]*"
    r"|[\u4e00-\u9fff]{1,6})[ \t]*[:：][ \t]*$"
)
_KEY_IS = re.compile(
    r"(?<![A-Za-z0-9_'’])((?:[A-Za-z][A-Za-z0-9_-]*[ \t]){0,1}[A-Za-z_][A-Za-z0-9_-]*)"
    r"[ \t]+(?:is|are|was|equals|=)[ \t]+$",
    re.IGNORECASE,
)
_RAW_VALUE_EQUALS = re.compile(r"""\s*=\s*("[^"]*"|'[^']*'|[^\s,;，；]+)""")
_RAW_VALUE_COLON = re.compile(r"\s*[:：]\s*([^\s,;，；:=]+)(?=\s*(?:$|[,;，；)\n]|\band\b))")
_RAW_KEY = re.compile(
    r"(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]*|[\u4e00-\u9fff]{1,6})(?=\s*[=:：])"
)
_IS_VALUE_KINDS = frozenset(
    "number money percent date time datetime duration quoted path url email identifier json"
    " list boolean name".split()
)


def _key_words(raw: str) -> str | None:
    """Drop function words from a written key ("the status" → "status"); None if nothing left."""
    words = raw.split()
    while words and words[0].lower() in STOPWORDS:
        words = words[1:]
    if not words or any(w.lower() in STOPWORDS for w in words):
        return None
    return " ".join(words)


def _pair_keys(text: str, spans: list[Span]) -> list[Span]:
    """Wrap values written after ``key=``, ``key:`` or ``key is`` into ``keyvalue`` spans."""
    out: list[Span] = []
    for span in spans:
        pair = _pair_for(text, span, out)
        if pair is None:
            out.append(span)
            continue
        while out and out[-1].end > pair.start:
            out.pop()  # the key's own words (a name "Status", an identifier "x1")
        out.append(pair)
    return _raw_pairs(text, out)


def _pair_for(text: str, span: Span, before: list[Span]) -> Span | None:
    if span.kind == "keyvalue":
        return None
    floor = before[-1].end if before else 0
    head = text[max(floor, span.start - 40) : span.start]
    offset = span.start - len(head)
    match = _KEY_EQUALS.search(head) or _KEY_COLON.search(head)
    if match is None and span.kind in _IS_VALUE_KINDS:
        match = _KEY_IS.search(head)
    if match is None:
        return None
    key = match.group(1).strip()
    if not key[:1].isascii():
        written: str | None = key
    elif "=" in match.group():
        written = key  # "a = 3": whatever stands before "=" is a key
    elif "_" in key:
        written = key if key.lower() not in STOPWORDS else None
    else:
        written = _key_words(key)
    if written is None:
        return None
    key_start = offset + match.start(1) + match.group(1).index(written)
    return Span("keyvalue", span.value, text[key_start : span.end], key_start, span.end,
                unit=span.unit, key=written, items=(span,))  # fmt: skip


def _raw_pairs(text: str, spans: list[Span]) -> list[Span]:
    """``status=shipped``, ``mode: fast``: pairs whose value is a plain word."""
    occupied = _Occupied(spans)
    for match in _RAW_KEY.finditer(text):
        key_start = match.start(1)
        value_match = _RAW_VALUE_EQUALS.match(text, match.end(1)) or _RAW_VALUE_COLON.match(
            text, match.end(1)
        )
        if value_match is None:
            continue
        end = value_match.end(1)
        if occupied.overlaps(key_start, end):
            continue
        key = match.group(1)
        if key.lower() in STOPWORDS or key.startswith(("http", "www")):
            continue
        raw = value_match.group(1)
        value: Any = raw[1:-1] if raw[:1] in "\"'" and len(raw) > 1 else raw
        occupied.add(Span("keyvalue", value, text[key_start:end], key_start, end, key=key))
    return occupied.spans


# --- context ----------------------------------------------------------------------------------

_ASCII_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# Quotation marks; an apostrophe between letters ("city's", "don't") is not one.
_QUOTE_MARK = re.compile(r"[\"“”‘`「」『』《》]|(?<![A-Za-z])['’]|['’](?![A-Za-z])")


def context_words(text: str, span: Span, window: int = 4) -> tuple[list[str], list[str]]:
    """Return the lower-cased words just before and just after ``span`` (``window`` each).

    The words stop at a quotation mark (a quoted value's words say nothing about the span);
    Chinese text is segmented with jieba ("数量是3" gives ``["数量", "是"]`` before 3).

    Args:
        text: The request the span was read from.
        span: A span of ``text``.
        window: How many words to take on each side.

    Returns:
        ``(before, after)``, each in reading order.
    """
    # A few words never need more than a few hundred characters of text.
    reach = 40 * max(window, 1) + 40
    before_text = text[max(0, span.start - reach) : span.start]
    after_text = text[span.end : span.end + reach]
    quotes_before = [m.end() for m in _QUOTE_MARK.finditer(before_text)]
    if quotes_before:
        before_text = before_text[quotes_before[-1] :]
    quote_after = _QUOTE_MARK.search(after_text)
    if quote_after is not None:
        after_text = after_text[: quote_after.start()]
    before = _word_tokens(before_text)
    after = _word_tokens(after_text)
    return before[-window:] if window > 0 else [], after[:window]


def _word_tokens(text: str) -> list[str]:
    if not _CJK.search(text):
        return [m.group().lower() for m in _ASCII_WORD.finditer(text)]
    from stores.language.spans_cjk import segment

    return [w.lower() for w in segment(text) if w.strip() and (w[0].isalnum())]
