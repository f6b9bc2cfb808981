"""`python -m benchmarks privacy`: what the owner/visibility filter costs a search.

One collection of the corpus's passages (hashing embedder: the filter is what is measured, not
the model). First every passage is public, so searches run without the privacy clause; then one
private passage is added, and the same searches run as anonymous and as its owner. Also timed:
the count of private points a reader makes once per manifest version (rag.index.collection
`holds_private`), and the first BM25 search after it, which builds the in-process filter mask.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.retrieval import bench_config, passage_documents
from benchmarks.timing import Latency, summarize, time_each
from eval.data.beir import load_corpus, load_queries
from rag.config import with_overrides
from rag.documents.base import Document, DocumentMetadata
from rag.embed import get_embedder
from rag.index import Access, Collection, delete_collection, list_collections, open_collection
from rag.settings.retrieval import FilterConfig

OWNER = "bench-owner"


@dataclass(frozen=True)
class Searches:
    dense: Latency
    bm25: Latency


@dataclass(frozen=True)
class PrivacyBench:
    corpus: str
    passages: int
    queries: int
    depth: int
    load_average: tuple[float, float, float]
    public: Searches  # no private point: no privacy clause
    anonymous: Searches  # one private point: public only
    owner: Searches  # one private point: public + the owner's
    count_private_ms: float  # once per manifest version
    first_bm25_after_change_ms: float  # builds the BM25 filter mask
    dense_ratio: float  # anonymous p50 / public p50
    bm25_ratio: float

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2)


def _searches(collection: Collection, queries: list[str], vectors: np.ndarray, depth: int,
              owner: str | None) -> Searches:
    filters = FilterConfig(owner=owner)
    dense, _ = time_each(lambda v: collection.dense_search(v, depth, filters), list(vectors))
    bm25, _ = time_each(lambda q: collection.sparse_search(q, depth, filters), queries)
    return Searches(summarize(dense), summarize(bm25))


def run_privacy_bench(corpus_path: Path, queries_path: Path, max_queries: int = 200,
                      depth: int = 100) -> PrivacyBench:
    documents = passage_documents(load_corpus(corpus_path))
    queries = list(load_queries(queries_path).values())[:max_queries]
    config = with_overrides(bench_config("sentence-transformers"), {"embedding.backend": "hashing"})
    key = hashlib.sha256("\n".join(d.metadata.content_hash for d in documents).encode())
    name = f"privacy-bench-{len(documents)}-{key.hexdigest()[:10]}"
    if name in list_collections():
        delete_collection(name)  # a fresh start: the private passage must be the only one
    collection = open_collection(name, create=True)
    collection.add_documents(documents, config, progress=False)
    embedder = get_embedder(config.embedding)
    vectors = np.stack([embedder.embed_query(q) for q in queries])
    public = _searches(collection, queries, vectors, depth, None)
    text = "A private note of the bench owner about the package archive."
    meta = DocumentMetadata(source="bench:private", title="private", format="txt",
                            content_hash=hashlib.sha256(text.encode()).hexdigest())
    collection.add_documents([Document("bench-private", text, meta)], config, progress=False,
                             access=Access(owner=OWNER, visibility="private"))
    started = time.perf_counter()
    if not collection.holds_private():
        raise RuntimeError("the private passage was not counted")
    count_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    collection.sparse_search(queries[0], depth, FilterConfig())
    first_bm25_ms = (time.perf_counter() - started) * 1000
    anonymous = _searches(collection, queries, vectors, depth, None)
    owner = _searches(collection, queries, vectors, depth, OWNER)
    delete_collection(name)
    return PrivacyBench(
        corpus=str(corpus_path), passages=len(documents), queries=len(queries), depth=depth,
        load_average=os.getloadavg(), public=public, anonymous=anonymous, owner=owner,
        count_private_ms=round(count_ms, 3), first_bm25_after_change_ms=round(first_bm25_ms, 3),
        dense_ratio=round(anonymous.dense.p50_ms / public.dense.p50_ms, 3),
        bm25_ratio=round(anonymous.bm25.p50_ms / public.bm25.p50_ms, 3),
    )


def summary_lines(result: PrivacyBench) -> list[str]:
    load = ", ".join(f"{x:.1f}" for x in result.load_average)
    return [
        f"{result.passages} passages, {result.queries} queries, depth {result.depth} "
        f"(load average {load})",
        f"dense p50: public {result.public.dense.p50_ms:.2f} ms, with the privacy clause "
        f"{result.anonymous.dense.p50_ms:.2f} ms ({result.dense_ratio:.2f}x)",
        f"bm25  p50: public {result.public.bm25.p50_ms:.2f} ms, with the privacy clause "
        f"{result.anonymous.bm25.p50_ms:.2f} ms ({result.bm25_ratio:.2f}x)",
        f"counting private points (once per manifest version): {result.count_private_ms:.1f} ms; "
        f"first BM25 search after a change: {result.first_bm25_after_change_ms:.1f} ms",
    ]
