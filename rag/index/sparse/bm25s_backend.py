"""bm25s (Lù 2024, "BM25S: Orders of magnitude faster lexical search via eager sparse scoring").

Scores are precomputed into a sparse token x document matrix at index time, so a query is a few
column sums. The scores equal rank-bm25's BM25Okapi exactly (see base.py): bm25s has no idf that
floors a negative idf at 0.25 x the mean idf as BM25Okapi does, so the matrix is built with the
always-positive Lucene idf and each query term's column is re-weighted by Okapi idf / Lucene idf
(both follow from the term's document frequency, which the matrix holds).
"""

from __future__ import annotations

from pathlib import Path

import bm25s
import numpy as np

from rag.index.sparse.in_process import InProcessBM25

_MODEL_DIR = "model"
_FINGERPRINT = "fingerprint.txt"
_VARIANT = "okapi-idf"  # models saved before the re-weighting (robertson idf) are rebuilt
_OKAPI_EPSILON = 0.25  # rank-bm25's floor for a negative idf, times the mean idf


def okapi_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """BM25Okapi's idf per term: ln((N - n + 0.5)/(n + 0.5)), a negative one replaced by
    0.25 x the mean idf over the vocabulary."""
    idf = np.log((n_docs - df + 0.5) / (df + 0.5))
    return np.where(idf < 0, _OKAPI_EPSILON * idf.mean(), idf) if idf.size else idf


def lucene_idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    return np.log(1 + (n_docs - df + 0.5) / (df + 0.5))


class BM25sIndex(InProcessBM25):
    """The fast default: eager BM25 matrix; a change re-indexes from the persisted tokens."""

    name = "bm25s"

    def _build(self, tokens: list[list[str]]) -> None:
        params = self.context.params
        self.model = bm25s.BM25(k1=params.k1, b=params.b, method="robertson", idf_method="lucene")
        self.model.index(tokens, show_progress=False)
        self._weigh_terms()

    def _weigh_terms(self) -> None:
        """Per token id: Okapi idf / the Lucene idf the matrix holds (a term's document frequency
        is its column's number of stored scores: every tf > 0 scores > 0 under Lucene idf)."""
        df = np.diff(self.model.scores["indptr"]).astype(np.float64)
        n_docs = int(self.model.scores["num_docs"])
        present = df > 0
        weights = np.zeros_like(df)
        weights[present] = okapi_idf(df[present], n_docs) / lucene_idf(df[present], n_docs)
        self.term_weights = weights

    def _scores(self, query_tokens: list[str]) -> np.ndarray:
        scores = np.zeros(len(self.corpus), dtype=np.float64)
        matrix = self.model.scores
        data, indices, indptr = matrix["data"], matrix["indices"], matrix["indptr"]
        for token_id in self.model.get_tokens_ids(query_tokens):  # repeated terms count again
            start, end = indptr[token_id], indptr[token_id + 1]
            scores[indices[start:end]] += data[start:end] * self.term_weights[token_id]
        return scores * (self.context.params.k1 + 1)  # bm25s's Robertson tfc omits (k1 + 1)

    def _save_model(self, directory: Path, fingerprint: str) -> None:
        # the stamp goes first and comes back last: a save cut short leaves no stamp, so no match
        (directory / _MODEL_DIR / _FINGERPRINT).unlink(missing_ok=True)
        self.model.save(str(directory / _MODEL_DIR), show_progress=False)
        (directory / _MODEL_DIR / _FINGERPRINT).write_text(f"{fingerprint} {_VARIANT}")

    def _load_model(self, directory: Path, fingerprint: str) -> bool:
        saved = directory / _MODEL_DIR / _FINGERPRINT
        if not saved.exists() or saved.read_text() != f"{fingerprint} {_VARIANT}":
            return False
        try:
            self.model = bm25s.BM25.load(str(directory / _MODEL_DIR), show_progress=False)
        except (OSError, ValueError, EOFError, KeyError):  # unreadable: rebuilt from the corpus
            return False
        self._weigh_terms()
        return True
