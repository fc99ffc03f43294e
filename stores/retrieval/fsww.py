"""FSWW: Fused Subspace with Word Weights, in plain numpy.

FSWW (z-space paper, section 3.3) pulls a statement's embedding towards the semantic directions
of its keywords without losing the statement's overall meaning. With the statement vector
``A`` and keyword vectors ``w_1 .. w_k``:

1. ``Ā = normalize(A)``, ``w̄_j = normalize(w_j)``, ``ω_j = cos(Ā, w̄_j)`` (eq. 1).
2. ``S = [ω_1 w̄_1 .. ω_k w̄_k]`` and ``P = S (SᵀS + εI)⁻¹ SᵀĀ`` (eq. 2).
3. ``Ē = normalize(Σ ω_j w̄_j / Σ ω_j)`` (eq. 3).
4. ``W̄ = normalize(Σ ω_j (w̄_j − Ā))`` (eq. 4).
5. ``F = normalize((1 − α)Ā + αP + βĒ + γW̄)`` (eq. 5).
6. ``Λ = λ (0.3 + 0.7 mean(ω))`` (eq. 6) and ``V = (1 − Λ)Ā + Λ F/‖F‖`` (eq. 7).

The output is ``V`` scaled to unit length. A semantic guard keeps ``cos(Ā, V) ≥ Δ``: while it
fails, α, β and γ shrink by ``guard_factor`` and the fusion runs again, at most
``guard_rounds`` times; if the constraint still fails the plain ``Ā`` is returned.

Nothing here imports LangGraph; the embedder is anything with an ``embed`` method.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.floating[Any]]
Float32Array = npt.NDArray[np.float32]
Float64Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class FSWWParams:
    """Hyper-parameters of FSWW; the defaults are the paper's.

    Attributes:
        alpha: Weight of the subspace projection ``P`` in eq. 5, in ``[0, 1]``; the statement
            keeps ``1 - alpha``.
        beta: Weight of the keyword centroid ``Ē`` in eq. 5, ``>= 0``.
        gamma: Weight of the differential direction ``W̄`` in eq. 5, ``>= 0``.
        lam: Residual gate ``λ`` of eq. 6, in ``[0, 1]``.
        eps: Ridge term ``ε`` of eq. 2, ``> 0``; keeps ``SᵀS`` invertible.
        delta: Semantic guard threshold ``Δ`` on ``cos(Ā, V)``, in ``[-1, 1]``.
        guard_factor: Factor in ``[0, 1)`` applied to α, β, γ each guard round.
        guard_rounds: Maximum number of shrink rounds, ``>= 0``.
    """

    alpha: float = 0.5
    beta: float = 0.1
    gamma: float = 0.6
    lam: float = 0.6
    eps: float = 0.001
    delta: float = 0.9
    guard_factor: float = 0.8
    guard_rounds: int = 10

    def __post_init__(self) -> None:
        """Reject values outside the ranges documented on the class."""
        _require_range("alpha", self.alpha, 0.0, 1.0)
        _require_range("beta", self.beta, 0.0, math.inf)
        _require_range("gamma", self.gamma, 0.0, math.inf)
        _require_range("lam", self.lam, 0.0, 1.0)
        _require_range("delta", self.delta, -1.0, 1.0)
        _require_range("guard_factor", self.guard_factor, 0.0, 1.0, upper_inclusive=False)
        if not math.isfinite(self.eps) or self.eps <= 0.0:
            raise ValueError(
                f"FSWWParams.eps must be a finite number > 0, got {self.eps!r}; "
                "use a small ridge such as 0.001"
            )
        if isinstance(self.guard_rounds, bool) or not isinstance(self.guard_rounds, int):
            raise ValueError(f"FSWWParams.guard_rounds must be an int, got {self.guard_rounds!r}")
        if self.guard_rounds < 0:
            raise ValueError(
                f"FSWWParams.guard_rounds must be >= 0, got {self.guard_rounds}; "
                "use 0 to disable shrinking"
            )


def _require_range(
    name: str, value: float, low: float, high: float, *, upper_inclusive: bool = True
) -> None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    in_range = low <= number <= high if upper_inclusive else low <= number < high
    if not (math.isfinite(number) and in_range):
        closing = "]" if upper_inclusive else ")"
        raise ValueError(f"FSWWParams.{name} must be in [{low}, {high}{closing}, got {value!r}")


@dataclass(frozen=True)
class FusionResult:
    """One fused vector and what the semantic guard did to get it.

    Attributes:
        vector: The unit-length fused vector (zero when the statement vector is zero).
        similarity: ``cos(Ā, vector)``.
        shrink_rounds: How many times α, β, γ were scaled by ``guard_factor``.
        fell_back: True when the guard gave up and ``vector`` is the plain ``Ā``.
    """

    vector: FloatArray
    similarity: float
    shrink_rounds: int
    fell_back: bool


def _normalize(vector: Float64Array) -> Float64Array:
    """Scale to unit length; a zero vector stays zero (never NaN)."""
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        return np.zeros_like(vector)
    return vector / norm


def _output_dtype(statement: FloatArray) -> np.dtype[Any]:
    # float32 stays float32, float64 stays float64, integers become float64.
    return np.result_type(statement.dtype, np.float32)


def _check_inputs(statement: FloatArray, keywords: FloatArray) -> Float64Array:
    if statement.ndim != 1:
        raise ValueError(
            f"statement must be one vector of shape (d,), got shape {statement.shape}; "
            "use fuse_many for a batch"
        )
    if keywords.size == 0:
        return np.zeros((0, statement.shape[0]), dtype=np.float64)
    if keywords.ndim != 2 or keywords.shape[1] != statement.shape[0]:
        raise ValueError(
            f"keywords must have shape (k, {statement.shape[0]}) to match the statement, "
            f"got {keywords.shape}"
        )
    if not (np.all(np.isfinite(statement)) and np.all(np.isfinite(keywords))):
        raise ValueError("statement and keyword vectors must be finite (no NaN or inf)")
    return keywords.astype(np.float64)


def fuse_with_diagnostics(
    statement: FloatArray,
    keywords: FloatArray,
    params: FSWWParams | None = None,
) -> FusionResult:
    """Fuse one statement vector with its keyword vectors and report what the guard did.

    Edge cases, each a deliberate choice:

    * A zero statement vector returns a zero vector (there is no direction to keep).
    * No keywords (``keywords`` empty, or every keyword row zero) returns ``Ā``. Zero keyword
      rows are dropped before fusing, so they neither count in ``mean(ω)`` nor add columns.
    * One keyword: ``P`` is ``Ā``'s ridge projection on that one direction; nothing special.
    * Duplicate or collinear keywords make ``SᵀS`` singular; the ridge ``ε`` keeps the solve
      well posed and the output finite.
    * Negative weights ``ω_j < 0`` keep their sign, as in the paper: in eq. 2 the sign does
      not change the spanned subspace, in eqs. 3-4 an anti-correlated keyword pushes away from
      its own direction, and it lowers ``mean(ω)`` and so the gate ``Λ``.
    * ``Σ ω_j <= 0``: eq. 3 would divide by zero or flip the centroid to the opposite side, so
      ``Ē`` is taken as the zero vector (the term is dropped). For ``Σ ω_j > 0`` the division
      by the positive sum cannot change the normalized direction and is skipped.
    * ``Λ`` is clamped into ``[0, 1]`` (a very negative ``mean(ω)`` would make it negative).
    * The guard rounds leave λ alone: shrinking α, β, γ moves ``F`` and therefore ``V`` back
      towards ``Ā``.

    Args:
        statement: Statement vector ``A`` of shape ``(d,)``; need not be normalized.
        keywords: Keyword vectors, shape ``(k, d)``; an empty array means no keywords.
        params: Hyper-parameters; ``FSWWParams()`` when None.

    Returns:
        The fused unit vector in the statement's float dtype (float32 in, float32 out;
        integer input gives float64) with the guard's diagnostics.

    Raises:
        ValueError: If shapes disagree or an input holds NaN or inf.
    """
    params = params or FSWWParams()
    out_dtype = _output_dtype(statement)
    keyword_matrix = _check_inputs(statement, keywords)
    statement_unit = _normalize(statement.astype(np.float64))

    def finish(vector: Float64Array, rounds: int, fell_back: bool) -> FusionResult:
        similarity = float(statement_unit @ vector)
        return FusionResult(vector.astype(out_dtype), similarity, rounds, fell_back)

    norms = np.linalg.norm(keyword_matrix, axis=1)
    keyword_units = keyword_matrix[norms > 0] / norms[norms > 0, None]
    if not statement_unit.any() or keyword_units.shape[0] == 0:
        return finish(statement_unit, 0, False)

    weights = keyword_units @ statement_unit  # eq. 1: both sides are unit vectors
    basis = keyword_units.T * weights  # columns ω_j · w̄_j
    gram = basis.T @ basis + params.eps * np.eye(basis.shape[1])
    projection = basis @ np.linalg.solve(gram, basis.T @ statement_unit)  # eq. 2
    weight_sum = float(weights.sum())
    weighted_sum = weights @ keyword_units
    centroid = _normalize(weighted_sum) if weight_sum > 0.0 else np.zeros_like(statement_unit)
    differential = _normalize(weighted_sum - weight_sum * statement_unit)  # eq. 4
    gate = min(max(params.lam * (0.3 + 0.7 * float(weights.mean())), 0.0), 1.0)  # eq. 6

    alpha, beta, gamma = params.alpha, params.beta, params.gamma
    for rounds in range(params.guard_rounds + 1):
        preliminary = _normalize(
            (1.0 - alpha) * statement_unit
            + alpha * projection
            + beta * centroid
            + gamma * differential
        )  # eq. 5
        fused = _normalize((1.0 - gate) * statement_unit + gate * _normalize(preliminary))
        if float(statement_unit @ fused) >= params.delta:
            return finish(fused, rounds, False)
        alpha *= params.guard_factor
        beta *= params.guard_factor
        gamma *= params.guard_factor
    return finish(statement_unit, params.guard_rounds, True)


def fuse_statement_with_keywords(
    statement: FloatArray,
    keywords: FloatArray,
    params: FSWWParams | None = None,
) -> FloatArray:
    """Fuse one statement vector with its keyword vectors (FSWW eqs. 1-7 plus the guard).

    See `fuse_with_diagnostics` for the edge cases; this returns only the vector.

    Args:
        statement: Statement vector of shape ``(d,)``.
        keywords: Keyword vectors of shape ``(k, d)``; may be empty.
        params: Hyper-parameters; ``FSWWParams()`` when None.

    Returns:
        A unit vector of shape ``(d,)`` (zero if the statement is zero).
    """
    return fuse_with_diagnostics(statement, keywords, params).vector


def fuse_many(
    statements: FloatArray,
    keyword_sets: Sequence[FloatArray],
    params: FSWWParams | None = None,
) -> FloatArray:
    """Fuse each statement row with its own keyword vectors.

    Args:
        statements: Statement vectors, shape ``(n, d)``.
        keyword_sets: ``n`` arrays of shape ``(k_i, d)``; an empty array means no keywords.
        params: Hyper-parameters shared by every row.

    Returns:
        Fused unit rows of shape ``(n, d)`` in the statements' float dtype.

    Raises:
        ValueError: If ``statements`` is not 2-D or the number of keyword sets differs.
    """
    if statements.ndim != 2:
        raise ValueError(f"statements must have shape (n, d), got {statements.shape}")
    if len(keyword_sets) != statements.shape[0]:
        raise ValueError(
            f"got {statements.shape[0]} statements but {len(keyword_sets)} keyword sets; "
            "pass one (possibly empty) keyword array per statement"
        )
    fused = np.empty(statements.shape, dtype=_output_dtype(statements))
    for row, keywords in enumerate(keyword_sets):
        fused[row] = fuse_statement_with_keywords(statements[row], keywords, params)
    return fused


class TextEmbedder(Protocol):
    """Anything that embeds texts into L2-normalized float32 rows."""

    def embed(self, texts: Sequence[str]) -> npt.NDArray[Any]:
        """Return an array of shape ``(len(texts), d)`` with unit-length rows."""
        ...


class KeywordVectorCache:
    """A bounded LRU cache of keyword vectors in front of a `TextEmbedder`.

    Keywords repeat across queries ("create", "order", "coupon"), so caching them leaves the
    encoder with the statements and the few new keywords. Only keywords go through the cache;
    statements are too varied to be worth keeping.
    """

    def __init__(self, embedder: TextEmbedder, max_entries: int = 50_000) -> None:
        """Wrap ``embedder``, keeping at most ``max_entries`` (>= 1) vectors."""
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self.embedder = embedder
        self.max_entries = max_entries
        self.hits = 0
        self.misses = 0
        self._vectors: OrderedDict[str, Float32Array] = OrderedDict()

    def __len__(self) -> int:
        return len(self._vectors)

    def __contains__(self, text: object) -> bool:
        return text in self._vectors

    def partition(self, texts: Sequence[str]) -> tuple[dict[str, Float32Array], list[str]]:
        """Split texts into cached vectors and the distinct texts still to embed.

        Cached entries become most recently used; hits and misses are counted per distinct
        text.

        Args:
            texts: Texts to look up; duplicates are looked up once.

        Returns:
            ``(found, missing)``: vectors by text, and the missing texts in first-seen order.
        """
        found: dict[str, Float32Array] = {}
        missing: list[str] = []
        for text in dict.fromkeys(texts):
            vector = self._vectors.get(text)
            if vector is None:
                missing.append(text)
                self.misses += 1
            else:
                self._vectors.move_to_end(text)
                found[text] = vector
                self.hits += 1
        return found, missing

    def store(self, texts: Sequence[str], vectors: npt.NDArray[Any]) -> None:
        """Remember ``vectors[i]`` for ``texts[i]``, evicting the least recently used."""
        if len(texts) != len(vectors):
            raise ValueError(f"got {len(texts)} texts but {len(vectors)} vectors")
        rows = np.array(vectors, dtype=np.float32, copy=True)
        rows.flags.writeable = False
        for text, row in zip(texts, rows, strict=True):
            self._vectors[text] = row
            self._vectors.move_to_end(text)
        while len(self._vectors) > self.max_entries:
            self._vectors.popitem(last=False)

    def embed_with_cache(self, texts: Sequence[str]) -> Float32Array:
        """Embed texts, calling the encoder once and only for texts not cached yet.

        Args:
            texts: Texts to embed (duplicates allowed).

        Returns:
            Float32 rows of shape ``(len(texts), d)``; shape ``(0, 0)`` for no texts.
        """
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        found, missing = self.partition(texts)
        if missing:
            new_vectors = np.asarray(self.embedder.embed(missing), dtype=np.float32)
            self.store(missing, new_vectors)
            found.update(zip(missing, new_vectors, strict=True))
        return np.stack([found[text] for text in texts])


def fsww_embed(
    embedder: TextEmbedder,
    statements: Sequence[str],
    keyword_lists: Sequence[Sequence[str]],
    params: FSWWParams | None = None,
    cache: KeywordVectorCache | None = None,
) -> Float32Array:
    """Embed statements and fuse each with its keywords, with a single encoder call.

    The statements and every keyword not yet in ``cache`` go to ``embedder.embed`` in one
    batch: one forward pass instead of one per keyword is what keeps a query within its
    latency budget. Keywords repeated across the batch are embedded once.

    Args:
        embedder: The text encoder.
        statements: The texts to embed (user requests, sub-intents).
        keyword_lists: One keyword list per statement; empty strings are ignored.
        params: FSWW hyper-parameters; None turns fusion off.
        cache: Optional keyword vector cache; when given it is used for lookups and filled
            with the newly embedded keywords (not with statements).

    Returns:
        Float32 unit rows of shape ``(len(statements), d)``: plain statement vectors when
        ``params`` is None or every keyword list is empty, fused vectors otherwise. For no
        statements the shape is ``(0, 0)``.

    Raises:
        ValueError: If the number of keyword lists differs from the number of statements.
    """
    if len(keyword_lists) != len(statements):
        raise ValueError(
            f"got {len(statements)} statements but {len(keyword_lists)} keyword lists; "
            "pass one (possibly empty) list per statement"
        )
    if not statements:
        return np.zeros((0, 0), dtype=np.float32)
    cleaned = [[word for word in words if word] for words in keyword_lists]
    if params is None or not any(cleaned):
        return np.asarray(embedder.embed(list(statements)), dtype=np.float32)

    distinct_keywords = list(dict.fromkeys(word for words in cleaned for word in words))
    if cache is None:
        keyword_vectors: dict[str, Float32Array] = {}
        to_embed = distinct_keywords
    else:
        keyword_vectors, to_embed = cache.partition(distinct_keywords)
    encoded = np.asarray(embedder.embed([*statements, *to_embed]), dtype=np.float32)
    statement_vectors = encoded[: len(statements)]
    new_keyword_vectors = encoded[len(statements) :]
    keyword_vectors.update(zip(to_embed, new_keyword_vectors, strict=True))
    if cache is not None and to_embed:
        cache.store(to_embed, new_keyword_vectors)

    dim = statement_vectors.shape[1]
    keyword_sets = [
        np.stack([keyword_vectors[word] for word in words])
        if words
        else np.zeros((0, dim), dtype=np.float32)
        for words in cleaned
    ]
    return np.asarray(fuse_many(statement_vectors, keyword_sets, params), dtype=np.float32)
