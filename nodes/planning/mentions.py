"""Which candidate tools a clause names, and which stretch of the clause belongs to each.

"Determine the median and variance of ...", "temperature and humidity forecast for Boston and
precipitation forecast for Rome": one clause, several actions, each named by a word of a
tool's own name. A tool is named when the clause says (lemmatised, typo-tolerant) at least
two thirds of the words that set its name apart from the other candidates' names.
Each named tool gets the stretch from its mention to the next tool's mention; a stretch that
gives no value ("temperature and") shares the next one's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from nodes.planning.param_fit import _word_match, content_words
from stores.catalog.model import ToolSpec
from stores.language.identifiers import singular
from stores.language.keywords import lemmatize

__all__ = ["Mention", "distinctive_words", "name_words", "named_tools", "naming_share"]

# The share of a tool's distinctive name words a clause must say to name it.
NAMED_SHARE = 0.66
_TRAILING = re.compile(r"(?:[\s,;]+(?:and|or|also|plus|as\s+well\s+as))*[\s,;]*$", re.I)

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'\-]*")
# A stretch gives a value when, past its first word, it holds a number, a capitalised word
# or a quote.
_VALUE = re.compile(r"\d|\b[A-Z]|['\"“]")


@dataclass(frozen=True)
class Mention:
    """A tool a clause names, where it names it, and the stretch of text that is its own."""

    spec: ToolSpec
    share: float
    start: int
    end: int


def name_words(spec: ToolSpec) -> set[str]:
    """The content words of a tool's name (``statistics.median`` → {statistic, median})."""
    return content_words(re.sub(r"[._\-/]", " ", spec.name))


def _lemmas(text: str) -> list[tuple[int, str]]:
    return [(m.start(), lemmatize(singular(m.group().lower()))) for m in _WORD.finditer(text)]


def distinctive_words(spec: ToolSpec, others: Sequence[ToolSpec]) -> set[str]:
    """The words of a tool's name no other candidate's name has.

    ``median`` of ``statistics.median`` beside ``statistics.variance``.
    """
    rest = set().union(*(name_words(o) for o in others if o.id != spec.id))
    return {w for w in name_words(spec) if not _word_match(w, rest)}


def naming_share(text: str, spec: ToolSpec, others: Sequence[ToolSpec]) -> float:
    """How much of what sets a tool's name apart from the others' the text says (0 to 1)."""
    distinct = distinctive_words(spec, others)
    if not distinct:
        return 0.0
    said = {word for _, word in _lemmas(text)}
    return sum(1 for w in distinct if _word_match(w, said)) / len(distinct)


def named_tools(text: str, specs: Sequence[ToolSpec]) -> list[Mention]:
    """The tools of ``specs`` the clause names, in the order it names them.

    A tool is named when the clause says at least two thirds of the words that set its
    name apart from the other candidates' names.

    Args:
        text: The clause.
        specs: The candidates, best first.

    Returns:
        One :class:`Mention` per named tool; empty when fewer than two are named.
    """
    words = _lemmas(text)
    named: list[tuple[int, ToolSpec, float]] = []
    for spec in specs:
        distinct = distinctive_words(spec, specs)
        share = naming_share(text, spec, specs)
        if share < NAMED_SHARE:
            continue
        position = min(
            (start for start, word in words if _word_match(word, distinct)), default=None
        )
        if position is not None:
            named.append((position, spec, share))
    if len(named) < 2:
        return []
    named.sort(key=lambda item: item[0])
    starts = [position for position, _, _ in named]
    mentions = []
    for index, (position, spec, share) in enumerate(named):
        end = len(text)
        for later in starts[index + 1 :]:
            rest = text[position:later].split(None, 1)
            if later > position and len(rest) > 1 and _VALUE.search(rest[1]):
                end = later
                break
        begin = 0 if index == 0 else position
        stretch = _TRAILING.sub("", text[begin:end])
        mentions.append(Mention(spec, share, begin, begin + len(stretch)))
    return mentions
