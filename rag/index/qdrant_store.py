"""Qdrant: one shared client per process (local path by default, server when QDRANT_URL is set),
and a collection-bound store with named vectors `dense` and `sparse` side by side (IntelliDocs).
"""

from __future__ import annotations

import atexit
import os
import threading
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from rag.paths import data_dir

DENSE = "dense"
SPARSE = "sparse"
_UPSERT_BATCH = 256
_CLIENT: QdrantClient | None = None
_CLIENT_LOCATION: str | None = None
_CLIENT_LOCK = threading.Lock()


def qdrant_location() -> str:
    """`QDRANT_URL` when set (server mode), else the local folder under the data dir."""
    return os.environ.get("QDRANT_URL") or str(data_dir() / "qdrant")


def get_client() -> QdrantClient:
    """The process's one QdrantClient (local mode allows one client per path per process)."""
    global _CLIENT, _CLIENT_LOCATION
    location = qdrant_location()
    with _CLIENT_LOCK:
        if _CLIENT is None or location != _CLIENT_LOCATION:
            if _CLIENT is not None:
                _CLIENT.close()  # the data dir or URL changed: never hold two clients
            if os.environ.get("QDRANT_URL"):
                _CLIENT = QdrantClient(url=location, api_key=os.environ.get("QDRANT_API_KEY"))
            else:
                _CLIENT = QdrantClient(path=location)
            _CLIENT_LOCATION = location
        return _CLIENT


@atexit.register
def _close_client() -> None:
    """Close while the interpreter still works (local mode's __del__ fails during shutdown)."""
    global _CLIENT, _CLIENT_LOCATION
    with _CLIENT_LOCK:
        if _CLIENT is not None:
            _CLIENT.close()
        _CLIENT, _CLIENT_LOCATION = None, None


def point_id(chunk_id: str) -> str:
    """Qdrant ids are ints or UUIDs; a chunk id maps to a stable UUID (the id stays in the payload)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, chunk_id))


@dataclass(frozen=True)
class Point:
    """One chunk as Qdrant stores it."""

    chunk_id: str
    dense: np.ndarray
    sparse_indices: tuple[int, ...]
    sparse_values: tuple[float, ...]
    payload: dict[str, Any]


@dataclass(frozen=True)
class ScoredPayload:
    chunk_id: str
    score: float
    payload: dict[str, Any]


class QdrantStore:
    """A Qdrant collection: dense vectors (cosine), sparse vectors (dot, IDF modifier), payloads."""

    def __init__(self, collection: str) -> None:
        self.collection = collection

    @property
    def client(self) -> QdrantClient:
        """Looked up on every call, so a store never holds a client the process has replaced."""
        return get_client()

    def exists(self) -> bool:
        return self.client.collection_exists(self.collection)

    def create(self, dim: int) -> None:
        self.client.create_collection(
            self.collection,
            vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
        )
        if os.environ.get("QDRANT_URL"):  # payload indexes speed up server-side filtering
            for key in ("doc_id", "source", "doc_type", "level", "tags", "owner", "visibility"):
                self.client.create_payload_index(
                    self.collection, key, models.PayloadSchemaType.KEYWORD
                )

    def drop(self) -> None:
        if self.exists():
            self.client.delete_collection(self.collection)

    def upsert(self, points: Sequence[Point]) -> None:
        for start in range(0, len(points), _UPSERT_BATCH):
            batch = points[start : start + _UPSERT_BATCH]
            self.client.upsert(
                self.collection,
                points=[
                    models.PointStruct(
                        id=point_id(p.chunk_id),
                        vector={
                            DENSE: p.dense.tolist(),
                            SPARSE: models.SparseVector(
                                indices=list(p.sparse_indices), values=list(p.sparse_values)
                            ),
                        },
                        payload=p.payload,
                    )
                    for p in batch
                ],
                wait=True,
            )

    def delete(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            ids: list[models.ExtendedPointId] = [point_id(c) for c in chunk_ids]
            self.client.delete(self.collection, points_selector=models.PointIdsList(points=ids))

    def payloads(self, chunk_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Payloads by chunk id (missing ids are simply absent)."""
        if not chunk_ids:
            return {}
        records = self.client.retrieve(
            self.collection, ids=[point_id(c) for c in chunk_ids], with_payload=True
        )
        return {r.payload["chunk_id"]: dict(r.payload) for r in records if r.payload}

    def dense_vectors(self, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored dense vectors by chunk id (unit length: Qdrant normalizes for cosine)."""
        if not chunk_ids:
            return {}
        records = self.client.retrieve(
            self.collection,
            ids=[point_id(c) for c in chunk_ids],
            with_payload=["chunk_id"],
            with_vectors=[DENSE],
        )
        return {
            str(r.payload["chunk_id"]): np.asarray(r.vector[DENSE], dtype=np.float32)
            for r in records
            if r.payload and isinstance(r.vector, dict)
        }

    def scroll(
        self, qfilter: models.Filter | None = None, with_payload: bool = True
    ) -> Iterator[dict[str, Any]]:
        """Every payload matching `qfilter` (only `chunk_id` when with_payload is False)."""
        offset = None
        selector: bool | list[str] = True if with_payload else ["chunk_id"]
        while True:
            records, offset = self.client.scroll(
                self.collection,
                scroll_filter=qfilter,
                limit=1024,
                offset=offset,
                with_payload=selector,
            )
            for record in records:
                yield dict(record.payload or {})
            if offset is None:
                return

    def count(self) -> int:
        return self.client.count(self.collection, exact=True).count if self.exists() else 0

    def search_dense(
        self, vector: np.ndarray, limit: int, qfilter: models.Filter | None
    ) -> list[ScoredPayload]:
        return self._query(vector.tolist(), DENSE, limit, qfilter)

    def search_sparse(
        self, indices: list[int], values: list[float], limit: int, qfilter: models.Filter | None
    ) -> list[ScoredPayload]:
        query = models.SparseVector(indices=indices, values=values)
        return self._query(query, SPARSE, limit, qfilter)

    def _query(
        self, query: Any, using: str, limit: int, qfilter: models.Filter | None
    ) -> list[ScoredPayload]:
        response = self.client.query_points(
            self.collection,
            query=query,
            using=using,
            limit=limit,
            query_filter=qfilter,
            with_payload=True,
        )
        return [
            ScoredPayload(str(p.payload["chunk_id"]), float(p.score), dict(p.payload))
            for p in response.points
            if p.payload
        ]
