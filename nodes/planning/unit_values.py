"""The value of a unit parameter: the unit the request asks its answer in, or measures in.

A tool that computes with measures often has a free-text ``unit`` beside them ("The unit of
measurement, default 'cm'"). Users rarely name it, but they say it: "a radius of 4 inches",
"the distance in miles". :func:`unit_parameter_values` fills such a parameter, still
unbound, with the unit as the user wrote it: the unit asked for after "in" first, else the
one unit every measure of the request was said in. Units are pint's
(:mod:`stores.language.units`); a unit of another kind than the parameter states, several
units, or a parameter whose examples are no units ("metric") leave it unbound.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from nodes.planning.param_fit import Param
from nodes.planning.request_spans import Span
from stores.language.keywords import STOPWORDS
from stores.language.units import same_dimension, stated_unit, unit_of

# "Default is kg/m³", "defaults to 'miles'": the unit a description gives by default.
_DEFAULT_UNIT = re.compile(r"\bdefaults?\s*(?:is|to|:)?\s*['\"]?([^'\".,;()]{1,24})", re.I)
# "in miles", "into km/h", "converted to Celsius", "how many grams": a unit the answer is
# asked in.
_ASKED_UNIT = re.compile(
    r"\b(?:in|into|to|how\s+many)\s+([A-Za-z°µ][\w°µ/^²³]*(?:\s+[a-z]+)?)", re.I
)
# "5 pounds": a sum of money to the span reader, a weight to a unit parameter.
_WORD_AFTER_NUMBER = re.compile(r"[\d.,]+\s*([A-Za-z]+)$")


def is_unit_param(param: Param) -> bool:
    """A free-text parameter named for a unit whose examples, if any, are units."""
    if param.kind != "string" or param.enum or "unit" not in param.name_words:
        return False
    return all(unit_of(example) is not None for example in param.allowed)


def _asked_unit(text: str) -> tuple[str, Any] | None:
    """The unit written after "in", "into" or "to" (not after a number), as written."""
    for match in _ASKED_UNIT.finditer(text):
        words = match.group(1).split()
        for size in (2, 1):
            written = " ".join(words[:size])
            if len(words) < size or written.isupper() or words[size - 1].lower() in STOPWORDS:
                continue  # "grams are" is no unit (pint reads gram-ares)
            unit = unit_of(written)
            if unit is not None:
                return written, unit
    return None


def _measured_unit(spans: Sequence[Span]) -> tuple[str, Any] | None:
    """The one unit every measure of the request was said in, as written (None if several)."""
    units: dict[Any, str] = {}
    for span in spans:
        for item in span.items if span.kind == "list" else (span,):
            written = item.unit if item.kind == "number" else None
            if item.kind == "money":
                word = _WORD_AFTER_NUMBER.search(item.text)
                written = word.group(1) if word is not None else None
            unit = unit_of(written) if written else None
            if unit is not None and written is not None:
                units.setdefault(unit, written)
    if len(units) != 1:
        return None
    unit, written = next(iter(units.items()))
    return written, unit


def _described_unit(description: str) -> Any | None:
    """The unit a parameter's description states or gives as its default, if any."""
    stated = stated_unit(description)
    if stated is not None:
        return stated
    for match in _DEFAULT_UNIT.finditer(description):
        words = match.group(1).split()
        if words[:1] in (["unit"], ["units"]):
            continue  # "defaults to 'units'": no unit in particular (pint reads a micronit)
        for size in (2, 1):
            if len(words) >= size:
                unit = unit_of(" ".join(words[:size])) or unit_of("_".join(words[:size]))
                if unit is not None:
                    return unit
    return None


def unit_parameter_values(
    text: str, spans: Sequence[Span], params: Sequence[Param], values: dict[str, list[Any]]
) -> None:
    """Fill each unbound unit parameter with the unit the request asks in or measures in."""
    for param in params:
        if param.name in values or not is_unit_param(param):
            continue
        # The unit to convert from is the one measured in; the unit to convert to is asked.
        first = param.name.lower().split("_")[0]
        asked = None if first == "from" else _asked_unit(text)
        found = asked or (None if first == "to" else _measured_unit(spans))
        if found is None:
            continue
        stated = _described_unit(str(param.schema.get("description") or ""))
        if stated is not None and not same_dimension(stated, found[1]):
            continue
        values[param.name] = [found[0]]


def unit_pair_values(
    text: str, spans: Sequence[Span], params: Sequence[Param], values: dict[str, list[Any]]
) -> None:
    """Fill a from-unit and to-unit pair by what the request measures in and asks for.

    "How many teaspoons are in 2 tablespoons": from tablespoon, to teaspoon, before the
    units the descriptions list as examples ("Supports 'teaspoon', 'tablespoon'") are read as
    values named (both named, both parameters would take both). A unit the examples name is
    written as they write it.
    """
    pair = [p for p in params if p.name not in values and is_unit_param(p)
            and p.name.lower().split("_")[0] in {"from", "to"}]
    if sorted(p.name.lower().split("_")[0] for p in pair) != ["from", "to"]:
        return
    unit_parameter_values(text, spans, pair, values)
    for param in pair:
        if param.name not in values:
            continue
        said = unit_of(str(values[param.name][0]))
        same = [o for o in param.allowed if said is not None and unit_of(o) == said]
        if same:
            values[param.name] = [same[0]]
