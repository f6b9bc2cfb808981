"""The Embedder protocol every backend implements."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors (when the config says normalize)."""

    model_id: str  # stable id used as the cache key (backend + model name/path)
    dim: int

    def embed_documents(self, texts: list[str]) -> np.ndarray: ...  # shape (n, dim)

    def embed_query(self, text: str) -> np.ndarray: ...  # shape (dim,)
