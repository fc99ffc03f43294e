"""The state of a city a user names alone, from the GeoNames table that ``geotext`` ships.

A schema that wants "The city and state, e.g. Denver, CO" gets "Seattle" from most users;
:func:`region_of_city` gives the two-letter state of a city of the United States when the
name is clearly that city (the largest place of that name is in the States and much larger
than any other of the same name elsewhere or in another state), so no list of places lives
in code. The table (GeoNames cities over 15,000 people) is read once, on first use.
"""

from __future__ import annotations

import importlib.resources
from functools import lru_cache

from stores.language.keywords import STOPWORDS

# How much larger the city must be than the next place of its name to be "the" city.
_DOMINANCE = 3.0
# Columns of a GeoNames ``cities15000.txt`` line.
_NAME, _ASCII, _ALTERNATES, _COUNTRY, _REGION, _POPULATION, _TIMEZONE = 1, 2, 3, 8, 10, 14, 17


# (population, country, region, IANA time zone) of each place of a name.
Places = dict[str, list[tuple[int, str, str, str]]]


@lru_cache(maxsize=1)
def _cities() -> tuple[Places, Places]:
    """Lower-case names, and alternate names, to (population, country, region) of each city."""
    names: Places = {}
    alternates: Places = {}
    table = importlib.resources.files("geotext") / "data" / "cities15000.txt"
    for line in table.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if len(columns) <= _TIMEZONE:
            continue
        place = (int(columns[_POPULATION] or 0), columns[_COUNTRY], columns[_REGION],
                 columns[_TIMEZONE])
        for name in {columns[_NAME].lower(), columns[_ASCII].lower()}:
            names.setdefault(name, []).append(place)
        for name in columns[_ALTERNATES].split(","):
            if name:
                alternates.setdefault(name.lower(), []).append(place)
    return names, alternates


def _the_city(name: str) -> tuple[int, str, str, str] | None:
    """The place a capitalised name clearly names: (population, country, region, time zone).

    The largest place of that name, when it is several times larger than any namesake in
    another country or region ("Springfield" names none).
    """
    name = name.strip()
    if not name[:1].isupper():
        return None
    names, alternates = _cities()
    places = names.get(name.lower()) or alternates.get(name.lower()) or []
    if not places:
        return None
    ranked = sorted(places, reverse=True)
    largest = ranked[0]
    others = [p for p in ranked[1:] if (p[1], p[2]) != (largest[1], largest[2])]
    if others and largest[0] < _DOMINANCE * others[0][0]:
        return None
    return largest


def country_of_city(name: str) -> str | None:
    """The ISO alpha-2 code of the country of the city ``name`` clearly names ("Tokyo": JP)."""
    city = _the_city(name)
    return None if city is None else city[1]


def region_of_city(name: str) -> str | None:
    """The two-letter state of the United States city ``name`` names, or None.

    "Seattle" is WA; "London" (England's is the larger), "Springfield" (three of like size)
    and a lower-case word are None.
    """
    city = _the_city(name)
    if city is None or city[1] != "US" or len(city[2]) != 2:
        return None
    return city[2]


def timezone_of_place(name: str) -> str | None:
    """The IANA time zone of the city or country ``name`` names ("Tokyo": "Asia/Tokyo"), or None.

    A city from the GeoNames table's own time-zone column ("San Francisco" is
    "America/Los_Angeles"); a country when every listed city of it keeps one zone ("Japan";
    "Australia" has several, so None).
    """
    country = _countries().get(name.strip().lower())
    if country is not None:  # "India" is a country before it is a town's other name
        import pycountry

        record = pycountry.countries.lookup(country)
        zones = _zones_by_country().get(record.alpha_2, set())
        return next(iter(zones)) if len(zones) == 1 else None
    city = _the_city(name)
    return city[3] if city is not None and city[3] else None


@lru_cache(maxsize=1)
def _zones_by_country() -> dict[str, set[str]]:
    zones: dict[str, set[str]] = {}
    for places in _cities()[0].values():
        for _population, country, _region, zone in places:
            if zone:
                zones.setdefault(country, set()).add(zone)
    return zones


# A place written in lower case is read only after a word that introduces a place ("weather
# in boston", "flights to paris", "the capital of australia"), and only when it is a country
# or a large city (at least this many people): "for sale", "a perm" name no place.
_LOWER_CASE_CITY = 500_000
_SHORT_LOWER_CASE_CITY = 2_000_000
PLACE_INTRODUCERS = frozenset("in at to from near of around towards into for".split())


@lru_cache(maxsize=1)
def _countries() -> dict[str, str]:
    import pycountry

    names: dict[str, str] = {}
    for country in pycountry.countries:
        for attribute in ("name", "common_name"):
            name = getattr(country, attribute, None)
            if name and "," not in name and "(" not in name:
                names[name.lower()] = name
    return names


def place_written_lower(words: str) -> str | None:
    """The place lower-case words name, as it is spelt ("new york" -> "New York"), or None.

    A country by its ISO 3166 name, or a city of :data:`_LOWER_CASE_CITY` people or more
    that is clearly that city (:func:`_the_city`).
    """
    lowered = words.strip().lower()
    if lowered in STOPWORDS:
        return None  # "the" is one city's alternate name
    country = _countries().get(lowered)
    if country is not None:
        return country
    spelt = " ".join(w.capitalize() for w in lowered.split())
    city = _the_city(spelt)
    if city is None or city[0] < _LOWER_CASE_CITY:
        return None
    if len(lowered) <= 4 and city[0] < _SHORT_LOWER_CASE_CITY:
        return None  # "sale", "perm", "kota" are words before they are cities
    return spelt
