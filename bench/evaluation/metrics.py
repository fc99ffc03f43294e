"""Retrieval metrics with binary relevance: Recall@K, AP@K, nDCG@K, and percentiles.

With gold set ``G``, ranking ``R`` and 1-based rank ``k``:

* ``Recall@K = |G ∩ R[:K]| / |G|``
* ``AP@K = (1 / min(|G|, K)) · Σ_{k ≤ K, R[k] ∈ G} Precision@k``
* ``nDCG@K = Σ_{k ≤ K, R[k] ∈ G} 1/log2(k+1) / Σ_{k ≤ min(|G|, K)} 1/log2(k+1)``

An item repeated in the ranking counts only at its first occurrence: later copies keep their
rank slot but earn nothing, so a ranker cannot gain by repeating a hit.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence

import numpy as np

RankedAndGold = tuple[Sequence[str], Collection[str]]
METRIC_NAMES = ("recall", "map", "ndcg")


def _validate(gold: Collection[str], k: int) -> frozenset[str]:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    gold_set = frozenset(gold)
    if not gold_set:
        raise ValueError(
            "gold is empty, so the metric is undefined; skip the query (summarize does)"
        )
    return gold_set


def _first_hit_ranks(ranked: Sequence[str], gold: frozenset[str], k: int) -> list[int]:
    """1-based ranks within the top ``k`` where a gold item appears for the first time."""
    seen: set[str] = set()
    ranks: list[int] = []
    for rank, item in enumerate(ranked[:k], start=1):
        if item in gold and item not in seen:
            ranks.append(rank)
        seen.add(item)
    return ranks


def recall_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Share of the gold items found in the top ``k``.

    Args:
        ranked: Retrieved ids, best first.
        gold: Relevant ids (non-empty).
        k: Cut-off, ``>= 1``.

    Returns:
        ``|G ∩ R[:k]| / |G|``.

    Raises:
        ValueError: If ``gold`` is empty or ``k < 1``.
    """
    gold_set = _validate(gold, k)
    return len(_first_hit_ranks(ranked, gold_set, k)) / len(gold_set)


def average_precision_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Average precision at the ranks of the hits, normalized by ``min(|G|, k)``.

    Args:
        ranked: Retrieved ids, best first.
        gold: Relevant ids (non-empty).
        k: Cut-off, ``>= 1``.

    Returns:
        ``AP@k`` in ``[0, 1]``.

    Raises:
        ValueError: If ``gold`` is empty or ``k < 1``.
    """
    gold_set = _validate(gold, k)
    hit_ranks = _first_hit_ranks(ranked, gold_set, k)
    precision_sum = sum(hits / rank for hits, rank in enumerate(hit_ranks, start=1))
    return precision_sum / min(len(gold_set), k)


def ndcg_at_k(ranked: Sequence[str], gold: Collection[str], k: int) -> float:
    """Normalized discounted cumulative gain with binary gains.

    Args:
        ranked: Retrieved ids, best first.
        gold: Relevant ids (non-empty).
        k: Cut-off, ``>= 1``.

    Returns:
        ``nDCG@k`` in ``[0, 1]``.

    Raises:
        ValueError: If ``gold`` is empty or ``k < 1``.
    """
    gold_set = _validate(gold, k)
    gain = sum(1.0 / math.log2(rank + 1) for rank in _first_hit_ranks(ranked, gold_set, k))
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(gold_set), k) + 1))
    return gain / ideal


def summarize(
    rows: Iterable[RankedAndGold], ks: Sequence[int] = (1, 3, 5, 10)
) -> dict[str, dict[int, float]]:
    """Average Recall@K, AP@K (MAP) and nDCG@K over queries.

    Queries whose gold set is empty are skipped: every metric is undefined for them (nothing
    to find), and counting them as 0 or 1 would only measure how many such queries the set
    holds.

    Args:
        rows: ``(ranked, gold)`` per query.
        ks: Cut-offs to report.

    Returns:
        ``{"recall": {k: mean}, "map": {k: mean}, "ndcg": {k: mean}}``.

    Raises:
        ValueError: If no query has a non-empty gold set, or a cut-off is below 1.
    """
    scored = [(ranked, gold) for ranked, gold in rows if len(gold) > 0]
    if not scored:
        raise ValueError("no query has gold items; add gold ids before summarizing")
    metric_functions = {
        "recall": recall_at_k,
        "map": average_precision_at_k,
        "ndcg": ndcg_at_k,
    }
    return {
        name: {k: sum(metric(ranked, gold, k) for ranked, gold in scored) / len(scored) for k in ks}
        for name, metric in metric_functions.items()
    }


def percentile(values: Iterable[float], p: float) -> float:
    """Return the ``p``-th percentile with linear interpolation between closest ranks.

    This is numpy's default ("linear") method: the value at position ``(n - 1) · p / 100``
    of the sorted values, interpolated between its neighbours.

    Args:
        values: Samples (e.g. latencies in ms); at least one.
        p: Percentile in ``[0, 100]`` (50 is the median, 95 the usual tail).

    Returns:
        The percentile as a float.

    Raises:
        ValueError: If ``values`` is empty or ``p`` is outside ``[0, 100]``.
    """
    samples = np.asarray(list(values), dtype=np.float64)
    if samples.size == 0:
        raise ValueError("percentile of no values is undefined; pass at least one value")
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"p must be in [0, 100], got {p}")
    return float(np.percentile(samples, p))
