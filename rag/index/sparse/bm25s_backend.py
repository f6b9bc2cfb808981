"""bm25s (Lù 2024, "BM25S: Orders of magnitude faster lexical search via eager sparse scoring").

Scores are precomputed into a sparse token x document matrix at index time, so a query is a few
column sums. The scores equal rank-bm25's BM25Okapi exactly (see base.py): bm25s has no idf that
floors a negative idf at 0.25 x the mean idf as BM25Okapi does, so the matrix is built with the
always-positive Lucene idf and each query term's column is re-weighted by Okapi idf / Lucene idf
(both follow from the term's document frequency, which the matrix holds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from rag.index.sparse.in_process import InProcessBM25

if TYPE_CHECKING:  # bm25s pulls scipy.sparse and tqdm (~0.2 s): imported only to build or save
    import bm25s

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


@dataclass(frozen=True)
class ScoreMatrix:
    """What a search reads of a bm25s model: its token x document score matrix (CSC arrays) and
    vocabulary. Read from bm25s's saved files with numpy alone, so a query does not import bm25s."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    num_docs: int
    vocab: dict[str, int]

    @classmethod
    def of(cls, model: bm25s.BM25) -> ScoreMatrix:
        scores = model.scores
        return cls(scores["data"], scores["indices"], scores["indptr"], int(scores["num_docs"]),
                   model.vocab_dict)

    @classmethod
    def load(cls, directory: Path) -> ScoreMatrix:
        """The files bm25s.BM25.save writes (the same arrays bm25s.BM25.load reads, not mmapped)."""
        params = json.loads((directory / "params.index.json").read_text())
        if params.get("method") != "robertson":  # other methods keep a non-occurrence array too
            raise ValueError(f"saved bm25s method {params.get('method')!r} is not robertson")
        vocab = json.loads((directory / "vocab.index.json").read_text(encoding="utf-8"))
        data, indices, indptr = (np.load(directory / f"{part}.csc.index.npy", allow_pickle=False)
                                 for part in ("data", "indices", "indptr"))
        return cls(data, indices, indptr, int(params["num_docs"]), vocab)

    def token_ids(self, tokens: list[str]) -> list[int]:
        """Ids of the tokens in the vocabulary, unknown ones left out (bm25s.get_tokens_ids)."""
        return [self.vocab[token] for token in tokens if token in self.vocab]


class BM25sIndex(InProcessBM25):
    """The fast default: eager BM25 matrix; a change re-indexes from the persisted tokens."""

    name = "bm25s"
    model: bm25s.BM25 | None = None  # the fitted model, held to save it; None when loaded
    matrix: ScoreMatrix

    def load_modules(self) -> None:
        import bm25s  # noqa: F401  (late: see the TYPE_CHECKING import)

    def _build(self, tokens: list[list[str]]) -> None:
        import bm25s  # late: see the TYPE_CHECKING import

        params = self.context.params
        self.model = bm25s.BM25(k1=params.k1, b=params.b, method="robertson", idf_method="lucene")
        self.model.index(tokens, show_progress=False)
        self.matrix = ScoreMatrix.of(self.model)
        self._weigh_terms()

    def _weigh_terms(self) -> None:
        """Per token id: Okapi idf / the Lucene idf the matrix holds (a term's document frequency
        is its column's number of stored scores: every tf > 0 scores > 0 under Lucene idf)."""
        df = np.diff(self.matrix.indptr).astype(np.float64)
        n_docs = self.matrix.num_docs
        present = df > 0
        weights = np.zeros_like(df)
        weights[present] = okapi_idf(df[present], n_docs) / lucene_idf(df[present], n_docs)
        self.term_weights = weights

    def _scores(self, query_tokens: list[str]) -> np.ndarray:
        scores = np.zeros(len(self.corpus), dtype=np.float64)
        matrix = self.matrix
        data, indices, indptr = matrix.data, matrix.indices, matrix.indptr
        for token_id in matrix.token_ids(query_tokens):  # repeated terms count again
            start, end = indptr[token_id], indptr[token_id + 1]
            scores[indices[start:end]] += data[start:end] * self.term_weights[token_id]
        return scores * (self.context.params.k1 + 1)  # bm25s's Robertson tfc omits (k1 + 1)

    def _save_model(self, directory: Path, fingerprint: str) -> None:
        stamp = directory / _MODEL_DIR / _FINGERPRINT
        if self.model is None:  # loaded from files, not fitted here
            if stamp.exists() and stamp.read_text() == f"{fingerprint} {_VARIANT}":
                return  # those files are this model already
            self._build(self.corpus.tokens)  # fitted again to be saved elsewhere
        # the stamp goes first and comes back last: a save cut short leaves no stamp, so no match
        stamp.unlink(missing_ok=True)
        assert self.model is not None
        self.model.save(str(directory / _MODEL_DIR), show_progress=False)
        stamp.write_text(f"{fingerprint} {_VARIANT}")

    def _load_model(self, directory: Path, fingerprint: str) -> bool:
        saved = directory / _MODEL_DIR / _FINGERPRINT
        if not saved.exists() or saved.read_text() != f"{fingerprint} {_VARIANT}":
            return False
        try:
            self.matrix = ScoreMatrix.load(directory / _MODEL_DIR)
        except (OSError, ValueError, EOFError, KeyError):  # unreadable: rebuilt from the corpus
            return False
        self._weigh_terms()
        return True
