"""BM25 as Qdrant sparse vectors: documents carry the BM25 term-frequency part, Qdrant adds IDF.

A token's index is a 32-bit hash (no vocabulary to keep in sync; a collision merges two rare
terms). Document values are tf·(k1+1)/(tf + k1·(1 - b + b·|d|/avgdl)) (Robertson & Zaragoza
2009); query values are term counts; Qdrant's Modifier.IDF multiplies in the Lucene idf.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from rag.index.sparse.base import BM25Params


def token_index(token: str) -> int:
    return int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=4).digest(), "big")


def _counts(tokens: list[str]) -> Counter[int]:
    return Counter(token_index(t) for t in tokens)


def document_vector(
    tokens: list[str], avgdl: float, params: BM25Params
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    counts = _counts(tokens)
    norm = params.k1 * (1 - params.b + params.b * len(tokens) / max(avgdl, 1e-9))
    indices = tuple(sorted(counts))
    return indices, tuple(counts[i] * (params.k1 + 1) / (counts[i] + norm) for i in indices)


def query_vector(tokens: list[str]) -> tuple[list[int], list[float]]:
    counts = _counts(tokens)
    indices = sorted(counts)
    return indices, [float(counts[i]) for i in indices]
