"""Standard codes for names a user writes out: languages, currencies, countries, regions.

A schema often asks for a code where users say the name: "the target language code, e.g.
'es'" for "into Spanish", "three-letter currency code" for "in Canadian dollars", "in the
format 'City, State (abbr)'" for "Berkeley, California". The codes come from the ISO tables
that ``pycountry`` ships (ISO 639 languages, ISO 4217 currencies, ISO 3166 countries and
their subdivisions), so no list of names lives in code. :func:`code_in` finds the name of one
of an enum's codes in a text; :func:`value_as_described` writes a value the way a parameter's
description asks for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Literal

import pycountry

from stores.language.places import country_of_city, region_of_city, timezone_of_place

CodeKind = Literal["language", "currency", "country", "region"]
KINDS: tuple[CodeKind, ...] = ("language", "currency", "country", "region")
# Words of a description that ask for a code rather than a name.
_ASKS_CODE = re.compile(r"\b(?:code|codes|iso|abbr|abbreviat\w*|two-letter|three-letter|"
                        r"2-letter|3-letter|alpha-?[23])\b", re.I)
# An example of a place with an abbreviated region: "'Berkeley, CA'", "New York, NY".
_REGION_EXAMPLE = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)*, [A-Z]{2}\b")
# A description that asks for a city with its state: "The city and state", "City, State".
_ASKS_STATE = re.compile(r"\bcity\s*(?:,|and)\s*state\b", re.I)
# A description that asks for a city with its country: "City, Country".
_ASKS_COUNTRY = re.compile(r"\bcity\s*,\s*country\b", re.I)
# A description that asks for an IANA time zone by name; or an example of one ("Asia/Tokyo").
_ASKS_ZONE = re.compile(r"\b(?:IANA|tz\s?database|Olson)\b", re.I)
_ZONE_EXAMPLE = re.compile(r"\b[A-Z][A-Za-z]+/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?\b")
# A place's name alone: capitalised words, no comma ("San Francisco", "New York").
_CITY_ALONE = re.compile(r"[A-Z][A-Za-z.'-]*(?: [A-Z][A-Za-z.'-]*){0,3}")
# A region spelled out after the place's comma: "Berkeley, California".
_PLACE_REGION = re.compile(r"^(?P<place>[^,]+),\s*(?P<region>[A-Za-z][A-Za-z .'-]+)$")


def _plain(name: str) -> str:
    return " ".join(re.findall(r"[a-z]+", name.lower()))


def _plural(name: str) -> str:
    return name if name.endswith("s") else f"{name}s"


@lru_cache(maxsize=1)
def _tables() -> dict[CodeKind, dict[str, tuple[str, ...]]]:
    """Lower-case names (and common forms) to their codes, per kind; built once."""
    tables: dict[CodeKind, dict[str, set[str]]] = {kind: {} for kind in KINDS}

    def add(kind: CodeKind, name: str, *codes: str) -> None:
        plain = _plain(name)
        if plain:
            tables[kind].setdefault(plain, set()).update(c for c in codes if c)

    for language in pycountry.languages:
        codes = [getattr(language, "alpha_2", ""), language.alpha_3]
        add("language", language.name, *codes)
    for currency in pycountry.currencies:
        add("currency", currency.name, currency.alpha_3)
        add("currency", _plural(currency.name), currency.alpha_3)
    for country in pycountry.countries:
        for name in {country.name, getattr(country, "common_name", ""),
                     getattr(country, "official_name", "")} - {""}:
            add("country", name, country.alpha_2, country.alpha_3)
    for subdivision in pycountry.subdivisions:
        add("region", subdivision.name, subdivision.code.split("-", 1)[-1])
    return {kind: {name: tuple(sorted(codes)) for name, codes in table.items()}
            for kind, table in tables.items()}


@lru_cache(maxsize=8)
def _codes(kind: CodeKind) -> frozenset[str]:
    """Every code of a kind, in lower case."""
    return frozenset(c.lower() for codes in _tables()[kind].values() for c in codes)


def codes_of(name: str, kind: CodeKind) -> tuple[str, ...]:
    """The codes a name has as a language, currency, country or region (none when unknown)."""
    return _tables()[kind].get(_plain(name), ())


# Country codes in common use that ISO 3166 spells otherwise.
_COUNTRY_ALIASES = {"UK": "GB"}


def is_country_code(written: str) -> bool:
    """Whether a name written in capitals is a country's code ("UK", "USA", "DE")."""
    if not written.isupper() or not 2 <= len(written) <= 3 or not written.isalpha():
        return False
    code = _COUNTRY_ALIASES.get(written, written)
    found = (pycountry.countries.get(alpha_2=code) if len(code) == 2
             else pycountry.countries.get(alpha_3=code))
    return found is not None


def code_in(text: str, options: Sequence[str]) -> tuple[str, int] | None:
    """The option (a code) whose name the text says, and where the name starts.

    "Translate it into Spanish" says ``es`` of ``["en", "es", "fr"]``, and ``es-ES`` of
    ``["en-US", "es-ES"]``. Names of one to four words are looked up; the longest name wins
    ("Canadian dollars" over "dollars").
    """
    wanted = {option.lower(): option for option in options if isinstance(option, str)}
    if not wanted:
        return None
    # A locale ("es-ES", "pt_BR") is said by its language when no other option shares it.
    locales: dict[str, list[str]] = {}
    for option in wanted.values():
        locale = re.fullmatch(r"([a-z]{2,3})[-_][A-Za-z]{2,4}", option)
        if locale:
            locales.setdefault(locale.group(1), []).append(option)
    for language, found in locales.items():
        if len(found) == 1 and language not in wanted:
            wanted[language] = found[0]
    words = list(re.finditer(r"[A-Za-z]+", text))
    best: tuple[int, int, str] | None = None
    for start in range(len(words)):
        for width in range(min(4, len(words) - start), 0, -1):
            name = " ".join(w.group() for w in words[start : start + width])
            for kind in KINDS:
                hits = {wanted[c.lower()] for c in codes_of(name, kind) if c.lower() in wanted}
                if len(hits) == 1 and (best is None or width > best[0]):
                    best = (width, words[start].start(), hits.pop())
    return None if best is None else (best[2], best[1])


def _kinds_asked(description: str) -> list[CodeKind]:
    """Which kinds of code a description asks for, by the kind's own name in it."""
    lowered = description.lower()
    asked: list[CodeKind] = [kind for kind in KINDS[:3] if kind in lowered]
    if re.search(r"\b(?:state|province|region)\b", lowered):
        asked.append("region")
    return asked


@lru_cache(maxsize=1)
def _country_names() -> dict[str, str]:
    """ISO alpha-2 codes to the country's common name ("JP": "Japan")."""
    return {c.alpha_2: getattr(c, "common_name", "") or c.name for c in pycountry.countries}


def country_name(code: str) -> str | None:
    """The common name of the country an ISO alpha-2 code stands for ("JP": "Japan")."""
    return _country_names().get(code.upper()) or None


@lru_cache(maxsize=1)
def _us_states() -> frozenset[str]:
    """The two-letter codes of the states (and districts) of the United States."""
    return frozenset(s.code.split("-", 1)[1] for s in pycountry.subdivisions
                     if s.code.startswith("US-"))


def _asks_us_state(description: str) -> bool:
    """Whether a description wants a city with its state.

    Its example ends in a state's code ("e.g. Denver, CO"), or it names the format ("City,
    State").
    """
    for example in _REGION_EXAMPLE.finditer(description):
        state = example.group().rsplit(", ", 1)[-1]
        if state in _us_states():
            return True
    return _ASKS_STATE.search(description) is not None


def _asks_zone(description: str) -> bool:
    """Whether a description asks for an IANA time zone ("IANA timezone", "e.g. Asia/Tokyo")."""
    if _ASKS_ZONE.search(description):
        return True
    examples = _ZONE_EXAMPLE.findall(description)
    return bool(examples) and any(e in _zone_names() for e in examples)


@lru_cache(maxsize=1)
def _zone_names() -> frozenset[str]:
    import zoneinfo

    return frozenset(zoneinfo.available_timezones())


_ZONE_WORDS = frozenset({"utc", "gmt", "z"})


def zone_can_be(value: str, description: str) -> bool:
    """Whether a value can be what a description asking for an IANA zone wants.

    True when the description asks no zone. Otherwise the value must be a zone name
    ("Europe/Paris", "UTC"), a place with one zone ("Tokyo") or a name the user gave
    (capitalised: "Narnia" is theirs to be told is no zone): "local" in "the local time in
    Mumbai" is no zone, whatever the description says of a local timezone.
    """
    if not _asks_zone(description):
        return True
    written = value.strip()
    if written in _zone_names() or written.lower() in _ZONE_WORDS or written[:1].isupper():
        return True
    return timezone_of_place(written.split(",")[0].strip()) is not None


def _is_zone_name(value: str) -> bool:
    """Whether a value is an IANA zone's abbreviation already ("UTC", "GMT"), no place.

    A country's own name that tzdata keeps as an old alias ("Japan", "Singapore") is still
    the place, written as its zone ("Asia/Tokyo").
    """
    return value.strip().isupper() and value.strip() in _zone_names()


# An example written with a channel's or a handle's sign: "e.g. #random", "like '@nasa'".
_SIGNED_EXAMPLE = re.compile(r"(?:^|[\s'\"(`])([#@])[A-Za-z]\w*")


def value_as_described(value: str, description: str) -> str | None:
    """A name written the way a parameter's description asks for it, or None if unchanged.

    "Berkeley, California" is "Berkeley, CA" when the description shows or asks for the
    abbreviated region ("in the format 'City, State (abbr)'", "e.g. 'Boston, MA'"); "euros"
    is "EUR" and "Spanish" "es" when it asks for a currency or language code; a city of the
    United States said alone ("Seattle") gets its state ("Seattle, WA") when the description
    wants a city and state, and another city its country ("Tokyo, Japan") when it wants
    "City, Country"; a city or a country with one time zone is its IANA zone ("Tokyo" is
    "Asia/Tokyo") when the description asks for one; a channel or a handle is written with
    the sign its example shows ("#general" for "e.g. #random"). A code's
    length follows the description's example ("'USD'", "'en'") when it gives one.
    """
    if not description or not value.strip():
        return None
    sign = _SIGNED_EXAMPLE.search(description)
    if sign is not None and re.fullmatch(r"[A-Za-z][\w.\-]*", value.strip()):
        # "channel name, e.g. #random": the channel is written with its sign, "#general"
        return sign.group(1) + value.strip()
    if _asks_zone(description) and "/" not in value and not _is_zone_name(value):
        # "Tokyo" is "Asia/Tokyo" for "IANA timezone name (e.g., 'America/New_York')".
        zone = timezone_of_place(value.split(",")[0].strip())
        if zone is not None:
            return zone
    place = _PLACE_REGION.match(value.strip())
    if place is not None and (
        _REGION_EXAMPLE.search(description)
        or (_ASKS_CODE.search(description) and "region" in _kinds_asked(description))
    ):
        region = place.group("region").strip()
        if not re.fullmatch(r"[A-Z]{2}", region):
            codes = codes_of(region, "region")
            if len(set(codes)) == 1:
                return f"{place.group('place').strip()}, {codes[0]}"
        return None
    if re.fullmatch(r"[a-z][a-z.'-]*(?: [a-z][a-z.'-]*){0,3}", value.strip()) \
            and _asks_us_state(description):
        # "weather in miami": a city the user wrote in lower case, written as a name
        titled = value.strip().title()
        region = region_of_city(titled)
        if region is not None:
            return f"{titled}, {region}"
    if _CITY_ALONE.fullmatch(value.strip()):
        region = region_of_city(value) if _asks_us_state(description) else None
        if region is not None:
            return f"{value.strip()}, {region}"
        country = country_of_city(value) if _ASKS_COUNTRY.search(description) else None
        if country is not None and country != "US" and country in _country_names():
            return f"{value.strip()}, {_country_names()[country]}"
        if _asks_us_state(description) or _ASKS_COUNTRY.search(description):
            return None
    if not _ASKS_CODE.search(description):
        return None
    examples = re.findall(r"['\"]([A-Za-z]{2,3})['\"]", description)
    for kind in _kinds_asked(description):
        if value.strip().lower() in _codes(kind):
            code = value.strip()  # "en" is a code already (no language named "En": "enc")
        else:
            codes = codes_of(value, kind)
            if not codes:
                continue
            if examples:
                width = len(examples[0])
                codes = tuple(c for c in codes if len(c) == width) or codes
            code = codes[0]
        if examples and examples[0].islower():
            code = code.lower()
        elif examples and examples[0].isupper():
            code = code.upper()
        return code
    return None
