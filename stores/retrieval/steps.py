"""Step-wise querying: a query of several sentences is also ranked sentence by sentence.

Tool-to-Agent Retrieval queries once per decomposed step. A question that asks for two things
("Give me the game's score. Additionally, provide the player statistics.") ranks, as a whole,
the providers of its first need and their look-alikes above the provider of the second; each
sentence ranked alone puts its own provider first. The agent rankings of the whole query and
of every step are fused by reciprocal rank with a small constant, so a step's first agents
count nearly as much as the whole query's.

Measured on StableToolBench grown with look-alike providers (``bench/results/scale.md``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# A sentence ends at ., ! or ? followed by space; an abbreviation ("e.g.", "No.") does not
# end one, nor does a dot inside a number, a file name or a URL (no space follows).
_SENTENCE_END = re.compile(r"[.!?]+(?=\s)")
_ABBREVIATION = re.compile(r"\b(?:no|e\.g|i\.e|vs|mr|mrs|ms|dr|st|approx|etc|nr)\.$", re.I)
_WORD = re.compile(r"\w+")
MIN_STEP_WORDS = 3


def split_steps(query: str) -> list[str]:
    """The sentences of a query (the query itself when it has one sentence or none).

    A piece of fewer than ``MIN_STEP_WORDS`` words ("Thanks!", or the terms a caller appends
    after a question: "Where is order 7? get") is no step of its own: it stays with the
    sentence before it (or after it, when it comes first).
    """
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(query):
        piece = query[start : match.end()]
        if _ABBREVIATION.search(piece):
            continue
        pieces.append(piece)
        start = match.end()
    pieces.append(query[start:])
    steps: list[str] = []
    carried = ""
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        if len(_WORD.findall(piece)) < MIN_STEP_WORDS:
            if steps:
                steps[-1] = f"{steps[-1]} {piece}"
            else:
                carried = f"{carried} {piece}".strip()
            continue
        steps.append(f"{carried} {piece}".strip())
        carried = ""
    return steps if len(steps) > 1 else [query]


def step_weights(heads: Sequence[float], power: float) -> list[float]:
    """Each step's weight in the fusion: its best BM25 score over the best step's, to ``power``.

    A step that names nothing specific ("Can you assist me with this?") matches every
    document weakly, so its first agents are noise; a step with rare words matches some
    document strongly. The scores are the steps' own BM25 heads (the whole query's is not
    comparable: it has more words). With ``power`` 0, or no lexical score, all weigh 1.
    """
    best = max(heads, default=0.0)
    if power <= 0.0 or best <= 0.0:
        return [1.0] * len(heads)
    return [(max(head, 0.0) / best) ** power for head in heads]


def fuse_step_rankings(
    whole: Sequence[str],
    steps: Sequence[Sequence[str]],
    depth: int,
    k: float,
    weights: Sequence[float] | None = None,
    corroboration: float = 0.0,
) -> list[tuple[str, float]]:
    """The whole query's ranking fused with each step's first ``depth`` by reciprocal rank.

    Every ranking adds ``1 / (k + rank)`` to an item (rank from 1); the whole query's ranking
    counts in full, so it also orders everything the steps did not reach. A step's share is
    multiplied by its weight (``step_weights``), and by ``1 + corroboration`` for an item the
    whole query's ranking holds too (anywhere in it): a step's winner that the whole request
    also retrieved is more likely what was asked for than one only that sentence brought in.
    Ties keep the whole query's order, then first-seen order.
    """
    scores: dict[str, float] = {}
    for rank, item in enumerate(whole, start=1):
        scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    in_whole = set(whole)
    for position, ranking in enumerate(steps):
        weight = weights[position] if weights is not None else 1.0
        for rank, item in enumerate(ranking[:depth], start=1):
            lift = 1.0 + corroboration if item in in_whole else 1.0
            scores[item] = scores.get(item, 0.0) + weight * lift / (k + rank)
    order = {item: position for position, item in enumerate(scores)}
    ranked = sorted(scores, key=lambda item: (-scores[item], order[item]))
    return [(item, scores[item]) for item in ranked]
