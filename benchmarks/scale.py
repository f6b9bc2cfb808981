"""`python -m benchmarks scale`: one collection per size — ingest time, disk, memory, hybrid latency.

Each size is measured in a child process with its own data folder, so resident memory and the
embedded Qdrant's load are that size's alone (embedded Qdrant holds every collection of its folder
in memory). The children share one embedding cache, so sizes can be run in parts without paying
the same passages twice; each point says how many passages it embedded and how many came from the
cache, and splits ingest time into embedding and indexing so a warm point is not mistaken for a
cold one.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.retrieval import BenchSettings, _hybrid, bench_config, passage_documents
from benchmarks.timing import Latency
from eval.data.beir import load_corpus, load_queries
from rag.config import with_overrides
from rag.embed import TextEmbedder, get_embedder
from rag.index import open_collection
from rag.paths import data_dir

CACHE_NAME = "embeddings.sqlite"


@dataclass(frozen=True)
class ScalePoint:
    passages: int
    embedding: str
    ingest_seconds: float
    embed_seconds: float  # of ingest_seconds: the embedder's calls
    index_seconds: float  # the rest: chunking, Qdrant upserts, BM25 build
    encoded: int  # passages the model embedded at this point
    cache_hits: int  # passages whose vectors came from the shared cache
    disk_bytes: int  # the data folder without the embedding cache: Qdrant + BM25 + manifest
    rss_mb: float  # resident memory after the queries (model + store + BM25 in memory)
    hybrid: Latency  # embed query + dense + BM25 + RRF, per query
    queries: int
    load_average: tuple[float, float, float]


class _TimedEmbedder:
    """Delegates to a TextEmbedder and adds up the seconds spent in it."""

    def __init__(self, inner: TextEmbedder) -> None:
        self.inner, self.model_id, self.seconds = inner, inner.model_id, 0.0

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        start = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - start

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


def _folder_bytes(root: Path, skip: str) -> int:
    return sum(
        p.stat().st_size for p in root.rglob("*") if p.is_file() and skip not in p.parts
    )


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def measure_point(
    corpus: Path, queries: Path, size: int, backend: str, max_queries: int, onnx_variant: str
) -> ScalePoint:
    """Build a collection of the corpus's first `size` passages here, then time hybrid queries.
    Runs in the child process (`python -m benchmarks.scale`) whose data folder is fresh."""
    passages = dict(list(load_corpus(corpus).items())[:size])
    texts = list(load_queries(queries).values())[:max_queries]
    config = bench_config(backend)  # type: ignore[arg-type]  # the CLI checks the choices
    if onnx_variant:
        config = with_overrides(config, {"embedding.onnx_variant": onnx_variant})
    inner = get_embedder(config.embedding)
    inner.show_progress = False
    embedder = _TimedEmbedder(inner)
    collection = open_collection(f"scale-{size}", create=True)
    start = time.perf_counter()
    collection.add_documents(passage_documents(passages), config, embedder=embedder, progress=False)
    ingest = time.perf_counter() - start
    settings = BenchSettings(max_queries=max_queries)
    hybrid, _ = _hybrid(collection, config, texts, settings)
    return ScalePoint(
        passages=len(passages),
        embedding=inner.model_id,
        ingest_seconds=round(ingest, 2),
        embed_seconds=round(embedder.seconds, 2),
        index_seconds=round(ingest - embedder.seconds, 2),
        encoded=inner.stats.encoded,
        cache_hits=inner.stats.cache_hits,
        disk_bytes=_folder_bytes(data_dir(), "cache"),
        rss_mb=_rss_mb(),
        hybrid=hybrid.latency,
        queries=len(texts),
        load_average=os.getloadavg(),
    )


def run_point_in_child(
    corpus: Path, queries: Path, size: int, backend: str, max_queries: int, work: Path,
    onnx_variant: str = "",
) -> ScalePoint:
    """`measure_point` in a new process on `work/size-<n>`, sharing `work/cache/embeddings`."""
    folder = work / f"size-{size}"
    shared = work / "shared-cache" / CACHE_NAME
    (folder / "cache" / "embeddings").mkdir(parents=True, exist_ok=True)
    shared.parent.mkdir(parents=True, exist_ok=True)
    link = folder / "cache" / "embeddings" / CACHE_NAME
    if not link.exists():
        link.symlink_to(shared.resolve())
    env = {**os.environ, "RAG_WORKBENCH_DATA": str(folder)}
    args = [str(corpus), str(queries), str(size), backend, str(max_queries), onnx_variant]
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.scale", *args],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"scale point {size} failed:\n{done.stderr[-2000:]}")
    raw = json.loads(done.stdout.strip().splitlines()[-1])
    return ScalePoint(**{**raw, "hybrid": Latency(**raw["hybrid"]),
                         "load_average": tuple(raw["load_average"])})


def run_scale(
    corpus: Path, queries: Path, sizes: Sequence[int], backend: str, max_queries: int, work: Path,
    onnx_variant: str = "",
) -> list[ScalePoint]:
    """One point per size, smallest first; `onnx_variant` ("": the default) picks the onnx graph."""
    available = sum(1 for _ in corpus.open(encoding="utf-8"))
    points = []
    for size in sorted(sizes):
        if size > available:
            raise ValueError(f"--sizes asks for {size} passages; {corpus} has {available}")
        points.append(
            run_point_in_child(corpus, queries, size, backend, max_queries, work, onnx_variant)
        )
    return points


def to_json(points: Sequence[ScalePoint], corpus: Path) -> str:
    return json.dumps(
        {"corpus": str(corpus), "cpu_count": os.cpu_count(),
         "points": [dataclasses.asdict(p) for p in points]}, indent=2,
    )  # fmt: skip


def summary_lines(points: Sequence[ScalePoint]) -> list[str]:
    return [
        f"{p.passages:>7} passages: ingest {p.ingest_seconds} s (embed {p.embed_seconds} s for "
        f"{p.encoded} new, {p.cache_hits} cached), disk {p.disk_bytes / 1e6:.1f} MB, RSS "
        f"{p.rss_mb} MB, hybrid p50 {p.hybrid.p50_ms} ms / p95 {p.hybrid.p95_ms} ms "
        f"(load {p.load_average[0]:.1f})"
        for p in points
    ]


if __name__ == "__main__":  # the child: one point, printed as one JSON line
    corpus_arg, queries_arg, size_arg, backend_arg, max_queries_arg, variant_arg = sys.argv[1:7]
    point = measure_point(Path(corpus_arg), Path(queries_arg), int(size_arg), backend_arg,
                          int(max_queries_arg), variant_arg)
    print(json.dumps(dataclasses.asdict(point)))
