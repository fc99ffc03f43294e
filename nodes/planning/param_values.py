"""A value as a parameter wants it: its JSON type, unit, date format, sign, and flags.

A span chosen for a parameter (:mod:`nodes.planning.schema_binder`) becomes the value the
schema asks for here (:func:`span_value`, :func:`coerce`); a boolean flag the request turns on
by naming it is read by :func:`flag_value`; what can be no value of its parameter (a
pronoun, a value outside an enum) is dropped by :func:`keep_possible_values`. How well a span
fits is :mod:`nodes.planning.param_fit`'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from nodes.planning.descriptions import asks_date_form
from nodes.planning.param_fit import (
    Param,
    _word_match,
    measured_units,
    phone_digits,
    quoted_number,
    whole_hour,
    written_short,
)
from nodes.planning.request_spans import Span
from nodes.planning.value_cues import head_word
from stores.language.codes import value_as_described, zone_can_be
from stores.language.date_formats import date_as_described as described_date
from stores.language.date_formats import datetime_as_described, parse_written_date
from stores.language.date_formats import time_as_described as described_time
from stores.language.identifiers import singular, split_words
from stores.language.keywords import STOPWORDS, lemmatize
from stores.language.spans_dates import find_dates
from stores.language.units import convert


def span_value(span: Span, param: Param) -> Any:
    """A span's value for a parameter (a percentage is a fraction unless it says percent).

    "5%" is 0.05 for "the annual interest rate", and 5 for "the yield as a percentage".
    """
    if span.kind == "percent" and param.kind == "number" and isinstance(span.value, int | float):
        # "tip_percent", "the yield as a percentage": the number said stays the number
        said = " ".join([*param.description_words, *param.name_words])
        if "percent" not in said and "percentage" not in said and "pct" not in said:
            return round(float(span.value) / 100, 10)
    digits = phone_digits(span) if param.kind in {"integer", "number"} else None
    if digits is not None:
        return digits if param.kind == "integer" else float(digits)
    hour = whole_hour(span, param) if param.kind == "integer" else None
    if hour is not None:
        return hour  # "11 PM" for a closing hour in 24 hour format
    described = date_as_described(span, param)
    if described is not None:
        return described
    short = written_short(span, param)
    if short is not None:
        return short  # "in the last 2 hours" for "Look-back window, e.g. '15m', '2h'": "2h"
    units = measured_units(span, param)
    if units is not None and isinstance(span.value, int | float) and units[0] != units[1]:
        converted = convert(float(span.value), *units)  # "5000 m" for "the distance in km"
        if converted is not None:
            return coerce(round(converted, 10), param)
    if param.kind == "string" and span.kind == "number" and span.text[:1].isalpha():
        return span.text  # "next month" as said, not the 1 it counts
    value = coerce(span.value, param)
    if span.falling and _signed_param(param) and isinstance(value, int | float):
        return -abs(value)  # "a loss of $1000" for "the amount gained or lost, negative if lost"
    if _SOUTH_OR_WEST.fullmatch(span.unit or "") and param.name_words & _COORDINATES and (
        isinstance(value, int | float)
    ):
        return -abs(value)  # "119.5383 W" is a longitude of -119.5383
    return value


# A coordinate said with its hemisphere: south and west are negative degrees.
_SOUTH_OR_WEST = re.compile(r"[SW]|(?i:south|west)")
_COORDINATES = frozenset({"lat", "latitude", "lon", "lng", "long", "longitude", "coordinate"})


def _signed_param(param: Param) -> bool:
    """Whether the parameter's description says a value of it can be negative."""
    description = str(param.schema.get("description") or "").lower()
    return re.search(r"\bnegative", description) is not None


def date_as_described(span: Span, param: Param) -> str | None:
    """A date or time in the format the parameter's description asks ("MM-DD-YYYY", "HH:MM").

    Without a format in the description a whole date of a parameter named for a date is
    written the ISO way; any other stays as the user wrote it.
    """
    if span.kind == "time" and isinstance(span.value, str):
        return described_time(span.value, str(param.schema.get("description") or ""))
    if span.kind != "date" or not isinstance(span.value, str):
        return None
    description = str(param.schema.get("description") or "")
    described = described_date(span.value, description)
    if described is None and asks_date_form(param.schema):
        # "yesterday", "next Friday", "March 3rd" for "Day, YYYY-MM-DD": the day it is
        # from today, in that form.
        day = calendar_day(span.value)
        described = None if day is None else described_date(day, description) or day
    if described is None and "date" in param.name_words:
        # A date parameter that names no format takes the ISO form of a whole date
        # ("June 30th 2023" -> "2023-06-30"); a date of no year stays as written.
        written = parse_written_date(span.value)
        return None if written is None else written.isoformat()
    return described


def calendar_day(written: str, now: datetime | None = None) -> str | None:
    """The ISO date a written day is, counted from ``now`` (the present moment by default).

    "2023-06-30", "July 10, 2022", "tomorrow", "next Friday", "March 3rd" (a day of no year
    is its next occurrence); None for anything else.
    """
    whole = parse_written_date(written)
    if whole is not None:
        return whole.isoformat()
    hits = find_dates(written.strip(), now or datetime.now())
    if len(hits) == 1 and hits[0].kind == "date" and hits[0].end - hits[0].start == len(
        written.strip()
    ):
        return hits[0].value
    return None


def coerce(value: Any, param: Param) -> Any:
    """A span's value in the parameter's JSON type."""
    kind = param.item_kind if param.kind == "array" else param.kind
    if kind in {"integer", "number"} and isinstance(value, str):
        number = quoted_number(value)
        value = value if number is None else number
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "number" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "string" and not isinstance(value, str):
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        return str(value)
    if kind == "string" and isinstance(value, str):
        # "Berkeley, California" for "in the format 'City, State (abbr)'".
        return value_as_described(value, str(param.schema.get("description") or "")) or value
    return value


_NEGATIONS = frozenset({"no", "not", "without", "don't", "dont", "exclude", "excluding", "never"})
# Words of a flag's name that only say it is a flag ("include_", "is_", "use_").
_FLAG_WORDS = frozenset(
    """include is use get show with enable enabled has should want return flag consider fetch
    add apply need""".split()
)


def _same_stem(word: str, other: str) -> bool:
    """Two forms of one word ("standardize", "standardization"): a long common start."""
    shorter = min(len(word), len(other))
    if shorter < 6:
        return False
    common = 0
    for a, b in zip(word, other, strict=False):
        if a != b:
            break
        common += 1
    return common >= max(6, shorter - 2)


def flag_option(param: Param) -> dict[bool, Any] | None:
    """The options of a flag written as a string enum ('True'/'False'/'dontcare'), by truth.

    None when the enum does not hold both a true and a false word.
    """
    truths: dict[bool, Any] = {}
    for option in param.enum:
        word = str(option).strip().lower()
        if word in {"true", "yes"}:
            truths.setdefault(True, option)
        elif word in {"false", "no"}:
            truths.setdefault(False, option)
    return truths if len(truths) == 2 else None


_SWITCH_NAMES = frozenset({"enable", "enabled", "active", "activate", "on", "state", "toggle"})
_TURNED = re.compile(
    r"\b(?:turn|switch|put|flip)(?:ed|ing)?\s+(?:(?!on\b|off\b)[\w'\-]+\s+){0,4}?(on|off)\b"
    r"|\b(enable|activate|disable|deactivate)",
    re.I,
)


def switched(text: str) -> bool | None:
    """Whether the request turns something on (True) or off (False); None when neither."""
    found = _TURNED.search(text)
    if found is None:
        return None
    word = (found.group(1) or found.group(2)).lower()
    return word in {"on", "enable", "activate"}


def flag_value(text: str, param: Param) -> bool | None:
    """A boolean flag the request turns on by naming it ("including human impact")."""
    words = {w for w in param.name_words if w not in _FLAG_WORDS}
    if not words:
        # "enabled", "is_active": a switch the request turns on or off ("turn on do not
        # disturb", "disable the alarm"); a parameter named just "on" has no content word
        named = param.name_words | {param.name.lower().strip("_")}
        return switched(text) if named & _SWITCH_NAMES else None
    raw = [w.lower() for w in re.findall(r"[A-Za-z][\w']*", text)]
    said = [lemmatize(singular(w)) for w in raw]
    positions = []
    for word in words:
        hits = [i for i, w in enumerate(said) if _word_match(w, {word}) or _same_stem(w, word)]
        if hits:
            positions.append(hits[0])
        elif not param.required:
            # "no need to notify anyone" for notifyAttendees: the flag's verb, said negated,
            # turns it off even when its object goes unsaid
            verb = split_words(param.name)[0].lower() if split_words(param.name) else ""
            turned = [i for i, w in enumerate(said) if w == lemmatize(verb) and len(verb) > 3]
            if turned and set(raw[max(0, turned[0] - 3) : turned[0]]) & _NEGATIONS:
                return False
            return None
    if not positions:
        return None  # a required flag still needs one word of its name said
    first = min(positions)
    # "don't include X", "send no invite": a negation before the flag's words or among them
    before = set(raw[max(0, first - 3) : max(positions)])
    return not (before & _NEGATIONS)


# "Print in color; false for black and white": the description says which truth a phrase is.
_TRUTH_FOR = re.compile(
    r"\b(true|false)\s+(?:for|if|when|means)\s+([a-z][a-z\- ]*[a-z])", re.I
)


def described_flag(text: str, param: Param) -> bool | None:
    """A flag the request sets by saying what its description says it does, or None.

    "double sided" for ``duplex`` ("Print double-sided"): two words the description says
    together, said together (not after a negation: "no double sided" is False); "black and
    white" for ``color`` ("Print in color; false for black and white"): the phrase the
    description gives a truth for.
    """
    description = str(param.schema.get("description") or "")
    low = " ".join(re.findall(r"[a-z0-9']+", text.lower()))
    for truth, phrase in _TRUTH_FOR.findall(description):
        if re.search(rf"\b{re.escape(' '.join(str(phrase).lower().split()))}\b", low):
            return str(truth).lower() == "true"
    content = [lemmatize(singular(w)) for w in re.findall(r"[a-z]+", description.lower())
               if w not in STOPWORDS]
    pairs = set(zip(content, content[1:], strict=False))
    said = re.findall(r"[A-Za-z][\w']*", text)
    words = [(i, lemmatize(singular(w.lower()))) for i, w in enumerate(said)
             if w.lower() not in STOPWORDS]
    for (i, first), (j, second) in zip(words, words[1:], strict=False):
        if j - i <= 2 and (first, second) in pairs and first != second:
            before = {w.lower() for w in said[max(0, i - 3) : i]}
            return not (before & _NEGATIONS)
    return None


# "gas-powered", "coal-fired", "plant-based": a kind said as what a thing runs on or is made
# from, with the noun after it or not.
_POWERED_BY = re.compile(
    r"([a-z]+)-(?:powered|fueled|fuelled|fired|driven|based|operated)(?:\s+[a-z]+)?"
)
_KIND_WORDS = frozenset({"type", "kind", "category", "class"})


def without_own_noun(value: Any, param: Param) -> Any:
    """A lower-case phrase less the parameter's own noun after it: "single room" for room_type.

    The noun that names what the parameter qualifies is its cue, the words before it the
    value; a value of the noun the name is headed by keeps it ("living room" for room). A name
    ("Plaza Hotel" for hotel_name) keeps every word: its capitals say the noun is its own.
    """
    if param.kind != "string" or param.enum or not isinstance(value, str):
        return value
    compound = _POWERED_BY.fullmatch(value)
    if compound is not None and {w.lower() for w in split_words(param.name)} & _KIND_WORDS:
        # "a gas-fueled car" for fuel_type, "gas-powered" for vehicle_type: what it runs on
        return compound.group(1)
    words = value.split()
    if len(words) >= 2 and words[0].islower() and words[1][:1].isupper() \
            and lemmatize(singular(words[0])) in param.name_words:
        return " ".join(words[1:])  # "the song Yesterday" for song_title: the song's name
    if len(words) < 2 or value != value.lower() or not re.fullmatch(r"[a-z][a-z\- ]*", value):
        return value
    noun = lemmatize(singular(words[-1]))
    if noun in param.name_words and noun != head_word(param.name):
        return " ".join(words[:-1])  # the room of room_type; a "living room" is a room
    # "Genre of music": the noun the description says the value is a kind of.
    kind_of = re.search(rf"\b{re.escape(head_word(param.name))}s?\s+of\s+(?:the\s+)?([a-z]+)",
                        str(param.schema.get("description") or ""), re.I)
    if kind_of is not None and lemmatize(singular(kind_of.group(1).lower())) == noun:
        return " ".join(words[:-1])
    return value


def with_range(text: str, value: Any, param: Param) -> Any:
    """A number given to a free-text parameter, whole with the range it starts ("2019-2020").

    "the 2019-2020 season" is read as two numbers, but a ``season`` written as text is the
    range as said; numeric parameters keep taking the ends one by one.
    """
    if param.kind != "string" or param.enum or not isinstance(value, str) or not value.isdigit():
        return value
    ranges = re.findall(rf"(?<![\w.\-]){value}\s?[-–/]\s?\d{{2,4}}(?![\w.\-])", text)
    return ranges[0] if len(set(ranges)) == 1 else value


# "Default is true", "defaults to 'NYSE'", "default value: 52": what a description gives by
# default, quoted or as one word.
_STATED_DEFAULT = re.compile(
    r"\bdefaults?(?:\s+value)?\s*(?:is|to|:|=)?\s*(?:set\s+to\s+)?"
    r"(?:'(?P<single>[^'\n]{1,40})'|\"(?P<double>[^\"\n]{1,40})\"|(?P<word>[^\s,;()]+))",
    re.I,
)
# Words that say a default is an absence or something the call works out, no value to send.
_NO_VALUE = frozenset(
    "none null nil not no empty blank unspecified unset the a an current all any if set".split()
)


def stated_default(schema: Any) -> tuple[bool, Any]:
    """The value a parameter takes when none is given: ``(True, value)``, or ``(False, None)``.

    The JSON schema's ``default`` first, else the one the description states ("Default is
    true", "defaults to 'NYSE'"), read as the parameter's type: a boolean word, a number, a
    quoted string or one word. An absence ("Default to 'None'"), a phrase ("Default is the
    current date") or a value of the wrong type ("Default is five" for an integer) is none.
    """
    if not isinstance(schema, dict):
        return False, None
    if "default" in schema and schema["default"] is not None:
        return True, schema["default"]
    match = _STATED_DEFAULT.search(str(schema.get("description") or ""))
    if match is None:
        return False, None
    written = (match.group("single") or match.group("double") or match.group("word") or "")
    written = written.strip().rstrip(".")
    if not written or written.lower() in _NO_VALUE:
        return False, None
    kind = schema.get("type")
    if kind == "boolean":
        flag = {"true": True, "false": False}.get(written.lower())
        return (flag is not None), flag
    if kind in {"integer", "number"}:
        try:
            number = float(written)
        except ValueError:
            return False, None
        if kind == "integer":
            return number.is_integer(), int(number) if number.is_integer() else None
        return True, number
    if kind == "string" and (match.group("word") is None or written.isalnum() or "_" in written):
        return True, written
    return False, None


def with_time_of_day(text: str, spans: Sequence[Span], value: Any, param: Param) -> Any:
    """A date or time the request says together ("November 1, 2023 at 4pm") as one datetime.

    For a parameter whose description asks for a date and time in one ISO-8601 value; the
    value bound is the date or the time, the other is the span right beside it.
    """
    description = str(param.schema.get("description") or "")
    if not isinstance(value, str) or ("T" not in description and "8601" not in description):
        return value
    ordered = sorted((s for s in spans if s.kind in {"date", "time"}), key=lambda s: s.start)
    for day, clock in zip(ordered, ordered[1:], strict=False):
        if day.kind != "date" or clock.kind != "time":
            continue
        said_day = calendar_day(str(day.value)) or str(day.value)  # "Friday at 8pm"
        if value not in {day.value, said_day, clock.value}:
            continue
        if re.fullmatch(r"\s*,?\s*(?:at\s+)?", text[day.end : clock.start], re.I):
            return datetime_as_described(said_day, str(clock.value), description) or value
    days = [s for s in ordered if s.kind == "date"]
    clocks = [s for s in ordered if s.kind == "time"]
    if len(days) == 1 and len(clocks) == 1:
        # "the 7:30pm show on March 9 2024": the one day and the one time said, apart
        said_day = calendar_day(str(days[0].value)) or str(days[0].value)
        if value in {days[0].value, said_day, clocks[0].value}:
            return datetime_as_described(said_day, str(clocks[0].value), description) or value
    return value


# Words that point at what was said elsewhere and are never a value themselves.
_POINTING = frozenset({"it", "this", "that", "them", "these", "those", "its", "they"})


def keep_possible_values(values: dict[str, list[Any]], params: Sequence[Param]) -> None:
    """Drop the values bound that can be none of their parameter's (:mod:`schema_binder`'s end).

    A pronoun or a word naming no time zone for text (:func:`_keep_zone_values`), a value
    outside an enum's (:func:`_keep_enum_values`).
    """
    _keep_zone_values(values, params)
    _keep_enum_values(values, params)


def _keep_zone_values(values: dict[str, list[Any]], params: Sequence[Param]) -> None:
    """Drop what a text parameter was given that can be no value of it.

    A pronoun ("Search the web for it": what "it" is, another clause said), and for a
    parameter asking for an IANA time zone, a word that names none
    (:func:`~stores.language.codes.zone_can_be`: "local" read near "local timezone").
    """
    for param in params:
        if param.kind != "string" or param.name not in values:
            continue
        described = str(param.schema.get("description") or "")
        kept = [value for value in values[param.name]
                if not isinstance(value, str)
                or (value.lower() not in _POINTING and zone_can_be(value, described))]
        if kept:
            values[param.name] = kept
        else:
            del values[param.name]


def _keep_enum_values(values: dict[str, list[Any]], params: Sequence[Param]) -> None:
    """Drop what an enum parameter was given outside its values (the schema would refuse it)."""
    for param in params:
        if not param.enum or param.name not in values:
            continue
        allowed = [*param.enum, *(coerce(option, param) for option in param.enum)]
        kept = [value for value in values[param.name] if _among(value, allowed)]
        if kept:
            values[param.name] = kept
        else:
            del values[param.name]


def _among(value: Any, allowed: Sequence[Any]) -> bool:
    """Whether a value (every item of a list) is one of the allowed ones."""
    if isinstance(value, list):
        return all(_among(item, allowed) for item in value)
    return value in allowed
