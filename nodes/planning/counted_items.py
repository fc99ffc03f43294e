"""Counted items: "five burgers and six chicken wings" as an item list and its quantities.

A schema that takes two parallel arrays, one of names and one of whole numbers ("items" and
"quantities", "products" and "counts"), wants each thing the request counts in the first and
its count, at the same index, in the second. :func:`counted_items` reads the counted things
("two Big Macs", "three pumpkins", "2 cartons of milk", "two dozen eggs", quoted names too)
when the request lists at least two of them; :func:`item_and_quantity_params` finds the two
arrays by their item types alone. Nothing here knows what is counted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from nodes.planning.param_fit import Param
from stores.language.spans_numbers import find_word_numbers

# What follows a count up to the next item or the end of the list.
_ITEM = re.compile(
    r"\s+(?P<item>'[^'\n]+'|\"[^\"\n]+\"|[A-Za-z][\w'’\-]*(?:\s+(?!and\b|or\b|from\b|at\b|in\b|"
    r"for\b|to\b|with\b|on\b)[A-Za-z][\w'’\-]*){0,3})"
)
_BETWEEN = re.compile(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+)")
_COUNT_WORDS = re.compile(r"(?<![\w.])\d+(?![\w.])")
_ONE = re.compile(
    r"(?<![\w'])(?:a|an)(?=\s+(?!(?:few|lot|little|bit|couple|dozen|half|hundred|thousand|"
    r"million|number|total|pair)\b)[A-Za-z])",
    re.I,
)
# A measure word is part of the count's item only with what it measures: "2 cartons of milk".
_FILLER = frozenset({"a", "an", "the", "of"})


def item_and_quantity_params(params: Sequence[Param]) -> tuple[Param, Param] | None:
    """The one array of strings and the one array of whole numbers a schema takes, or None."""
    names = [p for p in params if p.kind == "array" and p.item_kind == "string"]
    counts = [p for p in params if p.kind == "array" and p.item_kind == "integer"]
    if len(names) != 1 or len(counts) != 1:
        return None
    return names[0], counts[0]


def _counts(text: str) -> list[tuple[int, int, int]]:
    """Every count of the text: ``(value, start, end)``, digits and number words."""
    found = [(int(m.group()), m.start(), m.end()) for m in _COUNT_WORDS.finditer(text)]
    # "a large pepperoni pizza and two cokes": an article in a list of counted things is one
    found += [(1, m.start(), m.end()) for m in _ONE.finditer(text)]
    for hit in find_word_numbers(text):
        if isinstance(hit.value, int) or float(hit.value).is_integer():
            found.append((int(hit.value), hit.start, hit.end))
    return sorted(found, key=lambda item: item[1])


def counted_items(text: str) -> tuple[list[str], list[int], tuple[int, int]] | None:
    """The things a request counts, their counts, and the stretch they are said in.

    None unless at least two counted things are listed one after the other ("five burgers
    and six chicken wings"; "three pumpkins, 2 cartons of milk and two dozen eggs"; "a large
    pizza and two cokes", where the article counts one).
    """
    runs: list[list[tuple[str, int, int, int]]] = []
    for value, start, end in _counts(text):
        said = _ITEM.match(text, end)
        if said is None:
            continue
        item = said.group("item").strip()
        words = item.split()
        while words and words[-1].lower() in _FILLER:
            words.pop()
        item = " ".join(words).strip("'\"")
        if not item:
            continue
        entry = (item, value, start, said.end())
        run = runs[-1] if runs else None
        if run is not None and _BETWEEN.fullmatch(text, run[-1][3], start):
            run.append(entry)
        else:
            runs.append([entry])
    best = max(runs, key=len, default=[])
    if len(best) < 2:
        return None
    return [e[0] for e in best], [e[1] for e in best], (best[0][2], best[-1][3])
