"""Units of measure: the unit a number was said in, the unit a parameter asks for, conversion.

Units are pint's (its own definitions file, shipped in the package: no domain list here). A
parameter states its unit in its description as "in kilometers", "in units of m/s" or
"(kg)"; a number of the request carries the unit written after it. Dimensionless units
("percent", "degree" of an angle, "byte") say nothing about what is measured and are ignored.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from stores.language.identifiers import singular

_REGISTRY: Any = None
_LOCK = threading.Lock()
# Short words pint reads as units but English uses as words ("a" year, "in" inch, "at").
_WORDS_NOT_UNITS = frozenset(
    """a an as at am pm in is it or of on to by do no so the and per for from that this
    are be if we us""".split()
)
_STATED = re.compile(
    r"\bin\s+(?:units?\s+of\s+)?([A-Za-z°µ][\w°µ/^²³.*\- ]{0,24})|\((?:in\s+)?([^()]{1,16})\)",
    re.I,
)


def _registry() -> Any:
    global _REGISTRY
    with _LOCK:
        if _REGISTRY is None:
            import pint

            _REGISTRY = pint.UnitRegistry()
    return _REGISTRY


@lru_cache(maxsize=4096)
def unit_of(written: str) -> Any | None:
    """The unit a word or symbol names ("km", "m/s^2", "kilograms"), or None.

    None for words that are no unit, for English words pint also reads as units ("a",
    "in") and for dimensionless units.
    """
    text = written.strip().strip(".,;:").replace("^", "**").replace("²", "**2").replace("³", "**3")
    if not text or text.lower() in _WORDS_NOT_UNITS or not re.search(r"[A-Za-z°µ]", text):
        return None
    registry = _registry()
    for form in dict.fromkeys((text, text.lower())):
        try:
            unit = registry.parse_units(form)
        except Exception:  # pint raises several kinds for words it does not know
            continue
        if unit.dimensionless or any(
            registry.parse_units(part).dimensionless for part in unit._units
        ):
            return None  # "degree" (of an angle) times something is no measure here
        return unit
    return None


@lru_cache(maxsize=4096)
def stated_unit(description: str) -> Any | None:
    """The unit a parameter's description asks for ("in kilometers", "(m/s)"), or None.

    A unit said with "in" comes first: in "The inductance (L) in henries (H)" the "(L)" is
    the quantity's symbol, not litres.
    """
    matches = list(_STATED.finditer(description))
    for match in sorted(matches, key=lambda m: m.group(1) is None):
        phrase = (match.group(1) or match.group(2) or "").strip()
        words = phrase.split()
        # The longest run of leading words that names a unit: "square feet", "m/s".
        for size in range(min(len(words), 3), 0, -1):
            head = [words[0].rstrip("s") if size > 1 else words[0], *words[1:size]]
            # "henries": pint knows the singular only.
            last_one = " ".join([*words[: size - 1], singular(words[size - 1].strip(".,;:"))])
            for form in (" ".join(words[:size]), "_".join(head), last_one):  # "degree_Celsius"
                unit = unit_of(form)
                if unit is not None:
                    return unit
    return None


@lru_cache(maxsize=4096)
def dimension_named(word: str) -> Any | None:
    """The dimension a quantity's name names in pint's definitions, or None.

    "acceleration" is [length] / [time] ** 2, "time" [time], "inductance" what henries
    measure; "duration" or "price" name no dimension pint defines.
    """
    if not re.fullmatch(r"[a-z]+", word):
        return None
    try:
        dimension = _registry().get_dimensionality(f"[{word}]")
    except Exception:  # pint raises several kinds for names it does not define
        return None
    return dimension if dimension else None


def measures_named(written_unit: str, words: frozenset[str]) -> bool:
    """Whether a unit said ("m/s^2") measures what one of ``words`` names ("acceleration")."""
    unit = unit_of(written_unit)
    if unit is None:
        return False
    return any(dimension_named(word) == unit.dimensionality for word in words)


def same_dimension(first: Any, second: Any) -> bool:
    """Whether two units measure the same thing (length and length)."""
    return bool(first.dimensionality == second.dimensionality)


def convert(value: float, source: Any, target: Any) -> float | None:
    """``value`` in ``source`` units expressed in ``target`` units; None across dimensions."""
    if not same_dimension(source, target):
        return None
    registry = _registry()
    try:
        return float(registry.Quantity(value, source).to(target).magnitude)
    except Exception:  # an offset unit pint will not multiply; the value stays as said
        return None


def unit_option(text: str, options: Sequence[str]) -> tuple[str, int] | None:
    """The option (a unit symbol or name) whose unit a word of the text names, and where.

    "in miles" names ``mi`` of ``["km", "mi"]``: both are pint's mile. The first word of the
    text that names the unit of exactly one option wins; None when no word does.
    """
    letters = all(str(o).strip("°").upper() in _SCALES_ALL for o in options) and options
    units = [
        # ["C", "F"]: temperature scales by their letters, not coulomb and farad
        (option, unit_of(_SCALES_ALL[option.strip("°").upper()]) if letters else unit_of(option))
        for option in options if isinstance(option, str)
    ]
    units = [(option, unit) for option, unit in units if unit is not None]
    if not units:
        return None
    for match in re.finditer(r"[A-Za-z]{2,}", text):
        said = unit_of(match.group())
        if said is None:
            continue
        hits = [option for option, unit in units if unit == said]
        if len(hits) == 1:
            return hits[0], match.start()
    # "in F", "72°F", "degrees C": a temperature scale said by its letter (pint reads a lone
    # F as farad and C as coulomb).
    return _scale_letter(text, units)


def system_option(text: str, options: Sequence[str]) -> tuple[str, int] | None:
    """The option naming the system of units ("metric", "imperial") a unit said belongs to.

    "weather in London in fahrenheit" for ``units: metric | imperial``: Fahrenheit, miles
    and pounds are pint's imperial or US customary units; Celsius, kilometres and kilograms
    are metric. The first unit said that belongs to one system decides.
    """
    by_system = {str(o).lower(): o for o in options if isinstance(o, str)}
    if not {"metric", "imperial"} <= set(by_system):
        return None
    registry = _registry()
    customary = set(dir(registry.sys.imperial)) | set(dir(registry.sys.US))
    for match in re.finditer(r"[A-Za-z]{2,}", text):
        said = unit_of(match.group())
        if said is None or len(said._units) != 1:
            continue
        name = next(iter(said._units))
        if name in customary or name == "degree_Fahrenheit":
            return by_system["imperial"], match.start()
        if name == "degree_Celsius" or re.fullmatch(
            r"(?:kilo|centi|milli)?(?:meter|gram|liter)", name
        ):
            return by_system["metric"], match.start()
    return None


def _scale_letter(text: str, units: Sequence[tuple[str, Any]]) -> tuple[str, int] | None:
    """A temperature scale said by its letter, among options that are units."""
    for match in _SCALE_LETTER.finditer(text):
        said = unit_of(_SCALES[match.group(1)])
        hits = [option for option, unit in units if unit == said]
        if len(hits) == 1:
            return hits[0], match.start(1)
    return None


_SCALES = {"C": "degC", "F": "degF"}
_SCALES_ALL = {**_SCALES, "K": "kelvin"}
_SCALE_LETTER = re.compile(r"(?:\bin\s+|°\s?|\bdeg(?:rees?)?\s+|\d\s?)([CF])\b")
