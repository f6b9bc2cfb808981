"""The retrieval speed measurements: BM25 backends, embedding throughput, hybrid and re-fusion latency.

Each function measures one thing on data it is given and returns a frozen result; `retrieval.py`
runs them in one process on the same corpus and writes the JSON.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from types import MappingProxyType

import numpy as np

from benchmarks.timing import Latency, seconds, summarize, time_each
from rag.config import PipelineConfig, with_overrides
from rag.embed import EmbeddingConfig, TextEmbedder, load_backend
from rag.embed.cache import EmbeddingCache
from rag.index.hits import RankedList
from rag.index.sparse import BM25Params, SparseContext, get_sparse_index
from rag.index.sparse.in_process import InProcessBM25
from rag.index.tokenizer import Tokenizer
from rag.settings.index import TokenizerConfig


@dataclass(frozen=True)
class BM25Speed:
    passages: int
    queries: int
    depth: int
    default_backend: str
    default_qps: float
    reference_backend: str
    reference_qps: float
    ratio: float  # default / reference queries per second
    target_ratio: float
    build_seconds: dict[str, float]
    top1_agreement: float  # share of queries whose best hit is the same in both backends


@dataclass(frozen=True)
class EmbedSpeed:
    model_id: str
    texts: int
    batch_size: int
    ours_texts_per_s: float
    raw_texts_per_s: float
    ratio: float  # ours / raw SentenceTransformer.encode
    target_ratio: float
    max_abs_diff: float  # ours vs raw normalized vectors: they must be the same vectors
    rounds: int


@dataclass(frozen=True)
class HybridLatency:
    passages: int
    queries: int
    depth: int
    embedding: str
    fusion: str
    latency: Latency  # embed query + dense + BM25 + RRF, per query
    stage_p50_ms: dict[str, float]
    first_query_ms: float
    target_p50_ms: float


@dataclass(frozen=True)
class RefuseLatency:
    """A slider move: the pipeline's tail (fuse → postprocess → authority → rerank → select, as
    rag.pipeline.run_tail runs it) over cached lists, and the bare fusion function for reference."""

    status: str  # "measured"
    candidates_per_list: int
    lists: int
    repeats: int
    latency: Latency | None  # the whole tail, with its trace
    target_p50_ms: float
    fusion_only: Latency | None = None  # rag.retrieve.fusion.fuse alone, same lists
    tail_vs_fusion_p50: float | None = None  # the runner's cost over the bare fusion


def bm25_speed(
    texts: Sequence[str], queries: Sequence[str], depth: int = 100, target_ratio: float = 5.0
) -> BM25Speed:
    """Queries/s of the default backend (bm25s) vs rank-bm25 over the same tokens, top-`depth`."""
    tokenize = Tokenizer(TokenizerConfig())
    corpus_tokens = tokenize.many(list(texts))
    query_tokens = [tokenize(q) for q in queries]
    qps: dict[str, float] = {}
    build: dict[str, float] = {}
    top1: dict[str, list[str | None]] = {}
    for name in ("bm25s", "rank-bm25"):
        qps[name], build[name], top1[name] = _time_backend(name, corpus_tokens, query_tokens, depth)
    agree = sum(a == b for a, b in zip(top1["bm25s"], top1["rank-bm25"], strict=True))
    return BM25Speed(
        passages=len(texts),
        queries=len(queries),
        depth=depth,
        default_backend="bm25s",
        default_qps=qps["bm25s"],
        reference_backend="rank-bm25",
        reference_qps=qps["rank-bm25"],
        ratio=round(qps["bm25s"] / qps["rank-bm25"], 2),
        target_ratio=target_ratio,
        build_seconds=build,
        top1_agreement=round(agree / max(1, len(queries)), 3),
    )


def _time_backend(
    name: str, corpus_tokens: list[list[str]], query_tokens: list[list[str]], depth: int
) -> tuple[float, float, list[str | None]]:
    """Queries/s, build seconds and each query's best chunk id for one in-process backend."""
    with tempfile.TemporaryDirectory() as tmp:
        index = get_sparse_index(name, SparseContext(Path(tmp), BM25Params()))
        assert isinstance(index, InProcessBM25)
        index.add([str(i) for i in range(len(corpus_tokens))], corpus_tokens)
        _, build_s = seconds(index.build)
        search = partial(index.search, depth=depth, qfilter=None)
        for tokens in query_tokens[:2]:  # warm-up
            search(tokens)
        samples, hits = time_each(search, query_tokens)
    qps = len(samples) / (sum(samples) / 1000)
    return round(qps, 2), round(build_s, 3), [h[0].chunk_id if h else None for h in hits]


def embed_speed(
    texts: Sequence[str], cfg: EmbeddingConfig, rounds: int = 2, target_ratio: float = 0.9
) -> EmbedSpeed:
    """Our embedder with a cold cache vs raw `SentenceTransformer.encode`, same model and texts.

    Rounds alternate raw and ours (each ours round with a fresh empty cache); the best round of
    each is reported, which discounts other load on the machine.
    """
    backend = load_backend(cfg.model_copy(update={"backend": "sentence-transformers"}))
    model = backend.model  # type: ignore[attr-defined]  # the SentenceTransformer itself
    batch = list(texts)
    model.encode(batch[:8], batch_size=cfg.batch_size)  # warm-up
    raw_best = ours_best = float("inf")
    raw = ours = np.zeros(0)
    for _ in range(rounds):
        encode = partial(
            model.encode,
            batch,
            batch_size=cfg.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
        )
        raw, raw_s = seconds(encode)
        with tempfile.TemporaryDirectory() as tmp:
            embedder = TextEmbedder(backend, cfg, EmbeddingCache(Path(tmp) / "cold.sqlite"))
            embedder.show_progress = False
            ours, ours_s = seconds(partial(embedder.embed_documents, batch))
        raw_best, ours_best = min(raw_best, raw_s), min(ours_best, ours_s)
    return EmbedSpeed(
        model_id=backend.model_id,
        texts=len(batch),
        batch_size=cfg.batch_size,
        ours_texts_per_s=round(len(batch) / ours_best, 2),
        raw_texts_per_s=round(len(batch) / raw_best, 2),
        ratio=round(raw_best / ours_best, 3),
        target_ratio=target_ratio,
        max_abs_diff=float(np.abs(np.asarray(ours) - np.asarray(raw)).max()) if len(batch) else 0.0,
        rounds=rounds,
    )


def hybrid_latency(
    run_query: Callable[[str], dict[str, float]],
    queries: Sequence[str],
    passages: int,
    embedding: str,
    depth: int,
    k: int,
    target_p50_ms: float = 100.0,
) -> HybridLatency:
    """Per-query wall time of `run_query` (embed + dense + BM25 + RRF); it returns stage times."""
    first = run_query(queries[0])  # pays one-time costs: BM25 build, first ONNX/torch call
    totals, per_query = time_each(run_query, queries)
    stages: dict[str, list[float]] = {}
    for stage_ms in per_query:
        for stage, ms in stage_ms.items():
            stages.setdefault(stage, []).append(ms)
    return HybridLatency(
        passages=passages,
        queries=len(queries),
        depth=depth,
        embedding=embedding,
        fusion=f"rrf k={k}",
        latency=summarize(totals),
        stage_p50_ms={s: summarize(ms).p50_ms for s, ms in stages.items()},
        first_query_ms=round(sum(first.values()), 3),
        target_p50_ms=target_p50_ms,
    )


def refuse_latency(
    lists: Sequence[RankedList], config: PipelineConfig, repeats: int = 200,
    target_p50_ms: float = 5.0,
) -> RefuseLatency:
    """The pipeline's tail over already-retrieved lists, as after a slider move (no model, no
    index touched), timed against the bare fusion function on the same lists in this process."""
    from rag.pipeline import initial_state, run_tail
    from rag.retrieve.fusion import fuse

    per_list = max((len(r.candidates) for r in lists), default=0)
    config = with_overrides(config, {"retrieval.depth": max(per_list, 1),
                                     "retrieval.top_k": min(config.retrieval.top_k, per_list or 1)})
    named = MappingProxyType({r.retriever: r for r in lists})
    seeded = replace(initial_state("bench", config), lists=named)
    tail, _ = time_each(lambda _: run_tail(seeded, config), range(repeats))
    bare, _ = time_each(lambda _: fuse(named, config.fusion), range(repeats))
    tail_p50, bare_p50 = summarize(tail), summarize(bare)
    ratio = round(tail_p50.p50_ms / bare_p50.p50_ms, 2) if bare_p50.p50_ms else None
    return RefuseLatency("measured", per_list, len(lists), repeats, tail_p50, target_p50_ms,
                         bare_p50, ratio)
