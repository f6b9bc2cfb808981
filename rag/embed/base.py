"""The Embedder protocol every embedder implements, and the raw backend protocol beneath it."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors (when the config says normalize)."""

    model_id: str  # stable id used as the cache key (backend + model name/path)

    @property
    def dim(self) -> int: ...

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...  # shape (n, dim)

    def embed_query(self, text: str) -> np.ndarray: ...  # shape (dim,)


class EmbeddingBackend(Protocol):
    """One loaded model: encodes one batch of already-prefixed texts to raw float32 vectors.

    Batching, prefixes, caching, normalization and progress live in `TextEmbedder`, so a new
    backend only has to turn a list of strings into an (n, dim) array.
    """

    model_id: str

    @property
    def dim(self) -> int: ...

    def encode(self, texts: list[str]) -> np.ndarray: ...


class EmbeddingModelError(ValueError):
    """A model that cannot be loaded offline; the message names the setting to change."""
