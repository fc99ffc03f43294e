"""Atoms of a request read as one value when they stand together.

After the span reader's scan (:func:`nodes.planning.request_spans.extract_spans`), before
lists are grouped: feet and inches said together are one length ("5ft 10in"), a name and the
model code after it one name ("Yamaha P125"), a name and a region or country after its comma
one place ("Denver, CO", "Lyon, France").
"""

from __future__ import annotations

import re

from stores.language.codes import codes_of, is_country_code
from stores.language.spans import Span

__all__ = ["join_feet_inches", "join_models", "join_regions"]


# "D.C." may lose its last dot to the sentence's end ("... Washington, D.C. in miles").
_REGION_CODE = re.compile(r"[A-Z]{2}|[A-Z]\.[A-Z]\.?")


# "5ft 10in", "6 feet 2 inches", "5'11\"": one length, in inches.
_FEET_INCHES = re.compile(
    r"(?<![\d.])(\d+)\s*(?:ft\.?|feet|foot|'|’)\s*(?:and\s+)?(\d{1,2}(?:\.\d+)?)\s*"
    r"(?:in\.?|inch(?:es)?|\"|''|”)(?![A-Za-z])",
    re.I,
)


def join_feet_inches(text: str, atoms: list[Span]) -> list[Span]:
    """Feet and inches said together are one length in inches: "5ft 10in" is 70 in."""
    for match in _FEET_INCHES.finditer(text):
        start, end = match.span()
        inches = int(match.group(1)) * 12 + float(match.group(2))
        value = int(inches) if inches.is_integer() else inches
        atoms = [a for a in atoms if a.end <= start or a.start >= end]
        atoms.append(Span("number", value, text[start:end], start, end, unit="in"))
    return sorted(atoms, key=lambda a: a.start)


def join_models(text: str, atoms: list[Span]) -> list[Span]:
    """A name and the model code right after it are one name: "Yamaha P125", "Galaxy S21".

    The code mixes letters and digits and starts with a capital; a code after a lower-case
    word ("order XK42") is an identifier of its own.
    """
    joined: list[Span] = []
    for atom in atoms:
        last = joined[-1] if joined else None
        if (
            last is not None
            and last.kind == "name" and atom.kind == "identifier"
            and not last.items
            and text[last.end : atom.start] == " "
            and re.fullmatch(r"[A-Z][A-Za-z]*\d[\dA-Za-z]*", atom.text) is not None
        ):
            name = text[last.start : atom.end]
            joined[-1] = Span("name", name, name, last.start, atom.end)
            continue
        joined.append(atom)
    return joined


def _is_region(value: str) -> bool:
    """A region or country code ("CO", "D.C.", "USA") or a country's name ("France")."""
    return _REGION_CODE.fullmatch(value) is not None or (
        is_country_code(value) if value.isupper() else bool(codes_of(value, "country"))
    )


def join_regions(text: str, atoms: list[Span]) -> list[Span]:
    """A name and a region after its comma are one place: "Denver, CO", "Lyon, France".

    Joined before lists are grouped, so "Denver, CO and Austin, TX" is a list of two places,
    not of four names. A code after a code ("AL, AK") is a list of codes.
    """
    joined: list[Span] = []
    for atom in atoms:
        last = joined[-1] if joined else None
        if (
            last is not None
            and last.kind == atom.kind == "name"
            and not last.items
            and text[last.end : atom.start] == ", "
            and _is_region(str(atom.value))
            and not _is_region(str(last.value))
        ):
            end = atom.end + 1 if re.match(r"[A-Z]\.[A-Z]\.(?!\S)", text[atom.start :]) \
                else atom.end
            place = text[last.start : end]
            joined[-1] = Span("name", place, place, last.start, end, items=(last, atom))
            continue
        joined.append(atom)
    return joined
