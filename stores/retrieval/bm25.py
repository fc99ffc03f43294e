"""A BM25 index over the same entries as the dense index, built with ``bm25s`` and persisted."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

import bm25s
import numpy as np

Tokenizer = Callable[[str], list[str]]


class BM25Index:
    """Lexical scores for entry ids; the tokenizer is ours (camelCase and snake_case aware)."""

    def __init__(self, ids: Sequence[str], model: bm25s.BM25, tokenizer: Tokenizer) -> None:
        """Wrap a fitted ``bm25s`` model whose documents are ``ids`` in order."""
        self.ids = list(ids)
        self._model = model
        self._tokenizer = tokenizer

    @classmethod
    def build(
        cls,
        ids: Sequence[str],
        texts: Sequence[str],
        tokenizer: Tokenizer,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> BM25Index:
        """Fit BM25 on texts (one per id)."""
        return cls.from_tokens(ids, [tokenizer(text) for text in texts], tokenizer, k1, b)

    @classmethod
    def from_tokens(
        cls,
        ids: Sequence[str],
        tokens: Sequence[Sequence[str]],
        tokenizer: Tokenizer,
        k1: float = 1.2,
        b: float = 0.75,
    ) -> BM25Index:
        """Fit BM25 on already tokenized documents (one token list per id)."""
        model = bm25s.BM25(k1=k1, b=b)
        corpus = [list(words) or ["_empty_"] for words in tokens]
        if corpus:
            model.index(corpus, show_progress=False)
        return cls(ids, model, tokenizer)

    def save(self, directory: Path, key: str) -> None:
        """Persist the model, its ids and the key of what it was built from."""
        if directory.exists():
            shutil.rmtree(directory)
        directory.mkdir(parents=True)
        if self.ids:
            self._model.save(str(directory / "model"), show_progress=False)
        (directory / "ids.json").write_text(json.dumps({"key": key, "ids": self.ids}))

    @classmethod
    def load(cls, directory: Path, key: str, tokenizer: Tokenizer) -> BM25Index | None:
        """Load a persisted index when it was built from ``key``; else None."""
        meta_path = directory / "ids.json"
        if not meta_path.is_file():
            return None
        meta = json.loads(meta_path.read_text())
        if meta.get("key") != key:
            return None
        if not meta["ids"]:
            return cls([], bm25s.BM25(), tokenizer)
        model = bm25s.BM25.load(str(directory / "model"), show_progress=False)
        return cls(meta["ids"], model, tokenizer)

    def scores(self, query: str) -> np.ndarray:
        """Return one BM25 score per id (zeros when no query token is known)."""
        tokens = self._tokenizer(query)
        if not self.ids or not tokens:
            return np.zeros(len(self.ids), dtype=np.float32)
        return np.asarray(self._model.get_scores(tokens), dtype=np.float32)

    def top(self, query: str, n: int, mask: np.ndarray | None = None) -> list[tuple[str, float]]:
        """Return the ``n`` best ``(id, score)`` with a positive score, optionally masked."""
        scores = self.scores(query)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        positive = int(np.count_nonzero(scores > 0))
        n = min(n, positive)
        if n <= 0:
            return []
        best = np.argpartition(-scores, n - 1)[:n]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in best]
