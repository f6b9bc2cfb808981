"""Each backend loads offline, agrees with the others on MiniLM, and fails with a clear message."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fake_openai import FakeOpenAI, hashed_embedding

from rag.embed import EmbeddingConfig, EmbeddingModelError, get_embedder

PAIR = ["The cat sat on the mat.", "Vector databases store embeddings."]


@pytest.mark.slow
def test_sentence_transformers_and_fastembed_int8_agree_on_minilm() -> None:
    st = get_embedder(EmbeddingConfig(backend="sentence-transformers", cache=False)).embed_documents(PAIR)
    onnx = get_embedder(EmbeddingConfig(backend="fastembed", cache=False)).embed_documents(PAIR)
    assert st.shape == onnx.shape == (2, 384)
    cosines = (st * onnx).sum(axis=1)
    assert np.all(cosines > 0.99)  # int8 quantization moves vectors only slightly


@pytest.mark.parametrize("backend", ["sentence-transformers", "fastembed"])
def test_a_model_that_is_not_on_disk_names_the_setting(backend: str) -> None:
    with pytest.raises(EmbeddingModelError, match=r"embedding\.model_path"):
        get_embedder(EmbeddingConfig(backend=backend, model="BAAI/bge-small-en-v1.5"))


def test_a_missing_model_path_is_reported(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match="does not exist"):
        get_embedder(EmbeddingConfig(model_path=str(tmp_path / "nowhere")))


def test_openai_backend_talks_to_an_embeddings_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeOpenAI(embedding_dim=16) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        cfg = EmbeddingConfig(
            backend="openai", model="text-embedding-3-small", cache=False, batch_size=2
        )
        embedder = get_embedder(cfg)
        vectors = embedder.embed_documents(["alpha beta", "beta gamma", "delta"])
        assert embedder.dim == 16
        expected = np.array(
            [hashed_embedding(t, 16) for t in ["alpha beta", "beta gamma", "delta"]]
        )
        assert np.allclose(vectors, expected, atol=1e-6)
        bodies = [r.body for r in server.requests if r.path.endswith("/embeddings")]
        assert [b["model"] for b in bodies] == ["text-embedding-3-small"] * 2  # 2 batches of <= 2
        assert sorted(len(b["input"]) for b in bodies) == [1, 2]
        assert server.requests[0].headers["authorization"] == "Bearer sk-test"


def test_openai_backend_without_endpoint_says_which_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(EmbeddingModelError, match="OPENAI_BASE_URL"):
        get_embedder(EmbeddingConfig(backend="openai", model="unconfigured-model"))
