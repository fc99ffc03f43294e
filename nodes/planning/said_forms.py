"""Cues of a value by the form it is said in: the end of a trip, a language, a shape.

"a cab from the airport to 221B Baker Street": "from" and "to" say a trip's start and end
(:func:`trip_end_of`, :func:`trip_end_said`); "repositories written in Rust": the language
(:func:`written_in`); "octo/hello-world" for a repository "owner/name" and "(AAPL)" for a
ticker "e.g. MSFT": the value is written as the description shows
(:func:`written_as_described`). The parameter's schema is read by :mod:`nodes.planning.param_fit`,
which weighs these cues with the others.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from nodes.planning.descriptions import example_shapes, written_shape
from stores.language.spans import Span

if TYPE_CHECKING:
    from nodes.planning.param_fit import Param

# Names of the two ends of a trip, said with "from" and "to".
_TRIP_STARTS = frozenset({"origin", "source", "pickup", "departure", "start"})
_TRIP_ENDS = frozenset({"destination", "dropoff", "drop", "arrival", "end"})
ROUTE_CUE = 0.8
# How much nearer a phrase said after "from" (or "to") is to a trip's start (or end).
TRIP_END_LIFT = 0.3


def trip_end_of(word: str, param: Param) -> bool:
    """The parameter is the end of a trip ``word`` says: a start after "from", an end after "to"."""
    ends = _TRIP_STARTS if word == "from" else _TRIP_ENDS if word == "to" else frozenset()
    return bool(ends & param.name_words) and len(param.name_words) <= 2


def trip_end_said(text: str, phrase: str, param: Param) -> bool:
    """The phrase is said right after "from" ("to"), and the parameter is a trip's start (end).

    "a cab from the airport" for ``pickup``.
    """
    return any(
        trip_end_of(word, param) and re.search(
            rf"\b{word}\s+(?:the\s+|a\s+|an\s+|my\s+)?{re.escape(phrase)}\b", text, re.I
        ) is not None
        for word in ("from", "to")
    )


_WRITTEN_IN = re.compile(
    r"\b(?:written|coded|programmed|implemented|spoken|published|translated)\s+(?:in|into)\s+$",
    re.I,
)


def written_in(text: str, span: Span, param: Param) -> bool:
    """A name after "written in" for a language parameter ("repositories written in Rust")."""
    return span.kind == "name" and bool(param.name_words & {"language", "lang"}) and (
        _WRITTEN_IN.search(text[: span.start]) is not None
    )


_SLASHED_FORM = re.compile(r"(?<![\w/.])[A-Za-z][\w\-]*(?:/[A-Za-z][\w\-]*)+(?![\w/])")


def written_as_described(span: Span, param: Param) -> bool:
    """The value is written as the parameter's description shows its values.

    A name with slashes for a description that shows as many ("owner/name", "org/repo"), or
    a name written as the description's example ("(AAPL)" for "e.g. MSFT").
    """
    description = str(param.schema.get("description") or "")
    if span.kind == "path" and "/" in span.text and not span.text.startswith(("/", "~", ".")):
        parts = span.text.count("/")
        if any(form.group().count("/") == parts for form in _SLASHED_FORM.finditer(description)):
            return True
    return span.kind in {"name", "identifier", "quoted"} and isinstance(span.value, str) and (
        written_shape(span.value) in example_shapes(description)
    )
