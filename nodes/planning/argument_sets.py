"""Repeated argument sets read from the structure of a request: one call per set.

"the factorial of 5, the factorial of 7, and the factorial of 9", "between New York and
Washington DC, and between Los Angeles and San Francisco", "USD to AUD and USD to CAD": the
request says the same kind of call several times, each time in its own stretch of text. The
text is cut at its separators (sentences, ``;``, ``:``, "also", then commas, then "and"), the
strongest cuts first; each stretch is bound to the schema alone; a stretch that gives a
parameter another value than the one already said starts a new argument set, which keeps
what the previous set said ("the same point charge") and overrides what it says again.
Values said once after the first set ("... with the shortest route enabled") belong to every
set before them too. A list, a quoted text or a parenthesised group is never cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from nodes.parsing.splitting import about_the_speaker
from nodes.planning.request_spans import Span

__all__ = [
    "cut_points", "in_a_statement_about_the_speaker", "one_parameter_per_value",
    "repeated_sets", "spans_within", "used_list_ranges",
]

# Separators by strength: a cut of one strength is tried with every stronger one.
_SEPARATORS: tuple[tuple[int, re.Pattern[str]], ...] = (
    (
        3,
        re.compile(
            # A stop after a word of up to three letters that the next word goes on from in
            # lower case shortens the word ("3000 sq ft. in New York"): no sentence's end.
            r"(?<=[.?!])(?:(?<!\b[A-Za-z]\.)(?<!\b[A-Za-z]{2}\.)(?<!\b[A-Za-z]{3}\.)\s+(?=\S)"
            r"|\s+(?=(?-i:[^a-z\s])))|\s*;\s*|:\s+|\s*,?\s*\b(?:also|additionally|then|"
            r"as\s+well\s+as|plus)\b\s*,?\s*",
            re.I,
        ),
    ),
    (2, re.compile(r"\s*,\s+(?:(?:and|or)\s+)?", re.I)),
    (1, re.compile(r"\s+(?:and|or|&)\s+", re.I)),
)
_GROUPS = re.compile(
    r"\"[^\"\n]*\"|“[^”\n]*”|(?<![\w])'[^'\n]+'(?![\w])|`[^`\n]*`|\([^()]*\)|\[[^\[\]]*\]|"
    r"\{[^{}]*\}"
)

# Binds one stretch of text alone (its start and end), cutting it again only at separators
# weaker than the given strength.
SegmentBinder = Callable[[int, int, int], tuple[list[dict[str, Any]], dict[str, float]]]
# How sure the binder must be of a value (type fit, a cue word beside it) for it to open a
# new argument set when the stretch says fewer parameters than the set before it.
CONFIDENT = 1.75
# ... and when it says every parameter the set before it said: a value of the parameter's
# type, said where the parameter's place is.
PLAIN = 1.29
# "Miami, Florida", "Berlin, Germany", "Denver, CO": a comma between a name and a name or a
# two-letter region code is no separator.
_NAME_COMMA = re.compile(
    r"\b[A-Z][A-Za-z.'\-]*(?=\s*,\s+(?:[A-Z][a-z]+\b|[A-Z]{2}(?![A-Za-z0-9])))"
)


def cut_points(
    text: str, strength: int, keep: Sequence[tuple[int, int]] = ()
) -> list[tuple[int, int]]:
    """Where the stretches of ``text`` between separators at least as strong as ``strength`` lie.

    Nothing inside quotes, brackets or a ``keep`` range (a list an array takes) is cut.
    """
    protected = [(m.start(), m.end()) for m in _GROUPS.finditer(text)] + list(keep)
    named = {m.end() for m in _NAME_COMMA.finditer(text)}
    cuts: list[tuple[int, int]] = []
    for level, pattern in _SEPARATORS:
        if level < strength:
            continue
        for match in pattern.finditer(text):
            if match.end() == match.start() or (level == 2 and match.start() in named):
                continue
            if any(a < match.start() < b or a < match.end() - 1 < b for a, b in protected):
                continue
            cuts.append((match.start(), match.end()))
    cuts.sort()
    pieces: list[tuple[int, int]] = []
    start = 0
    for begin, end in cuts:
        if begin < start:
            continue
        pieces.append((start, begin))
        start = end
    pieces.append((start, len(text)))
    return [(a, b) for a, b in pieces if text[a:b].strip(" ,.;:?!")]


def spans_within(spans: Sequence[Span], start: int, end: int) -> list[Span]:
    """The spans inside ``text[start:end]``, their offsets made relative to ``start``.

    A list cut by the stretch keeps the items inside it (one item is no list).
    """
    inside: list[Span] = []
    for span in spans:
        if span.kind == "list":
            items = [i for i in span.items if i.start >= start and i.end <= end]
            if len(items) == len(span.items):
                inside.append(_shift(span, start))
            elif len(items) > 1:
                inside.append(replace(
                    _shift(span, start, items[0].start, items[-1].end),
                    value=[i.value for i in items],
                    items=tuple(_shift(i, start) for i in items),
                ))
            else:
                inside.extend(_shift(i, start) for i in items)
        elif span.start >= start and span.end <= end:
            inside.append(_shift(span, start))
    return inside


def _shift(span: Span, offset: int, begin: int | None = None, end: int | None = None) -> Span:
    begin = span.start if begin is None else begin
    end = span.end if end is None else end
    return replace(
        span,
        start=begin - offset,
        end=end - offset,
        items=tuple(_shift(i, offset) for i in span.items),
    )


def repeated_sets(
    text: str,
    whole: Sequence[Mapping[str, Any]],
    bind: SegmentBinder,
    *,
    keep: Sequence[tuple[int, int]] = (),
    strongest: int = 3,
) -> list[dict[str, Any]] | None:
    """Argument sets said one stretch at a time, or None when the text says one set.

    Args:
        text: The request (or clause).
        whole: The argument sets the binder read from the whole text at once.
        bind: Binds one stretch of text alone (its argument sets).
        keep: Character ranges never cut (lists that fill an array parameter).
        strongest: The strongest separators to cut at.

    Returns:
        Two or more distinct argument sets, or None.
    """
    said_whole = {i for values in whole for v in values.values() for i in _items(v)}
    # A list the whole reading already used as a list says the repetition itself; only
    # sentences and clauses are cut then.
    weakest = 3 if keep else 1
    for strength in range(strongest, weakest - 1, -1):
        pieces = cut_points(text, strength, keep)
        if len(pieces) < 2:
            continue
        bound = [bind(a, b, strength - 1) for a, b in pieces]
        context = [about_the_speaker(text[a:b]) for a, b in pieces]
        sets = _combine(dict(whole[0]) if whole else {}, bound, said_whole,
                        len(whole) == 1, context)
        if sets is not None and len(sets) >= max(2, len(whole) if strength == 1 else 2):
            return sets
    return None


def _combine(
    base: dict[str, Any],
    pieces: Sequence[tuple[Sequence[Mapping[str, Any]], Mapping[str, float]]],
    said_whole: set[str],
    whole_is_one: bool,
    context: Sequence[bool] = (),
) -> list[dict[str, Any]] | None:
    """Walk the stretches' values, opening a new set where a parameter is said again.

    A stretch that only says something about the speaker ("I'm traveling to Japan.") is
    context: it may add a value nobody said, never a set of its own.
    """
    sets: list[dict[str, Any]] = []
    said: list[set[str]] = []
    for number, (piece, evidence) in enumerate(pieces):
        about_speaker = number < len(context) and context[number]
        for values in piece:
            if not values:
                continue
            if not sets:
                # The whole reading saw more context: a stretch overrides it only where
                # it is sure of its value.
                kept = {k: v for k, v in values.items()
                        if k not in base or evidence.get(k, 0.0) >= PLAIN}
                sets.append({**base, **kept})
                said.append(set(kept))
                continue
            clash = [k for k, v in values.items() if k in said[-1]
                     and _key(sets[-1][k]) != _key(v)]
            if whole_is_one:
                # Values the whole reading already gave to the one call, to this parameter
                # or another ("from (3, 4) to (1, 2)", "the S&P 500 and the Dow Jones"),
                # are no second set.
                clash = [k for k in clash if not all(i in said_whole for i in _items(values[k]))]
            sure = max((evidence.get(k, 0.0) for k in clash), default=0.0)
            if sure < (PLAIN if set(values) >= said[-1] else CONFIDENT) or about_speaker:
                clash = []  # a value read without a cue, in a shorter stretch; context
            if not clash:
                fresh = {k: v for k, v in values.items() if k not in said[-1]}
                sets[-1].update(fresh)
                said[-1] |= set(fresh)
                continue
            sets.append({**sets[-1], **values})
            said.append(set(values))
    if len(sets) < 2:
        return None
    everywhere = set().union(*said)
    for index, values in enumerate(sets):
        for key in everywhere - said[index]:
            if any(key in said[j] for j in range(index)):
                continue
            later = next(j for j in range(index + 1, len(sets)) if key in said[j])
            values[key] = sets[later][key]
    distinct = list({repr(sorted(s.items(), key=lambda kv: kv[0])): s for s in sets}.values())
    return distinct if len(distinct) >= 2 else None


def in_a_statement_about_the_speaker(text: str, position: int) -> bool:
    """Whether ``position`` is in a sentence of ``text`` that is context, not a request.

    "Weather in Paris? My friend in Lyon says it's sunny.": Lyon is said in a statement about
    the speaker's world (:func:`~nodes.parsing.splitting.about_the_speaker`), no second place.
    A text of one sentence is the request itself.
    """
    return any(a <= position < b for a, b in _statements_about_the_speaker(text))


@lru_cache(maxsize=256)
def _statements_about_the_speaker(text: str) -> tuple[tuple[int, int], ...]:
    """Where a text of several sentences says something about the speaker.

    Cached per text: the binder asks once per candidate value.
    """
    pieces = cut_points(text, 3, [])
    if len(pieces) < 2:
        return ()
    return tuple((a, b) for a, b in pieces if about_the_speaker(text[a:b]))


def used_list_ranges(
    spans: Sequence[Span], values: Mapping[str, Sequence[Any]]
) -> list[tuple[int, int]]:
    """Where the lists the whole reading used as lists are written (never cut there).

    A list used as a list gives several of its items to one parameter: an array's items, or
    one value per argument set ("for 10, 20 and 30 years").
    """
    ranges = []
    for span in spans:
        if span.kind != "list":
            continue
        items = {_key(item.value) for item in span.items}
        for given in values.values():
            flat = [v for value in given for v in (value if isinstance(value, list) else [value])]
            if len(items & {_key(v) for v in flat}) > 1:
                ranges.append((span.start, span.end))
                break
    return ranges


def _items(value: Any) -> list[str]:
    """A value's keys: one per item of a list."""
    return [_key(v) for v in value] if isinstance(value, list) else [_key(value)]


def _key(value: Any) -> str:
    """A value as compared here: 10 and 10.0 are one number, case does not count."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return repr(value).lower()


def one_parameter_per_value(sets: list[dict[str, Any]], found: Sequence[Span]) -> None:
    """A later set that gives one list item to two parameters gives it to the list's one.

    "Christianity in Egypt and Turkey": the second set is Turkey's, and its religion is
    still the first set's, not Turkey.
    """
    lists = [span.value for span in found if span.kind == "list"]
    first = sets[0] if sets else {}
    for later in sets[1:]:
        names = [n for n, v in later.items() if isinstance(v, str)]
        for one, other in ((a, b) for a in names for b in names if a != b):
            if later.get(one) != later.get(other) or first.get(one) == first.get(other):
                continue
            if other in first and any(
                later[one] in items and first.get(one) in items for items in lists
            ):
                later[other] = first[other]
