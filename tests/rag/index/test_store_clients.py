"""One store client per process: Qdrant Edge in the data folder by default, a server when
QDRANT_URL is set; one process at a time per Edge shard (the finding the lease rests on); and
collections an older version kept in qdrant-client's local mode migrated on first open."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from qdrant_client import QdrantClient, models
from qdrant_client.qdrant_remote import QdrantRemote

from rag.config import PipelineConfig, load_preset, with_overrides
from rag.embed import get_embedder
from rag.index import open_collection
from rag.index.collection import Collection
from rag.index.edge_client import EdgeClient
from rag.index.qdrant_store import Point, QdrantStore, get_client, qdrant_location, release_client
from rag.index.server_client import ServerClient
from rag.paths import SAMPLES_DIR, data_dir


class _VersionOnly(BaseHTTPRequestHandler):
    """Answers the client's version check (GET /) the way a Qdrant server does."""

    checked = threading.Event()

    def do_GET(self) -> None:
        body = json.dumps({"title": "qdrant", "version": "1.20.0"}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        _VersionOnly.checked.set()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def server_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _VersionOnly)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_edge_by_default_and_shared() -> None:
    assert qdrant_location() == str(data_dir() / "edge")
    assert get_client() is get_client()
    assert isinstance(get_client(), EdgeClient)


def test_qdrant_url_switches_to_server_mode_without_holding_two_clients(
    monkeypatch: pytest.MonkeyPatch, server_url: str
) -> None:
    local = get_client()
    monkeypatch.setenv("QDRANT_URL", server_url)
    remote = get_client()
    assert isinstance(remote, ServerClient) and remote is not local
    assert isinstance(remote.client._client, QdrantRemote)
    assert get_client() is remote
    assert _VersionOnly.checked.wait(10)  # the client asked the server for its version
    monkeypatch.delenv("QDRANT_URL")
    assert isinstance(get_client(), EdgeClient)


def test_writes_survive_a_reopen() -> None:
    store = QdrantStore("reopen-check")
    store.drop()
    store.create(4)
    points = [Point(f"c{i}", np.full(4, i + 1.0), (i,), (1.0,), {"chunk_id": f"c{i}"})
              for i in range(3)]
    store.upsert(points)
    release_client()  # the next use opens the folder afresh and reads what was written
    assert set(QdrantStore("reopen-check").payloads(["c0", "c1", "c2"])) == {"c0", "c1", "c2"}
    assert (data_dir() / "edge" / "collection" / "reopen-check" / "edge_config.json").is_file()


_SECOND_OPENER = """
import sys, qdrant_edge
try:
    shard = qdrant_edge.EdgeShard.load(sys.argv[1])
except Exception as exc:
    print("refused", exc)
else:
    print("opened", shard.count(qdrant_edge.CountRequest(exact=True)))
"""


def test_a_second_process_cannot_open_a_shard_another_holds() -> None:
    """The finding the lease rests on: Edge locks a shard's WAL, so a second process is refused
    (not silently given a diverging copy) while the first holds it, and opens it once released."""
    store = QdrantStore("two-processes")
    store.drop()
    store.create(4)
    store.upsert([Point("c0", np.ones(4), (0,), (1.0,), {"chunk_id": "c0"})])
    shard = str(data_dir() / "edge" / "collection" / "two-processes")
    run = [sys.executable, "-c", _SECOND_OPENER, shard]
    held = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert held.stdout.startswith("refused") and "WouldBlock" in held.stdout
    release_client()
    free = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert free.stdout.split() == ["opened", "1"], free.stderr


def _build_the_old_way(name: str) -> None:
    """What the previous version did: the points in qdrant-client's local mode at <data>/qdrant
    (same schema, ids and payloads), copied here from a collection ingested with Edge."""
    store = QdrantStore(name)
    listed = sorted(open_collection(name).manifest.chunk_ids)
    payloads, vectors = store.payloads(listed), store.dense_vectors(listed)
    with QdrantStore(name).session() as client:
        assert isinstance(client, EdgeClient)
        sparse = {r.payload["chunk_id"]: r for r in client._shard(name).retrieve(
            [p for p in (point_id_of(c) for c in listed)], True, ["sparse"])}  # fmt: skip
    local = QdrantClient(path=str(data_dir() / "qdrant"))
    local.create_collection(
        name, vectors_config={"dense": models.VectorParams(size=len(next(iter(vectors.values()))),
                                                             distance=models.Distance.COSINE)},
        sparse_vectors_config={"sparse": models.SparseVectorParams(modifier=models.Modifier.IDF)},
    )  # fmt: skip
    local.upsert(name, [
        models.PointStruct(id=point_id_of(c), payload=payloads[c], vector={
            "dense": vectors[c].tolist(),
            "sparse": models.SparseVector(indices=sparse[c].vector["sparse"].indices,
                                          values=sparse[c].vector["sparse"].values)})
        for c in listed])  # fmt: skip
    local.close()
    store.drop()
    release_client()


def point_id_of(chunk_id: str) -> str:
    from rag.index.filters import point_id

    return point_id(chunk_id)


def _answers(collection: Collection, config: PipelineConfig) -> list[tuple[str, float]]:
    """Dense and BM25 hits for a few questions, straight from the store (no cached candidates)."""
    embedder = get_embedder(config.embedding)
    out = []
    for question in ("How long do deleted notes stay in the trash?", "sync conflicts", "tags"):
        vector = embedder.embed_query(question)
        for ranked in (collection.dense_search(vector, 10), collection.sparse_search(question, 10)):
            out += [(c.chunk.chunk_id, round(c.score, 5)) for c in ranked.candidates]
    return out


def test_a_collection_built_with_local_mode_is_migrated_on_first_open(
    hashing_presets: None, caplog: pytest.LogCaptureFixture
) -> None:
    from rag.documents import ingest_paths

    name = "old-way"
    config = with_overrides(load_preset("hybrid"), {"index.collection": name})
    files = sorted(p for p in SAMPLES_DIR.iterdir() if p.suffix in {".txt", ".md"})
    collection = open_collection(name, create=True)
    collection.add_documents(ingest_paths(files).documents, config, progress=False)
    before = _answers(collection, config)
    _build_the_old_way(name)
    assert not (data_dir() / "edge" / "collection" / name).exists()  # only the old store has them
    with caplog.at_level(logging.WARNING, logger="rag.index.legacy_local"):
        reopened = open_collection(name)
        after = _answers(reopened, config)
    lines = [r.getMessage() for r in caplog.records if "migrated collection" in r.getMessage()]
    assert len(lines) == 1 and f"{name!r}" in lines[0] and "no re-parse" in lines[0]
    assert after == before and len(after) > 20
    assert reopened.store.count() == reopened.manifest.chunk_count
    assert (data_dir() / "qdrant.migrated").is_dir() and not (data_dir() / "qdrant").exists()
    release_client()  # a second open finds nothing left to migrate
    caplog.clear()
    assert open_collection(name).store.count() == reopened.manifest.chunk_count
    assert not [r for r in caplog.records if "migrated collection" in r.getMessage()]
