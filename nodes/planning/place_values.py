"""The state or country a city the request names is in, for a parameter that asks for it.

"the crime rate in San Francisco" for ``get_crime_rate(city, state)``: the request names the
city, the schema also wants "The state where the city is located". The state of a city of the
United States (two letters, "CA") and the country of any city clearly named (its ISO 3166
name) come from the GeoNames table (:mod:`stores.language.places`), only when that city is
clearly the one meant (the largest of its name by far).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nodes.planning.param_fit import Param
from stores.language.codes import codes_of, country_name
from stores.language.places import country_of_city, region_of_city

_CITY_WORDS = frozenset({"city", "town"})


def _region_kind(param: Param) -> str | None:
    """"state" or "country" for a text parameter named for one, else None."""
    if param.kind != "string" or param.enum:
        return None
    words = param.name_words - {"name"}
    return "state" if words == {"state"} else "country" if words == {"country"} else None


def _split_said_region(params: Sequence[Param], values: dict[str, list[Any]]) -> None:
    """"the population of Tokyo, Japan" for city and country: each part to its parameter."""
    for city in params:
        said = values.get(city.name)
        if not (city.name_words & _CITY_WORDS and said and len(said) == 1
                and isinstance(said[0], str) and said[0].count(", ") == 1):
            continue
        head, tail = said[0].split(", ")
        for param in params:
            kind = _region_kind(param)
            if param.name in values or kind is None:
                continue
            if kind == "country" and codes_of(tail, "country") or kind == "state" and (
                    region_of_city(head) == tail or re.fullmatch(r"[A-Z]{2}", tail)):
                values[city.name], values[param.name] = [head], [tail]
                return


def region_of_named_city(params: Sequence[Param], values: dict[str, list[Any]]) -> None:
    """Fill an empty ``state`` or ``country`` parameter from the city given.

    Said with the city ("Tokyo, Japan"), the region is the user's, for any such parameter;
    not said, it is read from the table for a required one.
    """
    _split_said_region(params, values)
    cities = [
        str(values[p.name][0]) for p in params
        if p.name in values and p.kind == "string" and p.name_words & _CITY_WORDS
        and len(values[p.name]) == 1 and isinstance(values[p.name][0], str)
    ]
    if len(cities) != 1:
        return
    for param in params:
        if param.name in values or not param.required or param.kind != "string" or param.enum:
            continue
        words = param.name_words
        if words == {"state"} or words == {"state", "name"}:
            state = region_of_city(cities[0])
            if state is not None:
                values[param.name] = [state]
        elif words == {"country"} or words == {"country", "name"}:
            code = country_of_city(cities[0])
            name = country_name(code) if code else None
            if name is not None:
                values[param.name] = [name]
