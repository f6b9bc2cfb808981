"""bm25s (Lù 2024, "BM25S: Orders of magnitude faster lexical search via eager sparse scoring").

Scores are precomputed into a sparse token x document matrix at index time, so a query is a few
column sums. Method "robertson" is the variant closest to rank-bm25's BM25Okapi (see base.py).
"""

from __future__ import annotations

from pathlib import Path

import bm25s
import numpy as np

from rag.index.sparse.in_process import InProcessBM25

_MODEL_DIR = "model"
_FINGERPRINT = "fingerprint.txt"


class BM25sIndex(InProcessBM25):
    """The fast default: eager BM25 matrix; a change re-indexes from the persisted tokens."""

    name = "bm25s"

    def _build(self, tokens: list[list[str]]) -> None:
        params = self.context.params
        self.model = bm25s.BM25(k1=params.k1, b=params.b, method="robertson")
        self.model.index(tokens, show_progress=False)

    def _scores(self, query_tokens: list[str]) -> np.ndarray:
        ids = self.model.get_tokens_ids(query_tokens)
        if not ids:
            return np.zeros(len(self.corpus), dtype=np.float64)
        scores = self.model.get_scores_from_ids(ids).astype(np.float64)
        return scores * (self.context.params.k1 + 1)  # bm25s's Robertson tfc omits (k1 + 1)

    def _save_model(self, directory: Path, fingerprint: str) -> None:
        self.model.save(str(directory / _MODEL_DIR), show_progress=False)
        (directory / _MODEL_DIR / _FINGERPRINT).write_text(fingerprint)

    def _load_model(self, directory: Path, fingerprint: str) -> bool:
        saved = directory / _MODEL_DIR / _FINGERPRINT
        if not saved.exists() or saved.read_text() != fingerprint:
            return False
        self.model = bm25s.BM25.load(str(directory / _MODEL_DIR), show_progress=False)
        return True
