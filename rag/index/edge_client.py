"""The embedded store: Qdrant Edge (the Qdrant engine in-process: HNSW, payload indexes, WAL),
one shard per collection under `<data>/edge/collection/<name>`.

A shard's WAL is locked by the process that opened it (a second process gets `WouldBlock`, tested
in tests/rag/index/test_edge_store.py), so one process at a time holds the whole folder: this
client flocks `<root>/.lock`, which is what the lease (store_lease.py) waits for and hands over.
Shards open lazily, on a collection's first use, and stay open until the client closes.
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import portalocker
import qdrant_edge as edge

from rag.index.edge_filters import to_edge
from rag.index.filters import Filter, point_id
from rag.index.points import (
    DENSE,
    FLOAT_FIELDS,
    KEYWORD_FIELDS,
    SPARSE,
    Point,
    Query,
    ScoredId,
    ScoredPayload,
    SparseQuery,
    StoredRecord,
    StoreSchema,
)

_log = logging.getLogger(__name__)
_SCROLL_PAGE = 1024

# HNSW and indexing parameters, chosen by measurement (docs/store.md, benchmarks/results/
# edge_hnsw_debian.json): recall@10 against exact search >= 0.99 on MiniLM embeddings of the Debian
# passages, and no index below the size where exact search is as fast.
HNSW_M = 16
HNSW_EF_CONSTRUCT = 100
HNSW_EF_SEARCH = 128
# KB of vectors a segment holds before the optimizer builds its HNSW graph (below: exact scan).
# 3,000 KB = 2,000 MiniLM vectors: exact search is as fast up to about there and the graph 5x
# faster from 5,000 under the privacy filter (benchmarks/results/edge_exact_vs_hnsw_by_size.json:
# p50 exact/graph 0.26/0.29 ms at 1,000 points, 0.61/0.44 at 2,500, 2.84/0.56 at 5,000).
INDEXING_THRESHOLD_KB = 3_000
# KB of vectors a filter must let through for the graph to be used; fewer: scan the payload index
FULL_SCAN_THRESHOLD_KB = 10_000
# Threads of the shard's search pool. One: a search right after the query embedding otherwise
# waits for onnxruntime's spinning threads on a small machine (measured on 2 cores, 2,000
# points: p50 11.3 ms with the default pool, 0.7 ms with one thread; alone 0.37 / 0.32 ms).
SEARCH_THREADS = 1


@dataclass(frozen=True)
class EdgeParams:
    """The engine's index settings (the defaults above; benchmarks/store_hnsw.py varies them)."""

    m: int = HNSW_M
    ef_construct: int = HNSW_EF_CONSTRUCT
    ef_search: int = HNSW_EF_SEARCH
    indexing_threshold_kb: int = INDEXING_THRESHOLD_KB
    full_scan_threshold_kb: int = FULL_SCAN_THRESHOLD_KB
    search_threads: int = SEARCH_THREADS


class FolderTakenError(RuntimeError):
    """Another process holds the Edge folder (its lock could not be taken without waiting)."""


def shard_config(dim: int | None, params: EdgeParams) -> edge.EdgeConfig:
    """The collection schema: named vectors `dense` (cosine) and `sparse` (dot, IDF modifier)."""
    vectors = {DENSE: edge.EdgeVectorParams(size=dim, distance=edge.Distance.Cosine)} if dim else None
    return edge.EdgeConfig(
        vectors=vectors,
        sparse_vectors={SPARSE: edge.EdgeSparseVectorParams(modifier=edge.Modifier.Idf)},
        hnsw_config=edge.HnswIndexConfig(
            m=params.m,
            ef_construct=params.ef_construct,
            full_scan_threshold=params.full_scan_threshold_kb,
        ),
        optimizers=edge.EdgeOptimizersConfig(indexing_threshold=params.indexing_threshold_kb),
        max_search_threads=params.search_threads,
        # payloads (chunk text) kept in the page cache: a search returns 100 of them, and cold
        # reads from disk dominated the 50k point's latency (docs/store.md)
        payload_memory=edge.Memory.Cached,
    )


class EdgeClient:
    """This process's handle on the Edge folder (held under its lock until `close`)."""

    def __init__(self, root: Path, params: EdgeParams | None = None) -> None:
        self.root = root
        self.params = params or EdgeParams()
        root.mkdir(parents=True, exist_ok=True)
        self._lock_file: IO[str] | None = open(root / ".lock", "a+")
        try:
            portalocker.lock(self._lock_file, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.LockException:
            self._lock_file.close()
            self._lock_file = None
            raise FolderTakenError(f"{root} is already accessed by another process") from None
        self._shards: dict[str, edge.EdgeShard] = {}
        self._guard = threading.RLock()
        self._search_params = {
            exact: edge.SearchParams(hnsw_ef=self.params.ef_search, exact=exact)
            for exact in (False, True)
        }

    # -- shards ------------------------------------------------------------------------------
    def path(self, collection: str) -> Path:
        return self.root / "collection" / collection

    def _shard(self, collection: str) -> edge.EdgeShard:
        with self._guard:
            shard = self._shards.get(collection)
            if shard is None:
                if not self.exists(collection):
                    raise KeyError(f"no Edge shard for collection {collection!r}")
                shard = edge.EdgeShard.load(str(self.path(collection)))
                self._shards[collection] = shard
            return shard

    def exists(self, collection: str) -> bool:
        return (self.path(collection) / "edge_config.json").is_file()

    def describe(self, collection: str) -> StoreSchema:
        config = json.loads((self.path(collection) / "edge_config.json").read_text())
        schema = self._shard(collection).info().payload_schema
        return StoreSchema(
            dense={name: int(v["size"]) for name, v in (config.get("vectors") or {}).items()},
            sparse=tuple(sorted(config.get("sparse_vectors") or {})),
            indexed={key: str(i.data_type).rsplit(".", 1)[-1].lower() for key, i in schema.items()},
        )

    def create(self, collection: str, dim: int) -> None:
        with self._guard:
            path = self.path(collection)
            if path.exists():  # a create a crash interrupted before its config landed
                shutil.rmtree(path)
            path.mkdir(parents=True)
            shard = edge.EdgeShard.create(str(path), shard_config(dim, self.params))
            for key in KEYWORD_FIELDS:
                shard.update(edge.UpdateOperation.create_field_index(key, edge.PayloadSchemaType.Keyword))
            for key in FLOAT_FIELDS:
                shard.update(edge.UpdateOperation.create_field_index(key, edge.PayloadSchemaType.Float))
            shard.flush()
            self._shards[collection] = shard

    def close_shard(self, collection: str) -> None:
        """Flush and close one shard (it re-opens on its next use)."""
        with self._guard:
            shard = self._shards.pop(collection, None)
            if shard is not None:
                shard.flush()
                shard.close()

    def drop(self, collection: str) -> None:
        with self._guard:
            shard = self._shards.pop(collection, None)
            if shard is not None:
                shard.close()
            shutil.rmtree(self.path(collection), ignore_errors=True)

    # -- writes ------------------------------------------------------------------------------
    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        if points:
            self._shard(collection).update(edge.UpdateOperation.upsert_points([_point(p) for p in points]))

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        if ids and self.exists(collection):
            self._shard(collection).update(edge.UpdateOperation.delete_points(list(ids)))

    def optimize(self, collection: str) -> None:
        """Build what the written segments need (HNSW above the threshold), then persist them."""
        if self.exists(collection):
            shard = self._shard(collection)
            shard.optimize()
            shard.flush()

    # -- reads -------------------------------------------------------------------------------
    def retrieve(
        self, collection: str, ids: Sequence[str], payload: bool | list[str], dense: bool
    ) -> list[StoredRecord]:
        if not ids or not self.exists(collection):
            return []
        records = self._shard(collection).retrieve(list(ids), payload, [DENSE] if dense else False)
        return [_record(r, dense) for r in records]

    def scroll(
        self, collection: str, qfilter: Filter | None, payload: bool | list[str]
    ) -> Iterator[dict[str, Any]]:
        if not self.exists(collection):
            return
        shard, efilter = self._shard(collection), to_edge(qfilter)
        offset = None
        while True:
            request = edge.ScrollRequest(
                offset=offset, limit=_SCROLL_PAGE, filter=efilter, with_payload=payload
            )
            records, offset = shard.scroll(request)
            for record in records:
                yield dict(record.payload or {})
            if offset is None:
                return

    def count(self, collection: str, qfilter: Filter | None) -> int:
        if not self.exists(collection):
            return 0
        return self._shard(collection).count(edge.CountRequest(filter=to_edge(qfilter), exact=True))

    def query(
        self, collection: str, query: Query, using: str, limit: int,
        qfilter: Filter | None, exact: bool = False,
    ) -> list[ScoredPayload]:  # fmt: skip
        out = []
        for hit in self._query(collection, query, using, limit, qfilter, exact, payload=True):
            payload = hit.payload  # each read of the property converts the whole payload again
            if payload:
                out.append(ScoredPayload(str(payload["chunk_id"]), hit.score, payload))
        return out

    def query_ids(
        self, collection: str, query: Query, using: str, limit: int, qfilter: Filter | None,
    ) -> list[ScoredId]:  # fmt: skip
        """Ids and scores only: reading 100 payloads is most of a filtered query's time at 50k
        (0.37 vs 1.5 ms p50, docs/store.md)."""
        hits = self._query(collection, query, using, limit, qfilter, False, payload=False)
        return [ScoredId(str(hit.id), hit.score) for hit in hits]

    def _query(
        self, collection: str, query: Query, using: str, limit: int,
        qfilter: Filter | None, exact: bool, payload: bool,
    ) -> list[Any]:  # fmt: skip
        vector: Any
        if isinstance(query, SparseQuery):
            vector = edge.SparseVector(list(query.indices), list(query.values))
        else:
            vector = np.asarray(query, dtype=np.float32).tolist()
        request = edge.QueryRequest(
            limit=limit,
            query=edge.Query.Nearest(vector, using=using),
            filter=to_edge(qfilter),
            with_payload=payload,
            params=self._search_params[exact],
        )
        return self._shard(collection).query(request)

    def close(self) -> None:
        with self._guard:
            for shard in self._shards.values():
                shard.flush()
                shard.close()
            self._shards.clear()
            if self._lock_file is not None:
                portalocker.unlock(self._lock_file)
                self._lock_file.close()
                self._lock_file = None


def _point(p: Point) -> edge.Point:
    vector = {
        DENSE: np.asarray(p.dense, dtype=np.float32).tolist(),
        SPARSE: edge.SparseVector(list(p.sparse_indices), list(p.sparse_values)),
    }
    return edge.Point(point_id(p.chunk_id), vector, p.payload)


def _record(record: Any, dense: bool) -> StoredRecord:
    vectors = record.vector if dense else None
    vector = vectors.get(DENSE) if isinstance(vectors, dict) else None
    return StoredRecord(
        record.payload or {}, None if vector is None else np.asarray(vector, dtype=np.float32)
    )
