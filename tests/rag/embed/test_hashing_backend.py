"""The hashing backend: the same vectors in every process, lexical neighbours near each other,
empty and non-ASCII text handled, its own cache key, and clear errors for impossible settings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rag.embed import (
    BACKENDS,
    EmbeddingConfig,
    EmbeddingModelError,
    TextEmbedder,
    get_embedder,
    load_backend,
)
from rag.embed.cache import EmbeddingCache

ROOT = Path(__file__).resolve().parents[3]
CAT = "The cat sat on the mat."
# blake2b feature hashing of CAT into 16 slots, L2-normalized (computed once, never changes)
CAT_16 = [0.27735, 0.069338, -0.208013, -0.069338, 0.0, 0.138675, -0.693375, 0.0, 0.27735, 0.0,
          -0.069338, 0.346688, 0.208013, -0.069338, 0.208013, -0.27735]
TEXTS = [CAT, "Deleted notes stay in the Trash for 30 days.", "Ünïcödé café naïve 東京 😀"]


def hashing(model: str = "hashing", **fields: object) -> EmbeddingConfig:
    return EmbeddingConfig.model_validate(
        {"backend": "hashing", "model": model, "cache": False, **fields}
    )


def test_vectors_are_fixed_values() -> None:
    vector = get_embedder(hashing("hashing-16")).embed_documents([CAT])[0]
    assert vector.dtype == np.float32
    assert np.allclose(vector, CAT_16, atol=1e-6)


@pytest.mark.parametrize("seed", ["0", "12345"])
def test_another_process_with_another_hash_seed_gets_the_same_vectors(seed: str) -> None:
    script = (
        "import json, sys\n"
        "from rag.embed import EmbeddingConfig, get_embedder\n"
        "cfg = EmbeddingConfig(backend='hashing', cache=False)\n"
        "texts = json.loads(sys.stdin.read())\n"
        "print(json.dumps(get_embedder(cfg).embed_documents(texts).tolist()))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": seed}  # a salted hash() would differ between these
    out = subprocess.run([sys.executable, "-c", script], input=json.dumps(TEXTS), cwd=ROOT,
                         env=env, capture_output=True, text=True, check=True, timeout=120).stdout
    here = get_embedder(hashing()).embed_documents(TEXTS)
    assert np.array_equal(np.asarray(json.loads(out), dtype=np.float32), here)


def test_lexically_similar_texts_are_nearer() -> None:
    embedder = get_embedder(hashing())
    query = embedder.embed_query("How long do deleted notes stay in the Trash?")
    docs = embedder.embed_documents([
        "Deleted notes stay in the Trash for 30 days before they are removed for good.",
        "You can restore a note from the Trash.",
        "Vault notes are end-to-end encrypted with your own passphrase.",
        "High-speed trains connect Paris and Berlin in about eight hours.",
    ])
    scores = docs @ query
    assert scores[0] > scores[1] > max(scores[2:])  # most shared words, fewer, hardly any
    assert scores[0] > 0.4


def test_word_pieces_bring_inflections_closer() -> None:
    embedder = get_embedder(hashing())
    sync, synced, vault = embedder.embed_documents(["synchronize", "synchronized", "passphrase"])
    assert sync @ synced > 0.4 and abs(sync @ vault) < 0.2


def test_case_and_unicode_forms_do_not_matter() -> None:
    embedder = get_embedder(hashing())
    texts = ["café NAÏVE", "cafe\u0301 nai\u0308ve", "CAFÉ naïve"]  # composed, decomposed, case
    composed, decomposed, upper = embedder.embed_documents(texts)
    assert np.allclose(composed, decomposed) and np.allclose(composed, upper)


def test_empty_and_symbol_only_text_give_zero_vectors() -> None:
    embedder = get_embedder(hashing())
    vectors = embedder.embed_documents(["", "  \n", "?!…"])
    assert vectors.shape == (3, 384) and not np.any(vectors)
    assert embedder.embed_documents([]).shape == (0, 384)


def test_non_latin_text_gets_a_unit_vector() -> None:
    vector = get_embedder(hashing()).embed_query("東京の天気 😀 Привет")
    assert vector.shape == (384,) and np.isclose(np.linalg.norm(vector), 1.0)


def test_dimension_comes_from_the_model_name_and_the_default_fits_minilm() -> None:
    assert get_embedder(hashing("hashing-64")).dim == 64
    assert get_embedder(hashing("hashing")).dim == 384
    default = get_embedder(EmbeddingConfig(backend="hashing", cache=False))  # model left as MiniLM
    assert default.dim == 384


def test_model_id_is_its_own_so_the_cache_never_mixes_vectors(tmp_path: Path) -> None:
    ids = {get_embedder(hashing(m)).model_id for m in ("hashing", "hashing-64")}
    assert len(ids) == 2 and all(i.startswith("hashing:") for i in ids)
    cache = EmbeddingCache(tmp_path / "embeddings.sqlite")
    cfg = hashing().model_copy(update={"cache": True})
    first = TextEmbedder(load_backend(cfg), cfg, cache)
    vectors = first.embed_documents(TEXTS)
    assert cache.count(first.model_id) == len(TEXTS)
    second = TextEmbedder(load_backend(cfg), cfg, cache)
    assert np.array_equal(second.embed_documents(TEXTS), vectors)
    assert second.stats.cache_hits == len(TEXTS) and second.stats.encoded == 0


def test_is_registered_and_loads_no_model() -> None:
    assert "hashing" in BACKENDS
    embedder = get_embedder(hashing())
    assert type(embedder.backend).__module__ == "rag.embed.hashing"


@pytest.mark.parametrize("model", ["BAAI/bge-small-en-v1.5", "hashing-4", "hashing-x"])
def test_other_model_names_say_what_to_use(model: str) -> None:
    with pytest.raises(EmbeddingModelError, match=r"embedding\.model"):
        get_embedder(hashing(model))


def test_a_model_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match=r"embedding\.model_path"):
        get_embedder(hashing(model_path=str(tmp_path)))
