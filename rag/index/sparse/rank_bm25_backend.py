"""rank-bm25's BM25Okapi (Robertson & Zaragoza 2009): the reference every other backend is checked against."""

from __future__ import annotations

import numpy as np
from rank_bm25 import BM25Okapi

from rag.index.sparse.in_process import InProcessBM25


class RankBM25Index(InProcessBM25):
    """Pure-Python scoring of every document per query: slow, simple, the reference."""

    name = "rank-bm25"

    def _build(self, tokens: list[list[str]]) -> None:
        self.model = BM25Okapi(tokens, k1=self.context.params.k1, b=self.context.params.b)

    def _scores(self, query_tokens: list[str]) -> np.ndarray:
        return np.asarray(self.model.get_scores(query_tokens), dtype=np.float64)
