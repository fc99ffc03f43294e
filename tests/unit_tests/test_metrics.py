"""Retrieval metrics: hand-computed cases and a naive oracle on seeded random rankings."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from bench.evaluation.metrics import (
    average_precision_at_k,
    ndcg_at_k,
    percentile,
    recall_at_k,
    summarize,
)


def oracle(ranked: list[str], gold: set[str], k: int) -> tuple[float, float, float]:
    """Recall, AP and nDCG at k, straight from the definitions, first occurrences only."""
    deduped: list[str | None] = []
    for position, item in enumerate(ranked):
        deduped.append(None if item in ranked[:position] else item)
    top = deduped[:k]
    hits = [1 if item is not None and item in gold else 0 for item in top]
    recall = sum(hits) / len(gold)
    ap = 0.0
    for position in range(len(top)):
        if hits[position]:
            ap += sum(hits[: position + 1]) / (position + 1)
    ap /= min(len(gold), k)
    dcg = sum(hits[position] / math.log2(position + 2) for position in range(len(top)))
    idcg = sum(1 / math.log2(position + 2) for position in range(min(len(gold), k)))
    return recall, ap, dcg / idcg


def test_hand_computed_case() -> None:
    ranked, gold = ["a", "x", "b", "y", "c"], {"a", "b", "c", "d"}
    assert recall_at_k(ranked, gold, 1) == 0.25
    assert recall_at_k(ranked, gold, 3) == 0.5
    assert recall_at_k(ranked, gold, 5) == 0.75
    assert average_precision_at_k(ranked, gold, 1) == 1.0
    assert average_precision_at_k(ranked, gold, 3) == pytest.approx((1 + 2 / 3) / 3)
    assert average_precision_at_k(ranked, gold, 5) == pytest.approx((1 + 2 / 3 + 3 / 5) / 4)
    ideal3 = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at_k(ranked, gold, 3) == pytest.approx((1 + 1 / math.log2(4)) / ideal3)


def test_perfect_and_empty_rankings() -> None:
    gold = {"a", "b"}
    for metric in (recall_at_k, average_precision_at_k, ndcg_at_k):
        assert metric(["a", "b", "z"], gold, 3) == pytest.approx(1.0)
        assert metric(["b", "a"], gold, 10) == pytest.approx(1.0)
        assert metric([], gold, 5) == 0.0
        assert metric(["z"], gold, 1) == 0.0


def test_single_gold_hit_at_rank_two() -> None:
    assert average_precision_at_k(["x", "g"], {"g"}, 5) == 0.5
    assert ndcg_at_k(["x", "g"], {"g"}, 5) == pytest.approx(1 / math.log2(3))


def test_duplicates_count_once_at_their_first_rank() -> None:
    gold = {"a", "b"}
    assert recall_at_k(["a", "a"], gold, 2) == 0.5
    assert average_precision_at_k(["a", "a", "b"], gold, 3) == pytest.approx((1 + 2 / 3) / 2)
    assert ndcg_at_k(["a", "a"], gold, 2) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    # The repeat keeps its slot: "b" at rank 3 is not promoted to rank 2.
    assert ndcg_at_k(["a", "a", "b"], gold, 2) == ndcg_at_k(["a", "z", "b"], gold, 2)


@pytest.mark.parametrize("seed", range(20))
def test_matches_oracle_on_random_rankings(seed: int) -> None:
    rng = random.Random(seed)
    pool = [f"tool{i}" for i in range(15)]
    ranked = [rng.choice(pool) for _ in range(rng.randint(0, 14))]  # with repeats
    gold = set(rng.sample(pool, rng.randint(1, 6)))
    for k in (1, 2, 3, 5, 10, 20):
        expected = oracle(ranked, gold, k)
        got = (
            recall_at_k(ranked, gold, k),
            average_precision_at_k(ranked, gold, k),
            ndcg_at_k(ranked, gold, k),
        )
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        assert all(0.0 <= value <= 1.0 for value in got)


def test_invalid_arguments() -> None:
    for metric in (recall_at_k, average_precision_at_k, ndcg_at_k):
        with pytest.raises(ValueError, match="gold is empty"):
            metric(["a"], set(), 3)
        with pytest.raises(ValueError, match="k must be"):
            metric(["a"], {"a"}, 0)


def test_summarize_averages_and_skips_empty_gold() -> None:
    rows = [
        (["a", "b"], {"a"}),
        (["x", "a"], {"a"}),
        (["q"], set()),  # skipped
    ]
    summary = summarize(rows, ks=(1, 2))
    assert set(summary) == {"recall", "map", "ndcg"}
    assert summary["recall"] == {1: 0.5, 2: 1.0}
    assert summary["map"] == {1: 0.5, 2: 0.75}
    assert summary["ndcg"][2] == pytest.approx((1 + 1 / math.log2(3)) / 2)
    with pytest.raises(ValueError, match="no query has gold"):
        summarize([(["a"], set())])


def test_percentile() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert percentile(values, 0) == 10.0
    assert percentile(values, 100) == 40.0
    assert percentile(values, 50) == 25.0
    assert percentile(values, 95) == pytest.approx(38.5)
    assert percentile([7.0], 99) == 7.0
    with pytest.raises(ValueError, match="at least one"):
        percentile([], 50)
    with pytest.raises(ValueError, match="p must be"):
        percentile(values, 101)
