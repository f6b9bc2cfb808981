"""One store, several engines: the same calls on Qdrant Edge (the embedded default), on
qdrant-client's local mode (the reference implementation qdrant-client ships), and on a Qdrant
server when QDRANT_URL is set, with the results compared (qdrant-client's congruence tests are
the model). Filters are the ones the product builds (rag.index.filters.build_filter)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from rag.index.edge_client import EdgeClient
from rag.index.filters import Filter, build_filter, point_id, visibility_filter
from rag.index.points import DENSE, SPARSE, Point, SparseQuery, StoreClient
from rag.index.server_client import ServerClient
from rag.settings.retrieval import FilterConfig

N, DIM, SEED = 300, 24, 7
OWNERS = ("alice", "bob", "carol")
TAGS = ("ops", "hr", "legal", "eng")
DOC_TYPES = ("faq", "book")

FILTERS: dict[str, Filter | None] = {
    "none": None,
    "public only": build_filter(FilterConfig()),
    "alice": build_filter(FilterConfig(owner="alice")),
    "bob, tags ops|legal": build_filter(FilterConfig(owner="bob", tags=["ops", "legal"])),
    "sources": build_filter(FilterConfig(owner="carol", sources=["doc3.txt", "doc7.txt"])),
    "doc type and level": build_filter(FilterConfig(doc_types=["faq"], levels=["chunk"])),
    "time window": build_filter(FilterConfig(owner="alice"), since=150.0),
    "hidden ids": build_filter(FilterConfig(owner="bob"), hidden=[f"c{i}" for i in range(0, N, 3)]),
    "private": visibility_filter("private"),
    "matches nothing": build_filter(FilterConfig(tags=["no-such-tag"])),
}


def make_points() -> list[Point]:
    rng = np.random.default_rng(SEED)
    points = []
    for i in range(N):
        private = i % 4 == 0
        terms = sorted(set(rng.integers(0, 60, size=rng.integers(1, 8)).tolist()))
        payload = {
            "chunk_id": f"c{i}", "doc_id": f"d{i // 10}", "source": f"doc{i // 10}.txt",
            "text": f"passage {i}", "start": 0, "end": 10, "parent_id": None,
            "level": "chunk" if i % 5 else "parent", "doc_type": DOC_TYPES[i % 2],
            "tags": sorted({TAGS[i % 4], TAGS[(i // 7) % 4]}), "created_at": float(i),
            "owner": OWNERS[i % 3] if private else None,
            "visibility": "private" if private else "public",
        }  # fmt: skip
        values = tuple(float(v) for v in rng.uniform(0.1, 2.0, size=len(terms)))
        points.append(Point(f"c{i}", rng.normal(size=DIM).astype(np.float32), tuple(terms),
                            values, payload))  # fmt: skip
    return points


def _edge(tmp: Path) -> StoreClient:
    return EdgeClient(tmp / "edge")


def _local(tmp: Path) -> StoreClient:
    return ServerClient("", client=QdrantClient(location=":memory:"))


def _server(tmp: Path) -> StoreClient:
    url = os.environ.get("RAG_WORKBENCH_PARITY_QDRANT_URL")  # QDRANT_URL, kept by conftest.py
    if not url:
        pytest.skip("QDRANT_URL is not set: no Qdrant server to compare Edge with")
    return ServerClient(url)


ENGINES = {"local-mode": _local, "server": _server}


@pytest.fixture(params=sorted(ENGINES))
def pair(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[StoreClient, StoreClient, str]]:
    """Edge and the engine it is compared with, holding the same points in one collection."""
    name = f"parity-{uuid.uuid4().hex[:8]}"
    other = ENGINES[request.param](tmp_path)
    edge = _edge(tmp_path)
    points = make_points()
    for client in (edge, other):
        client.create(name, DIM)
        client.upsert(name, points)
        client.optimize(name)
    yield edge, other, name
    for client in (edge, other):
        client.drop(name)
        client.close()


def test_schema_and_payload_indexes_match(pair: tuple[StoreClient, StoreClient, str]) -> None:
    edge, other, name = pair
    ours = edge.describe(name)
    assert ours.dense == {DENSE: DIM} and ours.sparse == (SPARSE,)
    assert set(ours.indexed) == {"doc_id", "source", "doc_type", "level", "tags", "owner",
                                 "visibility", "created_at"}  # fmt: skip
    theirs = other.describe(name)
    assert theirs.dense == ours.dense and theirs.sparse == ours.sparse


@pytest.mark.parametrize("label", list(FILTERS))
def test_count_and_scroll_agree(pair: tuple[StoreClient, StoreClient, str], label: str) -> None:
    edge, other, name = pair
    qfilter = FILTERS[label]
    ids = {p["chunk_id"] for p in edge.scroll(name, qfilter, ["chunk_id"])}
    assert ids == {p["chunk_id"] for p in other.scroll(name, qfilter, ["chunk_id"])}
    assert edge.count(name, qfilter) == other.count(name, qfilter) == len(ids)
    if label == "matches nothing":
        assert ids == set()
    elif label == "none":
        assert len(ids) == N


@pytest.mark.parametrize("label", list(FILTERS))
def test_dense_and_sparse_queries_agree(pair: tuple[StoreClient, StoreClient, str], label: str) -> None:
    edge, other, name = pair
    qfilter = FILTERS[label]
    rng = np.random.default_rng(SEED + 1)
    for _ in range(5):
        vector = rng.normal(size=DIM).astype(np.float32)
        ours = edge.query(name, vector, DENSE, 10, qfilter, exact=True)
        theirs = other.query(name, vector, DENSE, 10, qfilter, exact=True)
        assert [h.chunk_id for h in ours] == [h.chunk_id for h in theirs]
        assert np.allclose([h.score for h in ours], [h.score for h in theirs], atol=1e-4)
        assert all(h.payload == t.payload for h, t in zip(ours, theirs, strict=True))
        sparse = SparseQuery((3, 17, 41), (1.0, 1.0, 2.0))
        ours = edge.query(name, sparse, SPARSE, 10, qfilter)
        theirs = other.query(name, sparse, SPARSE, 10, qfilter)
        assert {h.chunk_id: round(h.score, 4) for h in ours} == {
            h.chunk_id: round(h.score, 4) for h in theirs
        }


@pytest.mark.parametrize("label", ["none", "alice", "hidden ids", "matches nothing"])
def test_id_only_queries_name_the_same_points(pair: tuple[StoreClient, StoreClient, str], label: str) -> None:
    """query_ids is query without payloads: the same points (by point id) and scores."""
    edge, other, name = pair
    qfilter = FILTERS[label]
    vector = np.random.default_rng(SEED + 2).normal(size=DIM).astype(np.float32)
    for client in (edge, other):
        full = client.query(name, vector, DENSE, 10, qfilter)
        ids = client.query_ids(name, vector, DENSE, 10, qfilter)
        assert [h.point_id for h in ids] == [point_id(h.chunk_id) for h in full]
        assert np.allclose([h.score for h in ids], [h.score for h in full])
    theirs = other.query_ids(name, vector, DENSE, 10, qfilter)
    assert [h.point_id for h in edge.query_ids(name, vector, DENSE, 10, qfilter)] == [
        h.point_id for h in theirs
    ]


def test_retrieve_returns_the_same_payloads_and_unit_vectors(
    pair: tuple[StoreClient, StoreClient, str],
) -> None:
    edge, other, name = pair
    ids = [point_id(f"c{i}") for i in (0, 5, 299)] + [str(uuid.uuid4())]  # one unknown
    ours = {r.payload["chunk_id"]: r for r in edge.retrieve(name, ids, True, dense=True)}
    theirs = {r.payload["chunk_id"]: r for r in other.retrieve(name, ids, True, dense=True)}
    assert set(ours) == set(theirs) == {"c0", "c5", "c299"}
    for key, record in ours.items():
        assert record.payload == theirs[key].payload
        assert record.dense is not None and theirs[key].dense is not None
        assert np.allclose(record.dense, theirs[key].dense, atol=1e-5)
        assert np.linalg.norm(record.dense) == pytest.approx(1.0, abs=1e-5)


def test_deleted_points_are_gone_from_every_read(pair: tuple[StoreClient, StoreClient, str]) -> None:
    """Deletes land the same way. (Sparse scores may then differ a little: the engine counts a
    deleted point in its IDF statistics until the segment is vacuumed, local mode at once.)"""
    edge, other, name = pair
    gone = {f"c{i}" for i in range(0, N, 2)}
    sparse = SparseQuery((3, 17, 41), (1.0, 1.0, 2.0))
    vector = np.random.default_rng(SEED + 2).normal(size=DIM).astype(np.float32)
    for client in (edge, other):
        client.delete(name, [point_id(c) for c in sorted(gone)])
        client.optimize(name)
        assert client.count(name, None) == N - len(gone)
        assert not gone & {p["chunk_id"] for p in client.scroll(name, None, ["chunk_id"])}
        assert not gone & {h.chunk_id for h in client.query(name, vector, DENSE, N, None, exact=True)}
        assert not gone & {h.chunk_id for h in client.query(name, sparse, SPARSE, N, None)}
        assert client.retrieve(name, [point_id("c0")], True, dense=False) == []
    dense = [[h.chunk_id for h in c.query(name, vector, DENSE, 10, None, exact=True)]
             for c in (edge, other)]  # fmt: skip
    assert dense[0] == dense[1]
