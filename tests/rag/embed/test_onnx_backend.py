"""The onnx backend: MiniLM on onnxruntime, dynamic padding, its own cache key, no torch.

Run on the prebuilt int8-weights graph (no build step); our own builds: test_onnx_build.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rag.embed import EmbeddingConfig, EmbeddingModelError, TextEmbedder, get_embedder, load_backend
from rag.embed.cache import EmbeddingCache
from rag.embed.onnx_minilm import MAX_TOKENS, SLICE, THREADS_ENV, onnx_threads, token_sorted_slices

ONNX = EmbeddingConfig(backend="onnx", onnx_variant="int8-weights", cache=False)
SHORT = "Qdrant stores dense vectors."
LONG = " ".join(f"apt resolves package dependency number {i}." for i in range(40))


def test_agrees_with_the_fastembed_build_of_the_same_int8_graph() -> None:
    pair = [SHORT, "BM25 ranks documents by term frequency."]
    ours = get_embedder(ONNX).embed_documents(pair)
    fastembed = get_embedder(EmbeddingConfig(backend="fastembed", cache=False)).embed_documents(pair)
    assert ours.shape == (2, 384)
    assert np.all((ours * fastembed).sum(axis=1) > 0.9999)


@pytest.mark.slow
def test_stays_close_to_fp32_sentence_transformers() -> None:
    texts = [SHORT, LONG]
    ours = get_embedder(ONNX).embed_documents(texts)
    fp32 = get_embedder(EmbeddingConfig(onnx_variant="fp32", cache=False)).embed_documents(texts)
    assert np.all((ours * fp32).sum(axis=1) > 0.99)  # int8 moves vectors only slightly


def test_padding_to_a_longer_neighbour_does_not_change_a_vector() -> None:
    backend = load_backend(ONNX)
    alone = backend.encode([SHORT])[0]
    padded = backend.encode([LONG, SHORT])[1]  # padded to LONG's length, masked out
    assert np.allclose(alone, padded, atol=1e-4)


def test_a_batch_is_run_in_slices_and_comes_back_in_order() -> None:
    backend = load_backend(ONNX)
    texts = [f"{SHORT} number {i}" if i % 3 else LONG + str(i) for i in range(2 * SLICE + 3)]
    together = backend.encode(texts)
    one_by_one = np.stack([backend.encode([text])[0] for text in texts])
    assert together.shape == (len(texts), 384)
    assert np.allclose(together, one_by_one, atol=1e-4)


def test_text_beyond_the_token_limit_is_truncated_like_sentence_transformers() -> None:
    backend = load_backend(ONNX)
    words = " ".join(f"word{i}" for i in range(MAX_TOKENS * 2))
    longer = words + " an entirely different ending about kernels"
    assert len(backend.tokenizer.encode(words).ids) == MAX_TOKENS
    assert np.allclose(backend.encode([words])[0], backend.encode([longer])[0], atol=1e-5)


def test_its_vectors_are_cached_under_its_own_model_id(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    onnx = TextEmbedder(load_backend(ONNX), ONNX, cache)
    onnx.embed_documents([SHORT])
    hashing_cfg = EmbeddingConfig(backend="hashing")
    hashing = TextEmbedder(load_backend(hashing_cfg), hashing_cfg, cache)
    hashing.embed_documents([SHORT])
    assert hashing.stats.cache_hits == 0  # the same text, but another model made the vector
    assert cache.count("onnx:all-MiniLM-L6-v2-int8") == 1
    again = TextEmbedder(load_backend(ONNX), ONNX, cache)
    again.embed_documents([SHORT])
    assert again.stats.cache_hits == 1 and again.stats.encoded == 0


def test_other_models_and_missing_folders_name_the_setting(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match=r"embedding\.model_path"):
        get_embedder(EmbeddingConfig(backend="onnx", model="BAAI/bge-small-en-v1.5"))
    with pytest.raises(EmbeddingModelError, match="does not exist"):
        get_embedder(EmbeddingConfig(backend="onnx", model_path=str(tmp_path)))


def test_thread_count_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    assert onnx_threads() == 1
    monkeypatch.setenv(THREADS_ENV, "many")
    with pytest.raises(EmbeddingModelError, match=THREADS_ENV):
        onnx_threads()
    monkeypatch.delenv(THREADS_ENV)
    assert 1 <= onnx_threads() <= 2


def test_embedding_with_it_never_imports_torch() -> None:
    code = (
        "import sys\n"
        "from rag.embed import EmbeddingConfig, get_embedder\n"
        "get_embedder(EmbeddingConfig(backend='onnx', onnx_variant='int8-weights', cache=False))"
        ".embed_query('apt')\n"
        "print('torch' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_slices_group_texts_of_similar_token_counts_longest_first() -> None:
    # sorted by characters, a slice of short words and a long number-heavy line pads the short
    # ones to the long one's tokens; by token count, each slice's texts are nearly one length
    assert token_sorted_slices([5, 200, 7, 198, 6, 201], 2) == [[5, 1], [3, 2], [4, 0]]
    assert token_sorted_slices([], 8) == []


def test_a_whole_ingest_at_once_gives_the_vectors_of_its_token_sorted_batches() -> None:
    # TextEmbedder hands an ingest's texts over in one call (tokenized once, no wait between
    # batches); the slices, and so the vectors, are those of batches of 64 in token order
    backend = load_backend(ONNX)
    texts = [f"{SHORT} {'and more words ' * (i % 23)}{i}" for i in range(3 * 64 + 5)]
    seen: list[int] = []
    together = backend.encode_all(texts, seen.append)
    counts = [len(backend.tokenizer.encode(t).ids) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: -counts[i])
    batched = np.empty_like(together)
    for start in range(0, len(order), 64):
        part = order[start : start + 64]
        batched[part] = backend.encode([texts[i] for i in part])
    assert np.array_equal(together, batched)
    assert sum(seen) == len(texts) and max(seen) <= SLICE
