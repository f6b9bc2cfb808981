"""The model-running half of retrieval: embed the query, ask the collection for BM25 and dense
lists (over-fetched to `retrieval.depth`), and cache them so re-fusing never searches again.

Cache key: (collection, its last update, query text, retriever, hash of every setting that
changes a list: chunking, embedding, index, depth, filters). Fusion, post-processing and top_k are
not in the key, so moving those sliders reuses the lists.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

import numpy as np

from rag.records.hits import Candidate, RankedList, SearchableCollection, SearchQuery
from rag.settings.embedding import EmbeddingConfig
from rag.settings.pipeline import PipelineConfig
from rag.settings.retrieval import FilterConfig, RetrievalConfig
from rag.stages import Shared

CACHE_SIZE = 512  # ranked lists kept in memory (one per query × retriever × settings)


@dataclass(frozen=True)
class Retrieved:
    """Ranked lists by name ("bm25", "dense", "dense#q2" …), which came from the cache, and the
    time each search took."""

    lists: Mapping[str, RankedList]
    cached: tuple[str, ...] = ()
    timings_ms: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))


def list_settings_hash(retrieval: RetrievalConfig, index_key: str, filters: FilterConfig | None = None
                       ) -> str:  # fmt: skip
    """Hash of the settings that change a retrieved list (not fusion, post-processing, top_k):
    the index's (`Shared.index_key`: chunking, embedding, index) and retrieval's."""
    settings = {
        "index": index_key,
        "embedders": {name: cfg.model_dump(mode="json", exclude={"batch_size", "cache"})
                      for name, cfg in retrieval.embedders.items()},
        "depth": retrieval.depth,
        "filters": (filters or retrieval.filters).model_dump(mode="json"),
    }
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


class _ListCache:
    """A small thread-safe LRU of ranked lists (pages run queries from several threads)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, ...], RankedList] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, ...]) -> RankedList | None:
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: tuple[str, ...], value: RankedList) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_CACHE = _ListCache(CACHE_SIZE)


def clear_candidate_cache() -> None:
    _CACHE.clear()


def _relabel(ranked: RankedList, name: str) -> RankedList:
    return ranked if ranked.retriever == name else RankedList(name, ranked.candidates)


def retrieve_lists(
    queries: Sequence[SearchQuery],
    config: PipelineConfig,
    collection: SearchableCollection,
    filters: FilterConfig | None = None,
    version: str = "",
    shared: Shared | None = None,
) -> Retrieved:
    """One ranked list per (query variant, configured retriever), from the cache when possible.
    `version` changes whenever the collection's documents do (IndexRef.version), so stale lists
    are never served. `shared`: the run's (the index's embedder and settings key), else taken
    from `config`."""
    shared = shared or Shared.of(config)
    filters = filters or config.retrieval.filters
    depth = config.retrieval.depth
    base_key = (
        collection.name,
        version,
        list_settings_hash(config.retrieval, shared.index_key, filters),
    )
    lists: dict[str, RankedList] = {}
    cached: list[str] = []
    timings: dict[str, float] = {}
    vectors: dict[str, np.ndarray] = {}
    for query in queries:
        for retriever in config.retrieval.retrievers:
            if query.retrievers is not None and retriever not in query.retrievers:
                continue
            name = query.list_name(retriever)
            key = (*base_key, retriever, query.text)
            hit = _CACHE.get(key)
            if hit is not None:
                lists[name] = _relabel(hit, name)
                cached.append(name)
                continue
            started = time.perf_counter()
            if retriever in config.retrieval.embedders:
                from rag.retrieve.extra_dense import extra_dense_search  # late: loads a model

                ranked = extra_dense_search(collection, retriever,  # type: ignore[arg-type]
                                            config.retrieval.embedders[retriever], query.text,
                                            depth, filters, version)
            elif retriever == "dense":
                if query.text not in vectors:
                    from rag.embed import get_embedder  # late: loads a model backend

                    vectors[query.text] = get_embedder(shared.embedding).embed_query(query.text)
                    timings[f"embed:{name}"] = (time.perf_counter() - started) * 1000
                    started = time.perf_counter()
                ranked = collection.dense_search(vectors[query.text], depth, filters)
            else:
                ranked = collection.sparse_search(query.text, depth, filters)
            timings[name] = (time.perf_counter() - started) * 1000
            _CACHE.put(key, ranked)
            lists[name] = _relabel(ranked, name)
    return Retrieved(MappingProxyType(lists), tuple(cached), MappingProxyType(timings))


class StoredVectors(Protocol):
    """An index that keeps its chunks' vectors (rag.index.Index)."""

    def vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]: ...


def candidate_vectors(
    candidates: Sequence[Candidate], embedding: EmbeddingConfig, stored: StoredVectors | None = None
) -> dict[str, np.ndarray]:
    """Embeddings of the candidates' chunks for de-duplication: the stored index's vectors
    (IndexRef.stored), else the embedder (whose disk cache holds them)."""
    if not candidates:
        return {}
    ids = [c.chunk_id for c in candidates]
    if stored is not None:
        return dict(stored.vectors(ids))
    from rag.embed import get_embedder  # late: loads a model backend

    matrix = get_embedder(embedding).embed_documents([c.chunk.text for c in candidates])
    return dict(zip(ids, matrix, strict=True))
