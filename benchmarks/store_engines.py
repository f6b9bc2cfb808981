"""`python -m benchmarks scale --engines edge,local-mode`: the embedded store side by side.

For each size and engine, a child process with a fresh data folder ingests the corpus's first
passages through the product's own path (Collection.add_documents: chunk, embed, BM25, store) --
85 % public, 15 % private to one of five users -- then times, per query and with the query vector
computed beforehand (the embedding is left out):
- dense search under the privacy filter the product applies (public OR owner = me);
- hybrid: that dense search + BM25 (bm25s) under the same filter + RRF k=60;
- dense search without a filter.
Ingest is split into embedding, the engine's index build (Edge's optimize: HNSW) and the rest;
peak memory is the child's maximum resident set. `local-mode` is qdrant-client's local mode, the
embedded store of earlier versions (its commits without fsync, as it ran in the product).
With `reuse`, a collection an earlier run left in the work folder is searched as it is (no
ingest: the ingest, embedding, build and memory figures are then null, and the note says so).
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.retrieval import bench_config, passage_documents
from benchmarks.scale import CACHE_NAME, _TimedEmbedder
from benchmarks.timing import Latency, summarize
from eval.data.beir import load_corpus, load_queries
from rag.config import PipelineConfig
from rag.documents.base import Document
from rag.embed import Embedder, get_embedder
from rag.index import Access, list_collections, open_collection
from rag.paths import data_dir
from rag.retrieve.fusion import rrf
from rag.settings.retrieval import FilterConfig

ENGINES = ("edge", "local-mode")
USERS = 5
PRIVATE_EVERY = 7  # one passage in 7 (14.3 %) is private to user i % 5
DEPTH, RRF_K = 100, 60


@dataclass(frozen=True)
class EnginePoint:
    engine: str
    passages: int
    private: int
    embedding: str
    ingest_seconds: float | None  # None: a reused collection, not built by this run
    embed_seconds: float | None
    index_build_seconds: float | None  # the engine's own index build (Edge: optimize -> HNSW)
    peak_rss_mb: float | None
    dense_filtered: Latency
    hybrid_filtered: Latency
    dense_unfiltered: Latency
    # the same calls in this process's CPU time (all its threads): what the wall times come to
    # without waiting for a core, on a machine others share
    cpu_dense_filtered: Latency
    cpu_hybrid_filtered: Latency
    cpu_dense_unfiltered: Latency
    queries: int
    load_average: tuple[float, float, float]


def _use_local_mode() -> None:
    """Seed this process's lease with qdrant-client local mode (the old embedded store)."""
    import sqlite3

    from qdrant_client import QdrantClient

    from rag.index.qdrant_store import qdrant_location
    from rag.index.server_client import ServerClient
    from rag.index.store_lease import LEASE

    local = QdrantClient(path=str(data_dir() / "local-mode"))
    client = ServerClient("", client=local)
    create = client.create

    def create_without_fsync(collection: str, dim: int) -> None:
        create(collection, dim)
        holder = local._client.collections.get(collection)  # type: ignore[union-attr]
        connection = getattr(getattr(holder, "storage", None), "storage", None)
        if isinstance(connection, sqlite3.Connection):  # what the product did with local mode
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")

    client.create = create_without_fsync  # type: ignore[method-assign]
    LEASE.client, LEASE.location = client, qdrant_location()


def _timed_optimize() -> list[float]:
    """Seconds spent in the engine's index build, appended per call."""
    from rag.index.edge_client import EdgeClient

    spent: list[float] = []
    original = EdgeClient.optimize

    def optimize(self: EdgeClient, collection: str) -> None:
        started = time.perf_counter()
        original(self, collection)
        spent.append(time.perf_counter() - started)

    EdgeClient.optimize = optimize  # type: ignore[method-assign]
    return spent


def _ingest(documents: list[Document], config: PipelineConfig, embedder: Embedder) -> None:
    """85 % public, the rest private to one of USERS users, through the product's own path."""
    collection = open_collection("engines", create=True)
    public = [d for i, d in enumerate(documents) if i % PRIVATE_EVERY]
    collection.add_documents(public, config, embedder=embedder, progress=False)
    for user in range(USERS):
        mine = [d for i, d in enumerate(documents) if not i % PRIVATE_EVERY and i % USERS == user]
        access = Access(owner=f"u{user}", visibility="private")
        collection.add_documents(mine, config, access=access, embedder=embedder, progress=False)


def measure(corpus: Path, queries: Path, size: int, backend: str, engine: str,
            max_queries: int, reuse: bool = False) -> EnginePoint:  # fmt: skip
    if engine == "local-mode":
        _use_local_mode()
    spent = _timed_optimize()
    passages = dict(list(load_corpus(corpus).items())[:size])
    documents = passage_documents(passages)
    private = sum(1 for i in range(len(documents)) if not i % PRIVATE_EVERY)
    config = bench_config(backend)  # type: ignore[arg-type]  # the CLI checks the choices
    inner = get_embedder(config.embedding)
    inner.show_progress = False
    embedder = _TimedEmbedder(inner)
    built = reuse and "engines" in list_collections()
    started = time.perf_counter()
    if not built:
        _ingest(documents, config, embedder)
    ingest = time.perf_counter() - started
    collection = open_collection("engines")
    if built and len(collection.manifest.documents) != len(documents):
        raise RuntimeError(f"--reuse: the collection in the work folder holds "
                           f"{len(collection.manifest.documents)} passages, not {len(documents)}")
    texts = list(load_queries(queries).values())[:max_queries]
    vectors = [inner.embed_query(t) for t in texts]  # outside the timings
    mine_only = FilterConfig(owner="u1")
    dense_f: list[float] = []
    hybrid_f: list[float] = []
    dense_u: list[float] = []
    cpu_f: list[float] = []
    cpu_h: list[float] = []
    cpu_u: list[float] = []
    for text, vector in zip(texts, vectors, strict=True):
        t0, c0 = time.perf_counter(), time.process_time()
        dense = collection.dense_search(vector, DEPTH, mine_only)
        t1, c1 = time.perf_counter(), time.process_time()
        sparse = collection.sparse_search(text, DEPTH, mine_only)
        rrf([dense, sparse], k=RRF_K)
        t2, c2 = time.perf_counter(), time.process_time()
        collection.dense_search(vector, DEPTH)
        t3, c3 = time.perf_counter(), time.process_time()
        for out, start, end in ((dense_f, t0, t1), (hybrid_f, t0, t2), (dense_u, t2, t3),
                                (cpu_f, c0, c1), (cpu_h, c0, c2), (cpu_u, c2, c3)):  # fmt: skip
            out.append((end - start) * 1000)
    return EnginePoint(
        engine=engine, passages=len(documents), private=private, embedding=inner.model_id,
        ingest_seconds=None if built else round(ingest, 2),
        embed_seconds=None if built else round(embedder.seconds, 2),
        index_build_seconds=None if built else round(sum(spent), 2),
        peak_rss_mb=None if built else round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        dense_filtered=summarize(dense_f), hybrid_filtered=summarize(hybrid_f),
        dense_unfiltered=summarize(dense_u), cpu_dense_filtered=summarize(cpu_f),
        cpu_hybrid_filtered=summarize(cpu_h), cpu_dense_unfiltered=summarize(cpu_u),
        queries=len(texts),
        load_average=os.getloadavg(),
    )  # fmt: skip


def run_in_child(corpus: Path, queries: Path, size: int, backend: str, engine: str,
                 max_queries: int, work: Path, reuse: bool = False) -> EnginePoint:  # fmt: skip
    folder = work / f"{engine}-{size}"
    if not reuse and folder.exists():  # a fresh data folder, or ingest would skip what is there
        shutil.rmtree(folder)
    shared = work / "shared-cache" / CACHE_NAME
    (folder / "cache" / "embeddings").mkdir(parents=True, exist_ok=True)
    shared.parent.mkdir(parents=True, exist_ok=True)
    link = folder / "cache" / "embeddings" / CACHE_NAME
    if not link.exists():
        link.symlink_to(shared.resolve())
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(folder)}
    args = [str(corpus), str(queries), str(size), backend, engine, str(max_queries), str(int(reuse))]
    done = subprocess.run([sys.executable, "-m", "benchmarks.store_engines", *args],
                          env=env, capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{engine} at {size} failed:\n{done.stderr[-2000:]}")
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    latencies = {k: Latency(**v) for k, v in raw.items() if isinstance(v, dict)}
    return EnginePoint(**{**raw, **latencies, "load_average": tuple(raw["load_average"])})


def run_engines(corpus: Path, queries: Path, sizes: Sequence[int], engines: Sequence[str],
                backend: str, max_queries: int, work: Path, local_max: int = 50_000,
                reuse: bool = False) -> tuple[list[EnginePoint], list[str]]:  # fmt: skip
    """Every (size, engine), smallest first; local mode only up to `local_max` passages (its
    brute-force search and in-memory load make larger sizes take hours). Returns the points and
    the wall time each took, as notes."""
    points, notes = [], []
    for size in sorted(sizes):
        for engine in engines:
            if engine == "local-mode" and size > local_max:
                notes.append(f"local-mode at {size}: not run (over {local_max})")
                continue
            started = time.perf_counter()
            point = run_in_child(corpus, queries, size, backend, engine, max_queries, work, reuse)
            points.append(point)
            how = "collection reused, not built" if point.ingest_seconds is None else "built"
            notes.append(f"{engine} at {size}: {time.perf_counter() - started:.0f} s wall ({how})")
    return points, notes


def to_json(points: Sequence[EnginePoint], notes: Sequence[str], corpus: Path, command: str) -> str:
    return json.dumps({"command": command, "corpus": str(corpus), "cpu_count": os.cpu_count(),
                       "notes": list(notes), "points": [dataclasses.asdict(p) for p in points]},
                      indent=2)  # fmt: skip


def summary_lines(points: Sequence[EnginePoint]) -> list[str]:
    return [
        f"{p.engine:>10} {p.passages:>7}: ingest {p.ingest_seconds} s (embed {p.embed_seconds} s, "
        f"index build {p.index_build_seconds} s), peak RSS {p.peak_rss_mb} MB, filtered dense p50 "
        f"{p.dense_filtered.p50_ms} ms, hybrid p50 {p.hybrid_filtered.p50_ms} ms, unfiltered "
        f"dense p50 {p.dense_unfiltered.p50_ms} ms; CPU p50 {p.cpu_dense_filtered.p50_ms} / "
        f"{p.cpu_hybrid_filtered.p50_ms} / {p.cpu_dense_unfiltered.p50_ms} ms "
        f"(load {p.load_average[0]:.1f})"
        for p in points
    ]


if __name__ == "__main__":  # the child: one point, printed as one JSON line
    c, q, n, b, e, m, r = sys.argv[1:8]
    point = measure(Path(c), Path(q), int(n), b, e, int(m), reuse=r == "1")
    print(json.dumps(dataclasses.asdict(point), default=lambda x: np.asarray(x).tolist()))
