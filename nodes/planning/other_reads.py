"""Other reads a clause names beside the chosen tool's job, and where to cut it for them.

"the median and the variance of 3, 4, 5", "temperature and humidity for Boston": one clause,
several reads on the same values (:func:`coordinated_reads`). "the GCD of 96 and 128, and the
LCM of 15 and 25": one clause, two reads on values of their own; it is cut where the second
read begins (:func:`cut_at_other_read`). Reads only: a write is never added on a word's
evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from itertools import chain, product

from nodes.planning.continuation import BindCall
from nodes.planning.eligibility import ScoredCandidate
from nodes.planning.schema_binder import content_words, name_words
from nodes.state import PlannedCall, SubIntent
from stores.catalog.model import ToolSpec

# The clause's candidates, scored for fit, in the decider's order.
ScoredFor = Callable[[SubIntent], list[ScoredCandidate]]
# How many of them are looked at.
MAX_OTHER_READS = 8
# How many words may stand between the words of two reads a clause is cut between (their
# values stand there too), and between two reads on the same values.
CUT_WITHIN = 14
JOINED_WITHIN = 8


def coordinated_reads(
    sub: SubIntent,
    chosen: ToolSpec,
    scored: ScoredFor,
    bind: BindCall,
    rest: SubIntent | None = None,
) -> list[PlannedCall]:
    """Calls of other reads the clause names beside the chosen tool's job.

    A word of another candidate's name that the chosen tool's name lacks stands in the
    clause joined by "and" (or a comma) to a word only the chosen tool's name has, every
    other word of its name is said or in the chosen name, and every value that candidate
    requires is in the request. With ``rest`` (the clause after its cut), the other reads
    are those that part names and binds alone.
    """
    if chosen.side_effect is not False:
        return []
    calls: list[PlannedCall] = []
    for spec, _ in other_reads(rest or sub, chosen, scored, alone=rest is not None):
        bound, missing = bind(rest or sub, spec)
        if not missing and len(bound) == 1:
            calls.append(bound[0])
    return calls


def other_reads(
    sub: SubIntent, chosen: ToolSpec, scored: ScoredFor, *, alone: bool = False,
    cut: bool = False,
) -> list[tuple[ToolSpec, int]]:
    """The other read candidates the clause names, each with where its own word starts.

    Coordinated with a word only the chosen tool's name has (within :data:`CUT_WITHIN`
    words when the clause is to be ``cut`` between them), or, ``alone``, named by the
    clause without the chosen tool's words.
    """
    text = sub["text"]
    said = _lemma_spots(text)
    mine = name_words(chosen.name)
    found: list[tuple[ToolSpec, int]] = []
    for candidate in scored(sub)[:MAX_OTHER_READS]:
        spec = candidate.spec
        if spec.id == chosen.id or spec.side_effect is not False:
            continue
        theirs = name_words(spec.name)
        if any(w not in said and w not in mine for w in theirs):
            continue  # "the area and perimeter of a circle" asks no rectangle's perimeter
        own = [said[w] for w in theirs - mine if w in said]
        chosen_only = [said[w] for w in mine - theirs if w in said]
        within = CUT_WITHIN if cut else JOINED_WITHIN
        if not own or (not alone and (
            not chosen_only or not _joined(text, own, chosen_only, within)
        )):
            continue
        mine |= theirs
        found.append((spec, min(chain(*own))))
    return found


def cut_at_other_read(
    sub: SubIntent, chosen: ToolSpec, scored: ScoredFor, bind: BindCall
) -> tuple[SubIntent, SubIntent | None]:
    """The clause cut where another read it names begins, when each part has its values.

    The chosen tool takes the values before the cut, the other read those after it.
    Returns ``(clause, None)`` when the clause is not cut.
    """
    if chosen.side_effect is not False:
        return sub, None
    text = sub["text"]
    said = _lemma_spots(text)
    chosen_at = [i for w in name_words(chosen.name) for i in said.get(w, [])]
    for spec, start in other_reads(sub, chosen, scored, cut=True):
        if not chosen_at or max(chosen_at) >= start:
            continue
        joints = list(re.finditer(r",\s*(?:and\s+)?|\s+and\s+", text[max(chosen_at) : start]))
        if not joints:
            continue
        cut = max(chosen_at) + joints[-1].start()
        left = SubIntent(**{**sub, "text": text[:cut]})
        right = SubIntent(**{**sub, "text": text[cut:].lstrip(" ,")})
        if bind(left, chosen)[1] or bind(right, spec)[1]:
            continue
        return left, right
    return sub, None


def _lemma_spots(text: str) -> dict[str, list[int]]:
    """Where each content word of a text (lemmatised, singular) starts."""
    spots: dict[str, list[int]] = {}
    for match in re.finditer(r"[A-Za-z][A-Za-z0-9]*", text):
        for word in content_words(match.group()):
            spots.setdefault(word, []).append(match.start())
    return spots


def _joined(
    text: str, own: Sequence[list[int]], other: Sequence[list[int]], within: int = 8
) -> bool:
    """Whether a word at one of ``own`` and one at ``other`` are coordinated in ``text``.

    Between them, within ``within`` words, stands "and", "&" or a comma, and no sentence ends.
    """
    for spot, there in product(chain(*own), chain(*other)):
        between = text[min(spot, there) : max(spot, there)]
        if len(between.split()) <= within and not re.search(r"[.?!;:]", between) \
                and re.search(r"\band\b|&|,", between):
            return True
    return False
