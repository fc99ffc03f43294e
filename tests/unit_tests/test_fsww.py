"""FSWW against a loop-based oracle written straight from eqs. 1-7, plus edge cases."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from stores.retrieval.fsww import (
    FSWWParams,
    KeywordVectorCache,
    fsww_embed,
    fuse_many,
    fuse_statement_with_keywords,
    fuse_with_diagnostics,
)

# ---------------------------------------------------------------------------------------------
# The oracle: plain Python lists and loops, no shared helpers with stores.fsww.


def _norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


def _unit(v: list[float]) -> list[float]:
    n = _norm(v)
    return [0.0 for _ in v] if n == 0 else [x / n for x in v]


def _dot(u: list[float], v: list[float]) -> float:
    return sum(a * b for a, b in zip(u, v, strict=True))


def _solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Gauss-Jordan elimination with partial pivoting."""
    n = len(rhs)
    aug = [row[:] + [rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(aug[r][col]))
        aug[col], aug[pivot] = aug[pivot], aug[col]
        for r in range(n):
            if r != col:
                factor = aug[r][col] / aug[col][col]
                aug[r] = [a - factor * b for a, b in zip(aug[r], aug[col], strict=True)]
    return [aug[i][n] / aug[i][i] for i in range(n)]


def oracle_fuse(
    statement: Sequence[float],
    keywords: Sequence[Sequence[float]],
    alpha: float = 0.5,
    beta: float = 0.1,
    gamma: float = 0.6,
    lam: float = 0.6,
    eps: float = 0.001,
    delta: float = 0.9,
    factor: float = 0.8,
    rounds: int = 10,
) -> list[float]:
    a = _unit([float(x) for x in statement])
    d = len(a)
    words = [_unit([float(x) for x in w]) for w in keywords]
    words = [w for w in words if _norm(w) > 0]
    if _norm(a) == 0 or not words:
        return a
    k = len(words)
    omega = [_dot(a, w) for w in words]  # eq. 1
    # eq. 2: S columns omega_j * w_j; P = S (S^T S + eps I)^-1 S^T a
    cols = [[omega[j] * words[j][i] for i in range(d)] for j in range(k)]
    gram = [[_dot(cols[r], cols[c]) + (eps if r == c else 0.0) for c in range(k)] for r in range(k)]
    coef = _solve(gram, [_dot(cols[j], a) for j in range(k)])
    p = [sum(cols[j][i] * coef[j] for j in range(k)) for i in range(d)]
    # eq. 3, with the documented rule: no centroid when sum(omega) <= 0
    total = sum(omega)
    if total > 0:
        e = _unit([sum(omega[j] * words[j][i] for j in range(k)) / total for i in range(d)])
    else:
        e = [0.0] * d
    # eq. 4
    wdir = _unit([sum(omega[j] * (words[j][i] - a[i]) for j in range(k)) for i in range(d)])
    gate = min(1.0, max(0.0, lam * (0.3 + 0.7 * total / k)))  # eq. 6
    for _ in range(rounds + 1):
        f = _unit(
            [(1 - alpha) * a[i] + alpha * p[i] + beta * e[i] + gamma * wdir[i] for i in range(d)]
        )  # eq. 5
        f_unit = _unit(f)
        v = _unit([(1 - gate) * a[i] + gate * f_unit[i] for i in range(d)])  # eq. 7
        if _dot(a, v) >= delta:
            return v
        alpha, beta, gamma = alpha * factor, beta * factor, gamma * factor
    return a


# ---------------------------------------------------------------------------------------------


def _related_case(
    rng: np.random.Generator, d: int, k: int, spread: float = 0.5
) -> tuple[np.ndarray, np.ndarray]:
    """A statement and k keywords that are noisy copies of it (positive weights)."""
    statement = rng.normal(size=d)
    keywords = statement + spread * rng.normal(size=(k, d)) * np.linalg.norm(statement) / 4
    return statement, keywords


@pytest.mark.parametrize("seed", range(12))
def test_matches_oracle_on_random_data(seed: int) -> None:
    rng = np.random.default_rng(seed)
    d, k = int(rng.integers(4, 24)), int(rng.integers(1, 7))
    statement, keywords = _related_case(rng, d, k, spread=float(rng.uniform(0.2, 3.0)))
    got = fuse_statement_with_keywords(statement, keywords)
    np.testing.assert_allclose(got, oracle_fuse(statement, keywords), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_matches_oracle_with_other_params_and_unrelated_keywords(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    statement, keywords = rng.normal(size=16), rng.normal(size=(5, 16))
    params = FSWWParams(alpha=0.8, beta=0.4, gamma=0.9, lam=0.9, eps=0.01, delta=0.5)
    got = fuse_statement_with_keywords(statement, keywords, params)
    expected = oracle_fuse(
        statement, keywords, alpha=0.8, beta=0.4, gamma=0.9, lam=0.9, eps=0.01, delta=0.5
    )
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_output_is_unit_length_and_moves_towards_keywords() -> None:
    rng = np.random.default_rng(7)
    statement, keywords = _related_case(rng, 32, 3)
    statement_unit = statement / np.linalg.norm(statement)
    fused = fuse_statement_with_keywords(statement, keywords)
    assert np.linalg.norm(fused) == pytest.approx(1.0)
    centroid = keywords.mean(axis=0)
    assert fused @ centroid > statement_unit @ centroid
    assert fused @ statement_unit >= FSWWParams().delta


def test_float32_in_float32_out() -> None:
    rng = np.random.default_rng(3)
    statement, keywords = _related_case(rng, 16, 3)
    fused = fuse_statement_with_keywords(statement.astype(np.float32), keywords.astype(np.float32))
    assert fused.dtype == np.float32
    np.testing.assert_allclose(fused, oracle_fuse(statement, keywords), atol=1e-5)
    assert fuse_statement_with_keywords(statement, keywords).dtype == np.float64


# --- edge cases ------------------------------------------------------------------------------


def test_no_keywords_returns_normalized_statement() -> None:
    statement = np.array([3.0, 4.0, 0.0])
    for empty in (np.zeros((0, 3)), np.array([])):
        np.testing.assert_allclose(fuse_statement_with_keywords(statement, empty), [0.6, 0.8, 0])


def test_one_keyword_matches_oracle() -> None:
    statement, keyword = np.array([1.0, 0.2, 0.0, 0.1]), np.array([[0.9, 0.0, 0.4, 0.0]])
    np.testing.assert_allclose(
        fuse_statement_with_keywords(statement, keyword), oracle_fuse(statement, keyword)
    )


def test_duplicate_and_collinear_keywords_stay_finite() -> None:
    rng = np.random.default_rng(11)
    statement, keywords = _related_case(rng, 12, 2)
    duplicated = np.vstack([keywords[0], keywords[0], 3.0 * keywords[0], keywords[1]])
    fused = fuse_statement_with_keywords(statement, duplicated)
    assert np.all(np.isfinite(fused))
    assert np.linalg.norm(fused) == pytest.approx(1.0)
    np.testing.assert_allclose(fused, oracle_fuse(statement, duplicated), rtol=1e-7, atol=1e-10)


def test_negative_weights_keep_their_sign() -> None:
    statement = np.array([1.0, 0.0, 0.0, 0.0])
    keywords = np.array([[0.8, 0.6, 0.0, 0.0], [-0.5, 0.0, 0.8, 0.3]])  # ω = 0.8 and < 0
    params = FSWWParams(delta=0.0)
    fused = fuse_statement_with_keywords(statement, keywords, params)
    np.testing.assert_allclose(fused, oracle_fuse(statement, keywords, delta=0.0), atol=1e-12)
    # An anti-correlated keyword pushes the output away from its own direction.
    positive_only = fuse_statement_with_keywords(statement, keywords[:1], params)
    assert fused @ keywords[1] < positive_only @ keywords[1]


def test_non_positive_weight_sum_drops_the_centroid() -> None:
    statement = np.array([1.0, 0.0, 0.0])
    keywords = np.array([[-0.6, 0.8, 0.0], [-0.6, 0.0, 0.8]])  # Σω = -1.2 < 0
    params = FSWWParams(delta=-1.0)
    fused = fuse_statement_with_keywords(statement, keywords, params)
    assert np.all(np.isfinite(fused))
    np.testing.assert_allclose(fused, oracle_fuse(statement, keywords, delta=-1.0), atol=1e-12)
    # β must not matter when Ē is dropped.
    without_beta = fuse_statement_with_keywords(
        statement, keywords, FSWWParams(delta=-1.0, beta=0.0)
    )
    np.testing.assert_allclose(fused, without_beta, atol=1e-12)


def test_weights_summing_to_zero_stay_finite() -> None:
    statement = np.array([1.0, 0.0, 0.0])
    keywords = np.array([[0.6, 0.8, 0.0], [-0.6, 0.8, 0.0]])  # ω = ±0.6, Σω = 0
    fused = fuse_statement_with_keywords(statement, keywords, FSWWParams(delta=-1.0))
    assert np.all(np.isfinite(fused))
    np.testing.assert_allclose(fused, oracle_fuse(statement, keywords, delta=-1.0), atol=1e-12)


def test_zero_vectors_never_give_nan() -> None:
    keywords = np.array([[1.0, 0.0], [0.0, 1.0]])
    zero_statement = fuse_statement_with_keywords(np.zeros(2), keywords)
    np.testing.assert_array_equal(zero_statement, [0.0, 0.0])
    only_zero_keywords = fuse_statement_with_keywords(np.array([0.0, 2.0]), np.zeros((3, 2)))
    np.testing.assert_allclose(only_zero_keywords, [0.0, 1.0])
    statement = np.array([0.6, 0.8])
    with_a_zero_row = fuse_statement_with_keywords(statement, np.vstack([keywords, [0.0, 0.0]]))
    np.testing.assert_allclose(
        with_a_zero_row, fuse_statement_with_keywords(statement, keywords), atol=1e-12
    )


def test_orthogonal_keywords_leave_the_statement_alone() -> None:
    statement = np.array([1.0, 0.0, 0.0])
    fused = fuse_statement_with_keywords(statement, np.array([[0.0, 1.0, 0.0]]))
    np.testing.assert_allclose(fused, statement, atol=1e-12)


def test_gate_is_clamped_into_unit_interval() -> None:
    # mean ω = -0.9 makes λ(0.3 + 0.7 μ) negative; clamped to 0 the output is Ā.
    statement = np.array([1.0, 0.0, 0.0])
    keywords = np.array([[-0.9, math.sqrt(1 - 0.81), 0.0]])
    fused = fuse_statement_with_keywords(statement, keywords, FSWWParams(lam=1.0, delta=-1.0))
    np.testing.assert_allclose(fused, statement, atol=1e-12)


def test_shape_and_value_errors() -> None:
    with pytest.raises(ValueError, match="shape"):
        fuse_statement_with_keywords(np.ones(3), np.ones((2, 4)))
    with pytest.raises(ValueError, match="fuse_many"):
        fuse_statement_with_keywords(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="finite"):
        fuse_statement_with_keywords(np.array([1.0, np.nan]), np.ones((1, 2)))


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("alpha", 1.5),
        ("beta", -0.1),
        ("gamma", float("nan")),
        ("lam", -0.2),
        ("eps", 0.0),
        ("delta", 1.1),
        ("guard_factor", 1.0),
        ("guard_rounds", -1),
    ],
)
def test_params_reject_out_of_range_values(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        FSWWParams(**{field: value})  # type: ignore[arg-type]


# --- semantic guard --------------------------------------------------------------------------


def test_guard_shrinks_until_similarity_holds() -> None:
    statement = np.array([1.0, 0.0, 0.0, 0.0])
    keywords = np.array([[0.3, 0.95, 0.0, 0.0], [0.2, 0.0, 0.97, 0.0]])
    params = FSWWParams(delta=0.97, lam=1.0, gamma=1.0)
    unguarded = fuse_with_diagnostics(statement, keywords, FSWWParams(lam=1.0, gamma=1.0, delta=-1))
    assert unguarded.similarity < 0.97
    result = fuse_with_diagnostics(statement, keywords, params)
    assert result.shrink_rounds >= 1
    assert not result.fell_back
    assert result.similarity >= 0.97
    assert not np.allclose(result.vector, statement)
    expected = oracle_fuse(statement, keywords, lam=1.0, gamma=1.0, delta=0.97)
    np.testing.assert_allclose(result.vector, expected, atol=1e-12)


def test_guard_falls_back_to_statement() -> None:
    statement = np.array([1.0, 0.0, 0.0])
    keywords = np.array([[0.5, 0.8, 0.3]])
    result = fuse_with_diagnostics(statement, keywords, FSWWParams(delta=1.0, guard_rounds=3))
    assert result.fell_back
    assert result.shrink_rounds == 3
    np.testing.assert_allclose(result.vector, statement)
    no_rounds = fuse_with_diagnostics(statement, keywords, FSWWParams(delta=0.9999, guard_rounds=0))
    assert no_rounds.fell_back
    np.testing.assert_allclose(no_rounds.vector, statement)


# --- batches, embedder, cache ----------------------------------------------------------------


def test_fuse_many_matches_row_by_row() -> None:
    rng = np.random.default_rng(5)
    statements = rng.normal(size=(3, 8))
    keyword_sets = [
        rng.normal(size=(2, 8)) + statements[0],
        np.zeros((0, 8)),
        rng.normal(size=(1, 8)),
    ]
    fused = fuse_many(statements, keyword_sets)
    for row in range(3):
        np.testing.assert_allclose(
            fused[row], fuse_statement_with_keywords(statements[row], keyword_sets[row])
        )
    with pytest.raises(ValueError, match="keyword sets"):
        fuse_many(statements, keyword_sets[:2])


class CountingEmbedder:
    """Deterministic fake: a seeded random unit vector per text; records every call."""

    def __init__(self, dim: int = 16) -> None:
        self.dim = dim
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        rows = []
        for text in texts:
            seed = sum(ord(c) * 31**i for i, c in enumerate(text)) % 2**32
            vector = np.random.default_rng(seed).normal(size=self.dim)
            rows.append(vector / np.linalg.norm(vector))
        return np.array(rows, dtype=np.float32).reshape(len(texts), self.dim)


def test_fsww_embed_uses_one_encoder_call() -> None:
    embedder = CountingEmbedder()
    statements = ["create an order for user 1", "issue a coupon"]
    keywords = [["create", "order"], ["issue", "coupon", "create"]]
    fused = fsww_embed(embedder, statements, keywords, FSWWParams())
    assert len(embedder.calls) == 1
    assert embedder.calls[0] == [*statements, "create", "order", "issue", "coupon"]
    assert fused.shape == (2, 16) and fused.dtype == np.float32
    reference = CountingEmbedder()
    expected = fuse_many(
        reference.embed(statements),
        [reference.embed(words) for words in keywords],
        FSWWParams(),
    )
    np.testing.assert_allclose(fused, expected, atol=1e-6)


def test_fsww_embed_without_params_or_keywords_returns_plain_vectors() -> None:
    embedder = CountingEmbedder()
    plain = embedder.embed(["a b", "c"])
    np.testing.assert_array_equal(fsww_embed(embedder, ["a b", "c"], [["x"], []], None), plain)
    np.testing.assert_array_equal(
        fsww_embed(embedder, ["a b", "c"], [[], [""]], FSWWParams()), plain
    )
    assert embedder.calls[1:] == [["a b", "c"], ["a b", "c"]]
    with pytest.raises(ValueError, match="keyword lists"):
        fsww_embed(embedder, ["a"], [], FSWWParams())


def test_fsww_embed_sends_only_uncached_keywords() -> None:
    embedder = CountingEmbedder()
    cache = KeywordVectorCache(embedder)
    first = fsww_embed(embedder, ["place an order"], [["create", "order"]], FSWWParams(), cache)
    assert embedder.calls == [["place an order", "create", "order"]]
    assert len(cache) == 2 and "order" in cache and "place an order" not in cache
    second = fsww_embed(embedder, ["place an order"], [["order", "create"]], FSWWParams(), cache)
    assert embedder.calls[-1] == ["place an order"]
    assert cache.hits == 2 and cache.misses == 2
    # Same keywords in a different order give the same fused vector.
    np.testing.assert_allclose(first, second, atol=1e-6)
    fsww_embed(embedder, ["q"], [["order", "coupon"]], FSWWParams(), cache)
    assert embedder.calls[-1] == ["q", "coupon"]


def test_cache_embeds_missing_texts_once_and_evicts_least_recent() -> None:
    embedder = CountingEmbedder()
    cache = KeywordVectorCache(embedder, max_entries=2)
    vectors = cache.embed_with_cache(["order", "coupon", "order"])
    assert embedder.calls == [["order", "coupon"]]
    np.testing.assert_array_equal(vectors[0], vectors[2])
    cache.embed_with_cache(["order"])  # hit: "order" becomes most recent
    assert len(embedder.calls) == 1
    cache.embed_with_cache(["rider"])  # evicts "coupon"
    assert "coupon" not in cache and "order" in cache and len(cache) == 2
    assert cache.embed_with_cache([]).shape == (0, 0)
    with pytest.raises(ValueError, match="max_entries"):
        KeywordVectorCache(embedder, max_entries=0)
