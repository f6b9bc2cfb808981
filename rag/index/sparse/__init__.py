"""Sparse BM25 backends behind one protocol: rank-bm25 (reference), bm25s (default), qdrant."""

from __future__ import annotations

from rag.index.sparse.base import (
    SPARSE_BACKENDS,
    BM25Params,
    SparseContext,
    SparseHit,
    SparseIndex,
    get_sparse_index,
)
from rag.index.sparse.bm25s_backend import BM25sIndex
from rag.index.sparse.qdrant_backend import QdrantSparseIndex
from rag.index.sparse.rank_bm25_backend import RankBM25Index

SPARSE_BACKENDS.add("rank-bm25", RankBM25Index)
SPARSE_BACKENDS.add("bm25s", BM25sIndex)
SPARSE_BACKENDS.add("qdrant", QdrantSparseIndex)

__all__ = [
    "SPARSE_BACKENDS",
    "BM25Params",
    "SparseContext",
    "SparseHit",
    "SparseIndex",
    "get_sparse_index",
]
