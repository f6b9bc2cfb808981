"""The store on a Qdrant server or cluster (`QDRANT_URL`): the same schema, payload indexes and
filters as the embedded Edge store, through qdrant-client."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from rag.index.edge_client import HNSW_EF_CONSTRUCT, HNSW_EF_SEARCH, HNSW_M
from rag.index.fastembed_hidden import fastembed_hidden
from rag.index.filters import AtLeast, Condition, Filter, HasId, MatchAny, point_id
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

_UPSERT_BATCH = 256


class ServerClient:
    """qdrant-client against a server; the server serialises access itself."""

    def __init__(self, url: str, client: QdrantClient | None = None) -> None:
        """A client for `url`; or `client` as given (qdrant-client's local mode, for the parity
        tests and the scale benchmark's side-by-side run)."""
        if client is None:
            with fastembed_hidden():
                client = QdrantClient(url=url, api_key=os.environ.get("QDRANT_API_KEY"))
        self.client = client

    def exists(self, collection: str) -> bool:
        return self.client.collection_exists(collection)

    def describe(self, collection: str) -> StoreSchema:
        info = self.client.get_collection(collection)
        vectors = info.config.params.vectors
        return StoreSchema(
            dense={n: v.size for n, v in vectors.items()} if isinstance(vectors, dict) else {},
            sparse=tuple(sorted(info.config.params.sparse_vectors or {})),
            indexed={k: str(getattr(s.data_type, "value", s.data_type)).lower()
                     for k, s in info.payload_schema.items()},
        )  # fmt: skip

    def create(self, collection: str, dim: int) -> None:
        self.client.create_collection(
            collection,
            vectors_config={DENSE: models.VectorParams(size=dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            hnsw_config=models.HnswConfigDiff(m=HNSW_M, ef_construct=HNSW_EF_CONSTRUCT),
        )
        for key in KEYWORD_FIELDS:
            self.client.create_payload_index(collection, key, models.PayloadSchemaType.KEYWORD)
        for key in FLOAT_FIELDS:
            self.client.create_payload_index(collection, key, models.PayloadSchemaType.FLOAT)

    def drop(self, collection: str) -> None:
        if self.client.collection_exists(collection):
            self.client.delete_collection(collection)

    def upsert(self, collection: str, points: Sequence[Point]) -> None:
        for start in range(0, len(points), _UPSERT_BATCH):
            batch = [_point_struct(p) for p in points[start : start + _UPSERT_BATCH]]
            self.client.upsert(collection, points=batch, wait=True)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        if ids:
            selector = models.PointIdsList(points=list[models.ExtendedPointId](ids))
            self.client.delete(collection, points_selector=selector)

    def optimize(self, collection: str) -> None:
        return None  # the server's optimizers run in the background

    def retrieve(
        self, collection: str, ids: Sequence[str], payload: bool | list[str], dense: bool
    ) -> list[StoredRecord]:
        if not ids:
            return []
        records = self.client.retrieve(
            collection, ids=list(ids), with_payload=payload, with_vectors=[DENSE] if dense else False
        )
        out = []
        for r in records:
            vector = r.vector.get(DENSE) if dense and isinstance(r.vector, dict) else None
            array = None if vector is None else np.asarray(vector, dtype=np.float32)
            out.append(StoredRecord(dict(r.payload or {}), array))
        return out

    def scroll(
        self, collection: str, qfilter: Filter | None, payload: bool | list[str]
    ) -> Iterator[dict[str, Any]]:
        offset = None
        while True:
            records, offset = self.client.scroll(
                collection, scroll_filter=to_models(qfilter), limit=1024, offset=offset, with_payload=payload
            )
            for record in records:
                yield dict(record.payload or {})
            if offset is None:
                return

    def count(self, collection: str, qfilter: Filter | None) -> int:
        if not self.client.collection_exists(collection):
            return 0
        return self.client.count(collection, count_filter=to_models(qfilter), exact=True).count

    def query(
        self, collection: str, query: Query, using: str, limit: int,
        qfilter: Filter | None, exact: bool = False,
    ) -> list[ScoredPayload]:  # fmt: skip
        return [
            ScoredPayload(str(p.payload["chunk_id"]), float(p.score), dict(p.payload))
            for p in self._query(collection, query, using, limit, qfilter, exact, payload=True)
            if p.payload
        ]

    def query_ids(
        self, collection: str, query: Query, using: str, limit: int, qfilter: Filter | None,
    ) -> list[ScoredId]:  # fmt: skip
        hits = self._query(collection, query, using, limit, qfilter, False, payload=False)
        return [ScoredId(str(p.id), float(p.score)) for p in hits]

    def _query(
        self, collection: str, query: Query, using: str, limit: int,
        qfilter: Filter | None, exact: bool, payload: bool,
    ) -> list[models.ScoredPoint]:  # fmt: skip
        vector: Any
        if isinstance(query, SparseQuery):
            vector = models.SparseVector(indices=list(query.indices), values=list(query.values))
        else:
            vector = np.asarray(query, dtype=np.float32).tolist()
        response = self.client.query_points(
            collection, query=vector, using=using, limit=limit, query_filter=to_models(qfilter),
            with_payload=payload,
            search_params=models.SearchParams(hnsw_ef=HNSW_EF_SEARCH, exact=exact),
        )  # fmt: skip
        return response.points

    def close(self) -> None:
        self.client.close()


def to_models(qfilter: Filter | None) -> models.Filter | None:
    """The store's filter tree as qdrant-client models (what a server reads)."""
    if qfilter is None:
        return None

    def many(conditions: tuple[Condition, ...]) -> list[Any] | None:
        return [_condition(c) for c in conditions] or None

    return models.Filter(must=many(qfilter.must), should=many(qfilter.should),
                         must_not=many(qfilter.must_not))  # fmt: skip


def _condition(condition: Condition) -> Any:
    if isinstance(condition, Filter):
        return to_models(condition)
    if isinstance(condition, HasId):
        return models.HasIdCondition(has_id=list[models.ExtendedPointId](condition.ids))
    if isinstance(condition, MatchAny):
        return models.FieldCondition(key=condition.key, match=models.MatchAny(any=list(condition.values)))
    if isinstance(condition, AtLeast):
        return models.FieldCondition(key=condition.key, range=models.Range(gte=condition.value))
    raise TypeError(f"not a filter condition: {condition!r}")


def _point_struct(p: Point) -> models.PointStruct:
    return models.PointStruct(
        id=point_id(p.chunk_id),
        vector={
            DENSE: np.asarray(p.dense, dtype=np.float32).tolist(),
            SPARSE: models.SparseVector(indices=list(p.sparse_indices), values=list(p.sparse_values)),
        },
        payload=p.payload,
    )
