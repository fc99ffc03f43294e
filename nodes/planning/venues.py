"""Places and venues among a request's names, as a schema with place parameters reads them.

"Boston, MA" is one place for a single ``location`` and two values for ``city`` and
``state`` (:func:`places_for`); "Hotel Nova, Lyon" is a venue and the place it is in; in "a
room in Hotel Paradise, Las Vegas" the "in" reaches over the venue to the place after it
(:func:`places_after_venues`, :func:`place_cue_after_venue`). Whether a parameter holds a
place is :func:`nodes.planning.param_fit.is_place_param`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nodes.planning.param_fit import (
    _PLACE_PARTS,
    _PLACE_PREPOSITIONS,
    _PLACE_WORDS,
    PLACE_CUE,
    Param,
    _self_cue,
    is_place_param,
)
from nodes.planning.request_spans import Span, context_words
from nodes.planning.value_cues import head_word


def places_for(spans: Sequence[Span], params: Sequence[Param]) -> list[Span]:
    """Places read as one name ("Boston, MA") split again when the schema wants the parts.

    A schema with two or more free-text parameters of a place to fill (``city`` and
    ``state``) takes "Chicago" and "Illinois" apart; one that has a single ``location`` (and
    a ``genre`` beside it), or two of one kind (``start_location``, ``end_location``), takes
    the place as written.
    """
    # "Hotel Nova, Lyon": a name that says what it is by a parameter's noun is that
    # parameter's value; the place after its comma is another value.
    spans = [part for span in spans for part in _split_named_venue(span, params)]
    free_text = [
        p
        for p in params
        if p.required
        and p.kind == "string"
        and not p.enum
        and not p.closed
        and is_place_param(p)
    ]
    # Two ends of one kind of place (start_location, end_location) each take a whole place.
    if len(free_text) < 2 or len({head_word(p.name) for p in free_text}) < 2:
        return list(spans)
    split: list[Span] = []
    for span in spans:
        if span.kind == "name" and span.items:
            split.extend(span.items)
        else:
            split.append(span)
    return split


def _is_venue(span: Span, params: Sequence[Param]) -> bool:
    """A name that says it is what a parameter not of a place names ("Hotel Nova")."""
    return span.kind == "name" and any(
        _self_cue(span, p) > 0 and not (p.name_words & _PLACE_PARTS) for p in params
    )


def places_after_venues(text: str, spans: Sequence[Span], params: Sequence[Param]) -> set[int]:
    """Starts of the names said after a venue placed by "in"/"at" and its comma.

    In "a room in Hotel Paradise, Las Vegas" the preposition of place reaches over the venue
    (the hotel's name) to the place after it: Las Vegas is where, as much as "in Las Vegas".
    """
    starts: set[int] = set()
    for venue in spans:
        if not _is_venue(venue, params):
            continue
        before, _ = context_words(text, venue, window=2)
        words = [w for w in before if w != "the"]
        if not words or words[-1] not in _PLACE_PREPOSITIONS:
            continue
        after = re.match(r",\s*", text[venue.end :])
        if after:
            starts.add(venue.end + after.end())
    return starts


def place_cue_after_venue(param: Param) -> float:
    """The cue a place said after a placed venue gives ``param``: a place's, if it is one."""
    said = set(param.name_words) | {w for w in param.description_words if w in _PLACE_WORDS}
    return PLACE_CUE if param.required and said & _PLACE_WORDS else 0.0


def _split_named_venue(span: Span, params: Sequence[Param]) -> list[Span]:
    """Two names read as one place, split when the first names a parameter not of a place."""
    if span.kind != "name" or len(span.items) != 2:
        return [span]
    return list(span.items) if _is_venue(span.items[0], params) else [span]
