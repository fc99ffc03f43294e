"""How well a value of the request fits a tool parameter: the parameter model and its scores.

Each parameter is read from its schema alone (:class:`Param`: the words of its name, its type,
enum or the values its description lists, description words); a typed span scores against it
by type fit (:func:`type_fit`) and by the cue words beside it (:func:`cue_score`); enum values
and a lower-case value after the parameter's name are found in the text. A span's value as the
parameter wants it, and flags, are :mod:`nodes.planning.param_values`'s; the assignment of spans
to parameters is :mod:`nodes.planning.schema_binder`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rapidfuzz import fuzz

from nodes.planning.descriptions import (
    allowed_values,
    asks_clock_form,
    asks_date_form,
    counted_phrase,
    counted_unit,
    describes_count,
    stranded_preposition,
)
from nodes.planning.name_spans import DAY_NAMES
from nodes.planning.request_spans import (
    MONTH_NAMES,
    Span,
    context_words,
    is_relative_day,
)
from nodes.planning.said_forms import (
    ROUTE_CUE,
    TRIP_END_LIFT,
    trip_end_of,
    written_as_described,
    written_in,
)
from nodes.planning.value_cues import (
    bound_side,
    head_word,
    name_said_before,
    own_words_before,
    range_end,
)
from nodes.planning.value_forms import (
    FORM_FIT,
    OTHER_FORM_FIT,
    holds_files,
    named_by_verb,
    short_duration,
    written_form,
)
from stores.language.codes import CodeKind, codes_of, is_country_code
from stores.language.cues import english_words_of
from stores.language.date_formats import time_as_described
from stores.language.identifiers import (
    identifier_base,
    is_identifier_name,
    singular,
    split_words,
)
from stores.language.keywords import STOPWORDS, lemmatize
from stores.language.places import country_of_city
from stores.language.spans_numbers import DURATION_UNITS
from stores.language.units import (
    convert,
    measures_named,
    same_dimension,
    stated_unit,
    unit_of,
)

NAME_CUE = 1.0
DESCRIPTION_CUE = 0.45
UNIT_CUE = 0.6
# A measure in a unit of what the parameter's description measures ("3m" for "in meters").
STATED_UNIT_CUE = 0.4
PLACE_CUE = 0.9
# A name that says what it is ("Hotel Paradise") outweighs a preposition of place before it.
SELF_CUE = 1.0
YEAR_CUE = 0.8
# Below this a cue is no evidence for an optional parameter.
STRONG_CUE = 0.7
FUZZY_WORD = 88
# Words too common in parameter descriptions to say anything about a value.
_WEAK = frozenset(
    """the a an of to in for is be it this that which value given specified default type
    float integer int string number list array object optional required parameter name
    whether if use used format e g ie etc by on at with from as and or not its their many much
    including""".split()
)


@dataclass(frozen=True)
class Param:
    """One parameter as the binder reads its schema."""

    name: str
    schema: Mapping[str, Any]
    required: bool
    position: int
    kind: str
    item_kind: str
    enum: tuple[Any, ...]
    allowed: tuple[str, ...]
    name_words: frozenset[str]
    description_words: frozenset[str]
    identifier: bool = False
    closed: bool = False


def _kind_of(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None:
        for option in schema.get("anyOf") or schema.get("oneOf") or []:
            if isinstance(option, Mapping) and option.get("type") not in (None, "null"):
                return _kind_of(option)
        return "any"
    return str(kind)


def content_words(text: str) -> set[str]:
    """Lemmatised, singular content words of a text (names split into words)."""
    words: set[str] = set()
    # Chinese words count as their English cue words (data/cues.yaml): "文件" as path, file.
    for raw in [*re.findall(r"[A-Za-z][A-Za-z0-9_]*", text), *english_words_of(text)]:
        for word in split_words(raw):
            if len(word) < 2 or word in STOPWORDS or word in _WEAK or word.isdigit():
                continue
            base = lemmatize(singular(word))
            # "movies" loses its "e" ("movy") where "movie" keeps it: one form for both.
            words.add(base[:-2] + "y" if len(base) > 4 and base.endswith("ie") else base)
    return words


def name_words(name: str) -> set[str]:
    """:func:`content_words` of a tool's or parameter's name ("math.gcd": math, gcd)."""
    return content_words(name.replace(".", " "))


def describe_params(schema: Mapping[str, Any]) -> list[Param]:
    """The parameters of a JSON Schema object, as the binder reads them."""
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    params = []
    for position, (name, prop) in enumerate(properties.items()):
        prop = prop if isinstance(prop, Mapping) else {}
        kind = _kind_of(prop)
        items = prop.get("items") if isinstance(prop.get("items"), Mapping) else {}
        description = str(prop.get("description") or "")
        # An array of enum items ("rating", "player count") is chosen from like an enum.
        enum = tuple(prop.get("enum") or (items or {}).get("enum") or ())
        allowed: tuple[str, ...] = ()
        closed = False
        if not enum and (kind == "string" or _kind_of(items or {}) == "string"):
            allowed, closed = allowed_values(description)
        params.append(
            Param(
                name=name,
                schema=prop,
                required=name in required,
                position=position,
                kind=kind,
                item_kind=_kind_of(items) if items else "any",
                enum=enum,
                allowed=allowed,
                name_words=frozenset(name_words(name)),
                description_words=frozenset(content_words(description)),
                identifier=is_identifier_name(name) and bool(identifier_base(name))
                and not (kind == "integer" and describes_count(description)),
                closed=closed,
            )
        )
    return params


_PLACE_PREPOSITIONS = frozenset({"in", "at", "near", "around", "within"})
_TIMES_NAMED = DAY_NAMES | MONTH_NAMES
# Words by which a parameter is named for a language.
LANGUAGE_NAMES = frozenset({"language", "lang", "locale"})
_PERCENT_NAMES = frozenset({"percent", "percentage", "pct"})
_TRANSLATION_ENDS = {
    "from": frozenset({"source", "from", "original", "input"}),
    "to": frozenset({"target", "to", "destination", "output"}),
    "into": frozenset({"target", "to", "destination", "output"}),
}
# Words by which a parameter's schema says it holds a place.
_PLACE_WORDS = frozenset(
    {"location", "city", "place", "address", "region", "country", "area", "town", "destination"}
)
# Words by which a schema says a parameter holds a place or a part of one (a state).
_PLACE_PARTS = _PLACE_WORDS | {"state", "province", "county", "origin"}


def is_place_param(param: Param) -> bool:
    """A parameter whose name or description says it holds a place or a part of one."""
    return bool((param.name_words | param.description_words) & _PLACE_PARTS)


# ------------------------------------------------------------------------------ scores
DATE_WORDS = frozenset({"date", "day", "time", "when", "datetime", "deadline", "month"})


# Words by which a parameter's name says it holds money.
_MONEY_NAMES = frozenset(
    {"price", "cost", "fee", "budget", "salary", "income", "fare", "rent", "wage", "payment"}
)


def _numeric_fit(kind: str, value: Any) -> float:
    if kind == "integer":
        return 1.0 if isinstance(value, int | float) and float(value).is_integer() else 0.0
    return 1.0 if kind in {"number", "any"} else 0.35 if kind == "string" else 0.0


def measured_units(span: Span, param: Param) -> tuple[Any, Any] | None:
    """The unit a number was said in and the unit its parameter states, when both are known."""
    if span.kind != "number" or not span.unit:
        return None
    description = str(param.schema.get("description") or "")
    target = (stated_unit(description) or counted_unit(description) or _named_unit(param.name)
              or _opening_unit(description))
    if target is None:
        return None
    source = unit_of(span.unit)
    return None if source is None else (source, target)


def phone_digits(span: Span) -> int | None:
    """The digits of a telephone number said with a "+" or dashes, as one number."""
    if span.kind != "identifier" or not re.fullmatch(r"\+?[\d\s\-().]{7,}", span.text):
        return None
    digits = re.sub(r"\D", "", span.text)
    return int(digits) if 7 <= len(digits) <= 15 else None


_OPENING_UNIT = re.compile(r"\s*([A-Za-z]{4,}s)\s+(?:to|before|after|until|between|for)\b")


def _opening_unit(description: str) -> Any | None:
    """The unit a description opens with: "Seconds to wait before killing" (seconds)."""
    opening = _OPENING_UNIT.match(description)
    return None if opening is None else unit_of(opening.group(1))


@lru_cache(maxsize=2048)
def _named_unit(name: str) -> Any | None:
    """The unit a parameter's name ends with, in the plural: "duration_minutes".

    (A singular word names what is counted: "till_century" is a century's number.)
    """
    words = split_words(name)
    last = words[-1].lower() if len(words) > 1 else ""
    return unit_of(last) if len(last) >= 4 and last.endswith("s") else None


def measures_alike(span: Span, param: Param) -> bool:
    """The span's unit measures what the parameter's description states or counts."""
    units = measured_units(span, param)
    return units is not None and same_dimension(*units)


def whole_hour(span: Span, param: Param) -> int | None:
    """The hour (0-23) a clock time is on the hour, for a parameter that counts hours."""
    if span.kind != "time" or not isinstance(span.value, str):
        return None
    if "hour" not in param.name_words | param.description_words:
        return None
    clock = time_as_described(span.value, "HH:MM")
    if clock is None or not clock.endswith(":00"):
        return None
    return int(clock[:2])


# What a text parameter that takes a measure is named or described by ("the length of the
# stay, e.g. '2 weeks'").
_MEASURE_WORDS = frozenset({
    "duration", "period", "time", "length", "distance", "size", "age", "weight", "height",
    "amount", "quantity", "range", "interval", "frequency", "measure", "measurement", "value",
})


_PLURALS = frozenset({"people", "children", "men", "women", "persons", "folks", "guests"})


def _measures_nothing_said(span: Span, param: Param) -> bool:
    """A number with a unit ("5 years") for a text parameter that says nothing of measures.

    Or a count of things ("3 people") for a text parameter that does not name them.
    """
    if span.kind != "number" or not span.unit:
        return False
    said = param.name_words | param.description_words
    unit = lemmatize(singular(span.unit.lower()))
    if unit_of(span.unit) is None:
        # lower case: "the 2019 Eredivisie" is a year said before a name
        # "2 adults", "3 people": things counted are said in the plural
        counted = span.value == 1 or singular(span.unit) != span.unit or span.unit in _PLURALS
        return span.unit.isalpha() and span.unit.islower() and len(span.unit) > 2 \
            and counted and not _word_match(unit, said)
    return not said & (_MEASURE_WORDS | DATE_WORDS) and not _word_match(unit, said) and \
        stated_unit(str(param.schema.get("description") or "")) is None


def quoted_number(value: str) -> float | None:
    """The number a quoted value is ("94110", "0.75"), or None when it is text."""
    text = value.strip()
    if not re.fullmatch(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)", text):
        return None
    return float(text)


def type_fit(span: Span, param: Param) -> float:
    """How well a span's kind fits the parameter's type (0 = not at all).

    A measure never fits a parameter whose stated unit measures something else ("10
    meters" is no weight in kilograms).
    """
    kind = param.item_kind if param.kind == "array" else param.kind
    if kind == "string" and written_short(span, param) is not None:
        return FORM_FIT  # "the last 2 hours" for a look-back window written "2h"
    units = measured_units(span, param)
    if units is not None and not same_dimension(*units) and len(span.unit or "") > 1:
        return 0.0  # a one-letter symbol is ambiguous ("25 C": coulomb or Celsius?)
    if units is not None and kind == "integer" and units[0] != units[1]:
        converted = convert(float(span.value), *units) if isinstance(span.value, int | float) \
            else None
        if converted is None or abs(converted - round(converted)) > 1e-9:
            return 0.0  # "10 days" is no whole number of months
        return 1.0  # "an hour and a half" is 90 whole minutes
    value = span.value
    if span.kind == "quoted" and kind in {"integer", "number"} and isinstance(value, str):
        number = quoted_number(value)  # "zip code '94110'": the quotes keep a number
        return 0.0 if number is None or (kind == "integer" and not number.is_integer()) else 1.0
    numeric = span.kind in {"number", "money", "percent"}
    if span.kind == "number" and param.name_words & _MONEY_NAMES and span.unit \
            and unit_of(span.unit) is not None:
        return 0.3  # "50 miles" is a distance, hardly the max_price
    if kind == "string" and _measures_nothing_said(span, param):
        return 0.0  # "5 years" is no species
    if kind == "string" and _names_no_language(span, param):
        return 0.0  # "Alan Turing" is no language
    if numeric and counts_in_words(span):
        return 0.6 * _numeric_fit(kind, value)  # "three circles" counts more than it sets
    if kind == "string" and head_word(param.name) == "year":
        # A year kept as text: "in 2022" is it, a name ("Population Density") is not.
        if _looks_like_year(span):
            return 1.0
        if span.kind == "name":
            return 0.3
    if kind == "string":
        dated = (
            bool(param.name_words & DATE_WORDS) or asks_date_form(param.schema)
            or asks_clock_form(param.schema)
            # "showtime", "birthdate": one word of a name that ends in when it is
            or any(len(w) > 5 and w.endswith(("time", "date")) for w in param.name_words)
        )
        if dated and span.kind in {"name", "identifier"} and asks_date_form(param.schema):
            return 0.0  # "Format: yyyy-mm-dd" takes no "Fender Stratocaster"
        if dated and span.kind not in {"date", "time", "datetime", "keyvalue", "quoted"}:
            return 0.3
        if not dated and is_relative_day(span):
            return 0.0  # "tonight" is when, never a dish or a name
        if not dated and span.kind in {"name", "date"} and span.text.lower() in _TIMES_NAMED \
                and not param.name_words & {"day", "weekday", "month"}:
            return 0.0  # "a massage on Friday": Friday says when, it is no service
        if not dated and span.kind in {"date", "time", "datetime"}:
            return 0.7
    if kind in {"integer", "number"} and phone_digits(span) is not None:
        return 1.0  # "+1234567890" for a phone "written as a number"
    if kind == "integer":
        if numeric and isinstance(value, int | float) and float(value).is_integer():
            return 1.0
        if span.kind == "time" and whole_hour(span, param) is not None:
            return 1.0  # "until 11 PM" for a closing hour in 24 hour format: 23
        if span.kind == "keyvalue" and isinstance(value, int) and not isinstance(value, bool):
            return 1.0
        return 0.0
    if kind == "number":
        if numeric or (
            span.kind == "keyvalue"
            and isinstance(value, int | float)
            and not isinstance(value, bool)
        ):
            return 1.0
        return 0.0
    if kind == "boolean":
        return 1.0 if span.kind == "boolean" or isinstance(value, bool) else 0.0
    if kind == "string":
        form = written_form(param.name_words, param.schema)
        if form is not None and span.kind == form:
            return FORM_FIT
        if form is not None and span.kind not in {"quoted", "keyvalue"}:
            return OTHER_FORM_FIT
        if span.kind == "path" and written_as_described(span, param):
            return 1.0  # "platform/web-frontend" for a project slug "e.g. 'group/repo'"
        if span.kind == "path" and _slashed_name(span.text) and not holds_files(
            param.name_words, param.schema
        ):
            return 0.6  # "on branch release/2.4": a name with slashes, no file's path
        if span.kind == "path" and not holds_files(param.name_words, param.schema) and not (
            param.name.lower().endswith("name") and not re.search(r"[/\\]", span.text)
        ):
            # "Open /srv/readme.md": a file is no node's name; a bare file name is a name
            # ("Rename report.txt to final.txt" for old_name, new_name)
            return 0.0
        if param.identifier and span.kind == "name":
            return 0.7  # "SNP (Single Nucleotide Polymorphism) ID rs6034464": the id is rs...
        if param.identifier and span.kind == "number" and not span.unit \
                and re.fullmatch(r"\d{5,}", span.text.strip()):
            return 1.0  # "Track FedEx 123456789012": a long run of digits is a number kept as text
        if span.kind in {
            "name",
            "quoted",
            "date",
            "time",
            "datetime",
            "url",
            "email",
            "path",
            "identifier",
            "phrase",
            "expression",
        }:
            return 1.0
        if span.kind == "keyvalue":
            return 0.9
        if span.kind == "number":
            return 0.1 if _names_something(param) else 0.35
        return 0.15
    if kind == "object":
        return 1.0 if span.kind == "json" and isinstance(value, dict) else 0.0
    if kind == "any":
        return 0.6
    return 0.0


def _slashed_name(text: str) -> bool:
    """Words joined by slashes, no file's path: "release/2.4", "feature/login", "owner/repo".

    Not rooted ("/srv", "~/x", "./a") and no file name with an extension at its end.
    """
    return (
        re.fullmatch(r"[A-Za-z][\w\-]*(?:/[\w\-.]+)+", text) is not None
        and re.search(r"\.[A-Za-z][A-Za-z0-9]{0,4}$", text) is None
    )


_RELATIVE_WORDS = frozenset({"next", "last", "past", "this", "coming", "previous"})


def counts_in_words(span: Span) -> bool:
    """A number said in words before a plain noun: "three circles", "two triangles".

    A number word with a measure ("thirty percent", "five and a half miles", "ten minutes")
    is a value like its digits.
    """
    if not span.text[:1].isalpha():
        return False
    if span.text.split()[0].lower() in _RELATIVE_WORDS:
        return True  # "next week" is when, 7 only of a count of days
    unit = str(span.unit or "").lower()
    return not unit or not (
        unit in {"percent", "%"} or unit in DURATION_UNITS or unit_of(unit) is not None
    )


def written_short(span: Span, param: Param) -> str | None:
    """A duration as a parameter whose examples write one short asks ("2 hours": "2h")."""
    if span.kind not in {"number", "duration"} or not span.unit:
        return None
    return short_duration(param.schema, span.value, DURATION_UNITS.get(str(span.unit).lower()))


def _names_something(param: Param) -> bool:
    """Whether the parameter holds a name ("club_name"; "The name of the club.")."""
    description = str(param.schema.get("description") or "").lower()
    named = re.match(r"(?:the )?name of\b", description) is not None
    return param.name.lower().endswith("name") or named


def _word_match(word: str, targets: Iterable[str]) -> bool:
    for target in targets:
        if word == target:
            return True
        if len(word) > 3 and len(target) > 3 and fuzz.ratio(word, target) >= FUZZY_WORD:
            return True
        if (
            len(word) >= 4
            and len(target) >= 4
            and (word.startswith(target) or target.startswith(word))
        ):
            return True
    return False


def _clause_end(text: str, span: Span) -> int:
    """Where the clause of a span ends: the next comma or sentence end ("$2000, final ...")."""
    rest = re.split(r"[,;:!?]|\.(?:\s|$)", text[span.end :], maxsplit=1)[0]
    return span.end + len(rest)


def _preposition_cue(text: str, span: Span, param: Param) -> float:
    """The word right before a span is a word of the parameter's name ("from" of from_date).

    Prepositions are stop words, so the name's content words miss them; "from July 10 to
    July 20" still tells ``from_date`` from ``to_date`` (the name's first word only: the
    "of" of ``rate_of_return`` says nothing).
    """
    before, _ = context_words(text, span, window=1)
    if not before:
        return 0.0
    first = next(iter(split_words(param.name)), "").lower()
    word = before[-1]
    if word == first and word in STOPWORDS:
        return NAME_CUE
    # "a cab from the hotel to 221B Baker Street": where a trip starts and where it ends;
    # "set the trees to 200" is no end of a trip, nor of a range
    if word == "by" and span.kind in {"name", "quoted"} and param.name_words & _MAKERS:
        return ROUTE_CUE  # "Bohemian Rhapsody by Queen": who made it, no device
    # "from 94105 to 10001" for origin_zip and destination_zip: codes kept as text too
    said = span.kind in {"name", "quoted"} or (
        span.kind in {"number", "identifier"} and param.kind == "string"
        and (not span.unit or unit_of(span.unit) is None)  # "10001 overnight": no measure
    )
    return ROUTE_CUE if said and trip_end_of(word, param) else 0.0


# Who made a work, said after "by": "a song by Queen", "a novel by Tolstoy".
_MAKERS = frozenset(
    "artist author creator composer director band singer writer maker performer".split()
)


def _words_cue(words: Iterable[str], param: Param, *, weight: float, fall: float) -> float:
    """The best cue among ``words`` (nearest first), decaying with the distance from the span."""
    score = 0.0
    for distance, raw in enumerate(words):
        word = lemmatize(singular(raw))
        if word in STOPWORDS or word in _WEAK or len(word) < 2:
            continue
        decay = weight / (1 + fall * distance)
        if _word_match(word, param.name_words):
            score = max(score, NAME_CUE * decay)
        elif _word_match(word, param.description_words):
            score = max(score, DESCRIPTION_CUE * decay)
    return score


def _place_cue(text: str, span: Span, param: Param) -> float:
    """A name after "in", "at" or "near" is a place: evidence for a location parameter.

    So is a postal code said after "near" ("restaurants near 94110"), or for a place whose
    description asks for one.
    """
    before, _ = context_words(text, span, window=1)
    if span.kind == "number" and isinstance(span.value, int) and not span.unit:
        postal = {"zip", "postal", "postcode", "zipcode"} & (
            set(param.name_words) | set(param.description_words)
        )
        if (before[-1:] == ["near"] or postal) and set(param.name_words) & _PLACE_WORDS:
            return PLACE_CUE if param.required else PLACE_CUE / 2
        return 0.0
    if span.kind != "name" or span.text.lower() in _TIMES_NAMED:
        return 0.0  # "in December", "on Monday" say when, not where
    if not before or before[-1] not in _PLACE_PREPOSITIONS:
        return 0.0
    said = set(param.name_words) | {
        w for w in param.description_words if w in _PLACE_WORDS
    }
    if not said & _PLACE_WORDS:
        return 0.0
    # Alone, "in Premier League" is no evidence enough for an optional venue. A city the
    # tables know is the value of a parameter named for a place rather than of one whose
    # description says "area" ("design in Portland": location, not specialization).
    city = str(span.items[0].value if span.items else span.value)  # "Austin, TX": Austin
    known = 0.1 if param.name_words & _PLACE_WORDS and country_of_city(city) else 0.0
    return (PLACE_CUE if param.required else PLACE_CUE / 2) + known


# The kinds of names the ISO tables know, by the words a parameter's name calls them.
_KIND_WORDS: dict[CodeKind, frozenset[str]] = {
    "country": frozenset({"country", "nation"}),
    "language": frozenset({"language", "lang"}),
    "currency": frozenset({"currency"}),
    "region": frozenset({"state", "province", "region"}),
}


def _names_no_language(span: Span, param: Param) -> bool:
    """A name for a parameter of a language that is no language and no code of one.

    "Give me the Wikipedia summary for Alan Turing": the language is "en", "English",
    "Brazilian Portuguese", never a person; a name of several words none of which the ISO
    tables know as a language is no value.
    """
    if span.kind not in {"name", "quoted"} or not isinstance(span.value, str):
        return False
    if head_word(param.name) not in _KIND_WORDS["language"]:
        return False
    written = span.value.strip()
    if len(written.split()) < (2 if span.kind == "name" else 3):
        return False  # "Rust", "Klingon": languages the ISO tables do not list are words
    return not any(codes_of(word, "language") for word in [written, *written.split()])


def _self_cue(span: Span, param: Param) -> float:
    """A name that says what it is by its last or first word.

    "Premier League" is a league, "Louvre Museum" a museum, and so are "Hotel Paradise" a
    hotel and "Museum of Modern Art" a museum.
    """
    if span.kind not in {"name", "quoted"} or not isinstance(span.value, str):
        return 0.0
    for kind, said in _KIND_WORDS.items():
        if param.name_words & said and codes_of(span.value, kind):
            return SELF_CUE  # "United States" is a country, "Spanish" a language
    if param.name_words & _KIND_WORDS["country"] and is_country_code(span.value):
        return SELF_CUE  # "London, UK": the UK is the country
    if "month" in param.name_words and span.value.lower() in MONTH_NAMES:
        return SELF_CUE  # "in December" for month
    words = [lemmatize(singular(w.lower())) for w in re.findall(r"[A-Za-z]+", span.value)]
    if len(words) < 2:
        return 0.0
    ends = {words[-1], words[0]} - STOPWORDS
    return SELF_CUE if any(_word_match(w, param.name_words) for w in ends) else 0.0


def _looks_like_year(span: Span) -> bool:
    """A bare four-digit number between 1000 and 2199, written as digits."""
    return (
        span.kind == "number"
        and not span.unit
        and re.fullmatch(r"1\d{3}|2[01]\d{2}", span.text.strip()) is not None
    )


def _more_name_words(words: Iterable[str], param: Param) -> float:
    """A little more for each further word of the name said ("starting balance of $700")."""
    said = {lemmatize(singular(w)) for w in words}
    matched = [n for n in param.name_words if any(_word_match(w, {n}) for w in said)]
    return 0.1 * (len(matched) - 1) if len(matched) > 1 else 0.0


# How a description says its parameter counts something: "the number of photos".
_COUNTS = re.compile(r"\b(?:number of|how many|count of|amount of|quantity of)\b", re.I)
_COUNT_NAMES = frozenset({"count", "num", "number", "limit", "quantity", "total", "n", "result"})


def _counts_other_noun(noun: str, param: Param) -> bool:
    """The parameter's description counts some noun, and not this one.

    "The number of faces on a single die" counts faces: "two dice" is not its value, though
    the parameter is named "dice_faces".
    """
    phrase = counted_phrase(str(param.schema.get("description") or ""))
    return bool(phrase) and not _word_match(lemmatize(singular(noun.lower())), phrase)


def _counts_said_noun(span: Span, after: Sequence[str], param: Param) -> bool:
    """A count parameter whose description names the noun the number counts.

    "five prime numbers" for "How many primes to list", "twelve photos" for "The number of
    photos to return": the counted noun, not the parameter's name, ties the number to it.
    """
    if param.kind != "integer":
        return False
    description = str(param.schema.get("description") or "")
    if not (_COUNTS.search(description) or head_word(param.name) in _COUNT_NAMES
            or next(iter(split_words(param.name)), "").lower() in _COUNT_NAMES):
        return False
    if not param.description_words and span.unit and head_word(param.name) in _COUNT_NAMES:
        return True  # "two large pizzas" for a bare ``quantity``: nothing says what it counts
    nouns = [span.unit or "", *after[:2]] if span.unit else list(after[:1])
    return any(
        noun and noun.lower() not in STOPWORDS
        and _word_match(lemmatize(singular(noun.lower())), param.description_words)
        and not _counts_other_noun(noun, param)
        for noun in nouns
    )


# Little words between a value and what it is ("Martin Kove as an actor"), and the words that
# start the next value's phrase ("200 and the maximum depth").
_LITTLE_AFTER = frozenset({"a", "an", "the", "as", "in", "of", "its", "his", "her", "their"})
_NEXT_PHRASE = frozenset({"and", "or", "but", "then", "while", "with", "to", "for", "from"})


def _said_after(text: str, span: Span) -> list[str]:
    """The first two words after a value that may say what it is, within its own phrase.

    A capitalised word or a number starts another value ("the New York Yankees in the Major
    League"): its words are that value's, not this one's cue.
    """
    said: list[str] = []
    for match in re.finditer(r"[A-Za-z][\w'\-]*|\d", text[span.end : _clause_end(text, span)]):
        word = match.group()
        lowered = word.lower()
        if lowered in _NEXT_PHRASE or len(said) == 2 or not word[0].islower():
            break
        if lowered not in _LITTLE_AFTER:
            said.append(lowered)
    return said


# A clause before a value that says most of a parameter's description in its own words.
DESCRIBED_CUE = 0.9
_CLAUSE_START = re.compile(
    r"[,;:]|[.!?](?=\s)|\d(?![\d.,])|\b(?:and|or|with|if|where|while)\b", re.I
)


@lru_cache(maxsize=4096)
def _clause_words_before(text: str, start: int) -> frozenset[str]:
    """The content words of the clause before ``start``: read once per value, not per parameter."""
    head = text[:start]
    starts = list(_CLAUSE_START.finditer(head))
    return frozenset(content_words(head[starts[-1].end():] if starts else head))


def _description_said_before(text: str, span: Span, param: Param) -> bool:
    """The words of the value's clause before it say the parameter's description.

    "the number of times interest applied per time period is 4" says most of "The number of
    times that interest is compounded per time period": three of its words at least, and
    most of what the clause says.
    """
    if span.kind in {"number", "money", "percent"} and span.text[:1].isalpha():
        return False  # "compare the energy output of two different projects" counts them
    said = _clause_words_before(text, span.start)
    if len(said) < 3 or not param.description_words:
        return False
    shared = sum(_word_match(word, param.description_words) for word in said)
    return shared >= 3 and shared >= 0.6 * len(said)


# A description that ends in a preposition ("The platform the user is playing on.") says the
# value comes after that preposition ("on Switch").
STRANDED_CUE = 0.75


def _after_stranded_preposition(text: str, span: Span, param: Param) -> bool:
    """The word before the span is the preposition the parameter's description ends with."""
    stranded = stranded_preposition(str(param.schema.get("description") or ""))
    if stranded is None:
        return False
    before, _ = context_words(text, span, window=1)
    return bool(before) and before[-1] == stranded


def cue_score(text: str, span: Span, param: Param) -> float:
    """Evidence from the words beside a span that it is this parameter's value."""
    before = own_words_before(text, span)
    # A word after the span is its cue only within its clause: in "$2000, final value of
    # $3000" the word "final" belongs to the second amount.
    _, after = context_words(text[: _clause_end(text, span)], span, window=4)
    score = max(
        _preposition_cue(text, span, param),
        _place_cue(text, span, param),
        _self_cue(span, param),
        NAME_CUE if name_said_before(text, span, param.name) else 0.0,
        # A name too short to say which end ("a", "b") leaves it to the description.
        NAME_CUE if range_end(text, span, param.name,
                              param.name_words or param.description_words) else 0.0,
        NAME_CUE if named_by_verb(text, span.start, param.name) else 0.0,
        DESCRIBED_CUE if _description_said_before(text, span, param) else 0.0,
        STRANDED_CUE if _after_stranded_preposition(text, span, param) else 0.0,
    )
    # Words before the span are nearer cues than words after it (at most two of those).
    score = max(
        score,
        _words_cue(reversed(before), param, weight=1.0, fall=0.35)
        + _more_name_words(before, param),
        # "Martin Kove as an actor", "Daniel Camp in the cast": the first two words that say
        # something, the little ones between skipped.
        _words_cue(_said_after(text, span), param, weight=0.65, fall=0.5),
    )
    if span.unit and type_fit(span, param) >= 0.6:
        unit = lemmatize(singular(span.unit.lower()))
        # "two tickets" sets num_tickets, but "three circles" is no circle's radius.
        said = (
            param.name_words
            if span.text[:1].isalpha()
            else param.name_words | param.description_words
        )
        # The counted noun after a measure word or a qualifier: "3 dozen eggs", "2 loaves of
        # bread", "three personality traits".
        rest = after[1:] if after[:1] == ["of"] else after
        counted = lemmatize(singular(rest[0])) if rest and rest[0] not in STOPWORDS else ""
        if (_word_match(unit, said) or (counted and _word_match(counted, param.name_words))) \
                and not _counts_other_noun(span.unit, param):
            score = max(score, UNIT_CUE) + 0.2
    if span.kind == "number" and _counts_said_noun(span, after, param):
        score = max(score, UNIT_CUE + 0.2)
    if measures_alike(span, param):
        score = max(score, STATED_UNIT_CUE)  # "at 3m": a distance "in meters"
    elif span.unit and measures_named(span.unit, param.name_words):
        score = max(score, STATED_UNIT_CUE)  # "9.8 m/s^2" is the acceleration
    if _looks_like_year(span) and head_word(param.name) == "year" and type_fit(span, param) > 0.3:
        score = max(score, YEAR_CUE)  # "in 2020" is a year
    if span.kind == "time" and param.name_words & {"time", "hour"} \
            and type_fit(span, param) > 0.3:
        score = max(score, YEAR_CUE)  # "around 7pm" is the show_time, as "in 2020" a year
    # "under 30 minutes" is no ``min_minutes``: the other end of a range is no value of it.
    side = bound_side(text, span, param.name)
    if side:
        score = max(score, NAME_CUE) if side > 0 else score - NAME_CUE
    if written_in(text, span, param):
        score = max(score, NAME_CUE)  # "repositories written in Rust", "a book written in Urdu"
    if span.kind == "percent" and param.name_words & _PERCENT_NAMES:
        score = max(score, NAME_CUE)  # "a 20% tip on 56.40": 20 is the percentage
    word_before = context_words(text, span, window=1)[0][-1:]
    if word_before and param.name_words & _TRANSLATION_ENDS.get(word_before[0], frozenset()) \
            and (span.kind in {"path", "url"}
                 or (span.kind in {"name", "quoted"} and param.name_words & LANGUAGE_NAMES)):
        # "into Spanish", "from English": which end of a translation, when both ends are
        # languages and either would take it by kind; "move a.txt to docs/a.txt": which end
        # of a move or a copy, both ends paths
        score += TRIP_END_LIFT
    named_after = re.match(r"\s+as\s+(?:the|a|an|my|its)\s+([A-Za-z]+)\b", text[span.end :])
    if named_after and _word_match(lemmatize(singular(named_after.group(1).lower())),
                                   param.name_words):
        score = max(score, NAME_CUE)  # "write 'dinner' as the note"
    if written_as_described(span, param):
        # "octo/hello-world" for a repository "owner/name"; "(AAPL)" for "e.g. MSFT"
        score = max(score, NAME_CUE)
    if span.kind == "keyvalue" and span.key:
        key_words = content_words(span.key) or {span.key.lower()}
        if len(span.key) == 1 and param.name.lower() != span.key.lower():
            return score  # "at x = 1": a variable of a formula, no parameter's name
        if span.key == param.name or span.key.lower() == param.name.lower():
            score = max(score, 3.0)
        elif key_words and all(_word_match(w, param.name_words) for w in key_words):
            score = max(score, 2.0)
        else:
            score -= 1.0
    return score
