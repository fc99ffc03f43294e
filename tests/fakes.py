"""Deterministic fakes for unit tests only: never used by the product."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np


class HashingEmbedder:
    """Bag-of-words vectors from hashed tokens: similar wording gives similar vectors."""

    def __init__(self, dim: int = 64, name: str = "hashing-test-embedder") -> None:
        self.dim = dim
        self.name = name
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in re.findall(r"\w+", text.lower()):
                digest = hashlib.md5(token.encode()).digest()
                out[row, digest[0] % self.dim] += 1.0
                out[row, digest[1] % self.dim] += 0.5
            if not out[row].any():
                out[row, 0] = 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / norms
