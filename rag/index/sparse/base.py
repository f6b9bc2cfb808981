"""Sparse (BM25) index protocol, its settings and the backend registry.

BM25 variants (Kamphuis et al., ECIR 2020, "Which BM25 do you mean?"), with
tfc = tf·(k1+1) / (tf + k1·(1 - b + b·|d|/avgdl)):
- rank-bm25 (reference, BM25Okapi): idf = ln((N - n + 0.5)/(n + 0.5)); a negative idf (term in
  more than half the documents) is replaced by 0.25 x the mean idf.
- bm25s (default): the same scores exactly. bm25s itself only floors a negative idf at 0, so its
  matrix is built with the Lucene idf and each query term re-weighted to the Okapi idf
  (bm25s_backend.py); bm25s also drops the (k1+1) factor, which we multiply back.
- qdrant (sparse vectors, Modifier.IDF): Lucene idf = ln(1 + (N - n + 0.5)/(n + 0.5)), always
  positive; tfc is stored per document at ingest with avgdl frozen at the collection's first ingest.
All three score the same tokens (rag.index.tokenizer) and count repeated query terms repeatedly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Protocol

from rag.index.filters import Filter
from rag.index.qdrant_store import QdrantStore
from rag.registry import Registry


class SparseHit(NamedTuple):
    chunk_id: str
    score: float


@dataclass(frozen=True)
class BM25Params:
    k1: float = 1.5
    b: float = 0.75


@dataclass(frozen=True)
class SparseContext:
    """What a backend is built with: where to persist, BM25 parameters, the collection's store.

    `store` answers payload filters and holds Qdrant's sparse vectors; an in-process backend
    without one (benchmarks) can only search unfiltered.
    """

    directory: Path
    params: BM25Params
    store: QdrantStore | None = None


class SparseIndex(Protocol):
    """Adds and removes tokenized chunks; searches with a payload filter; persists itself."""

    name: str
    rebuilds_on_add: bool  # True when adding documents re-indexes the whole (persisted) corpus
    damaged: str | None  # why its saved state was unreadable (then the collection refills it)

    def add(self, chunk_ids: Sequence[str], tokens: Sequence[list[str]]) -> None: ...

    def remove(self, chunk_ids: Sequence[str]) -> None: ...

    def search(
        self, query_tokens: list[str], depth: int, qfilter: Filter | None
    ) -> list[SparseHit]:
        """Best first, at most `depth` hits, only chunks with a positive score that pass the filter."""
        ...

    def save(self) -> None: ...

    def load_modules(self) -> None:
        """Import what `add` and `save` need, ahead of them (safe in another thread)."""
        ...


SPARSE_BACKENDS: Registry[Callable[[SparseContext], SparseIndex]] = Registry("sparse backend")


def get_sparse_index(name: str, context: SparseContext) -> SparseIndex:
    return SPARSE_BACKENDS.get(name)(context)
