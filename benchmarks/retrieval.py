"""`python -m benchmarks retrieval`: all four speed measurements in one process on one corpus."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from benchmarks.speed import (
    BM25Speed,
    EmbedSpeed,
    HybridLatency,
    RefuseLatency,
    bm25_speed,
    embed_speed,
    hybrid_latency,
    refuse_latency,
)
from eval.data.beir import load_corpus, load_queries
from rag.config import PipelineConfig, with_overrides
from rag.documents.base import Document, DocumentMetadata
from rag.embed import EmbeddingConfig, get_embedder
from rag.index import Collection, open_collection
from rag.index.hits import RankedList

EmbeddingBackend = Literal["sentence-transformers", "onnx", "fastembed", "hashing"]
REFUSE_DEPTH = 200  # candidates per list in the re-fusion measurement


@dataclass(frozen=True)
class BenchSettings:
    max_passages: int | None = None  # None: the whole corpus
    max_queries: int = 200
    embed_texts: int = 1000  # subset for the embedding throughput comparison
    embed_rounds: int = 2
    hybrid_passages: int | None = None  # None: as many as max_passages
    embedding_backend: EmbeddingBackend = "sentence-transformers"
    depth: int = 100
    k: int = 60


@dataclass(frozen=True)
class RetrievalBench:
    corpus: str
    queries_file: str
    passages: int
    queries: int
    cpu_count: int
    settings: BenchSettings
    bm25: BM25Speed
    embedding: EmbedSpeed
    hybrid: HybridLatency
    refuse: RefuseLatency
    seconds: float

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2)


def bench_config(backend: EmbeddingBackend) -> PipelineConfig:
    """One chunk per passage (passages are < 8,000 characters), bm25s, MiniLM on `backend`."""
    return PipelineConfig.model_validate(
        {
            "name": "bench",
            "chunking": {"strategy": "recursive", "params": {"size": 8000, "overlap": 0}},
            "embedding": {"backend": backend},
            "index": {"sparse_backend": "bm25s"},
        }
    )


def passage_documents(corpus: Mapping[str, Mapping[str, str]]) -> list[Document]:
    documents = []
    for doc_id, doc in corpus.items():
        digest = hashlib.sha256(doc["text"].encode("utf-8")).hexdigest()
        meta = DocumentMetadata(
            source=f"bench:{doc_id}",
            title=doc.get("title") or doc_id,
            content_hash=digest,
            format="txt",
        )
        documents.append(Document(doc_id=doc_id, text=doc["text"], metadata=meta))
    return documents


def _bench_collection(documents: list[Document], config: PipelineConfig) -> Collection:
    """A collection per (passages, embedding backend); a second run finds it already built."""
    key = hashlib.sha256("\n".join(d.metadata.content_hash for d in documents).encode()).hexdigest()
    name = f"bench-{config.embedding.backend}-{len(documents)}-{key[:10]}"
    collection = open_collection(name, create=True)
    collection.add_documents(documents, config)
    return collection


def _hybrid(
    collection: Collection, config: PipelineConfig, queries: Sequence[str], settings: BenchSettings
) -> tuple[HybridLatency, list[RankedList]]:
    from rag.retrieve.fusion import rrf

    # queries are embedded fresh each time: the on-disk cache would hide the model's cost
    embedder = get_embedder(config.embedding.model_copy(update={"cache": False}))

    def run_query(query: str) -> dict[str, float]:
        marks = [time.perf_counter()]
        vector = embedder.embed_query(query)
        marks.append(time.perf_counter())
        dense = collection.dense_search(vector, settings.depth)
        marks.append(time.perf_counter())
        sparse = collection.sparse_search(query, settings.depth)
        marks.append(time.perf_counter())
        rrf([dense, sparse], k=settings.k)
        marks.append(time.perf_counter())
        names = ("embed_query", "dense", "bm25", "fuse")
        return {n: (b - a) * 1000 for n, a, b in zip(names, marks, marks[1:], strict=False)}

    result = hybrid_latency(
        run_query,
        queries,
        len(collection.manifest.documents),
        embedder.model_id,
        settings.depth,
        settings.k,
    )
    deep = [
        collection.dense_search(embedder.embed_query(queries[0]), REFUSE_DEPTH),
        collection.sparse_search(queries[0], REFUSE_DEPTH),
    ]
    return result, deep


def run_retrieval_bench(
    corpus_path: Path, queries_path: Path, settings: BenchSettings
) -> RetrievalBench:
    started = time.perf_counter()
    corpus = dict(load_corpus(corpus_path))
    if settings.max_passages:
        corpus = dict(list(corpus.items())[: settings.max_passages])
    queries = list(load_queries(queries_path).values())[: settings.max_queries]
    if not corpus or not queries:
        raise ValueError(
            f"the bench needs passages and queries; got {len(corpus)} and {len(queries)}"
        )
    texts = [doc["text"] for doc in corpus.values()]

    bm25 = bm25_speed(texts, queries, settings.depth)
    embedding = embed_speed(
        texts[: settings.embed_texts], EmbeddingConfig(), rounds=settings.embed_rounds
    )
    config = bench_config(settings.embedding_backend)
    documents = passage_documents(corpus)[: settings.hybrid_passages or len(corpus)]
    hybrid, deep_lists = _hybrid(_bench_collection(documents, config), config, queries, settings)
    refuse = refuse_latency(deep_lists, with_overrides(config, {"fusion.k": settings.k}))
    return RetrievalBench(
        corpus=str(corpus_path),
        queries_file=str(queries_path),
        passages=len(corpus),
        queries=len(queries),
        cpu_count=os.cpu_count() or 0,
        settings=settings,
        bm25=bm25,
        embedding=embedding,
        hybrid=hybrid,
        refuse=refuse,
        seconds=round(time.perf_counter() - started, 1),
    )


def summary_lines(result: RetrievalBench) -> list[str]:
    """The headline figures and ratios, one per line, for the terminal."""
    b, e, h, r = result.bm25, result.embedding, result.hybrid, result.refuse
    refuse: Any = f"p50 {r.latency.p50_ms} ms" if r.latency else r.status
    if r.fusion_only is not None:
        refuse += f", {r.tail_vs_fusion_p50}x the bare fusion ({r.fusion_only.p50_ms} ms)"
    return [
        f"BM25 on {b.passages} passages: bm25s {b.default_qps} q/s vs rank-bm25 {b.reference_qps} q/s "
        f"= {b.ratio}x (target >= {b.target_ratio}x)",
        f"embedding {e.texts} texts: ours {e.ours_texts_per_s}/s vs raw encode {e.raw_texts_per_s}/s "
        f"= {e.ratio}x (target >= {e.target_ratio}x)",
        f"hybrid on {h.passages} passages: p50 {h.latency.p50_ms} ms, p95 {h.latency.p95_ms} ms "
        f"(target p50 <= {h.target_p50_ms} ms)",
        f"re-fuse (pipeline tail) {r.lists} x {r.candidates_per_list} candidates: {refuse} "
        f"(target <= {r.target_p50_ms} ms)",
    ]
