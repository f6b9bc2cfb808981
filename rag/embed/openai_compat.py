"""OpenAI-compatible embeddings endpoint (`POST {OPENAI_BASE_URL}/embeddings`)."""

from __future__ import annotations

import os

import numpy as np

from rag.embed.base import EmbeddingModelError
from rag.settings.embedding import EmbeddingConfig


class OpenAIEmbeddingBackend:
    """Talks to any server that implements /v1/embeddings; the key stays in the environment."""

    def __init__(self, cfg: EmbeddingConfig) -> None:
        from openai import OpenAI  # import on first use

        base_url = os.environ.get("OPENAI_BASE_URL")
        api_key = os.environ.get("OPENAI_API_KEY")
        if not base_url and not api_key:
            raise EmbeddingModelError(
                "embedding.backend 'openai' needs OPENAI_BASE_URL and/or OPENAI_API_KEY in the "
                "environment; or set embedding.backend to sentence-transformers or fastembed"
            )
        self.client = OpenAI(base_url=base_url, api_key=api_key or "none", max_retries=2)
        self.model = cfg.model
        self.model_id = f"openai:{base_url or 'default'}:{cfg.model}"
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        """Known after the first call; a one-word probe asks the server when nothing ran yet."""
        if self._dim is None:
            self.encode(["dimension"])
        assert self._dim is not None
        return self._dim

    def encode(self, texts: list[str]) -> np.ndarray:
        response = self.client.embeddings.create(model=self.model, input=texts)
        rows = sorted(response.data, key=lambda item: item.index)  # servers may reorder
        vectors = np.asarray([row.embedding for row in rows], dtype=np.float32)
        if vectors.shape[0] != len(texts):
            raise EmbeddingModelError(
                f"embeddings endpoint returned {vectors.shape[0]} vectors for {len(texts)} texts"
            )
        self._dim = int(vectors.shape[1])
        return vectors
