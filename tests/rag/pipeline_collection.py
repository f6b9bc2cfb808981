"""An in-memory collection for pipeline tests: real BM25 (rank-bm25) and real cosine search over
vectors from the configured embedder, behind the same calls as rag.index.Collection."""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import MappingProxyType

import numpy as np
from rank_bm25 import BM25Okapi

from rag.chunking.base import Chunk
from rag.embed.base import Embedder
from rag.index.hits import Candidate, RankedList, RetrieverHit
from rag.settings.retrieval import FilterConfig

CORPUS = {
    "rrf": "Reciprocal rank fusion adds one over k plus rank for every list a document is in.",
    "bm25": "BM25 scores documents by term frequency, inverse document frequency and length.",
    "dense": "Dense retrieval embeds query and passages and ranks passages by cosine similarity.",
    "qdrant": "Qdrant stores dense and sparse vectors with payloads for filtering by source.",
    "chunk": "A chunker splits a document into spans that keep their character offsets.",
    "toc": "Contents\nFusion ........ 3\nRetrieval ........ 7\nIndex ........ 11",
}


def _tokens(text: str) -> list[str]:
    return re.findall(r"\w\w+", text.lower())


def make_chunks(corpus: dict[str, str] = CORPUS) -> list[Chunk]:
    return [
        Chunk(cid, f"doc-{cid}", 0, len(text), text, metadata=MappingProxyType({"tags": [cid]}))
        for cid, text in corpus.items()
    ]


class MemoryCollection:
    """Counts its searches so tests can tell a cache hit from a search."""

    def __init__(self, name: str, chunks: Sequence[Chunk], embedder: Embedder | None) -> None:
        self.name = name
        self.chunks = list(chunks)
        self.bm25 = BM25Okapi([_tokens(c.text) for c in self.chunks])
        self.vectors = embedder.embed_documents([c.text for c in self.chunks]) if embedder else None
        self.searches: list[tuple[str, str | None, FilterConfig]] = []

    def _ranked(self, name: str, scores: np.ndarray, depth: int) -> RankedList:
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], self.chunks[i].chunk_id))
        kept = [i for i in order if name == "dense" or scores[i] > 0][:depth]
        return RankedList(name, tuple(
            Candidate(self.chunks[i], float(scores[i]),
                      {name: RetrieverHit(name, rank, float(scores[i]))})
            for rank, i in enumerate(kept, start=1)
        ))  # fmt: skip

    def dense_search(
        self, query_vector: np.ndarray, depth: int, filters: FilterConfig
    ) -> RankedList:
        assert self.vectors is not None, "built without an embedder"
        self.searches.append(("dense", None, filters))
        return self._ranked("dense", self.vectors @ np.asarray(query_vector), depth)

    def sparse_search(self, query: str, depth: int, filters: FilterConfig) -> RankedList:
        self.searches.append(("bm25", query, filters))
        return self._ranked("bm25", np.asarray(self.bm25.get_scores(_tokens(query))), depth)
