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


class TopicEmbedder:
    """Vectors over one axis per topic (a set of words) and one small axis per other word.

    Test-only: the topics are written by each test, so which texts are close is decided there.
    """

    name = "topic-test-embedder"
    dim = 64

    def __init__(self, topics: Sequence[set[str]]) -> None:
        self.topics = tuple(topics)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        first_other = len(self.topics)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                axis = next((i for i, t in enumerate(self.topics) if word in t), None)
                if axis is not None:
                    out[row, axis] += 1.0
                else:
                    out[row, first_other + sum(map(ord, word)) % (self.dim - first_other)] += 0.3
            out[row] /= float(np.linalg.norm(out[row])) or 1.0
        return out


class ScriptedStructuredChatModel:
    """Chat model fake whose ``with_structured_output(...).invoke`` replays scripted answers.

    Each answer is returned as is (a pydantic instance, a dict, JSON text or any garbage),
    or raised if it is an exception; ``calls`` records the messages of every invocation and
    ``schemas`` the schema of every ``with_structured_output`` call.
    """

    def __init__(self, answers: Sequence[object]) -> None:
        self.answers = list(answers)
        self.calls: list[list[object]] = []
        self.schemas: list[object] = []

    def with_structured_output(self, schema: object, **_: object) -> ScriptedStructuredChatModel:
        self.schemas.append(schema)
        return self

    def invoke(self, messages: object, *_: object, **__: object) -> object:
        self.calls.append(list(messages) if isinstance(messages, list) else [messages])
        if not self.answers:
            raise ValueError("the scripted chat model has no answer left")
        answer = self.answers.pop(0)
        if isinstance(answer, BaseException):
            raise answer
        return answer
