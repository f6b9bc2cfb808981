"""Our ONNX builds of all-MiniLM-L6-v2: made once from the local fp32 weights, close to fp32
sentence-transformers, each variant under its own cache key, and recorded in a collection's
settings so a collection is never queried with another graph's vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rag.config import load_preset
from rag.embed import EmbeddingConfig, TextEmbedder, get_embedder, load_backend
from rag.embed.cache import EmbeddingCache
from rag.embed.cpu_check import FLOORS, products_exact
from rag.embed.onnx_build import build_key, built_minilm
from rag.embed.variant import AUTO_CHAIN, FAST_VARIANT, choose_variant
from rag.index.manifest import embedding_mismatch, index_settings, settings_hash

TEXTS = [
    "apt-get install fetches a package and the packages it depends on.",
    "journalctl -u ssh shows the log of the ssh service. " * 12,
    "Qdrant stores dense vectors.",
]


def onnx(variant: str) -> EmbeddingConfig:
    return EmbeddingConfig(backend="onnx", onnx_variant=variant, cache=False)  # type: ignore[arg-type]


@pytest.mark.slow  # exports the model with torch once per session, loads fp32 torch
@pytest.mark.parametrize("requested", ["auto", "int8", "int8-smooth", "int8-smooth-u8",
                                       "int8-smooth-rows", "fp32"])
def test_the_graph_this_cpu_check_selects_embeds_within_its_floor_of_fp32(requested: str) -> None:
    # the same assertion on every processor: where the check rejects an int8 graph (a CPU
    # without VNNI), the next graph of `auto`'s chain or fp32 is what embeds, and must match
    choice = choose_variant(requested)
    allowed = (*AUTO_CHAIN, "fp32") if requested == "auto" else (requested, "fp32")
    asked = FAST_VARIANT if requested == "auto" else requested
    assert choice.variant in allowed and (choice.variant == asked) == (choice.note == "")
    assert _cosines_to_sentence_transformers(choice.variant).min() > FLOORS.get(choice.variant, 0.9999)


def _cosines_to_sentence_transformers(variant: str) -> np.ndarray:
    ours = get_embedder(onnx(variant)).embed_documents(TEXTS)
    fp32 = get_embedder(EmbeddingConfig(backend="sentence-transformers", cache=False))
    assert ours.shape == (3, 384)
    return (ours * fp32.embed_documents(TEXTS)).sum(axis=1)


@pytest.mark.slow
def test_the_u8_graph_embeds_within_its_floor_of_fp32_on_every_cpu() -> None:
    # not through the check: its u8u8 products are exact with VNNI and without (unlike
    # int8-smooth's u8s8), so the graph `auto` falls back to is held to its floor everywhere
    assert products_exact(unsigned_weights=True)
    assert _cosines_to_sentence_transformers("int8-smooth-u8").min() > FLOORS["int8-smooth-u8"]


@pytest.mark.slow
def test_auto_embeds_with_the_graph_the_check_selected() -> None:
    chosen = choose_variant("auto").variant
    assert load_backend(onnx("auto")) is load_backend(onnx(chosen))
    assert build_key(chosen) in get_embedder(onnx("auto")).model_id  # type: ignore[arg-type]


@pytest.mark.slow
def test_a_build_is_made_once_and_reused() -> None:
    model, key = built_minilm("int8")
    made = model.stat().st_mtime_ns
    again, same_key = built_minilm("int8")
    assert (again, same_key) == (model, key) and again.stat().st_mtime_ns == made


@pytest.mark.slow
def test_each_graph_caches_its_vectors_under_its_own_id(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    first = TextEmbedder(load_backend(onnx("int8")), onnx("int8"), cache)
    first.embed_documents(TEXTS[:1])
    other = TextEmbedder(load_backend(onnx("int8-weights")), onnx("int8-weights"), cache)
    other.embed_documents(TEXTS[:1])
    assert other.stats.cache_hits == 0 and other.stats.encoded == 1
    assert first.model_id != other.model_id and build_key("int8") in first.model_id
    assert cache.count(first.model_id) == cache.count(other.model_id) == 1


def test_build_keys_name_the_variant_and_the_runtime() -> None:
    import onnxruntime

    variants = ("int8", "fp32", "int8-smooth", "int8-smooth-u8", "int8-smooth-rows")
    keys = {build_key(v) for v in variants}  # type: ignore[arg-type]
    assert len(keys) == len(variants) and all(onnxruntime.__version__ in key for key in keys)


def with_variant(variant: str) -> dict[str, object]:
    config = load_preset("hybrid")
    config.embedding.onnx_variant = variant  # type: ignore[assignment]
    return index_settings(config)


def test_a_collection_records_its_onnx_graph_and_a_mismatch_names_the_fix() -> None:
    built, wanted = with_variant("int8-weights"), with_variant("int8")
    assert settings_hash(built) != settings_hash(wanted)
    message = embedding_mismatch(built, wanted)
    assert "(int8-weights)" in message and "--set embedding.onnx_variant=int8-weights" in message
    assert embedding_mismatch(with_variant("fp32"), with_variant("fp32")) == ""


def test_collections_built_before_the_choice_keep_their_settings() -> None:
    # the prebuilt graph was the only onnx graph before: its settings (and hash) are unchanged
    legacy = with_variant("int8-weights")
    assert "onnx_variant" not in legacy["embedding"]  # type: ignore[operator]
    fp32_torch = load_preset("hybrid")
    fp32_torch.embedding.backend = "sentence-transformers"
    assert "onnx_variant" not in index_settings(fp32_torch)["embedding"]
